"""The shared core of ``posecode-ssg export`` (issue 25; docs/export.md): the options, the
documents, the one-Chromium session, the writer table and atomic writing.

Every format's writer has the signature ``write_x(doc, opts, out, session) -> list[str]`` (the
notes the command prints, the first normally ``"wrote OUT (...)"``) and is named in
:data:`WRITERS` as ``"module:function"``; :func:`writer` imports it (a missing module is
:class:`ExportUnavailable`). Writers write their file through :func:`write_atomic` or
:func:`atomic_output`, so a failure never leaves a partial or 0-byte file.

Exit status of the command: 0 written; 1 a document has errors or an :class:`ExportError`; 2 a
usage error or an :class:`ExportUnavailable` (a missing optional dependency: Playwright, Chromium,
PyAV...), as ``eval`` exits 2 when Playwright or Chromium is missing.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

PROG = "posecode-ssg export"

#: format -> "module:function" of its writer
WRITERS: dict[str, str] = {
    "png": "posecode_ssg.export.still:write_png",
    "svg": "posecode_ssg.export.still:write_svg",
    "sheet": "posecode_ssg.export.still:write_sheet",
    "gif": "posecode_ssg.export.animation:write_gif",
    "webm": "posecode_ssg.export.animation:write_video",
    "mp4": "posecode_ssg.export.animation:write_video",
    "bvh": "posecode_ssg.export.bvh:write_bvh",
    "gltf": "posecode_ssg.export.gltf:write_gltf",
    "glb": "posecode_ssg.export.gltf:write_gltf",
}

#: OUT's suffix -> format (a contact sheet only with ``--format sheet``)
SUFFIX_FORMATS = {".png": "png", ".svg": "svg", ".gif": "gif", ".webm": "webm", ".mp4": "mp4",
                  ".bvh": "bvh", ".gltf": "gltf", ".glb": "glb"}

#: the file suffix each format writes in an output folder (a sheet: SVG)
FORMAT_SUFFIX = {"png": ".png", "svg": ".svg", "sheet": ".svg", "gif": ".gif", "webm": ".webm",
                 "mp4": ".mp4", "bvh": ".bvh", "gltf": ".gltf", "glb": ".glb"}

#: formats drawn without a browser (the 2D figure); png with ``--renderer 2d`` or no Chromium
TWO_D_FORMATS = frozenset({"svg", "sheet"})

#: seconds within which a time is taken as a phase end (a keyframe the build solved)
TIME_EPS = 1e-6


class ExportError(Exception):
    """A user-facing problem with one export (the message is printed as it is; exit 1)."""


class ExportUnavailable(ExportError):
    """A missing optional dependency (the message says what to install; exit 2)."""


@dataclass
class ExportOptions:
    """The command's options (argparse names), the format resolved. ``equipment``: the words of
    ``--equipment`` (read with motion/equipment.py ``read_equipment``), None when not given (a
    fence's attribute or page's front matter then decides, as in the build). ``renderer``: None
    when not given (png: 3D when Chromium is there, else 2D with a note; svg: 2D)."""

    fmt: str
    out: Path
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    time: float | None = None
    phase: int | None = None
    view: str = "auto"
    avatar: str | None = None
    flip: bool = False
    renderer: str | None = None
    equipment: tuple[str, ...] | None = None
    mid: bool = False
    loops: int = 1   # BVH and glTF: how many loops one after another (``--loops``)
    #: told ``(frames done, frames in all)`` after each frame of an animation (GIF, video): the
    #: command's progress bar; not an option of the command line
    progress: Callable[[int, int], None] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_args(cls, args, fmt: str) -> "ExportOptions":
        """From the argparse namespace of ``export`` and the resolved format. Raises
        :class:`ExportError` for an unknown ``--equipment`` word or ``--avatar``."""
        equipment = None
        if getattr(args, "equipment", None) is not None:
            from posecode_ssg.motion.equipment import read_equipment

            words, problems = read_equipment(args.equipment)
            if problems:
                raise ExportError("--equipment: " + "; ".join(problems))
            equipment = words
        avatar = getattr(args, "avatar", None)
        if avatar is not None:
            from posecode_ssg.language.vocabulary import AVATARS

            if avatar not in AVATARS:
                raise ExportError(f"--avatar: unknown avatar '{avatar}' (one of {', '.join(AVATARS)})")
        return cls(fmt=fmt, out=Path(args.out), width=getattr(args, "width", None),
                   height=getattr(args, "height", None), fps=getattr(args, "fps", None),
                   time=getattr(args, "time", None), phase=getattr(args, "phase", None),
                   view=getattr(args, "view", None) or "auto", avatar=avatar,
                   flip=bool(getattr(args, "flip", False)), renderer=getattr(args, "renderer", None),
                   equipment=equipment, mid=bool(getattr(args, "mid", False)),
                   loops=_loops(getattr(args, "loops", None)))


def _loops(value) -> int:
    """``--loops``: a whole number ≥ 1 (default 1); else :class:`ExportError`."""
    if value is None:
        return 1
    if int(value) != value or value < 1:
        raise ExportError(f"--loops must be a whole number of at least 1, got {value}")
    return int(value)


@dataclass
class ExportDoc:
    """One movement to export: a ``.posecode`` file or one fence of a Markdown page.

    ``name``: the movement's name; ``source``: its Posecode text; ``path``: the file;
    ``fence_line``: 1-based line of the opening fence (None for ``.posecode``); ``attrs``: the
    fence's info-string attributes (``title``, ``view``, ``avatar``, ``equipment``...).
    ``avatar`` / ``equipment``: what the figure is drawn with (``--avatar`` / ``--equipment``
    over the fence's attributes, over the page's front matter: :func:`load_documents`);
    ``equipment_from_page``: the words come from the front matter (what cannot be held as written
    is left out, as the build does). ``ir``: the parsed IR."""

    name: str
    source: str
    path: Path
    fence_line: int | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    avatar: str | None = None
    equipment: tuple[str, ...] = ()
    equipment_from_page: bool = False
    ir: Any = None
    #: the document as ``check`` saw it (its warnings and hints, which the command prints)
    checked: Any = field(default=None, repr=False, compare=False)
    _program: Any = field(default=None, repr=False, compare=False)
    _motion: dict | None = field(default=None, repr=False, compare=False)

    def _ir(self):
        if self.ir is None:
            from posecode_ssg.language import parse

            result = parse(self.source)
            if result.ir is None:
                raise ExportError(f"{self.path}: the document has errors")
            self.ir = result.ir
        return self.ir

    def program(self):
        """The compiled :class:`~posecode_ssg.motion.compile.MotionProgram`, with the avatar and
        the equipment placed as the build places them (site/figures.py ``compile_figure``); made
        once."""
        if self._program is None:
            from posecode_ssg.motion import compile_ir
            from posecode_ssg.motion.equipment import holding_sides, place_equipment

            ir = self._ir()
            avatar = self.avatar or ir.avatar
            words = tuple(self.equipment)
            program = compile_ir(ir, avatar=avatar, holding=holding_sides(words))
            if words and self.equipment_from_page:
                from posecode_ssg.motion.equipment import page_words_that_fit

                kept, _hints = page_words_that_fit(program, words)
                if kept != words:
                    words = kept
                    program = compile_ir(ir, avatar=avatar, holding=holding_sides(words))
            if words:
                place_equipment(program, words)
            self._program = program
        return self._program

    def motion(self) -> dict:
        """The motion JSON the runtime plays (docs/motion-json.md), as ``compile_figure`` makes
        it (a new copy each call is not promised: do not change it)."""
        if self._motion is None:
            self._motion = self.program().to_json()
        return self._motion

    def phase_times(self) -> list[float]:
        """The end time (s) of each step, in order (step N ends at ``phase_times()[N - 1]``)."""
        out, t = [], 0.0
        for kf in self.program().keyframes:
            t += float(kf.duration)
            out.append(t)
        return out

    @property
    def duration(self) -> float:
        """One loop (s): the steps and the wrap back to the start."""
        return float(self.program().duration)

    @property
    def step_names(self) -> list[str]:
        """The steps' names, in order."""
        return [kf.name for kf in self.program().keyframes]

    @property
    def label(self) -> str:
        """``path`` or ``path:LINE`` (a fence) for messages."""
        from posecode_ssg.site.report import display_path

        shown = display_path(self.path)
        return shown if self.fence_line is None else f"{shown}:{self.fence_line}"


