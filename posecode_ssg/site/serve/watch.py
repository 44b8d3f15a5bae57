"""File watching for the dev server: which files count, when they are quiet, the watch loop."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import watchfiles

from posecode_ssg.site.content import EDITOR_TEMP_PATTERNS

if TYPE_CHECKING:
    from .source import PreviewSource


class SourceFilter(watchfiles.DefaultFilter):
    """watchfiles filter for content and theme folders: ignores editor swap,
    backup and lock files (``EDITOR_TEMP_PATTERNS``) and the given paths
    (the output and cache folders, when they sit inside a watched folder)."""

    ignore_entity_patterns = EDITOR_TEMP_PATTERNS


def quiet_remaining(paths: Iterable[str], quiet_s: float) -> float:
    """Seconds left until the most recently modified of ``paths`` has been unmodified for ``quiet_s``."""
    newest = 0
    for path in paths:
        try:
            newest = max(newest, os.stat(path).st_mtime_ns)
        except OSError:
            continue
    if not newest:
        return 0.0
    return quiet_s - (time.time_ns() - newest) / 1e9


def modified_since(paths: Iterable[str], since_ns: int) -> bool:
    """True when any of ``paths`` has a modification time at or after ``since_ns`` (epoch ns)."""
    for path in paths:
        try:
            if os.stat(path).st_mtime_ns >= since_ns:
                return True
        except OSError:
            continue
    return False


def file_states(paths: Iterable[str]) -> dict[str, tuple[int, int] | None]:
    """Size and modification time (ns) of each of ``paths`` (``None`` when it cannot be read).

    Comparing two of these tells a build whether a file it read was written
    while it ran even where the file system stamps modification times from a
    coarse clock (a write a few ms after the build started can carry an
    mtime from before it); a half-written file still grows or shrinks.
    """
    states: dict[str, tuple[int, int] | None] = {}
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            states[path] = None
        else:
            states[path] = (info.st_size, info.st_mtime_ns)
    return states


async def watch_sources(
    source: PreviewSource,
    *,
    ignore: list[str],
    debounce_ms: int,
    step_ms: int,
    stop_event: asyncio.Event,
    notify: Callable[[set[str]], None],
) -> None:
    """Watch ``source``'s folders (recursively) and files (through their parent
    folders, so an atomic save is still seen) until ``stop_event`` is set, calling
    ``notify`` with each batch of changed paths. ``ignore``: paths never reported
    (the private output); ``debounce_ms``/``step_ms``: watchfiles' ``debounce``/``step``."""
    dirs = [d for d in source.watch_dirs() if d.is_dir()]
    files = list(source.watch_files())
    watchers = []
    if dirs:
        watchers.append(_watch(dirs, recursive=True, keep=None, ignore=ignore, debounce_ms=debounce_ms,
                               step_ms=step_ms, stop_event=stop_event, notify=notify))
    parents = sorted({f.parent for f in files if f.parent.is_dir()})
    if parents:
        watchers.append(_watch(parents, recursive=False, keep={str(f) for f in files}, ignore=ignore,
                               debounce_ms=debounce_ms, step_ms=step_ms, stop_event=stop_event, notify=notify))
    if watchers:
        await asyncio.gather(*watchers)


async def _watch(roots: list[Path], *, recursive: bool, keep: set[str] | None, ignore: list[str],
                 debounce_ms: int, step_ms: int, stop_event: asyncio.Event,
                 notify: Callable[[set[str]], None]) -> None:
    watch_filter = SourceFilter(ignore_paths=ignore)
    async for batch in watchfiles.awatch(
        *roots,
        watch_filter=watch_filter,
        debounce=debounce_ms,
        step=step_ms,
        stop_event=stop_event,
        recursive=recursive,
    ):
        paths = {path for _change, path in batch}
        if keep is not None:
            paths &= keep
        if paths:
            notify(paths)
