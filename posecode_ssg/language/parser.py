"""Posecode v0.4 parser: source text in, :class:`ParseResult` (IR + diagnostics) out.

Pipeline (spec ../shared/seeds/000_87ff9483bb3193ea.txt §1–§5, §7; reference behaviour recorded
in ../shared/conformance/README.md):

1. **Lines.** A leading byte order mark is dropped; lines split on LF with an optional CR before
   it and on nothing else. Inside a line, U+2028/U+2029 and the other Unicode spaces separate
   tokens like a space (the reference tokenizer's whitespace class). Indentation is counted in characters
   (a tab counts as one).
2. **Statements.** Each non-blank line is parsed on its own by the lark LALR grammar in
   ``posecode.lark`` (start symbol ``line``), so one malformed line never hides the next:
   unreadable characters become ``unexpected-character`` errors and malformed lines a
   ``bad-<directive>`` error chosen by the line's first word.
3. **Blocks.** Indentation places each statement: the header, top-level directives at one
   document indentation level, step children and start-pose overrides beneath their header.
4. **Resolution.** Closed vocabularies are checked (with did-you-mean hints), groups expanded,
   actions turned into signed, mirrored Euler channels, angles clamped to the range-of-motion
   table (``rom-clamp`` warnings, including the pelvis-hinge + hip 135° coupling of spec §4), and
   contacts checked for capability and mutual exclusion (spec §1 "Contact mechanisms", §5).

Every recoverable problem is reported in one run; ``ir`` is ``None`` exactly when there is an
error. :func:`parse` never raises for any ``str``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput

from . import rom
from . import vocabulary as V
from .diagnostics import Diagnostic, reading_order, stage_of
from .ir import IR, Contact, JointTarget, Phase, _num

_GRAMMAR_PATH = Path(__file__).with_name("posecode.lark")


def _build_parser() -> Lark:
    """The statement parser (LALR + contextual lexer), built once at import. lark's grammar cache
    (a file in the temp folder) saves ~20 ms of start-up; without a writable temp folder the
    grammar is simply compiled."""
    options = dict(parser="lalr", lexer="contextual", start="line", maybe_placeholders=False)
    grammar = _GRAMMAR_PATH.read_text("utf-8")
    try:
        return Lark(grammar, cache=True, **options)
    except Exception:  # pragma: no cover - unwritable temp folder, stale cache
        return Lark(grammar, cache=False, **options)


_LARK = _build_parser()

#: Statement lines parsed so far: raw line (indentation included) -> (indentation, head word,
#: rule, tokens, opens a block). A line's parse depends on its text alone (token columns are
#: within the line; the line number is the caller's), and a library repeats its lines (``rig
#: humanoid``, ``ground-lock: feet``, ``knees: flex 0``, ``repeat 8``), so each distinct line goes
#: through lark once per process (~25 µs a line) and is measured once. Blank and comment lines,
#: keywords in the wrong case and lines that fail to parse are not kept (their diagnostics are
#: made each time). Tokens are shared between documents: read, never mutated.
_LINES: dict[str, tuple[int, str, str, tuple, bool]] = {}
_LINES_MAX = 8192

#: Lark's parse of a line by its digit shape: the line with every ASCII digit written as ``0`` ->
#: (rule, tokens). The grammar reads digits only through ``\d`` and ``[0-9]`` classes and no
#: keyword has a digit, so lines of one shape lex into the same terminals at the same columns and
#: parse by the same rule (a new number, duration, title or cue: ``knees: flex 98`` after
#: ``knees: flex 51``); only the values of the tokens are the line's own text, cut at the same
#: positions. Shapes come from lines that parsed.
_SHAPES: dict[str, tuple[str, tuple]] = {}
_DIGITS_AS_0 = str.maketrans("123456789", "000000000")

_TOP_LEVEL = ("rig", "avatar", "prop", "pose", "clip", "repeat", "step")
_STEP_ONLY = ("ground-lock", "reach", "pin", "grip", "turn", "travel", "cue")
_KEYWORDS = ("posecode",) + _TOP_LEVEL + _STEP_ONLY

#: Usage shown for a malformed line, by first word (messages follow error-kinds.json).
_USAGE = {
    "posecode": ("bad-header", 'document must start with a `posecode <kind> "<name>"` header'),
    "rig": ("bad-rig", "expected `rig humanoid`"),
    "avatar": ("unknown-avatar", "unknown avatar directive; expected `avatar avatar1|avatar2|avatar3`"),
    "prop": ("bad-prop", "expected `prop <type>`"),
    "pose": ("bad-pose", "expected `pose start = <name>` or `pose start = <name>:`"),
    "clip": ("bad-clip", 'expected `clip "<name>"`'),
    "repeat": ("bad-repeat", "repeat requires a positive integer count"),
    "step": ("bad-step-header", 'expected `step "<name>" <duration> <mode>:`'),
    "ground-lock": ("bad-ground-lock", "expected `ground-lock: <contacts>`"),
    "reach": ("bad-reach", "expected `reach: <effector> <target>`"),
    "pin": ("bad-pin", "expected `pin: <effector> <anchor>`"),
    "grip": ("bad-grip", "expected `grip: <effector> <anchor>`"),
    "turn": ("bad-turn", "expected `turn: <degrees>`"),
    "travel": ("bad-travel", "expected `travel: <x> <z>`"),
    "cue": ("bad-cue", "`cue` requires exactly one quoted string"),
    "joint": ("bad-joint-target", "expected `<joint>: <action> <degrees>`"),
    "hold": ("bad-hold", "expected `<joint>: hold neutral` (no angle follows `hold neutral`)"),
}

_USAGE_HINT = {
    "posecode": 'e.g. `posecode exercise "Squat"`; kinds: ' + ", ".join(V.KINDS),
    "rig": "the only rig is `humanoid`",
    "prop": "props: " + ", ".join(V.PROPS),
    "pose": "e.g. `pose start = standing`; start poses: " + ", ".join(V.START_POSES),
    "clip": 'e.g. `clip "squat_take_03"`',
    "repeat": "e.g. `repeat 3`",
    "step": 'e.g. `step "Lower" 1.5s settle:`; modes: ' + ", ".join(V.TIMING_MODES),
    "ground-lock": "e.g. `ground-lock: feet` or `ground-lock: hand_left, foot_right`",
    "reach": "e.g. `reach: hand_left floor`",
    "pin": "e.g. `pin: knee_left floor`",
    "grip": "e.g. `grip: hands bar`",
    "turn": "e.g. `turn: 90` (degrees of yaw)",
    "travel": "e.g. `travel: 1.5 -0.5` (x z in metres)",
    "cue": 'e.g. `cue "Keep the knees over the toes"`',
    "joint": "e.g. `knees: flex 40`",
    "hold": "write `<joint>: hold neutral` with nothing after it",
}

#: Whitespace inside a line (JavaScript's ``\s`` without LF, as the reference tokenizer reads it):
#: it separates tokens and counts as indentation, one character each; it never ends a line.
SPACE = " \t\r\f\v\u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) \
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
_SP = "[" + re.escape(SPACE) + "]"
_HEAD_RE = re.compile(_SP + r"*([A-Za-z_][A-Za-z0-9_\-]*)" + _SP + "*(:)?")
_START_POSE_PHASE = "start pose"


@dataclass
class ParseResult:
    """What :func:`parse` returns: ``ir`` (``None`` exactly when ``errors`` is non-empty) and the
    diagnostics, each list sorted by line then column."""

    ir: IR | None
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    hints: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when there are no errors."""
        return not self.errors

    def diagnostics(self) -> list[Diagnostic]:
        """Errors, warnings and hints together, in :func:`reading_order` (by line and column)."""
        return sorted(self.errors + self.warnings + self.hints, key=reading_order)

    def to_dict(self) -> dict[str, Any]:
        """``{"ir": dict|None, "errors": [...], "warnings": [...], "hints": [...]}``."""
        return {
            "ir": self.ir.to_dict() if self.ir is not None else None,
            "errors": [d.to_dict() for d in self.errors],
            "warnings": [d.to_dict() for d in self.warnings],
            "hints": [d.to_dict() for d in self.hints],
        }


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def split_lines(source: str) -> list[str]:
    """Split on LF with an optional preceding CR, nothing else (conformance README "Reading the
    inputs"); a leading U+FEFF is dropped. ``str.splitlines`` is deliberately not used: it would
    also break on U+2028, U+2029, VT, FF and others."""
    if source.startswith("\ufeff"):
        source = source[1:]
    lines = source.split("\n")
    for i in range(len(lines) - 1):
        if lines[i].endswith("\r"):
            lines[i] = lines[i][:-1]
    return lines


