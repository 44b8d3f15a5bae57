"""The live site: the private output folder, the builder task, the watcher task and the SSE subscribers.

``LiveSite`` builds the project (a ``PreviewSource``) into its private folder
one build at a time, diffs the served files after each build and queues one
event per published build for every connected tab (``subscribe``).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from posecode_ssg.site.problems import Problem
from posecode_ssg.site.report import display_path

from .problems import BuildReport, SourceError
from .snapshots import (
    SiteChanges,
    Snapshot,
    describe_changes,
    diff_snapshots,
    take_snapshot,
)
from .source import PreviewSource
from .watch import file_states, modified_since, quiet_remaining, watch_sources


@dataclass
class ServeOptions:
    """Tuning of the watcher and builder.

    ``debounce_ms``: longest time watchfiles groups a continuous stream of
    changes before yielding; ``step_ms``: quiet time after the last change
    before it yields (watchfiles' ``debounce``/``step``). ``quiet``: no
    terminal output (tests).
    """

    debounce_ms: int = 400
    step_ms: int = 10
    quiet: bool = False
    request_wait_s: float = 30.0
    #: Shortest time between the starts of two consecutive builds. A single
    #: save builds at once; in a burst of saves (format-on-save, "save all",
    #: a script) builds are spaced so the burst costs at most a few builds.
    min_build_interval_s: float = 0.25
    #: A build starts only once every changed file has been unmodified this
    #: long (a little more than ``step_ms``, so the watcher has reported all
    #: writes before the build reads the files)...
    quiet_s: float = 0.02
    #: ...or this long when the change comes within ``burst_window_s`` of the
    #: previous build's start (a burst; saves made by hand come further apart): more than the 20-40 ms between the writes of a
    #: scripted or format-on-save burst (sv-rapid-saves), so the rest of such a
    #: burst is one build, while a lone save keeps the short wait...
    burst_quiet_s: float = 0.06
    burst_window_s: float = 0.4
    #: ...but never waits longer than this for a file that keeps changing.
    max_quiet_wait_s: float = 2.0


class LiveSite:
    """Owns the private output folder, the build loop, the watcher and the SSE subscribers.

    ``source``: the project (``PreviewSource``). ``out_dir``: private output
    folder (created; a fresh temporary folder when ``None``). The object is
    driven from one asyncio loop: ``start()`` runs the first build and starts
    the tasks, ``stop()`` ends them.
    """

    def __init__(
        self,
        source: PreviewSource,
        *,
        out_dir: Path | None = None,
        watch: bool = True,
        options: ServeOptions | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.source = source
        self.options = options or ServeOptions()
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if out_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="posecode-serve-")
            out_dir = Path(self._tmp.name) / "site"
        self.out_dir = Path(out_dir)
        self.out_dir.parent.mkdir(parents=True, exist_ok=True)
        self.watch = watch
        self.instance = uuid.uuid4().hex[:12]
        self.version = 0
        self.builds = 0
        self.report = BuildReport()
        self.overrides: dict[str, bytes] = {}
        self._last_good: dict[str, bytes] = {}
        self._snapshot = Snapshot()
        self._disk_snapshot: Snapshot | None = None
        self._subscribers: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self._pending: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._change_seen_at: float | None = None  # epoch s of the first change not yet built
        self._timing: dict[str, float] = {}
        self._printed_errors: list[str] = []
        self._printed_warnings: set[str] = set()
        self._log = log or (lambda text: print(text, flush=True))
        self.last_event: dict[str, Any] | None = None

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        """Start the watcher, run the first build, then start the builder task."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._stop = asyncio.Event()
        if self.watch:  # watching first: a save during the first build is not lost
            self._tasks.append(asyncio.create_task(self._watch_loop(), name="posecode-watcher"))
        await self._build_and_publish(reload_config=False, first=True)
        self._idle.set()
        self._tasks.append(asyncio.create_task(self._build_loop(), name="posecode-builder"))

    async def stop(self) -> None:
        """Stop the tasks, close every SSE stream and delete the private output."""
        if self._stop is not None:
            self._stop.set()
        for queue in list(self._subscribers):
            queue.put_nowait(None)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                self._tmp.cleanup()

    def close_streams(self) -> None:
        """End every SSE stream (thread-safe); called when the server starts
        shutting down so open tabs do not hold the shutdown up."""
        loop = self._loop

        def _close() -> None:
            for queue in list(self._subscribers):
                queue.put_nowait(None)

        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(_close)

    def notify_changes(self, paths: Iterable[str]) -> None:
        """Queue changed source paths for the builder (the watcher calls this;
        tests may too). The newest state of the files is what gets built."""
        self._pending.update(paths)
        if self._change_seen_at is None:
            self._change_seen_at = time.time()
        if self._wake is not None:
            self._wake.set()

    async def wait_idle(self) -> None:
        """Wait (bounded by ``request_wait_s``) until no build is running."""
        if self._idle is None or self._idle.is_set():
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), self.options.request_wait_s)

    # -- building ----------------------------------------------------------

    async def _build_loop(self) -> None:
        assert self._wake is not None and self._idle is not None
        last_start = 0.0
        retries = 0
        interval = self.options.min_build_interval_s
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            # Burst guard: wait until the changed files have been quiet for a
            # moment (an editor or script still writing them makes a build
            # read half a file) and until the minimum interval since the last
            # build has passed; changes arriving meanwhile join this build.
            # A file written continuously is built anyway after max_quiet_wait_s.
            deadline = loop.time() + self.options.max_quiet_wait_s
            in_burst = last_start > 0 and loop.time() - last_start < self.options.burst_window_s
            quiet = self.options.burst_quiet_s if in_burst else self.options.quiet_s
            while loop.time() < deadline:
                pause = max(last_start + interval - loop.time(),
                            quiet_remaining(self._pending, quiet))
                if pause <= 0:
                    break
                await asyncio.sleep(min(pause, deadline - loop.time()))
            self._wake.clear()
            changed, self._pending = self._pending, set()
            self._timing = {"changeSeenAt": _ms(self._change_seen_at), "buildStartAt": _ms(time.time())}
            self._change_seen_at = None
            last_start = loop.time()
            started_ns = time.time_ns()
            states = file_states(changed)
            self._idle.clear()

            def superseded(changed: set[str] = changed, started_ns: int = started_ns,
                           states: dict = states) -> bool:
                # A newer change is queued, or a file this build read was
                # written again while it ran (its event is still on the way;
                # its size or mtime moved even when a coarse mtime predates
                # the start): this output may hold half a file or mix
                # versions, so nobody is told about it.
                return (self._wake.is_set()  # type: ignore[union-attr]
                        or modified_since(changed, started_ns) or file_states(changed) != states)

            try:
                config_paths = {str(p) for p in self.source.watch_files()}
                if not changed & config_paths:
                    await self._push_quick_figures(changed)
                published = await self._build_and_publish(
                    reload_config=bool(changed & config_paths),
                    superseded=superseded if retries < 3 else (lambda: False),
                )
                retries = 0 if published else retries + 1
                # A superseded build means writes are still going on: space
                # the next builds further apart (reset once one publishes).
                interval = (self.options.min_build_interval_s if published
                            else min(2 * interval, self.options.max_quiet_wait_s))
                if not published and not self._wake.is_set():
                    self.notify_changes(changed)  # build again once the writes are over
            finally:
                if not self._wake.is_set():
                    self._idle.set()

    async def _push_quick_figures(self, changed: set[str]) -> None:
        """Fast path for figure edits: when the source can compile just the
        edited Posecode blocks (``quick_figures``), tell the tabs at once;
        the full build that follows publishes as usual (tabs skip a figure
        they already show)."""
        quick = getattr(self.source, "quick_figures", None)
        if quick is None:
            return
        started = time.time()
        try:
            figures = await asyncio.to_thread(quick, changed, dict(self._snapshot.pages))
        except Exception:  # noqa: BLE001 -- only an optimisation: the build will report any problem
            figures = None
        if not figures:
            return
        event = {
            "type": "figures",
            "instance": self.instance,
            "version": self.version,
            "changes": SiteChanges(figures=figures).to_dict(),
            "timing": {"changeSeenAt": self._timing.get("changeSeenAt"), "buildStartAt": _ms(started),
                       "buildEndAt": _ms(time.time()), "publishedAt": _ms(time.time())},
        }
        for queue in list(self._subscribers):
            queue.put_nowait(event)
        await self._drain()

    async def _drain(self, limit_s: float = 0.05) -> None:
        """Let the SSE streams send what is queued before a build thread
        starts competing with this loop for the GIL (bounded by ``limit_s``)."""
        # Each stream marks an item done once it has been handed to the transport.
        waiting = [queue.join() for queue in self._subscribers]
        if waiting:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waiting), limit_s)

    async def _build_and_publish(
        self,
        *,
        reload_config: bool,
        first: bool = False,
        superseded: Callable[[], bool] = lambda: False,
    ) -> bool:
        """Build, then tell every tab what changed; returns False when the
        build was superseded (a newer one follows and will publish)."""
        report, snapshot = await asyncio.to_thread(self._build_in_thread, reload_config)
        self._timing["buildEndAt"] = _ms(time.time())
        self.builds += 1
        if superseded() and report.crashed is None:
            # Tabs are told once, about the newest output, diffed against
            # what they were last told.
            return False
        changes = diff_snapshots(self._snapshot, snapshot) if not first else SiteChanges()
        same_problems = ([p.to_dict() for p in report.errors] == [p.to_dict() for p in self.report.errors]
                         and report.crashed == self.report.crashed)
        if not first and changes.empty and same_problems:
            self.report = report
            return True  # nothing any tab could show differently: stay quiet
        self._snapshot = snapshot
        self.report = report
        self.version += 1
        self._print_report(report, first=first, changes=changes)
        event = {
            "type": "build",
            "instance": self.instance,
            "version": self.version,
            "errors": [p.to_dict() for p in report.errors],
            "crashed": report.crashed,
            "changes": changes.to_dict(),
            "seconds": round(report.seconds, 4),
            "stages": {name: round(value, 4) for name, value in report.stages.items()},
            # Epoch milliseconds: first change seen by the watcher, build
            # start and end, event sent (for bench/serve.py's breakdown).
            "timing": {**self._timing, "publishedAt": _ms(time.time())},
        }
        self.last_event = event
        for queue in list(self._subscribers):
            queue.put_nowait(event)
        return True

    def _build_in_thread(self, reload_config: bool) -> tuple[BuildReport, Snapshot]:
        started = time.perf_counter()
        try:
            if reload_config:
                self.source.reload()
            report = self.source.build(self.out_dir)
        except SourceError as exc:
            report = BuildReport(crashed=str(exc), errors=list(exc.problems))
        except Exception as exc:  # noqa: BLE001 -- a crash in the build must never end the server
            report = BuildReport(crashed=f"{type(exc).__name__}: {exc}")
            report.errors.append(
                Problem(file=display_path(getattr(exc, "path", "") or "(build)"),
                        line=int(getattr(exc, "line", 0) or 0), column=int(getattr(exc, "column", 0) or 0),
                        severity="error", code=getattr(exc, "code", None) or "build-failed",
                        message=str(exc) or type(exc).__name__, hint=getattr(exc, "hint", None))
            )
            report.error_pages = set()
        report.seconds = time.perf_counter() - started
        # Last good versions: a page whose document has errors keeps being
        # served as it was before the error (while one exists).
        snap_started = time.perf_counter()
        disk = take_snapshot(self.out_dir, self._disk_snapshot)
        self._disk_snapshot = disk
        self._timing["snapshotMs"] = round((time.perf_counter() - snap_started) * 1000, 1)
        if report.crashed is None:
            overrides = {rel: self._last_good[rel] for rel in sorted(report.error_pages)
                         if rel in self._last_good and rel in disk.pages}
            for rel, text in disk.pages.items():
                if rel not in report.error_pages:
                    self._last_good[rel] = text.encode("utf-8")
        else:
            overrides = dict(self.overrides)
        self.overrides = overrides
        return report, disk.with_overrides(overrides)

    def _print_report(self, report: BuildReport, *, first: bool, changes: SiteChanges) -> None:
        if self.options.quiet:
            return
        ms = report.seconds * 1000
        blocks = [p.format() for p in report.errors]
        if report.crashed and not report.errors:
            blocks.append(f"error: build failed: {report.crashed}")
        # Warnings and hints: all of them at start, later only those that are new.
        warnings = [w.format() for w in (*report.warnings, *report.hints)]
        for block in warnings:
            if block not in self._printed_warnings:
                self._log(block)
        self._printed_warnings = set(warnings)
        if blocks != self._printed_errors or first:
            for block in blocks:
                self._log(block)
        if report.errors:
            kept = ""
            if report.crashed or report.error_pages:
                kept = (" (no good version yet: the affected pages show the error)" if first
                        else " (serving the last good version)")
            self._log(f"build {self.version}: {len(report.errors)} error(s) in {ms:.0f} ms{kept}")
        elif self._printed_errors:
            self._log(f"build {self.version}: fixed, no errors ({ms:.0f} ms)")
        else:
            what = "initial build" if first else describe_changes(changes)
            self._log(f"build {self.version}: {what} ({ms:.0f} ms)")
        self._printed_errors = blocks

    # -- watching ----------------------------------------------------------

    async def _watch_loop(self) -> None:
        assert self._stop is not None
        await watch_sources(self.source, ignore=[str(self.out_dir.parent)], debounce_ms=self.options.debounce_ms,
                            step_ms=self.options.step_ms, stop_event=self._stop, notify=self.notify_changes)

    # -- subscribers -------------------------------------------------------

    def subscribe(self) -> asyncio.Queue[dict[str, Any] | None]:
        """Register an SSE client; the first item is the current state."""
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        queue.put_nowait(self.hello())
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any] | None]) -> None:
        """Forget an SSE client."""
        self._subscribers.discard(queue)

    @property
    def subscriber_count(self) -> int:
        """Number of connected SSE clients."""
        return len(self._subscribers)

    def hello(self) -> dict[str, Any]:
        """The state a newly connected tab starts from (errors for the overlay)."""
        return {
            "type": "hello",
            "instance": self.instance,
            "version": self.version,
            "errors": [p.to_dict() for p in self.report.errors],
            "crashed": self.report.crashed,
            "seconds": round(self.report.seconds, 4),
        }


def _ms(epoch_s: float | None) -> float | None:
    return None if epoch_s is None else round(epoch_s * 1000, 1)