def frame_time(doc: ExportDoc, opts: ExportOptions) -> float:
    """The time (s) of a single-frame export: ``--time T`` (0 ≤ T ≤ one loop), or the end of
    step N for ``--phase N`` (from 1), else the poster frame's (the pose farthest from the start:
    motion/view.py ``primary_index``). Raises :class:`ExportError` for a time outside the loop or a
    step number out of range (naming the count)."""
    if opts.time is not None:
        t = float(opts.time)
        if not (0.0 <= t <= doc.duration + TIME_EPS):
            raise ExportError(f"{doc.label}: --time {opts.time:g} is outside the loop "
                              f"(0 to {doc.duration:g} s)")
        return min(t, doc.duration)
    ends = doc.phase_times()
    if opts.phase is not None:
        n = int(opts.phase)
        if not 1 <= n <= len(ends):
            raise ExportError(f"{doc.label}: --phase {n}: '{doc.name}' has {len(ends)} "
                              f"step{'' if len(ends) == 1 else 's'} (1 to {len(ends)})")
        return ends[n - 1]
    from posecode_ssg.motion.view import primary_index

    index = primary_index(doc.program())
    return 0.0 if index == 0 else ends[index - 1]


def frame_index(doc: ExportDoc, t: float) -> int | None:
    """The keyframe index shown at time ``t`` when it is one the build solved (0 the start pose
    — also the loop's end when a wrap leads back to it —, i the end of step i), else None."""
    ends = doc.phase_times()
    if abs(t) <= TIME_EPS:
        return 0
    for i, e in enumerate(ends, 1):
        if abs(t - e) <= TIME_EPS:
            return i
    if abs(t - doc.duration) <= TIME_EPS and doc.program().wrap > 0:
        return 0
    return None


