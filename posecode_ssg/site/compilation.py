"""Compiling the figures of a build: keyed by content hash, loaded from the figure cache, the
rest compiled (in forked compile workers when there are many) and cached."""

from __future__ import annotations

import concurrent.futures
import json
import concurrent.futures.process
import multiprocessing
import os
import threading
from typing import Any

from posecode_ssg.config import SiteConfig
from posecode_ssg.site.content import Page
from posecode_ssg.site.figurecache import FigureCache
from posecode_ssg.site.figures import CompiledFigure, compile_figure, figure_key
from posecode_ssg.site.markdown import FenceInfo, posecode_env
from posecode_ssg.site.progress import progress

POOL_THRESHOLD = 24  # uncached figures before worker processes pay off


def compile_job(job: tuple[str, dict, str]) -> dict:
    """A compile worker's job: ``(source, options, key)`` -> the figure as a dict."""
    return compile_figure(*job).to_dict()


def figure_options(info: FenceInfo, config: SiteConfig, meta: dict | None = None, first: bool = False) -> dict:
    """Compile options of one fence: its info-string ``view``/``avatar``/``title`` attributes over
    the config's defaults (``default_view = "auto"`` leaves the view to the poster module), and
    the equipment drawn on it: the fence's ``equipment`` attribute, else what its page's front
    matter ``meta`` lists (motion/equipment.py ``page_equipment``; None for none). ``first``: the
    page's first figure (its exercise, as a program and a printed page show it), which also gets
    its phase strip (``strip``: the handouts' print; a page's other figures print their poster).
    Returns ``{"view", "avatar", "title", "default_avatar", "equipment", "equipment_from",
    "strip"}`` for :func:`figures.compile_figure`, and ``poster_words`` (:func:`poster_words`) on a
    site whose language words its posters otherwise."""
    default = None if config.default_view == "auto" else config.default_view
    source = None
    left_out: tuple[str, ...] = ()
    if "equipment" in info.attrs:
        equipment = info.attrs["equipment"]
    else:
        from posecode_ssg.motion.equipment import page_equipment, page_equipment_left_out

        equipment = page_equipment((meta or {}).get("equipment"))
        left_out = page_equipment_left_out((meta or {}).get("equipment"))
        source = "page" if equipment else None
    options = {"view": info.attrs.get("view", default), "avatar": info.attrs.get("avatar"),
               "title": info.attrs.get("title"), "default_avatar": config.default_avatar,
               "equipment": tuple(equipment) or None, "equipment_from": source, "strip": True if first else None}
    if left_out:   # told as a hint on the figure (motion/equipment.py ``left_out_hints``)
        options["equipment_left_out"] = left_out
    words = poster_words()
    if words is not None:   # posters in the site's language: a key of their own
        options["poster_words"] = words
    return options


def poster_words() -> str | None:
    """A hash of the active catalogue's poster texts (``poster.*``: the posters' titles, labels
    and strip labels are compiled into the cached figure), or None where they are English's."""
    from posecode_ssg.i18n.catalogue import active, english
    from posecode_ssg.site.digest import sha

    cat = active()
    hit = _POSTER_WORDS.get(id(cat))
    if hit is None or hit[0] is not cat:
        mine, base = cat.table("poster."), english().table("poster.")
        words = None if mine == base else sha(json.dumps(mine, sort_keys=True, ensure_ascii=False).encode())[:12]
        hit = _POSTER_WORDS[id(cat)] = (cat, words)
    return hit[1]


_POSTER_WORDS: dict[int, tuple] = {}   # id(catalogue) -> (catalogue, poster_words)


