"""``posecode-ssg export FILE... -o OUT [--format ...]``: movements as PNG, SVG, contact sheet,
GIF, video, BVH or glTF (issue 25; docs/export.md). The formats' writers and the shared contract
are in :mod:`posecode_ssg.export`; this module resolves the arguments, the documents and the
output names, runs the writers (2D formats of several documents in a process pool; the formats
that need Chromium one after another in the session's one browser), shows a progress bar when
the export takes over a second and prints one line per written file.

Exit status: 0 every file written; 1 a document has errors (reported as ``check`` reports them,
``file:line:col``; nothing is written for it, the others are) or an export failed; 2 a usage
error (a missing file, an unknown OUT suffix, several documents into one file, ``--fence N`` out
of range) or a missing optional dependency (Playwright, Chromium, PyAV...: the message says what
to install).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from pathlib import Path

from posecode_ssg.export.core import (
    FORMAT_SUFFIX,
    PROG,
    SUFFIX_FORMATS,
    ExportDoc,
    ExportError,
    ExportOptions,
    ExportSession,
    ExportUnavailable,
    load_documents,
    slug,
    writer,
)

#: documents from which a 2D export runs in worker processes
POOL_MIN = 4


def _usage(msg: str) -> int:
    print(f"{PROG}: {msg}", file=sys.stderr)
    return 2


def resolve_format(fmt: str | None, out: Path) -> tuple[str | None, str | None]:
    """``(format, problem)``: ``--format``, else OUT's suffix (.png .svg .gif .webm .mp4 .bvh
    .gltf .glb; a contact sheet only with ``--format sheet``)."""
    suffix = out.suffix.lower()
    if fmt:
        wanted = (".png", ".svg") if fmt == "sheet" else (FORMAT_SUFFIX[fmt],)
        if suffix and not out.is_dir() and suffix not in wanted:
            # PNG data in a .jpg, or a GIF named .mp4, would open as a broken file
            return None, (f"{out} ends in '{out.suffix}' but --format {fmt} writes "
                          f"{' or '.join(wanted)}: name the file {out.with_suffix(wanted[0]).name}")
        return fmt, None
    if suffix in SUFFIX_FORMATS and not out.is_dir():
        return SUFFIX_FORMATS[suffix], None
    if not suffix or out.is_dir():
        return None, (f"cannot tell the format of {out} (a folder): give --format "
                      f"({'|'.join(FORMAT_SUFFIX)})")
    return None, (f"unknown output suffix '{out.suffix}' of {out} (one of {' '.join(SUFFIX_FORMATS)}; "
                  f"a contact sheet: --format sheet with .png or .svg)")


def output_paths(docs: list[ExportDoc], out: Path, fmt: str, to_folder: bool) -> list[Path]:
    """Where each document is written: ``out`` itself (one document into a file), or
    ``out/<slug of the movement's name><suffix>``, made unique with ``-2``, ``-3``..."""
    if not to_folder:
        return [out]
    suffix = FORMAT_SUFFIX[fmt]
    if fmt == "sheet":   # "-sheet": beside the still SVG or PNG of the same movement in that folder
        suffix = "-sheet" + (out.suffix.lower() if out.suffix.lower() in (".png", ".svg") and not out.is_dir()
                             else suffix)
    used: set[str] = set()
    paths = []
    for doc in docs:
        base = slug(doc.name)
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        paths.append(out / f"{name}{suffix}")
    return paths


def _one(doc: ExportDoc, opts: ExportOptions, out: Path, session: ExportSession) -> list[str]:
    notes = writer(opts.fmt)(doc, opts, out, session)
    notes = list(notes or [])
    if not any(n.startswith("wrote ") for n in notes):
        notes.insert(0, f"wrote {out}")
    return notes