class ExportSession:
    """One per command run (a context manager): holds the ONE headless Chromium of the run,
    started on the first :meth:`runtime` call.

    ``session.runtime()`` returns a started :class:`~posecode_ssg.evaluate.sampler.RuntimePage`:
    its ``.page`` is the Playwright page holding the runtime bundle and ``rig.json`` (evaluate
    JavaScript with ``session.runtime().page.evaluate(js, arg)``; create a
    ``<posecode-figure>`` with the page's ``posecodeMount(motion)`` (sampler.py ``MOUNT_JS``)),
    ``.sample(motion, hz)`` samples a whole loop, ``.rig`` the rig.json dict, ``.problems`` the
    page errors; ``session.browser`` is the Playwright browser (for another page or context).
    Raises :class:`ExportUnavailable` (with browser.INSTALL_HINT) when Playwright, Chromium or
    the runtime bundle is missing."""

    def __init__(self, browser=None):
        self._given = browser
        self._runtime = None
        self._failed: ExportUnavailable | None = None

    def __enter__(self) -> "ExportSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def started(self) -> bool:
        """Whether the browser is running."""
        return self._runtime is not None

    def runtime(self):
        """The started RuntimePage (see the class docstring)."""
        if self._runtime is not None:
            return self._runtime
        if self._failed is not None:
            raise self._failed
        from posecode_ssg.evaluate.browser import BrowserUnavailable

        try:
            from posecode_ssg.evaluate.sampler import RuntimeMissing, RuntimePage
        except ImportError as exc:   # numpy / the eval extras missing
            from posecode_ssg.evaluate.browser import INSTALL_HINT

            self._failed = ExportUnavailable(f"the browser runtime is not available ({exc}); {INSTALL_HINT}")
            raise self._failed from None
        try:
            rp = RuntimePage(browser=self._given)
            rp.__enter__()
        except (BrowserUnavailable, RuntimeMissing) as exc:
            self._failed = ExportUnavailable(str(exc))
            raise self._failed from None
        self._runtime = rp
        return rp

    @property
    def page(self):
        """The runtime's Playwright page (starts the browser)."""
        return self.runtime().page

    @property
    def browser(self):
        """The Playwright browser (starts it)."""
        rp = self.runtime()
        return rp._given or rp._browser

    def sample_at(self, motion: dict, times: list[float]) -> list[dict]:
        """``el.sample()`` of the runtime at each of ``times`` (s) for ``motion``: dicts with
        ``bones``, ``landmarks``, ``orientation``, ``frame`` ({yaw, travel}), ``equipment``, ``phase``
        (docs/runtime.md). Raises :class:`ExportError` when the runtime rejects the motion."""
        try:
            out = self.page.evaluate(SAMPLE_AT, {"motion": motion, "times": [float(t) for t in times]})
        except ExportError:
            raise
        except Exception as exc:   # playwright's Error: a page error inside the runtime
            first = str(exc).strip().splitlines()
            raise ExportError(f"the runtime failed: {first[0] if first else type(exc).__name__}") from None
        if isinstance(out, dict) and "error" in out:
            raise ExportError(f"the runtime rejected the document: {out['error']}")
        return out

    def close(self) -> None:
        """Close the browser (when it was started)."""
        if self._runtime is not None:
            rp, self._runtime = self._runtime, None
            rp.__exit__(None, None, None)


#: el.sample() at given times for one motion (in the runtime page)
SAMPLE_AT = """
async ({motion, times}) => {
  const el = posecodeMount(motion);
  try { await el.ready; } catch (e) { el.remove(); return { error: String((e && e.message) || e) }; }
  const out = [];
  for (const t of times) {
    el.seek(t);
    const s = el.sample();
    out.push({ t, phase: s.phase, bones: s.bones, landmarks: s.landmarks, orientation: s.orientation,
               frame: s.frame, equipment: s.equipment || [] });
  }
  el.remove();
  return out;
}
"""


