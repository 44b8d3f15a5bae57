"""uvicorn glue: the listening socket, the server that ends SSE streams on shutdown,
the foreground runner of ``posecode-ssg serve`` and a background-thread server for tests."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .app import create_app
from .livesite import LiveSite


class RawUTF8H11Protocol(H11Protocol):
    """uvicorn's h11 protocol, also accepting raw (unencoded) UTF-8 request paths.

    RFC 9112 allows only visible ASCII in a request-target, and h11 answers
    400 to anything else; browsers always percent-encode, but command-line
    tools and scripts do not (sv-unicode-space-paths asks both forms to
    work). Before h11 sees a new request line, bytes >= 0x80 in it are
    percent-encoded, which is exactly what a browser would have sent.
    """

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            end = data.find(b"\n")
            line, rest = (data, b"") if end < 0 else (data[: end + 1], data[end + 1 :])
            if any(byte >= 0x80 for byte in line):
                data = b"".join(b"%%%02X" % byte if byte >= 0x80 else bytes([byte]) for byte in line) + rest
        super().data_received(data)


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")


def open_socket(host: str, port: int) -> socket.socket:
    """Bind a listening TCP socket on ``host``:``port`` (0 picks a free port).

    Raises ``OSError`` with the OS reason (e.g. address in use).
    """
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class PreviewServer(uvicorn.Server):
    """uvicorn server that ends the SSE streams as soon as shutdown begins
    (Ctrl-C, SIGTERM or ``should_exit``), so shutdown never waits on them."""

    live: LiveSite

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.live.close_streams()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Ask the server to stop from any thread."""
        self.live.close_streams()
        self.should_exit = True


def make_server(live: LiveSite, sock: socket.socket, *, on_ready: Callable[[], None] | None = None) -> PreviewServer:
    """Return a uvicorn server for ``live`` on the already bound ``sock``.

    ``timeout_graceful_shutdown=1``: without it uvicorn waits for open SSE
    streams and Ctrl-C hangs (browser-stack.md §5).
    """
    host = sock.getsockname()[0]
    allowed = list(LOOPBACK_NAMES) if host in ("127.0.0.1", "::1") else None
    app = create_app(live, allowed_hosts=allowed, on_ready=on_ready)
    config = uvicorn.Config(
        app,
        http=RawUTF8H11Protocol,
        lifespan="on",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=1,
        ws="none",
    )
    server = PreviewServer(config)
    server.live = live
    return server


def server_url(sock: socket.socket, host: str) -> str:
    """The http URL a browser should open for a socket bound to ``host``."""
    port = sock.getsockname()[1]
    shown = host
    if host in ("0.0.0.0", "", "::"):
        shown = "127.0.0.1"
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


class ThreadedServer:
    """Run a ``LiveSite`` on a background thread (tests, benchmarks).

    ``with ThreadedServer(live) as url: ...`` starts the server on an
    ephemeral loopback port, waits for the first build, and stops it (and the
    watcher) on exit.
    """

    def __init__(self, live: LiveSite, host: str = "127.0.0.1", port: int = 0) -> None:
        self.live = live
        self.sock = open_socket(host, port)
        self.url = server_url(self.sock, host)
        self._ready = threading.Event()
        self.server = make_server(live, self.sock, on_ready=self._ready.set)
        self.server.config.install_signal_handlers = False  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._run, name="posecode-serve", daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.sock])
        except BaseException as exc:  # noqa: BLE001 -- surfaced by __enter__
            self.error = exc
            self._ready.set()

    def __enter__(self) -> str:
        self._thread.start()
        if not self._ready.wait(60) or self.error is not None:
            raise RuntimeError(f"dev server did not start: {self.error!r}")
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self._thread.join(15)
        self.sock.close()


def run_server(
    live: LiveSite, *, host: str, port: int, open_browser: bool = False, log: Callable[[str], None] | None = None
) -> int:
    """Serve ``live`` until Ctrl-C / SIGTERM; returns the exit status (2 when the port cannot be bound)."""
    say = log or (lambda text: print(text, flush=True))
    try:
        sock = open_socket(host, port)
    except OSError as exc:
        say(f"posecode-ssg serve: cannot listen on {host}:{port}: {exc.strerror or exc}"
            f" (try another --port, or --port 0 for any free port)")
        return 2
    url = server_url(sock, host)

    def ready() -> None:
        say(f"Serving on {url}  (watching: {'on' if live.watch else 'off'}; press Ctrl-C to stop)")
        if host not in LOOPBACK_NAMES:
            say(f"warning: listening on {host}: the preview is reachable from other machines")
        if open_browser:
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    server = make_server(live, sock, on_ready=ready)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn re-raises the captured Ctrl-C after its clean shutdown.
        pass
    finally:
        sock.close()
    say("Stopped.")
    return 0