def did_you_mean(word: str, candidates) -> str | None:
    """Closest candidate to a misspelt word (difflib ratio ≥ 0.6), as ``did you mean `x`?``."""
    best = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    if not best and word.lower() != word:
        best = difflib.get_close_matches(word.lower(), list(candidates), n=1, cutoff=0.6)
    return f"did you mean `{best[0]}`?" if best else None


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _unquote(tok: Token) -> str:
    """The text of a STRING token: the characters between the quotes, as written (a string runs
    to the next ``"`` on the same line; there are no escapes, as in the reference tokenizer)."""
    return str(tok)[1:-1]


def _char_name(ch: str) -> str:
    if ch.isprintable() and not ch.isspace():
        return ch
    return f"U+{ord(ch):04X}"


@dataclass
class _Stmt:
    """One parsed line: ``rule`` is the grammar rule (``step``, ``joint_target``...) or ``None``
    for a line that failed to parse (``head`` then says what it looked like)."""

    line: int
    indent: int
    col: int
    head: str
    rule: str | None
    tokens: list[Token]
    opens_block: bool = False
    #: a syntax error whose code depends on the block the line lands in
    pending: tuple[str, int, str, str | None] | None = None


class _Parser:
    def __init__(self, source: str) -> None:
        self.lines = split_lines(source)
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.hints: list[Diagnostic] = []
        self.props: list[str] = []
        self.unknown_props: list[tuple[int, str]] = []  # (line, word) of `prop` lines not in the list

    # -- diagnostics ----------------------------------------------------------------------------

    def err(self, code: str, line: int, col: int, msg: str, hint: str | None = None) -> None:
        self.errors.append(Diagnostic(code, "error", line, max(1, col), msg, hint))

    def closed_word(self, tok, line: int, code: str, what: str, allowed) -> str | None:
        """Return ``tok`` as a word of the closed list ``allowed`` (spec §1: closed vocabularies),
        or report ``code`` ("unknown <what> "word"; expected one of …" with a did-you-mean) and
        return None."""
        word = str(tok)
        if word in allowed:
            return word
        self.err(code, line, tok.column, f'unknown {what} "{word}"; expected one of {", ".join(allowed)}',
                 did_you_mean(word, allowed))
        return None

    def hint(self, code: str, line: int, col: int, msg: str, hint: str | None = None) -> None:
        self.hints.append(Diagnostic(code, "hint", line, max(1, col), msg, hint))

    def clamp_warning(self, line: int, col: int, phase: str, bone: str, action: str,
                      requested: float, clamped: float, lo: float, hi: float, why: str) -> None:
        msg = (f"`{action} {_fmt(requested)}` on {bone} is outside its range of motion; "
               f"clamped to {_fmt(clamped)}° ({why})")
        self.warnings.append(Diagnostic(
            "rom-clamp", "warning", line, max(1, col), msg, None,
            {"phase": phase, "joint": bone, "action": action, "requested": _num(requested),
             "clamped": _num(clamped), "limit": {"min": _num(lo), "max": _num(hi)}},
        ))

    # -- stage 1/2: lines and statements --------------------------------------------------------

    def statements(self) -> list[_Stmt]:
        out: list[_Stmt] = []
        for idx, raw in enumerate(self.lines):
            hit = _LINES.get(raw)
            if hit is not None:   # the same statement line read before: its placing, rule and tokens
                indent, head, rule, toks, opens = hit
                out.append(_Stmt(idx + 1, indent, indent + 1, head, rule, list(toks), opens))
                continue
            stripped = raw.strip(SPACE)
            if not stripped or stripped[0] == "#" or stripped.startswith("//"):
                continue
            lineno = idx + 1
            indent = len(raw) - len(raw.lstrip(SPACE))
            m = _HEAD_RE.match(raw)
            head = m.group(1) if m else ""
            if head not in _KEYWORDS and head.lower() in _KEYWORDS:
                head = "^" + head  # a keyword in the wrong case: placed as that keyword
            elif head not in _KEYWORDS:
                head = "joint" if (m and m.group(2)) or not head else "?" + head
            if head.startswith("^"):
                word = head[1:]
                head = word.lower()
                self.err(_USAGE[head][0], lineno, indent + 1, _USAGE[head][1],
                         f"keywords are lower-case: write `{head}`, not `{word}`")
                out.append(_Stmt(lineno, indent, indent + 1, head, None, [],
                                 head == "step" or stripped.rstrip().endswith(":")))
                continue
            shape = raw.translate(_DIGITS_AS_0)
            known = _SHAPES.get(shape)
            if known is None:
                try:
                    tree = _LARK.parse(raw)
                except UnexpectedCharacters as e:
                    ch = raw[e.column - 1] if 0 < e.column <= len(raw) else "?"
                    msg = f'unexpected character: "{_char_name(ch)}"'
                    hint = None
                    if ch == '"':
                        msg += " (unterminated string)"
                        hint = "close the string with a second `\"` on the same line"
                    elif ch == "°":
                        hint = "angles are plain numbers of degrees: write `90`, not `90°`"
                    self.err("unexpected-character", lineno, e.column, msg, hint)
                    out.append(_Stmt(lineno, indent, indent + 1, head, None, [],
                                     stripped.rstrip().endswith(":")))
                    continue
                except UnexpectedInput as e:
                    st = _Stmt(lineno, indent, indent + 1, head, None, [],
                               head == "step" or stripped.rstrip().endswith(":"))
                    st.pending = self._syntax_error(lineno, raw, head, e)
                    out.append(st)
                    continue
                except Exception as e:  # pragma: no cover - defensive: lark internals
                    self.err("unexpected-line", lineno, indent + 1, f"cannot read this line ({e})")
                    continue
                if not tree.children:  # comment after whitespace etc.
                    continue
                st: Tree = tree.children[0]
                if len(_SHAPES) >= _LINES_MAX:
                    _SHAPES.clear()
                known = _SHAPES[shape] = (str(st.data), tuple(c for c in st.children if isinstance(c, Token)))
                toks = list(known[1])
            else:   # a line of a shape parsed before: its tokens, the values cut from this line
                toks = [Token.new_borrow_pos(t.type, raw[t.start_pos:t.end_pos], t) for t in known[1]]
            rule = known[0]
            opens = rule == "step" or (rule == "pose" and toks[-1].type == "COLON")
            if len(_LINES) >= _LINES_MAX:
                _LINES.clear()
            _LINES[raw] = (indent, head, rule, tuple(toks), opens)
            out.append(_Stmt(lineno, indent, indent + 1, head, rule, toks, opens))
        return out

    def _syntax_error(self, lineno: int, raw: str, head: str, e: UnexpectedInput):
        key = head
        if head == "joint":
            if re.match(_SP + r"*[A-Za-z_][\w\-]*" + _SP + "*:" + _SP + r"*hold\b", raw):
                key = "hold"
        elif head.startswith("?"):
            key = "joint"
        code, msg = _USAGE[key]
        tok = getattr(e, "token", None)
        col = getattr(e, "column", None) or 1
        if tok is None or tok.type == "$END" or not str(tok):
            col = len(raw.rstrip()) + 1
            found = "end of line"
        else:
            found = f"`{tok}`"
        if head.startswith("?"):
            # the same line is an unknown directive at top level and a malformed joint target
            # inside a step: the block pass decides (see ``pending``)
            word = head[1:]
            col = len(raw) - len(raw.lstrip(SPACE)) + 1
            if word in V.JOINT_NAMES:
                return (code, col, msg, f"put a `:` after `{word}`, e.g. `{word}: flex 40`")
            return (code, col, f"{msg}; `{word}` is not a joint name or directive",
                    did_you_mean(word, V.JOINT_NAMES + _KEYWORDS) or _USAGE_HINT["joint"])
        usage = _USAGE_HINT.get(key)
        hint = f"found {found}" + (f"; {usage}" if usage else "")
        self.err(code, lineno, col, msg, hint)
        return None

    # -- stage 3: blocks ------------------------------------------------------------------------

    def run(self) -> ParseResult:
        stmts = self.statements()
        if not stmts:
            if not self.errors:
                self.err("empty-document", 1, 1, "empty document",
                         'start with a header such as `posecode exercise "Squat"`')
            return self._result(None)

        header = stmts[0]
        kind, name, header_line = None, None, header.line
        if header.rule == "header" and header.indent == 0:
            kind, name = self._header(header)
            body = stmts[1:]
        else:
            # a header line with a syntax error has been reported already
            if header.rule is not None or header.head != "posecode":
                hint = ("the header must start in the first column" if header.rule == "header"
                        else 'the first line must be e.g. `posecode exercise "Squat"`')
                self.err("bad-header", header.line, header.col,
                         'document must start with a `posecode <kind> "<name>"` header', hint)
            body = stmts[1:] if header.head == "posecode" else stmts

        # group statements into blocks
        doc_indent: int | None = None
        top: list[tuple[_Stmt, list[_Stmt]]] = []
        block: tuple[_Stmt, list[_Stmt]] | None = None
        child_indent: int | None = None
        for st in body:
            head = st.head
            is_top = head in _TOP_LEVEL or head == "posecode"
            if is_top:
                if head == "posecode":
                    self.err("bad-header", st.line, st.col,
                             "document must start with a `posecode <kind> \"<name>\"` header",
                             "a document has exactly one header: remove this second one")
                    block = None
                    continue
                if st.indent == 0:
                    self.err("top-level-not-indented", st.line, st.col,
                             f"top-level `{head}` must be indented beneath the posecode header",
                             "indent it by the same amount as the other directives (e.g. 2 spaces)")
                elif doc_indent is None:
                    doc_indent = st.indent
                elif st.indent != doc_indent:
                    self.err("top-level-indent-mismatch", st.line, st.col,
                             f"top-level `{head}` must use the document indentation level "
                             f"({doc_indent} {'space' if doc_indent == 1 else 'spaces'})",
                             f"indent it by {doc_indent} like the first directive")
                entry = (st, [])
                top.append(entry)
                block = entry if st.opens_block else None
                child_indent = None
                continue
            # a step child or start-pose override (or an unknown line)
            if block is None:
                if st.pending is not None:
                    # like the reference, a line that is no directive is read as a joint target
                    self.err("outside-step", st.line, st.col, "joint target outside of a step",
                             f"`{head[1:]}` is not a directive"
                             + (f"; {did_you_mean(head[1:], _KEYWORDS)}"
                                if did_you_mean(head[1:], _KEYWORDS) else
                                "; top-level directives: " + ", ".join(_TOP_LEVEL)))
                elif st.rule is not None:
                    what = "joint target" if head == "joint" else f"`{head}`"
                    self.err("outside-step", st.line, st.col, f"{what} outside of a step",
                             'put it beneath a `step "<name>" <duration> <mode>:` line, '
                             "indented one level deeper")
                continue
            if st.pending is not None:
                self.err(st.pending[0], st.line, *st.pending[1:])
            owner = block[0]
            is_pose = owner.head == "pose"
            prefix = "start-override" if is_pose else "step-child"
            what = "start-pose overrides" if is_pose else "step children"
            under = "`pose start` header" if is_pose else "`step` header"
            if st.indent <= owner.indent:
                self.err(f"{prefix}-not-indented", st.line, st.col,
                         f"{what} must be indented beneath their {under}",
                         f"indent this line deeper than line {owner.line}"
                         + (" (a tab counts as one character)" if "\t" in
                            self.lines[st.line - 1][:st.indent] else ""))
            elif child_indent is None:
                child_indent = st.indent
            elif st.indent != child_indent:
                self.err(f"{prefix}-indent-mismatch", st.line, st.col,
                         f"{what} must use one indentation level ({child_indent} "
                         f"{'space' if child_indent == 1 else 'spaces'})",
                         f"indent it like line {block[1][0].line if block[1] else owner.line}")
            block[1].append(st)

        return self._resolve(kind, name, header_line, top)

    # -- stage 4: resolution --------------------------------------------------------------------

    def _header(self, st: _Stmt) -> tuple[str | None, str | None]:
        kind_tok, name_tok = st.tokens
        kind = str(kind_tok)
        if kind not in V.KINDS:
            self.err("unknown-kind", st.line, kind_tok.column,
                     f'unknown movement kind "{kind}"; expected one of {", ".join(V.KINDS)}',
                     did_you_mean(kind, V.KINDS))
            kind = None
        name = _unquote(name_tok)
        if name == "":
            self.err("empty-name", st.line, name_tok.column,
                     "name: the movement name must not be empty (expected string to have >=1 "
                     "characters)", 'e.g. `posecode exercise "Squat"`')
        return kind, name

    def _resolve(self, kind, name, header_line, top) -> ParseResult:
        rig = V.DEFAULT_RIG
        avatar = None
        clip = None
        repeat = 1
        start_pose: str | None = None
        overrides_block: tuple[_Stmt, list[_Stmt]] | None = None
        pose_seen = False
        steps: list[tuple[_Stmt, list[_Stmt]]] = []
        dropped_children: list[tuple[list[_Stmt], bool]] = []  # (children, of a pose block)
        dropped_steps: list[int] = []

        # props first: a prop may be declared after the step that uses it
        for st, _children in top:
            if st.rule == "prop":
                word = self.closed_word(st.tokens[0], st.line, "unknown-prop", "prop", V.PROPS)
                if word is not None:
                    self.props.append(word)
                else:
                    self.unknown_props.append((st.line, str(st.tokens[0])))

        for st, children in top:
            r = st.rule
            if r is None:
                if st.head == "step":
                    dropped_steps.append(st.line)
                if st.head == "pose":
                    if pose_seen:
                        self.err("duplicate-start-pose", st.line, st.col,
                                 "duplicate `pose start` declaration; a document may define "
                                 "exactly one start pose")
                    pose_seen = True
                dropped_children.append((children, st.head == "pose"))
                continue
            if r == "rig":
                rig = self.closed_word(st.tokens[0], st.line, "unknown-rig", "rig", V.RIGS) or rig
            elif r == "avatar":
                avatar = self.closed_word(st.tokens[0], st.line, "unknown-avatar", "avatar", V.AVATARS) or avatar
            elif r == "clip":
                clip = _unquote(st.tokens[0])
            elif r == "repeat":
                tok = st.tokens[0]
                value = float(tok)
                if value <= 0 or not value.is_integer():
                    self.err("bad-repeat", st.line, tok.column,
                             "repeat requires a positive integer count",
                             f"found `{tok}`; e.g. `repeat 3`")
                else:
                    repeat = int(value)
            elif r == "pose":
                tok = st.tokens[0]
                if pose_seen:
                    self.err("duplicate-start-pose", st.line, st.col,
                             "duplicate `pose start` declaration; a document may define exactly "
                             "one start pose", "merge the two declarations into one")
                    dropped_children.append((children, True))
                    continue
                pose_seen = True
                word = self.closed_word(tok, st.line, "unknown-start-pose", "start pose", V.START_POSES)
                if word is None:
                    dropped_children.append((children, True))
                else:
                    start_pose = word
                    if st.opens_block:
                        overrides_block = (st, children)
            elif r == "step":
                steps.append((st, children))

        # start-pose overrides: a sparse overlay processed like a phase without time
        carried: dict[str, list[float]] = {}
        if start_pose is not None:
            seed = rom.START_POSE_HIP_X.get(start_pose)
            if seed is not None:
                carried["hip_left"] = [seed, 0.0, 0.0]
                carried["hip_right"] = [seed, 0.0, 0.0]
        overrides: list[JointTarget] | None = None
        if overrides_block is not None:
            overrides = self._targets(overrides_block[1], _START_POSE_PHASE, carried,
                                      pose_block=True)[0]

        # children of dropped blocks are still checked, so every mistake shows up in one run
        if dropped_children:
            marks = (len(self.warnings), len(self.hints))
            for children, of_pose in dropped_children:
                self._targets(children, "", {}, pose_block=of_pose, dropped=True)
            del self.warnings[marks[0]:]
            del self.hints[marks[1]:]

        phases: list[Phase] = []
        bad_headers: list[int] = []
        for index, (st, children) in enumerate(steps):
            name_tok, dur_tok, mode_tok = st.tokens
            seconds = float(str(dur_tok)[:-1])
            if seconds <= 0:
                self.err("non-positive-duration", st.line, dur_tok.column,
                         f"steps.{index}.durationSec: a step duration must be a positive number "
                         f"of seconds (got {dur_tok})", "e.g. `1.5s`")
            mode = str(mode_tok)
            if mode in V.TIMING_MODES:
                easing = mode
            elif mode in V.TIMING_ALIASES:
                easing = V.TIMING_ALIASES[mode]
                self.hint("legacy-easing", st.line, mode_tok.column,
                          f"`{mode}` is a v0.1 easing name; it means `{easing}`",
                          f"write `{easing}`")
            else:
                easing = "flow"
                bad_headers.append(st.line)
                self.err("unknown-timing-mode", st.line, mode_tok.column,
                         f'unknown timing mode "{mode}"; expected one of '
                         f'{", ".join(V.TIMING_MODES)}',
                         did_you_mean(mode, V.TIMING_MODES + tuple(V.TIMING_ALIASES)))
            phase_name = _unquote(name_tok)
            targets, extras = self._targets(children, phase_name, carried, pose_block=False)
            phases.append(Phase(
                name=phase_name, duration_sec=seconds, easing=easing, targets=targets,
                line=st.line, **extras,
            ))

        if len(bad_headers) == len(steps):
            # as in the reference, a step whose header cannot be read does not count
            msg = "steps: a Posecode document requires at least one step"
            hint = 'add e.g. `  step "Lift" 1s flow:` with indented joint targets'
            failed = sorted(bad_headers + dropped_steps)
            if failed:
                where = ", ".join(map(str, failed))
                msg += f" (the step header on line {where} could not be read)"
                hint = f"fix the step header on line {where}"
            self.err("no-steps", 1, 1, msg, hint)

        if self.errors or kind is None or name is None:
            return self._result(None)
        ir = IR(kind=kind, name=name, rig=rig, avatar=avatar, start_pose=start_pose,
                start_pose_overrides=overrides, props=list(self.props), clip=clip,
                repeat=repeat, phases=phases, line=header_line)
        return self._result(ir)

    def _result(self, ir: IR | None) -> ParseResult:
        key = reading_order
        errors = sorted(self.errors, key=key)
        warnings = self.warnings
        if any(stage_of(e.code) != "resolve" for e in errors):
            # range-of-motion checks belong to the resolve stage, which only counts once the
            # document is well formed (conformance README "Errors come in stages")
            warnings = []
        return ParseResult(None if errors else ir, errors, sorted(warnings, key=key),
                           sorted(self.hints, key=key))

    # -- joint targets and contacts of one block --------------------------------------------------

    def _targets(self, children: list[_Stmt], phase: str, carried: dict[str, list[float]],
                 *, pose_block: bool, dropped: bool = False):
        """Resolve one step's (or the start-pose block's) children. Returns the merged
        ``JointTarget`` list (first-mention order) and the Phase keyword fields for contacts."""
        merged: dict[str, JointTarget] = {}
        # per bone: the (line, column, action, requested) of the last line that set its x channel
        x_source: dict[str, tuple[int, int, str, float]] = {}
        ground_lock: list[str] = []
        ground_lock_line: int | None = None
        reaches: list[Contact] = []
        pins: list[Contact] = []
        grips: list[Contact] = []
        pin_lines: list[_Stmt] = []
        grip_lines: list[_Stmt] = []
        turn = None
        travel = None
        cue = None

        for st in children:
            r = st.rule
            if r is None:
                continue
            if pose_block and r not in ("joint_target", "hold_target"):
                self.err("outside-step", st.line, st.col,
                         f"`{st.head}` is not valid in a `pose start` block; start-pose "
                         "overrides take joint targets only",
                         "move it into a step")
                continue
            if r in ("joint_target", "hold_target"):
                self._joint_line(st, phase, merged, x_source)
            elif r == "ground_lock":
                names = self._ground_lock(st)
                if names is not None:
                    ground_lock = names
                    ground_lock_line = st.line
            elif r == "reach":
                got = self._reach(st)
                reaches.extend(got)
            elif r == "pin":
                got = self._pin(st)
                pins.extend(got)
                pin_lines.append(st)
            elif r == "grip":
                got = self._grip(st)
                grips.extend(got)
                grip_lines.append(st)
            elif r == "turn":
                turn = float(st.tokens[0])
            elif r == "travel":
                lim = rom.TRAVEL_LIMIT_M
                x, z = (min(max(float(t), -lim), lim) for t in st.tokens)
                travel = (x, z)
            elif r == "cue":
                text = _unquote(st.tokens[0])
                cue = text if text else None

        # root-solver families are mutually exclusive (spec §1 "Contact mechanisms", §5)
        for extra in pin_lines[1:]:
            self.err("multiple-pins", extra.line, extra.col,
                     "a step may declare only one primary `pin`; use a grouped effector or "
                     "per-limb `reach` constraints for additional contacts",
                     f"keep the pin on line {pin_lines[0].line} and turn this one into `reach:`")
        if ground_lock_line is not None:
            for st in pin_lines:
                self.err("pin-with-ground-lock", st.line, st.col,
                         "`pin` cannot be combined with `ground-lock` in one step; use one "
                         "root-support family per step",
                         f"drop the ground-lock on line {ground_lock_line} or express this "
                         "contact with `reach:`")
            for st in grip_lines:
                self.err("grip-with-ground-lock", st.line, st.col,
                         "`grip` cannot be combined with `ground-lock` in one step; use one "
                         "root-support family per step",
                         f"drop the ground-lock on line {ground_lock_line}")
        if pin_lines:
            for st in grip_lines:
                self.err("grip-with-pin", st.line, st.col,
                         "`grip` cannot be combined with `pin` in one step; use the grip as the "
                         "primary support plus `reach` for additional contacts",
                         f"turn the pin on line {pin_lines[0].line} into `reach:`")

        if not dropped:
            self._hinge_coupling(phase, merged, x_source, carried)
            for bone, t in merged.items():
                values = carried.setdefault(bone, [0.0, 0.0, 0.0])
                for i, axis in enumerate(("x", "y", "z")):
                    if axis in t.axes:
                        values[i] = t.euler[i]

        targets = list(merged.values())
        extras = dict(ground_lock=ground_lock, ground_lock_line=ground_lock_line,
                      reaches=reaches, pins=pins, grips=grips, turn_deg=turn, travel=travel,
                      cue=cue)
        return targets, extras

    def _joint_line(self, st: _Stmt, phase: str, merged: dict[str, JointTarget],
                    x_source: dict[str, tuple[int, int, str, float]]) -> None:
        joint_tok = st.tokens[0]
        joint = str(joint_tok)
        bones = V.JOINT_GROUPS.get(joint)
        ok = True
        if bones is None:
            hint = did_you_mean(joint, V.JOINT_NAMES)
            if joint.startswith("forearm_"):
                hint = f"use `elbow_{joint[8:]}` (only the plural `forearms` is an alias)"
            self.err("unknown-joint", st.line, joint_tok.column, f'unknown joint: "{joint}"',
                     hint or "joints: " + ", ".join(
                         n for n in V.JOINT_NAMES if "_" not in n or n.startswith("fingers")))
            ok = False
        if st.rule == "hold_target":
            arg = st.tokens[1] if len(st.tokens) > 1 else None
            if arg is None or str(arg) != V.HOLD_ARGUMENT:
                col = arg.column if arg is not None else joint_tok.end_column + 1
                self.err("bad-hold", st.line, col,
                         "expected `<joint>: hold neutral`"
                         + (f"; found `hold {arg}`" if arg is not None else ""),
                         "`hold` takes only the word `neutral`")
                return
            if not ok:
                return
            for bone in bones:
                t = merged.get(bone)
                if t is None:
                    merged[bone] = JointTarget(bone, (0.0, 0.0, 0.0), ("x", "y", "z"), st.line)
                else:
                    t.euler = (0.0, 0.0, 0.0)
                    t.axes = ("x", "y", "z")
                x_source[bone] = (st.line, st.col, "hold", 0.0)
            return

        action_tok, number_tok = st.tokens[1], st.tokens[2]
        action = str(action_tok)
        if action not in V.ACTIONS:
            synonym = V.ACTION_SYNONYMS.get(action.lower())
            self.err("unknown-action", st.line, action_tok.column, f'unknown action: "{action}"',
                     (f"did you mean `{synonym}`?" if synonym else did_you_mean(action, V.ACTION_NAMES))
                     or "actions: " + ", ".join(V.ACTION_NAMES[:-1]) + ", hold neutral")
            return
        if not ok:
            return
        unsupported = [b for b in bones if rom.action_limit(b, action) is None]
        if unsupported:
            types = sorted({rom.joint_type(b) for b in unsupported}, key=V.JOINT_TYPES.index)
            allowed = {a for b in unsupported for a in rom.supported_actions(b)}
            allowed_list = [a for a in V.ACTIONS if a in allowed]
            self.err("unsupported-action", st.line, action_tok.column,
                     f'action "{action}" is not supported for {joint}'
                     f' ({", ".join(types)} accepts: {", ".join(allowed_list)}, hold neutral)',
                     did_you_mean(action, allowed_list))
            return
        requested = float(number_tok)
        jt0 = rom.joint_type(bones[0])
        if action in V.AXIAL_ROTATE_REPLACEMENT and jt0 in V.AXIAL_ROTATION_JOINTS:
            better = V.AXIAL_ROTATE_REPLACEMENT[action]
            self.hint("axial-rotate", st.line, action_tok.column,
                      f"`{action}` on the axial joint `{joint}` is a legacy spelling; "
                      f"`{better}` says the same thing unambiguously",
                      f"write `{joint}: {better} {number_tok}`")
        for bone in bones:
            limit = rom.action_limit(bone, action)
            clamped = rom.clamp_magnitude(bone, action, requested)
            if clamped != requested:
                why = ("negative angles are not allowed; the action name gives the direction"
                       if requested < 0 else f"{rom.joint_type(bone)} {action} limit {_fmt(limit)}°")
                self.clamp_warning(st.line, number_tok.column, phase, bone, action, requested,
                                   clamped, 0.0, limit, why)
            axis, sign = V.action_sign(action, bone)
            value = sign * clamped + 0.0
            i = "xyz".index(axis)
            t = merged.get(bone)
            if t is None:
                e = [0.0, 0.0, 0.0]
                e[i] = value
                merged[bone] = JointTarget(bone, tuple(e), (axis,), st.line)
            else:
                e = list(t.euler)
                e[i] = value
                t.euler = tuple(e)
                if axis not in t.axes:
                    t.axes = tuple(a for a in "xyz" if a in t.axes or a == axis)
            if axis == "x":
                x_source[bone] = (st.line, number_tok.column, action, requested)

    def _hinge_coupling(self, phase: str, merged: dict[str, JointTarget],
                        x_source: dict[str, tuple[int, int, str, float]],
                        carried: dict[str, list[float]]) -> None:
        """Spec §4: with the hips counter-rotated under a pelvis hinge, the composed local hip
        angle (hip x − pelvis x) may not pass −135°. A newly authored hinge yields to carried hip
        flexion; a newly authored hip yields to the (authored or carried) hinge
        (kinematics-reference §3.3)."""
        hips = ("hip_left", "hip_right")
        pelvis = merged.get("pelvis")
        pelvis_authored = pelvis is not None and "x" in pelvis.axes
        pelvis_x = pelvis.euler[0] if pelvis_authored else carried.get("pelvis", [0.0])[0]
        authored_hips = [h for h in hips if h in merged and "x" in merged[h].axes]
        if pelvis_authored:
            carried_hips = [h for h in hips if h not in authored_hips]
            if carried_hips:
                ceiling = min([rom.LIMITS["pelvis"]["hinge"]]
                              + [carried.get(h, [0.0])[0] + rom.HINGE_HIP_COMBINED_MAX
                                 for h in carried_hips])
                if pelvis_x > ceiling + 1e-9:
                    line, col, action, requested = x_source["pelvis"]
                    self.clamp_warning(
                        line, col, phase, "pelvis", action, requested, ceiling, 0.0, ceiling,
                        f"hinge + carried hip flexion may not exceed "
                        f"{_fmt(rom.HINGE_HIP_COMBINED_MAX)}°")
                    pelvis_x = ceiling
                    pelvis.euler = (ceiling, pelvis.euler[1], pelvis.euler[2])
        if pelvis_x <= 0:
            return
        floor = pelvis_x - rom.HINGE_HIP_COMBINED_MAX
        for h in authored_hips:
            t = merged[h]
            if t.euler[0] < floor - 1e-9:
                line, col, action, requested = x_source[h]
                ceiling = rom.HINGE_HIP_COMBINED_MAX - pelvis_x
                self.clamp_warning(
                    line, col, phase, h, action, requested, ceiling, 0.0, ceiling,
                    f"hip flexion + pelvis hinge {_fmt(pelvis_x)}° may not exceed "
                    f"{_fmt(rom.HINGE_HIP_COMBINED_MAX)}°")
                t.euler = (floor + 0.0, t.euler[1], t.euler[2])

    # -- contacts ---------------------------------------------------------------------------------

    def _ground_lock(self, st: _Stmt) -> list[str] | None:
        words = [t for t in st.tokens if t.type == "WORD"]
        if not words:
            self.err("empty-ground-lock", st.line, st.col,
                     "`ground-lock` requires at least one contact",
                     "contacts: " + ", ".join(V.GROUND_LOCK_NAMES))
            return None
        names: list[str] = []
        ok = True
        i = 0
        while i < len(words):
            tok = words[i]
            w = str(tok)
            if w == "and":
                i += 1
                continue
            if w in V.SIDES and i + 1 < len(words):
                pair = f"{w} {words[i + 1]}"
                if pair in V.GROUND_LOCK_READABLE:
                    names.append(V.GROUND_LOCK_READABLE[pair])
                    i += 2
                    continue
                w = pair
                i += 1
            if w in V.GROUND_LOCK_EXPANSION or w in V.GROUND_LOCK_SINGLES:
                names.append(w)
            else:
                ok = False
                self.err("unknown-ground-lock-effector", st.line, tok.column,
                         f'unknown ground-lock effector: "{w}"; expected one of '
                         f'{", ".join(V.GROUND_LOCK_NAMES)}',
                         did_you_mean(w, V.GROUND_LOCK_NAMES)
                         or "ground-lock takes floor contacts only (hands, forearms, feet, back "
                            "or one side such as foot_left); use `pin:` or `reach:` for others")
            i += 1
        if ok and not names:
            self.err("empty-ground-lock", st.line, st.col,
                     "`ground-lock` requires at least one contact",
                     "contacts: " + ", ".join(V.GROUND_LOCK_NAMES))
            return None
        return names if ok else None

    def _anchor_prop_error(self, code_prefix: str, st: _Stmt, tok: Token, anchor: str,
                           what: str) -> bool:
        """Report an anchor whose prop is not declared; True when it is fine."""
        prop = V.ANCHOR_PROP[anchor]
        if prop in self.props:
            return True
        # a misspelt declaration of this prop is the thing to fix, not a missing one
        typo = next((line for line, word in self.unknown_props
                     if difflib.get_close_matches(word, [prop], n=1, cutoff=0.6)), None)
        self.err(f"{code_prefix}-undeclared-prop", st.line, tok.column,
                 f'{what} "{anchor}" requires declared prop "{prop}"',
                 f"fix the prop on line {typo}: `prop {prop}`" if typo is not None
                 else f"add `prop {prop}` beneath the header")
        return False

    def _reach(self, st: _Stmt) -> list[Contact]:
        eff_tok, tgt_tok = st.tokens
        eff, tgt = str(eff_tok), str(tgt_tok)
        ok = True
        if eff == "pelvis":
            self.err("reach-pelvis", st.line, eff_tok.column,
                     'reach effector "pelvis" is unsupported; use `pin: pelvis <anchor>`',
                     "write `pin: pelvis floor` to move the body")
            ok = False
            members: tuple[str, ...] = ()
        elif eff in V.EFFECTOR_GROUPS or eff in V.EFFECTOR_BONE:
            members = V.expand_effector(eff)
        else:
            names = tuple(V.EFFECTOR_GROUPS) + tuple(e for e in V.EFFECTOR_BONE if e != "pelvis")
            self.err("unknown-reach-effector", st.line, eff_tok.column,
                     f'unknown reach effector: "{eff}"',
                     did_you_mean(eff, names) or "effectors: " + ", ".join(names))
            ok = False
            members = ()
        if tgt == V.FLOOR:
            pass
        elif tgt in V.REACH_LANDMARKS:
            for m in members:
                if V.EFFECTOR_BONE[m] == tgt:
                    self.err("reach-own-joint", st.line, tgt_tok.column,
                             f'reach effector "{eff}" cannot target its own joint "{tgt}"',
                             "reach for floor, a prop anchor or another body landmark")
                    ok = False
                    break
        elif tgt in V.ANCHOR_PROP:
            ok = self._anchor_prop_error("reach", st, tgt_tok, tgt, "reach target") and ok
        else:
            cands = (V.FLOOR,) + V.REACH_LANDMARKS + V.ALL_ANCHORS
            hint = did_you_mean(tgt, cands)
            if tgt in V.EFFECTOR_BONE:
                hint = f"target the bone `{V.EFFECTOR_BONE[tgt]}`"
            self.err("unknown-reach-target", st.line, tgt_tok.column,
                     f'unknown reach target: "{tgt}"',
                     hint or "targets: floor, a prop anchor (seat, wall, bar, box, bars) or a "
                             "body landmark bone such as ankle_left")
            ok = False
        return [Contact(m, tgt, st.line) for m in members] if ok else []

    def _pin(self, st: _Stmt) -> list[Contact]:
        eff_tok, anc_tok = st.tokens
        eff, anc = str(eff_tok), str(anc_tok)
        ok = True
        if eff in V.EFFECTOR_GROUPS or eff in V.EFFECTOR_BONE:
            members = V.expand_effector(eff)
        else:
            names = tuple(V.EFFECTOR_GROUPS) + tuple(V.EFFECTOR_BONE)
            self.err("unknown-pin-effector", st.line, eff_tok.column,
                     f'unknown pin effector: "{eff}"',
                     did_you_mean(eff, names) or "effectors: " + ", ".join(names))
            ok = False
            members = ()
        if anc == V.FLOOR:
            pass
        elif anc in V.ANCHOR_PROP:
            ok = self._anchor_prop_error("pin", st, anc_tok, anc, "pin anchor") and ok
        elif anc in V.REACH_LANDMARKS or anc in V.EFFECTOR_BONE:
            self.err("pin-body-anchor", st.line, anc_tok.column,
                     f'pin anchor "{anc}" is body-relative; a pin needs a fixed anchor (floor or '
                     "a declared prop anchor)",
                     f"use `reach: {eff} {anc}` to bring the limb to a body landmark")
            ok = False
        else:
            self.err("unknown-pin-anchor", st.line, anc_tok.column,
                     f'unknown pin anchor: "{anc}"',
                     did_you_mean(anc, (V.FLOOR,) + V.ALL_ANCHORS)
                     or "anchors: floor, " + ", ".join(V.ALL_ANCHORS))
            ok = False
        return [Contact(m, anc, st.line) for m in members] if ok else []

    def _grip(self, st: _Stmt) -> list[Contact]:
        eff_tok, anc_tok = st.tokens
        eff, anc = str(eff_tok), str(anc_tok)
        ok = True
        if eff in V.GRIP_EFFECTORS:
            members = V.expand_effector(eff)
        elif eff in V.EFFECTOR_GROUPS or eff in V.EFFECTOR_BONE:
            self.err("grip-non-hand", st.line, eff_tok.column,
                     f'grip effector "{eff}" must resolve to a hand',
                     "grip effectors: " + ", ".join(V.GRIP_EFFECTORS))
            ok, members = False, ()
        else:
            self.err("unknown-grip-effector", st.line, eff_tok.column,
                     f'unknown grip effector: "{eff}"',
                     did_you_mean(eff, V.GRIP_EFFECTORS)
                     or "grip effectors: " + ", ".join(V.GRIP_EFFECTORS))
            ok, members = False, ()
        prop = V.ANCHOR_PROP.get(anc)
        if prop not in V.GRIP_PROPS:
            grip_anchors = [a for p in V.GRIP_PROPS for a in V.PROP_ANCHORS[p]]
            self.err("grip-bad-anchor", st.line, anc_tok.column,
                     f'grip anchor "{anc}" must be an overhead-bar or dip-rail anchor',
                     did_you_mean(anc, grip_anchors) if anc not in V.ANCHOR_PROP and anc != "floor"
                     else "grip anchors: " + ", ".join(grip_anchors)
                     + "; use `pin:` or `reach:` for other contacts")
            return []
        if not self._anchor_prop_error("grip", st, anc_tok, anc, "grip anchor"):
            ok = False
        bare = anc in V.GRIP_BARE_ANCHORS
        if eff == "hands" and not bare:
            base = anc.rsplit("_", 1)[0]
            self.err("grip-grouped-sided-anchor", st.line, anc_tok.column,
                     f'grouped grip effector "{eff}" requires a bare anchor such as "{base}"',
                     f"write `grip: hands {base}` (it expands to {base}_left and {base}_right)")
            return []
        if not ok:
            return []
        out: list[Contact] = []
        for m in members:
            side = V.bone_side(m)
            if bare:
                out.append(Contact(m, f"{anc}_{side}", st.line))
            elif not anc.endswith("_" + side):
                self.err("grip-anchor-side-mismatch", st.line, anc_tok.column,
                         f'grip anchor "{anc}" does not match effector "{m}"',
                         f"use `{anc.rsplit('_', 1)[0]}_{side}` or the bare anchor")
                return []
            else:
                out.append(Contact(m, anc, st.line))
        return out


def parse(source: str) -> ParseResult:
    """Parse one Posecode v0.4 document.

    ``source`` is the document text (lines split on LF/CRLF only; a leading BOM is ignored).
    Returns a :class:`ParseResult`; never raises for any ``str`` (an internal failure becomes an
    ``internal-error`` diagnostic rather than a traceback).
    """
    if not isinstance(source, str):
        raise TypeError("parse() expects str")
    try:
        return _Parser(source).run()
    except Exception as exc:  # pragma: no cover - last-resort guard, should never happen
        return ParseResult(None, [Diagnostic("internal-error", "error", 1, 1,
                                             f"internal parser error: {exc!r}")])


__all__ = ["parse", "ParseResult", "split_lines", "did_you_mean"]