def writer(fmt: str):
    """The writer function of ``fmt`` (:data:`WRITERS`). Raises :class:`ExportUnavailable` when
    its module is not part of this version, :class:`ExportError` for an unknown format."""
    spec = WRITERS.get(fmt)
    if spec is None:
        raise ExportError(f"unknown export format '{fmt}' (one of {', '.join(WRITERS)})")
    module, func = spec.split(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == module or module.startswith(exc.name + ".")):
            raise ExportUnavailable(f"{fmt} export is not available in this version ({module} is missing)") from None
        raise
    fn = getattr(mod, func, None)
    if fn is None:
        raise ExportUnavailable(f"{fmt} export is not available in this version ({spec} is missing)")
    return fn


@contextlib.contextmanager
def atomic_output(out: Path) -> Iterator[Path]:
    """A temporary path beside ``out`` (same suffix) to write to; renamed to ``out`` when the
    block ends without an exception and the file is not empty, else removed (an empty file is an
    :class:`ExportError`). ``out``'s folder must exist."""
    out = Path(out)
    fd, name = tempfile.mkstemp(prefix=f".{out.stem}.", suffix=f".tmp{out.suffix}", dir=out.parent or ".")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if not tmp.exists() or tmp.stat().st_size == 0:
            raise ExportError(f"{out}: nothing was written")
        # mkstemp makes the file private (0600); a written export gets the mode any new file gets
        # (0644 under the usual umask 022): it is meant to be sent, served or imported
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def write_atomic(out: Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``out`` through a temporary file and a rename."""
    with atomic_output(out) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def slug(name: str) -> str:
    """A file name of a movement's name: lower case ASCII words joined by ``-`` ("movement" when
    nothing is left)."""
    import re
    import unicodedata

    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return text or "movement"


def load_documents(paths: list[str], opts: ExportOptions | None = None,
                   fence: int | None = None, notes: list[str] | None = None) -> tuple[list[ExportDoc], list, list[str]]:
    """The documents of FILE arguments: ``(docs, failed, problems)``. ``docs``: the movements that
    parse (in order); ``failed``: the :class:`~posecode_ssg.checking.CheckedDocument` s with errors
    (print them with ``commands.check.format_text``); ``problems``: usage messages (a missing file,
    a page without fences, ``--fence N`` out of range). Among several files a Markdown page without
    fences (a section's ``_index.md`` of a folder given whole) is passed over, told in ``notes``
    when given; it is a problem only when nothing else is left. Avatar and equipment: ``opts``
    over the fence attribute over the page's front matter (as the build draws them)."""
    from posecode_ssg.checking import check_file
    from posecode_ssg.site.fences import extract_posecode_blocks

    docs: list[ExportDoc] = []
    failed: list = []
    problems: list[str] = []
    skipped: list[str] = []   # Markdown pages without a fence among several files
    for arg in paths:
        path = Path(arg)
        if not path.is_file():
            problems.append(f"{arg}: no such file")
            continue
        checked = check_file(path, display=arg)
        is_md = path.suffix.lower() == ".md"
        blocks = []
        if is_md and checked and checked[0].source is not None:
            try:
                blocks = extract_posecode_blocks(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                blocks = []
        if is_md and not checked:
            if len(paths) > 1:   # a folder's pages given together (a section's _index.md): passed over
                skipped.append(arg)
            else:
                problems.append(f"{arg} holds no ```posecode fence")
            continue
        indices = list(range(len(checked)))
        if fence is not None and is_md:
            if not 1 <= fence <= len(checked):
                problems.append(f"{arg} has {len(checked)} ```posecode fence"
                                f"{'' if len(checked) == 1 else 's'}, not {fence}")
                continue
            indices = [fence - 1]
        for i in indices:
            c = checked[i]
            if c.result.errors or c.result.ir is None:
                failed.append(c)
                continue
            attrs = dict(blocks[i].attrs) if is_md and i < len(blocks) else {}
            avatar = (opts.avatar if opts else None) or attrs.get("avatar")
            if avatar is not None:
                from posecode_ssg.language.vocabulary import AVATARS

                avatar = avatar if avatar in AVATARS else None   # check reports a bad attribute
            if opts is not None and opts.equipment is not None:
                equipment, from_page = tuple(opts.equipment), False
            else:
                equipment, from_page = tuple(c.equipment), c.equipment_from_page
            docs.append(ExportDoc(name=c.result.ir.name, source=c.source or "", path=path,
                                  fence_line=c.fence_line, attrs=attrs, avatar=avatar,
                                  equipment=equipment, equipment_from_page=from_page and bool(equipment),
                                  ir=c.result.ir, checked=c))
    if skipped and not docs and not failed:
        problems += [f"{arg} holds no ```posecode fence" for arg in skipped]
    elif skipped and notes is not None:
        notes += [f"{arg} holds no ```posecode fence: passed over" for arg in skipped]
    return docs, failed, problems