class Compilation:
    """The figures no cache held: compiled in this process or, when there are many
    (:data:`POOL_THRESHOLD`), in forked compile workers (one per core), and cached. Jobs come
    in one or more :meth:`add` calls (a parallel build hands over this process's figures as
    soon as it has parsed its own pages, so compiling starts while the page workers still
    parse); :meth:`finish` returns them all, writing each worker result to the cache as it
    arrives (while the workers go on, not one after another once they are done).

    Worker processes are forked (cheap, no re-import of ``__main__``); forking a process that
    runs other threads can deadlock, so the dev server (which builds in a worker thread)
    compiles in-process.
    """

    def __init__(self, cache: FigureCache, show: bool, freeze):
        self.cache, self.show, self.freeze = cache, show, freeze
        self.jobs: dict[str, tuple[str, dict, str]] = {}  # key -> (source, options, key), in the order added
        self.done: dict[str, CompiledFigure] = {}
        self.workers = min(os.cpu_count() or 1, 8)
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.submitted: list[tuple[list[str], Any]] = []  # (keys, their results' iterator) per batch

    def add(self, jobs: dict[str, tuple[str, dict, str]]) -> None:
        """Take ``jobs`` (``{key: (source, options)}``; a key already taken is skipped). The
        compile workers start as soon as :data:`POOL_THRESHOLD` jobs are known (fewer are
        compiled here, in :meth:`finish`); from then on every batch goes to them at once."""
        new = {key: job for key, job in jobs.items() if key not in self.jobs}
        self.jobs.update(new)
        if self.pool is not None:
            self._submit(list(new.items()))
        elif len(self.jobs) >= POOL_THRESHOLD and self.workers > 1 and threading.active_count() == 1 \
                and "fork" in multiprocessing.get_all_start_methods():
            self._start()

    def _start(self) -> None:
        # The first figure is compiled here before forking: imports, the parser's tables and
        # the rig's caches are then inherited instead of built again in every worker;
        # everything made so far is left out of the workers' garbage collections.
        (first_key, first_job), *rest = self.jobs.items()
        figure = self.done[first_key] = compile_figure(*first_job)
        self.cache.put(figure)
        self.freeze()
        self.pool = concurrent.futures.ProcessPoolExecutor(max_workers=self.workers,
                                                           mp_context=multiprocessing.get_context("fork"))
        self._submit(rest)

    def _submit(self, items: list[tuple[str, tuple[str, dict, str]]]) -> None:
        chunk = max(1, min(8, len(items) // (self.workers * 32)))
        outputs = self.pool.map(compile_job, [job for _key, job in items], chunksize=chunk)
        self.submitted.append(([key for key, _job in items], outputs))

    def finish(self) -> dict[str, CompiledFigure]:
        """Every job's figure (compiled by the workers, or here: without them, or for what a
        worker that died left undone), in the order added; every one in the cache."""
        if self.pool is not None:
            results = ((key, data) for keys, outputs in self.submitted for key, data in zip(keys, outputs))
            try:
                with self.pool:
                    for key, data in progress(results, len(self.jobs) - 1, "compile", self.show):
                        figure = self.done[key] = CompiledFigure.from_dict(data)
                        self.cache.put(figure)
            except concurrent.futures.process.BrokenProcessPool:
                pass  # a worker died (out of memory?): the rest is compiled here
            self.pool = None
        todo = [(key, job) for key, job in self.jobs.items() if key not in self.done]
        for key, job in progress(todo, len(todo), "compile", self.show and len(todo) > 50):
            figure = self.done[key] = compile_figure(*job)
            self.cache.put(figure)
        self.cache.flush()
        return {key: self.done[key] for key in self.jobs}

    def close(self) -> None:
        """Stop the compile workers (an aborted build): queued jobs are dropped."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


class Compiling:
    """The compile steps of :class:`posecode_ssg.site.build._Build` (figures land in
    ``self.figures``)."""

    def _figure_jobs(self, pages: list[Page]) -> dict[str, tuple[str, dict, str]]:
        """Key every figure token of ``pages`` (``token.meta["key"]``); returns
        ``{key: (source, options, key)}`` in document order, one entry per distinct figure."""
        jobs: dict[str, tuple[str, dict, str]] = {}
        for page in pages:
            for k, token in enumerate(posecode_env(page.env).figures if page.env else []):
                options = figure_options(token.meta["info"], self.config, page.meta, first=k == 0)
                key = figure_key(token.content, options)
                token.meta["key"] = key
                jobs.setdefault(key, (token.content, options, key))
        return jobs

    def _note_motion_missing(self) -> None:
        note = "motion compiler not installed: figures show their step listing only"
        if note not in self.result.notes:
            self.result.notes.append(note)

    def _compile(self, jobs: dict[str, tuple[str, dict, str]], show: bool) -> None:
        """Load the figures ``jobs`` names from the cache, compile the rest (:class:`Compilation`)
        and cache them; all land in ``self.figures``."""
        missing: dict[str, tuple[str, dict, str]] = {}
        for key, job in jobs.items():
            cached = self.cache.get(key)
            if cached is not None:
                self.figures[key] = cached
            else:
                missing[key] = job
        self.compilation = Compilation(self.cache, show, self._freeze)
        self.compilation.add(missing)
        self._store_compiled()

    def _store_compiled(self) -> None:
        """Wait for :attr:`compilation` and put its figures into ``self.figures``."""
        figures = self.compilation.finish()
        self.compilation = None
        self.result.compiled += len(figures)
        self.figures.update(figures)
        if any(f.motion_missing for f in figures.values()):
            self._note_motion_missing()
