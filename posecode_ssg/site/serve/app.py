"""The dev server's Starlette app: static files of the private output, client injection, SSE."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import unicodedata
from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from .livesite import LiveSite

#: URL prefix reserved for the dev server's own endpoints (never a site path).
LIVE_PREFIX = "/__posecode"
#: The tag injected into every HTML response (and nowhere else).
CLIENT_TAG = f'<script src="{LIVE_PREFIX}/livereload.js" defer></script>'

#: Content types set explicitly: Python's ``mimetypes`` answers differently
#: per version and per /etc/mime.types (``.mjs`` is unknown on some systems,
#: ``.js`` was ``application/javascript`` before 3.12). RFC 9239 names
#: ``text/javascript`` for both script extensions.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".wasm": "application/wasm",
}

#: Output paths the build names by content hash (``assets/style.<10 hex>.css``,
#: ``assets/posters/<20 hex>.svg``): served as immutable.
HASHED_ASSET_RE = re.compile(r"^assets/(?:.*/)?(?:[^/]*\.)?[0-9a-f]{10,}\.[a-z0-9]+$")


def inject_client(page: bytes) -> bytes:
    """Insert ``CLIENT_TAG`` before the last ``</body>`` (or append it)."""
    tag = CLIENT_TAG.encode()
    lower = page.lower()
    at = lower.rfind(b"</body>")
    if at < 0:
        return page + tag
    return page[:at] + tag + page[at:]


class SiteFiles(StaticFiles):
    """Starlette ``StaticFiles`` over the private output, for a dev server.

    Starlette already refuses ``..`` (normalised away), absolute paths and
    symlinks resolving outside the folder (``follow_symlink=False`` compares
    real paths). Added here: waiting for a running build, the live-reload
    client injected into HTML, the last good version of pages with errors,
    explicit content types, ``no-cache`` everywhere, and 404 pages that also
    carry the client (so a tab on a deleted page comes back when it returns).
    """

    def __init__(self, live: LiveSite) -> None:
        super().__init__(directory=live.out_dir, html=True, check_dir=False)
        self.live = live

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.live.wait_idle()
        await super().__call__(scope, receive, send)

    async def check_config(self) -> None:
        """No start-up check: the folder appears only once a build succeeds."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            response = await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code != 404:
                raise
            # A decomposed (NFD) spelling of a composed file name, as some
            # tools and macOS send it, names the same page.
            alt = unicodedata.normalize("NFC", path)
            if alt != path:
                with contextlib.suppress(HTTPException):
                    return await super().get_response(alt, scope)
            return self._not_found()
        if response.status_code == 404:
            return self._not_found()
        return response

    def _not_found(self) -> Response:
        if not self.live.out_dir.is_dir():
            # No build has succeeded yet (the build keeps nothing when it has
            # errors): say so; the injected client shows the errors.
            page = (b"<!doctype html><meta charset=utf-8><title>No site yet</title><body>"
                    b"<h1>The site has not been built yet</h1><p>The first build failed; the errors are "
                    b"listed here and in the terminal. Save a fix and this page reloads.</p></body>")
        else:
            page = b"<!doctype html><meta charset=utf-8><title>Not found</title><body><h1>404 Not found</h1></body>"
        custom = self.live.out_dir / "404.html"
        with contextlib.suppress(OSError):
            page = custom.read_bytes()
        return Response(inject_client(page), status_code=404, media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-store"})

    def file_response(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        suffix = os.path.splitext(os.fspath(full_path))[1].lower()
        if suffix in (".html", ".htm"):
            rel = Path(full_path).relative_to(Path(self.live.out_dir).resolve()).as_posix()
            body = self.live.overrides.get(rel)
            if body is None:
                try:
                    body = Path(full_path).read_bytes()
                except OSError:
                    return self._not_found()
            return Response(inject_client(body), status_code=status_code, media_type=CONTENT_TYPES[".html"],
                            headers={"Cache-Control": "no-store"})
        response = super().file_response(full_path, stat_result, scope, status_code)
        if suffix in CONTENT_TYPES:
            response.headers["content-type"] = CONTENT_TYPES[suffix]
        rel = Path(full_path).relative_to(Path(self.live.out_dir).resolve()).as_posix()
        # The build names shared assets by content hash (a new content gets a
        # new name), so the browser may keep them: a reload then costs no
        # round trip for the runtime bundle. Everything else is revalidated.
        immutable = HASHED_ASSET_RE.search(rel) is not None
        response.headers["cache-control"] = "max-age=31536000, immutable" if immutable else "no-cache"
        response.headers["x-content-type-options"] = "nosniff"
        return response


def _client_script() -> bytes:
    return resources.files("posecode_ssg.site").joinpath("livereload.js").read_bytes()


def create_app(live: LiveSite, *, allowed_hosts: list[str] | None = None, on_ready: Callable[[], None] | None = None
               ) -> Starlette:
    """Build the Starlette app serving ``live``.

    Routes: ``/__posecode/livereload.js`` (the client), ``/__posecode/events``
    (SSE: a ``hello`` event, then one ``build`` event per published build, a
    ``: ping`` comment every 15 s), ``/__posecode/state`` (JSON: version,
    build count, errors), everything else from the private output folder.
    ``allowed_hosts``: Host header values accepted (DNS-rebinding guard when
    bound to loopback); ``None`` accepts any.
    """
    client = _client_script()

    async def client_js(_request: Request) -> Response:
        return Response(client, media_type=CONTENT_TYPES[".js"], headers={"Cache-Control": "no-cache"})

    async def state(_request: Request) -> Response:
        return JSONResponse({**live.hello(), "builds": live.builds, "subscribers": live.subscriber_count},
                            headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        queue = live.subscribe()

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 500\n\n"
                while True:
                    try:
                        item = await asyncio.wait_for(queue.get(), 15.0)
                    except TimeoutError:
                        yield ": ping\n\n"
                        continue
                    if item is None:
                        queue.task_done()
                        return
                    yield f"event: {item['type']}\ndata: {json.dumps(item, ensure_ascii=False)}\n\n"
                    queue.task_done()  # resumed: the event went out (LiveSite._drain waits for this)
            finally:
                live.unsubscribe(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await live.start()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            await live.stop()

    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    return Starlette(
        routes=[
            Route(f"{LIVE_PREFIX}/livereload.js", client_js),
            Route(f"{LIVE_PREFIX}/events", events),
            Route(f"{LIVE_PREFIX}/state", state),
            Mount("/", app=SiteFiles(live)),
        ],
        lifespan=lifespan,
        middleware=middleware,
    )