@contextlib.contextmanager
def _fork_ready():
    """Collect this process's garbage, then leave every object out of collections while forked
    workers run (undone after). Garbage from a browser session run earlier in the same process
    (Playwright's greenlets, when the API or a test exports video, then 2D in parallel) must not
    be collected in a forked child: a greenlet of the parent's threads cannot be killed there,
    and the child crashed in its first collection. Freezing also keeps the children from
    writing to (so copying) the memory the fork shares (CPython's gc.freeze advice)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _worker(job) -> tuple[int, list[str] | None, str | None, bool]:
    """A process-pool job: ``(index, notes, error, unavailable)``."""
    k, doc, opts, out = job
    try:
        with ExportSession() as session:
            return k, _one(doc, opts, out, session), None, False
    except ExportError as exc:
        return k, None, str(exc), isinstance(exc, ExportUnavailable)
    except Exception as exc:   # a bug must not lose the other documents' files
        return k, None, _internal(doc, exc), False


def _internal(doc: ExportDoc, exc: Exception) -> str:
    return (f"{doc.label}: the export failed: {type(exc).__name__}: {exc} "
            "(this is a bug in posecode-ssg; please report it)")


def _needs_browser(opts: ExportOptions) -> bool:
    if opts.fmt in ("svg",):
        return opts.time is not None   # maybe between phase ends
    if opts.fmt == "sheet":
        return opts.mid
    if opts.fmt == "png":
        return opts.renderer != "2d" or opts.time is not None
    return True


def _cleanup(out: Path, existed: bool) -> None:
    """Never leave a 0-byte file a failed writer made."""
    try:
        if not existed and out.exists() and out.stat().st_size == 0:
            out.unlink()
    except OSError:
        pass


def run(args) -> int:
    """Entry point of ``posecode-ssg export`` (the argparse namespace of cli.py); the exit status."""
    from posecode_ssg.commands.check import format_text

    out = Path(args.out)
    fmt, problem = resolve_format(getattr(args, "format", None), out)
    if fmt is None:
        return _usage(problem)
    try:
        opts = ExportOptions.from_args(args, fmt)
    except ExportError as exc:
        return _usage(str(exc))
    if args.fps is not None and not 0 < args.fps <= 240:
        return _usage(f"--fps {args.fps:g}: must be above 0 and at most 240")
    if args.phase is not None and args.phase < 1:
        return _usage(f"--phase {args.phase}: steps are counted from 1")
    if args.fence is not None and args.fence < 1:
        return _usage(f"--fence {args.fence}: fences are counted from 1")

    for note in ignored_options(args, fmt):
        print(f"{PROG}: note: {note}", file=sys.stderr)
    notes: list[str] = []
    docs, failed, problems = load_documents(list(args.files), opts, fence=args.fence, notes=notes)
    for p in problems:
        print(f"{PROG}: {p}", file=sys.stderr)
    for note in notes:
        print(f"{PROG}: note: {note}", file=sys.stderr)
    if failed:
        format_text(failed, sys.stderr)
    # the warnings and hints check gives (a foot left in the air, equipment left out): the file is
    # still written, as the build writes the page
    told = [d.checked for d in docs if d.checked is not None and d.checked.diagnostics()]
    if told and not problems:
        format_text(told, sys.stderr)
    if problems:
        return 2
    if not docs:
        return 1 if failed else _usage("no Posecode documents in " + ", ".join(args.files))

    # several documents (those with errors counted: the names do not depend on them) -> a folder
    count = len(docs) + len(failed)
    # several FILE arguments are a folder's worth, even when one page was passed over
    to_folder = out.is_dir() or count > 1 or (len(args.files) > 1 and not out.suffix)
    if to_folder:
        if out.exists() and not out.is_dir():
            return _usage(f"{out} is a file; several documents ({count}) are written into a folder")
        if not out.exists() and out.suffix.lower() in SUFFIX_FORMATS:
            return _usage(f"{count} documents cannot go into one file {out}: give a folder as -o")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _usage(f"cannot make the folder {out}: {exc.strerror or exc}")
    elif not out.parent.exists():
        return _usage(f"the folder of {out} does not exist")
    paths = output_paths(docs, out, fmt, to_folder)
    try:
        writer(fmt)   # a format this version lacks: say so once
    except ExportUnavailable as exc:
        return _usage(str(exc))

    status = 1 if failed else 0
    results: list[tuple[list[str] | None, str | None, bool]] = [(None, None, False)] * len(docs)
    existed = [p.exists() for p in paths]
    parallel = len(docs) >= POOL_MIN and not _needs_browser(opts) and (os.cpu_count() or 1) > 1
    frames = fmt in ANIMATIONS and not parallel
    bar = _progress(len(docs), "frame" if frames else "file")
    if frames and bar is not None:
        opts.progress = _frame_counter(bar, len(docs))
    try:
        if parallel:
            import concurrent.futures as cf
            import multiprocessing

            workers = min(len(docs), os.cpu_count() or 1, 4)
            ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
            with _fork_ready(), cf.ProcessPoolExecutor(workers, mp_context=ctx) as pool:
                jobs = [(k, doc, opts, p) for k, (doc, p) in enumerate(zip(docs, paths))]
                for k, notes, error, unavailable in pool.map(_worker, jobs):
                    results[k] = (notes, error, unavailable)
                    _show(results[k], bar)
        else:
            with ExportSession() as session:
                for k, (doc, p) in enumerate(zip(docs, paths)):
                    try:
                        results[k] = (_one(doc, opts, p, session), None, False)
                    except ExportError as exc:
                        results[k] = (None, str(exc), isinstance(exc, ExportUnavailable))
                        _cleanup(p, existed[k])
                    except Exception as exc:   # a bug: report it, go on with the others
                        results[k] = (None, _internal(doc, exc), False)
                        _cleanup(p, existed[k])
                    _show(results[k], bar, not frames)
                    if results[k][2]:   # a missing dependency: the next ones would say the same
                        break
    except KeyboardInterrupt:
        for p, e in zip(paths, existed):
            _cleanup(p, e)
        raise
    finally:
        if bar is not None:
            bar.close()
    for notes, error, unavailable in results:
        if unavailable:
            status = 2
        elif error is not None and status == 0:
            status = 1
    return status


#: options and the formats they act on (the others ignore them: :func:`ignored_options`)
OPTION_FORMATS = {
    "time": ("png", "svg"), "phase": ("png", "svg"), "mid": ("sheet",),
    "fps": ("gif", "webm", "mp4", "bvh", "gltf", "glb"), "loops": ("bvh", "gltf", "glb"),
    "width": ("png", "svg", "gif", "webm", "mp4", "sheet"), "height": ("png", "svg", "gif", "webm", "mp4", "sheet"),
    "renderer": ("png", "gif", "webm", "mp4"), "flip": ("png", "svg", "gif", "webm", "mp4", "sheet"),
    "view": ("png", "svg", "gif", "webm", "mp4", "sheet"), "equipment": ("png", "svg", "gif", "webm", "mp4", "sheet"),
}


def ignored_options(args, fmt: str) -> list[str]:
    """One note per option given that format ``fmt`` does not use (``--mid`` on a GIF, ``--time``
    on a video, ``--width`` on a BVH, ``--renderer`` on an SVG, always 2D)."""
    notes = []
    for name, formats in OPTION_FORMATS.items():
        value = getattr(args, name, None)
        if value in (None, False) or (name == "view" and value == "auto"):
            continue
        if fmt not in formats:
            notes.append(f"--{name} does not apply to {fmt} (it is for {', '.join(formats)}); ignored")
    return notes


#: formats drawn frame by frame: their bar counts the frames of the document being written
ANIMATIONS = ("gif", "webm", "mp4")


def _frame_counter(bar, files: int):
    """``opts.progress`` for an animation: the bar counts the current document's frames (reset
    at its first frame, described "export k/N" with several documents)."""
    state = {"file": 0}

    def report(done: int, total: int) -> None:
        if done == 1:
            state["file"] += 1
            bar.reset(total=total)
            if files > 1:
                bar.set_description(f"export {state['file']}/{files}", refresh=False)
        bar.update(done - bar.n)

    return report


def _progress(total: int, unit: str = "file"):
    """A tqdm bar on standard error, shown only once the export has taken a second (and only on
    a terminal): files written (``unit="file"``), or an animation's frames (``"frame"``: the
    total is set per document by :func:`_frame_counter`)."""
    try:
        from tqdm import tqdm
    except ImportError:   # pragma: no cover - tqdm is a dependency
        return None
    # no monitor thread (tqdm's default starts one that lives as long as the process): a bar
    # refreshed on each update is enough here
    tqdm.monitor_interval = 0
    return tqdm(total=total, unit=unit, desc="export", file=sys.stderr, delay=1.0, leave=False,
                disable=None if total else True)


def _show(result, bar, count: bool = True) -> None:
    """Print a document's notes and error (above the bar); ``count``: the bar counts files."""
    notes, error, _unavailable = result
    for n in notes or []:
        if bar is None:
            print(n)
        else:
            bar.write(n, file=sys.stdout)
    if error:
        if bar is not None:
            bar.write(f"{PROG}: {error}", file=sys.stderr)
        else:
            print(f"{PROG}: {error}", file=sys.stderr)
    if bar is not None and count:
        bar.update(1)
