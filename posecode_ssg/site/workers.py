"""Page workers: forked processes that parse, finish, render and write a share of the pages
while the main process does its own share, the compile and the site-wide pages."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import traceback
from typing import Any

from posecode_ssg.site.cards import card_figure, poster_dest
from posecode_ssg.site.compilation import Compilation
from posecode_ssg.site.content import Page
from posecode_ssg.site.figures import CompiledFigure
from posecode_ssg.site.links import LinkRec
from posecode_ssg.site.result import BuildError
from posecode_ssg.site.write import IN_STAGING, place

#: Pages to parse (not counting section index pages) before the build forks page workers
#: (:class:`PageWorkers`: each parses, finishes, renders and writes a share of the pages).
#: Below it a build stays in one process: forking costs more than it saves. The environment variable
#: ``POSECODE_PAGE_WORKERS_MIN`` overrides it (``0`` or ``1``: always fork, e.g. to test the
#: parallel path on a small site; a huge number: never fork).
PAGE_POOL_THRESHOLD = 64

#: The main process's share of the pages beside a worker's 1.0: it also renders the
#: site-wide pages and writes the shared assets while the workers render (each writes the
#: card posters of the pages it renders, :meth:`ParallelPages._dispatch_pages`). 0.85 balances the
#: two processes' CPU after the compile on the 2-core benchmark (``bench/build.py``).
MAIN_SHARE = 0.85


def page_pool_threshold() -> int:
    """Pages to parse before the build forks page workers: ``POSECODE_PAGE_WORKERS_MIN`` when set
    to a whole number, else :data:`PAGE_POOL_THRESHOLD`."""
    value = os.environ.get("POSECODE_PAGE_WORKERS_MIN", "").strip()
    try:
        return int(value) if value else PAGE_POOL_THRESHOLD
    except ValueError:
        return PAGE_POOL_THRESHOLD


def split_pages(pages: list[Page], weights: list[float], sizes: list[int]) -> tuple[list[Page], list[list[Page]]]:
    """Deal ``pages`` (in order) to ``len(weights)`` takers, each page to the taker with the
    least source bytes per unit of weight so far (ties: the first). Returns the first
    taker's pages (the main process) and the others' (one list per worker)."""
    loads = [0.0] * len(weights)
    shares: list[list[Page]] = [[] for _ in weights]
    for page, size in zip(pages, sizes):
        k = min(range(len(weights)), key=lambda i: (loads[i] + size) / weights[i])
        loads[k] += size
        shares[k].append(page)
    return shares[0], shares[1:]


class PageWorkers:
    """Forked processes, each holding a fixed share of the pages through every phase of a
    build: parse (and load cached figures) -> finish (page records) -> render + write into
    the staging folder (the pages, and the card posters of those pages). Token streams and
    rendered pages never cross a process boundary; only compile jobs, page records and the
    site-wide render context (navigation, section titles, asset names) do, over one pipe per
    worker. The main process keeps a share of
    its own (see :func:`split_pages`).

    Messages to a worker: ``("parse",)``, ``("finish", {key: CompiledFigure})``,
    ``("render", context)``, ``("stop",)``; replies ``("ok", payload)``, ``("tick", n)``
    (progress), ``("build-error", message)`` or ``("error", traceback text)``.
    """

    def __init__(self, build: ParallelPages, shares: list[list[Page]]):
        context = multiprocessing.get_context("fork")
        self.shares = shares
        self.assigned = {page.src_uri for share in shares for page in share}
        self.busy = False  # a message was sent and its replies are not all in
        self.replies: dict[int, Any] = {}
        self.phase = ""
        self.bar = None
        self.conns = []
        self.procs = []
        for share in self.shares:
            parent_end, child_end = context.Pipe()
            proc = context.Process(target=page_worker, args=(build, share, child_end), daemon=True)
            proc.start()
            child_end.close()
            self.conns.append(parent_end)
            self.procs.append(proc)

    def send_all(self, message) -> None:
        """Send ``message(k)`` to worker ``k``, for every worker."""
        self.busy = True
        for k, conn in enumerate(self.conns):
            conn.send(message(k))

    def progress(self, phase: str, total: int, show: bool) -> None:
        """Name the phase under way; show a progress bar over ``total`` pages when ``show``
        (advanced by :meth:`pump` for this process's pages and by the workers' ticks)."""
        self.phase = phase
        if show and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=phase, unit="page", leave=False, file=sys.stderr, dynamic_ncols=True)

    def pump(self, done: int = 1) -> None:
        """Count ``done`` pages of this process and take in whatever the workers sent (no wait)."""
        if self.bar is not None:
            self.bar.update(done)
        for k, conn in enumerate(self.conns):
            while k not in self.replies and conn.poll():
                self._receive(k)

    def _receive(self, k: int) -> None:
        try:
            kind, payload = self.conns[k].recv()
        except EOFError:
            raise RuntimeError(f"page worker {k} died during {self.phase} "
                               f"(exit code {self.procs[k].exitcode})") from None
        if kind == "tick":
            if self.bar is not None:
                self.bar.update(payload)
        elif kind == "ok":
            self.replies[k] = payload
        elif kind == "build-error":
            raise BuildError(payload)
        else:
            raise RuntimeError(f"page worker {k} failed during {self.phase}:\n{payload}")

    def gather(self) -> list:
        """Every worker's reply to the last message, in worker order (waiting for them).
        Raises :class:`BuildError` (a worker's own message) or RuntimeError (a worker's
        traceback, or a worker that died)."""
        from multiprocessing.connection import wait

        try:
            while len(self.replies) < len(self.conns):
                pending = [conn for k, conn in enumerate(self.conns) if k not in self.replies]
                for conn in wait(pending):
                    self._receive(self.conns.index(conn))
        finally:
            if self.bar is not None:
                self.bar.close()
                self.bar = None
        replies = [self.replies[k] for k in range(len(self.conns))]
        self.replies = {}
        self.busy = False
        return replies

    def close(self) -> None:
        """Stop the workers (at once when they are still busy: an aborted build)."""
        busy = self.busy
        for conn in self.conns:
            with contextlib.suppress(OSError, ValueError):
                if not busy:
                    conn.send(("stop",))
                conn.close()
        for proc in self.procs:
            if busy:
                proc.terminate()
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join()


def page_worker(build: ParallelPages, share: list[Page], conn) -> None:
    """Body of a page worker process (forked: ``build`` is the parent's build as it was)."""
    ticks = [0]

    def tick() -> None:
        ticks[0] += 1
        if ticks[0] == 8:
            conn.send(("tick", 8))
            ticks[0] = 0

    try:
        while True:
            message = conn.recv()
            ticks[0] = 0
            if message[0] == "parse":
                reply = build._parse_share(share, tick)
            elif message[0] == "finish":
                reply = build._finish_share(share, message[1])
            elif message[0] == "render":
                reply = build._render_share(share, message[1], tick)
            else:
                return
            if ticks[0]:
                conn.send(("tick", ticks[0]))
            conn.send(("ok", reply))
    except EOFError:
        return  # the main process is gone
    except BuildError as exc:
        conn.send(("build-error", str(exc)))
    except BaseException:  # noqa: BLE001 - reported to the main process, which raises
        conn.send(("error", traceback.format_exc()))


class ParallelPages:
    """The page-worker steps of :class:`posecode_ssg.site.build._Build`."""

    def _page_worker_count(self, pages: int) -> int:
        """How many page workers to fork for ``pages`` pages (one per core but this one, which
        takes a share too): 0 (stay in this process) below :func:`page_pool_threshold`, on
        one core, for an in-place build, without ``fork``, or when this process runs other
        threads (the dev server builds in a worker thread; forking a threaded process can
        deadlock)."""
        cores = os.cpu_count() or 1
        if (self.in_place or self.page_workers is not None or cores < 2 or pages < max(2, page_pool_threshold())
                or threading.active_count() != 1 or "fork" not in multiprocessing.get_all_start_methods()):
            return 0
        return min(cores, 8) - 1

    def _process_parallel(self, pages: list[Page], shared: list[Page], count: int, show: bool) -> None:
        """:meth:`_process` with ``shared`` parsed and finished by ``count`` forked workers
        (which keep their token streams for rendering) and the rest here meanwhile."""
        mine, shares = split_pages(shared, [MAIN_SHARE] + [1.0] * count, [len(self.sources[p.src_uri]) for p in shared])
        mine_uris = {page.src_uri for page in mine}
        local = [page for page in pages if page.lists_pages or page.src_uri in mine_uris]
        self.theme.compile_all()  # compiled once, before the fork, for every worker
        self._freeze()
        pool = self.page_workers = PageWorkers(self, shares)
        self.result.page_workers = count
        state: dict[str, Any] = {}

        def parse() -> None:  # this process's pages (and their cached figures) too, meanwhile
            pool.send_all(lambda k: ("parse",))
            pool.progress("parse", len(pages), show)
            state["mine"] = self._parse_share(local, pool.pump)
            # this process's figures go to the compile workers at once (they start while the
            # page workers still parse: this process has the smaller share, MAIN_SHARE)
            self.compilation = Compilation(self.cache, show, self._freeze)
            self.compilation.add(state["mine"]["missing"])
            state["parsed"] = pool.gather()

        def compile_() -> None:  # what no cache held, for every process
            jobs: dict[str, tuple[str, dict, str]] = {}
            for reply in state["parsed"]:
                jobs.update(reply["missing"])
            self.compilation.add(jobs)
            self._store_compiled()
            if any(reply["motion_missing"] for reply in state["parsed"] + [state["mine"]]):
                self._note_motion_missing()

        def finish() -> None:
            pool.send_all(lambda k: ("finish", {key: self.figures[key] for key in state["parsed"][k]["missing"]}))
            pool.progress("finish", 0, False)
            for page in local:
                self._finish_page(page)
            done: dict[str, dict] = {}
            for reply in pool.gather():
                for uri, record, poster_key, poster in reply:
                    done[uri] = record
                    if poster_key is not None:
                        self.posters[poster_key] = poster
            for page in pages:  # records in page order, as the serial build stores them
                record = done[page.src_uri] if page.src_uri in done else self.records.pop(page.src_uri)
                self.records[page.src_uri] = record
                if page.src_uri in done:
                    page.title, page.meta = record["title"], record["meta"]
                    page.links = [LinkRec(*link) for link in record["links"]]

        self._lap("parse", parse)
        self._lap("compile", compile_)
        self._lap("finish", finish)

    # ------------------------------------------------------------ a share of the pages
    def _parse_share(self, share: list[Page], tick) -> dict:
        """Parse a process's share of the pages (``tick()`` after each); load their figures
        from the cache. Returns ``{"missing": {key: compile job}, "motion_missing": bool}``."""
        for page in share:
            self._parse_page(page)
            tick()
        missing: dict[str, tuple[str, dict, str]] = {}
        motion_missing = False
        for key, job in self._figure_jobs(share).items():
            cached = self.cache.get(key)
            if cached is None:
                missing[key] = job
            else:
                self.figures[key] = cached
                motion_missing = motion_missing or cached.motion_missing
        return {"missing": missing, "motion_missing": motion_missing}

    def _finish_share(self, share: list[Page], compiled: dict[str, CompiledFigure]) -> list[tuple]:
        """Finish this worker's pages with the figures the main process compiled for them.
        Returns ``(src_uri, record, card poster key, card poster SVG)`` per page."""
        self.figures.update(compiled)
        out = []
        for page in share:
            self._finish_page(page)
            record = self.records[page.src_uri]
            first = card_figure(record)
            key = first["key"] if first else None
            out.append((page.src_uri, record, key, self.figures[key].poster if key else None))
        return out

    def _render_share(self, share: list[Page], context: dict, tick) -> int:
        """Render this worker's pages named in ``context["uris"]`` with the site-wide context
        and write them into the staging folder. Returns the number of pages written."""
        for name in ("site_ctx", "nav", "assets", "runtime_url", "rig_url", "section_titles", "export_urls"):
            setattr(self, name, context[name])
        if context["drafts"]:
            self._drop_drafts(context["drafts"])
        staging = context["staging"]
        made: set[str] = set()
        written = 0
        for page in share:
            if page.src_uri in context["uris"]:
                try:
                    place(self._render_page(page).encode("utf-8"), f"{staging}/{page.dest_uri}", made)
                except OSError as exc:
                    raise BuildError(f"cannot write the site to {self.out}: {exc}") from None
                written += 1
                tick()
        for dest, key in context["posters"].items():
            try:
                place(self.figures[key].poster.encode("utf-8"), f"{staging}/{dest}", made)
            except OSError as exc:
                raise BuildError(f"cannot write the site to {self.out}: {exc}") from None
        return written

    def _dispatch_pages(self, pages: list[Page]) -> None:
        """Have the page workers render and write their share of ``pages`` into the staging
        folder (with the site-wide context, :meth:`_prepare_context`) while this process
        goes on; their outputs are marked :data:`IN_STAGING`."""
        pool = self.page_workers
        shared = {page.src_uri for page in pages if page.src_uri in pool.assigned}
        context = {"uris": shared, "staging": str(self._staging()), "site_ctx": self.site_ctx, "nav": self.nav,
                   "assets": self.assets, "runtime_url": self.runtime_url, "rig_url": self.rig_url,
                   "section_titles": self.section_titles, "drafts": self.drafts, "export_urls": self.export_urls}
        # each worker also writes the card posters of the pages it renders (this process would
        # write them after its own pages, while the workers, done, wait)
        posters: list[dict[str, str]] = [{} for _ in pool.shares]
        for k, share in enumerate(pool.shares):
            for page in share:
                rec = self.records.get(page.src_uri)
                if page.src_uri not in shared or rec is None:
                    continue
                first = card_figure(rec)
                dest = poster_dest(first["key"]) if first else None
                if dest is not None and dest not in self.outputs:
                    posters[k][dest] = first["key"]
                    self.outputs[dest] = IN_STAGING
        pool.send_all(lambda k: ("render", {**context, "posters": posters[k]}))
        pool.progress("render", len(pages), self.show)
        for page in pages:
            if page.src_uri in shared:
                self.page_html[page.dest_uri] = IN_STAGING
