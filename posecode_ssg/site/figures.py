"""One Posecode block -> a :class:`CompiledFigure` (motion JSON, SVG poster, phase listing, diagnostics).

This is the site's only bridge to the compiler: ``posecode_ssg.language.parse``
(text -> IR + diagnostics), ``posecode_ssg.motion.compile_ir`` (IR -> motion
program), ``motion.solve.kinematic_diagnostics`` (reported as warnings) and
``motion.poster.render_poster`` (the SVG fallback). The result is plain data
(JSON-serialisable through :meth:`CompiledFigure.to_dict`) so the build can
cache it by content hash (:func:`figure_key`) and compile in worker processes.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent


@dataclass
class CompiledFigure:
    """A compiled block.

    ``name``/``kind``/``props``/``repeat``: from the IR (spec §7), ``None``/empty
    when the block has errors. ``motion_json``: the compact motion JSON as text safe inside a
    ``<script>`` element (:func:`script_json`), or ``None`` (errors, or the motion package is not
    installed); the property ``motion`` decodes it. It is encoded once, where the figure is compiled
    (a compile worker): the cache stores it and the page inlines it as it is. ``poster``: a
    standalone ``<svg>`` string or ``None``. ``phases``: ``[{name, duration
    (seconds), mode, cue}]``. ``diagnostics``: dicts ``{code, severity,
    line, column, message, hint}`` with 1-based lines *inside the block*.
    ``motion_missing``: true when the motion package could not be imported. ``view``:
    ``side|front``, the requested view or the one the poster module chose for the movement.
    ``strip``: the phase strip, a standalone ``<svg>`` of the start pose and each phase's end
    labelled with the step names (the handouts' print, :func:`posecode_ssg.motion.poster.render_phase_strip`;
    made for a page's first figure, option ``strip``), or ``None``. ``loop``: seconds one
    repetition takes (motion JSON ``duration``: the phases and the wrap back to the start), or
    ``None``. ``both_sides``: one loop works each side in turn (:func:`works_both_sides`), so a
    program does not count it twice for ``per_side``.
    """

    key: str
    name: str | None = None
    kind: str | None = None
    props: list[str] = field(default_factory=list)
    repeat: int = 1
    motion_json: str | None = None
    poster: str | None = None
    phases: list[dict] = field(default_factory=list)
    diagnostics: list[dict] = field(default_factory=list)
    motion_missing: bool = False
    view: str | None = None
    strip: str | None = None
    loop: float | None = None
    both_sides: bool = False

    @property
    def motion(self) -> dict | None:
        """The motion JSON as a dict (decoded from :attr:`motion_json`, a new dict each time), or
        ``None``. Setting it stores its :func:`script_json` text."""
        return None if self.motion_json is None else json.loads(self.motion_json)

    @motion.setter
    def motion(self, value: dict | None) -> None:
        self.motion_json = None if value is None else script_json(value)

    @property
    def errors(self) -> list[dict]:
        """The diagnostics of severity ``error``."""
        return [d for d in self.diagnostics if d["severity"] == "error"]

    def to_dict(self) -> dict:
        """Return a JSON-ready dict (inverse of :meth:`from_dict`). Shallow: the values are the
        figure's own (plain data, never mutated once compiled); ``dataclasses.asdict`` deep-copied
        the motion JSON of every figure (~0.1 ms each, in the compile worker and again for the cache)."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: dict) -> "CompiledFigure":
        """Rebuild a figure from :meth:`to_dict` output."""
        return cls(**data)


_FIELDS = tuple(f.name for f in fields(CompiledFigure))

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_JSON_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")


def script_json(data: Any) -> str:
    """Serialise ``data`` as compact JSON safe inside an HTML ``<script>`` element.

    ``< > &`` and U+2028/U+2029 become ``\\u`` escapes (JSON string escapes,
    so the decoded strings are unchanged): the text can never contain
    ``</script``, ``<!--`` or a raw line/paragraph separator (HTML Living
    Standard §4.12.1.3, "restrictions for contents of script elements").
    Raises ``ValueError`` for NaN or infinity (not JSON).
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _JSON_ESCAPE_RE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


@lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    """Hash of the compiler's own source (language + motion packages + this module).

    Part of every cache key, so a changed compiler never serves stale figures.
    """
    digest = hashlib.sha256()
    for folder in ("language", "motion"):
        root = PACKAGE / folder
        if not root.is_dir():
            digest.update(f"{folder}:absent".encode())
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".lark", ".json") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(PACKAGE)).encode())
                digest.update(path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:16]


def figure_key(source: str, options: dict) -> str:
    """Content hash of a block: source text + figure options + compiler fingerprint (hex sha256)."""
    payload = _KEY_JSON([source, sorted((k, v) for k, v in options.items() if v is not None),
                         compiler_fingerprint()])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


#: ``json.dumps(..., ensure_ascii=False)`` with its encoder made once (dumps makes a new encoder
#: for every call with options)
_KEY_JSON = json.JSONEncoder(ensure_ascii=False).encode


def works_both_sides(ir) -> bool:
    """Whether one loop of the movement (``ir``: spec §7 IR) works each side in turn: some step
    moves only left-side joints and another only right-side ones (heel slides: the right heel in
    and out, then the left). Its repetition is then one on each side."""
    sides = set()
    for phase in ir.phases:
        moved = {t.bone_id.rsplit("_", 1)[-1] for t in phase.targets}
        if moved in ({"left"}, {"right"}):
            sides |= moved
    return sides == {"left", "right"}


def _diag_dict(d: Any) -> dict:
    if hasattr(d, "to_dict"):
        data = dict(d.to_dict())
    else:
        data = {k: getattr(d, k, None) for k in ("code", "severity", "line", "column", "message", "hint")}
    return {"code": data.get("code") or "posecode", "severity": data.get("severity") or "error",
            "line": int(data.get("line") or 1), "column": int(data.get("column") or 1),
            "message": str(data.get("message") or ""), "hint": data.get("hint")}


def holding_sides(words) -> set[str]:
    """The hands that close around the equipment ``words`` (motion/equipment.py)."""
    if not words:
        return set()
    from posecode_ssg.motion.equipment import holding_sides as sides

    return sides(words)


def _equipment(program, words) -> list[dict]:
    """Place the equipment ``words`` on ``program`` (its motion JSON ``equipment``) and return the
    attach problems as diagnostic dicts (motion/equipment.py ``place_equipment``)."""
    from posecode_ssg.motion.equipment import place_equipment

    return [_diag_dict(d) for d in place_equipment(program, words)]


def compile_figure(source: str, options: dict | None = None, key: str | None = None) -> CompiledFigure:
    """Compile one Posecode block.

    :param source: the block text (fence body or ``.posecode`` file), LF or
        CRLF line ends; a leading BOM is ignored.
    :param options: ``view`` (``side|front`` or None), ``avatar`` (fence
        attribute, overrides the document), ``default_avatar`` (config, used
        when the document names none), ``title`` (poster title),
        ``equipment`` (a tuple of equipment words drawn on the figure, or None:
        motion/equipment.py), ``equipment_from`` (``"page"`` when the words come from the page's
        front matter: an item that cannot be held as written is then left out, with a hint),
        ``strip`` (true: render the phase strip too, :attr:`CompiledFigure.strip`),
        ``equipment_left_out`` (front-matter words no figure draws without the fence's attribute:
        a hint each).
    :param key: the block's :func:`figure_key` when the caller has it (the build: computed
        once, where its jobs are made).
    :returns: a :class:`CompiledFigure`; never raises for bad Posecode (the
        problems are in ``diagnostics``). An internal failure of the motion
        compiler becomes an ``internal-error`` diagnostic naming the exception.
    """
    options = dict(options or {})
    key = key or figure_key(source, options)
    if source.startswith("\ufeff"):
        source = source[1:]
    try:
        from posecode_ssg.language import parse
    except ImportError as exc:  # partial install: say so instead of crashing
        return CompiledFigure(key=key, diagnostics=[{
            "code": "parser-unavailable", "severity": "error", "line": 1, "column": 1,
            "message": f"the Posecode parser is not available ({exc})", "hint": "reinstall posecode-ssg"}])
    result = parse(source)
    diagnostics = [_diag_dict(d) for d in [*result.errors, *result.warnings]]
    figure = CompiledFigure(key=key, diagnostics=diagnostics)
    ir = result.ir
    if ir is None:
        return figure
    figure.name, figure.kind = ir.name, ir.kind
    figure.props = list(ir.props)
    figure.repeat = int(ir.repeat or 1)
    figure.phases = [{"name": p.name, "duration": float(p.duration_sec), "mode": p.easing, "cue": p.cue}
                     for p in ir.phases]
    figure.both_sides = works_both_sides(ir)
    avatar = options.get("avatar")
    if avatar is not None:
        from posecode_ssg.language.vocabulary import AVATARS

        if avatar not in AVATARS:
            figure.diagnostics.append({"code": "fence-attribute", "severity": "warning", "line": 1, "column": 1,
                                       "message": f"unknown avatar '{avatar}' in the fence attributes "
                                                  f"(one of {', '.join(AVATARS)}); the document's is used",
                                       "hint": None})
            avatar = None
    avatar = avatar or ir.avatar or options.get("default_avatar")
    try:
        from posecode_ssg.motion import compile_ir
    except ImportError:
        figure.motion_missing = True
        return figure
    try:
        words = tuple(options.get("equipment") or ())
        program = compile_ir(ir, avatar=avatar, holding=holding_sides(words))
        if words and options.get("equipment_from") == "page":
            # drawn because the front matter lists it: what cannot be held as written is left out
            from posecode_ssg.motion.equipment import page_words_that_fit

            kept, hints = page_words_that_fit(program, words)
            figure.diagnostics += [_diag_dict(h) for h in hints]
            if kept != words:
                words = kept
                program = compile_ir(ir, avatar=avatar, holding=holding_sides(words))
        if words:
            figure.diagnostics += _equipment(program, words)
        if options.get("equipment_left_out"):
            from posecode_ssg.motion.equipment import left_out_hints

            figure.diagnostics += [_diag_dict(h) for h in left_out_hints(options["equipment_left_out"], ir.line or 1)]
        figure.motion = program.to_json()
        figure.loop = float(program.duration)
        try:
            from posecode_ssg.language.parser import split_lines
            from posecode_ssg.motion.diagnostics import (
                kinematic_diagnostics,
                with_columns,
            )
        except ImportError:
            kinematic_diagnostics = None
        if kinematic_diagnostics is not None:
            # columns at the first word of the asking line, as `check` reports them
            for d in with_columns(kinematic_diagnostics(program), split_lines(source)):
                item = _diag_dict(d)
                if item["severity"] == "error":
                    item["severity"] = "warning"
                figure.diagnostics.append(item)
        try:
            from posecode_ssg.motion.poster import render_poster
        except ImportError:
            render_poster = None
        if render_poster is not None:
            from posecode_ssg.motion.poster import choose_view

            from posecode_ssg.motion.poster import render_phase_strip

            figure.view = options.get("view") or choose_view(program)
            figure.poster = render_poster(program, view=figure.view, title=options.get("title") or ir.name)
            if options.get("strip"):
                figure.strip = render_phase_strip(program, view=figure.view)
    except Exception as exc:  # a compiler bug must not become a user traceback
        figure.motion = None
        figure.diagnostics.append({
            "code": "internal-error", "severity": "error", "line": ir.line or 1, "column": 1,
            "message": f"the motion compiler failed on this block: {type(exc).__name__}: {exc}",
            "hint": "this is a bug in posecode-ssg; please report it with the block"})
    return figure
