"""The line lexer: source text -> one :class:`Statement` per non-blank, non-comment line.

- **Lines** (conformance README "Reading the inputs"): a leading byte order mark is dropped;
  lines split on LF with an optional CR before it and on nothing else. Inside a line U+2028,
  U+2029 and the other Unicode spaces of :data:`SPACE` separate tokens like a space.
  Indentation is counted in characters (a tab counts as one).
- **Statements**: each line is parsed on its own by the lark LALR grammar ``posecode.lark``
  (start symbol ``line``), so one malformed line never hides the next. A line's first word
  (its *head*) places it even when it fails to parse: unreadable characters become
  ``unexpected-character`` errors, malformed lines a ``bad-<directive>`` error chosen by the
  head (:data:`USAGE`), keywords in the wrong case are reported and placed as the keyword.

What a statement means is decided later, by the block pass (``blocks.py``) and the statement
rules (``statements/``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.context import Context, did_you_mean

_GRAMMAR_PATH = Path(__file__).with_name("posecode.lark")


def _build_parser() -> Lark:
    """The statement parser (LALR + contextual lexer), built once at import. lark's grammar cache
    (a file in the temp folder) saves compiling the grammar at each start-up; without a writable
    temp folder the grammar is simply compiled."""
    options = {"parser": "lalr", "lexer": "contextual", "start": "line", "maybe_placeholders": False}
    grammar = _GRAMMAR_PATH.read_text("utf-8")
    try:
        return Lark(grammar, cache=True, **options)
    except Exception:  # pragma: no cover - unwritable temp folder, stale cache
        return Lark(grammar, cache=False, **options)


_LARK = _build_parser()

#: Statement lines read so far: raw line (indentation included) -> (indentation, head word,
#: rule, tokens, opens a block). A line's parse depends on its text alone (token columns are
#: within the line; the line number is the caller's), and a library repeats its lines (``rig
#: humanoid``, ``ground-lock: feet``, ``knees: flex 0``, ``repeat 8``), so each distinct line goes
#: through lark once per process and is measured once. Blank and comment lines, keywords in the
#: wrong case and lines that fail to parse are not kept (their diagnostics are made each time).
#: Tokens are shared between documents: read, never mutated.
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

#: Directives that stand at the document indentation level (spec §1 ``directive``).
TOP_LEVEL = ("rig", "avatar", "prop", "pose", "clip", "repeat", "step")
#: Directives valid only as step children (spec §1 ``child``, joint targets aside).
STEP_ONLY = ("ground-lock", "reach", "pin", "grip", "turn", "travel", "cue")
KEYWORDS = ("posecode",) + TOP_LEVEL + STEP_ONLY

#: Code and message of a malformed line, by head (codes follow error-kinds.json).
USAGE = {
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

#: An example of each statement, shown with a malformed line.
USAGE_HINT = {
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


def split_lines(source: str) -> list[str]:
    """Split on LF with an optional preceding CR, nothing else (conformance README "Reading the
    inputs"); a leading U+FEFF is dropped. ``str.splitlines`` is deliberately not used: it would
    also break on U+2028, U+2029, VT, FF and others."""
    lines = source.removeprefix("\ufeff").split("\n")
    for i in range(len(lines) - 1):
        lines[i] = lines[i].removesuffix("\r")
    return lines


def unquote(tok: Token) -> str:
    """The text of a STRING token: the characters between the quotes, as written (a string runs
    to the next ``"`` on the same line; there are no escapes, as in the reference tokenizer)."""
    return str(tok)[1:-1]


def _char_name(ch: str) -> str:
    if ch.isprintable() and not ch.isspace():
        return ch
    return f"U+{ord(ch):04X}"


@dataclass
class Statement:
    """One lexed line: ``rule`` is the grammar rule (``step``, ``joint_target``...) or ``None``
    for a line that failed to parse (``head`` then says what it looked like: a keyword,
    ``joint``, or ``?word`` for an unknown first word). ``col`` is the 1-based column of the
    first character; ``opens_block`` is true for a step header and ``pose start = X:``."""

    line: int
    indent: int
    col: int
    head: str
    rule: str | None
    tokens: list[Token]
    opens_block: bool = False
    #: a syntax error whose code depends on the block the line lands in
    pending: tuple[str, int, str, str | None] | None = None


#: A top-level statement and the statements of its block (empty unless it opens one).
Block = tuple[Statement, list[Statement]]


def read_statements(ctx: Context) -> list[Statement]:
    """The statements of ``ctx.lines`` in line order (blank and comment lines skipped); syntax
    errors that do not depend on the line's block are reported to ``ctx`` on the way."""
    out: list[Statement] = []
    for idx, raw in enumerate(ctx.lines):
        hit = _LINES.get(raw)
        if hit is not None:   # the same statement line read before: its placing, rule and tokens
            indent, head, rule, toks, opens = hit
            out.append(Statement(idx + 1, indent, indent + 1, head, rule, list(toks), opens))
            continue
        stripped = raw.strip(SPACE)
        if not stripped or stripped[0] == "#" or stripped.startswith("//"):
            continue
        lineno = idx + 1
        indent = len(raw) - len(raw.lstrip(SPACE))
        m = _HEAD_RE.match(raw)
        head = m.group(1) if m else ""
        if head not in KEYWORDS and head.lower() in KEYWORDS:
            head = "^" + head  # a keyword in the wrong case: placed as that keyword
        elif head not in KEYWORDS:
            head = "joint" if (m and m.group(2)) or not head else "?" + head
        if head.startswith("^"):
            word = head[1:]
            head = word.lower()
            ctx.err(USAGE[head][0], lineno, indent + 1, USAGE[head][1],
                    f"keywords are lower-case: write `{head}`, not `{word}`")
            out.append(Statement(lineno, indent, indent + 1, head, None, [],
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
                ctx.err("unexpected-character", lineno, e.column, msg, hint)
                out.append(Statement(lineno, indent, indent + 1, head, None, [],
                                     stripped.rstrip().endswith(":")))
                continue
            except UnexpectedInput as e:
                st = Statement(lineno, indent, indent + 1, head, None, [],
                               head == "step" or stripped.rstrip().endswith(":"))
                st.pending = _syntax_error(ctx, lineno, raw, head, e)
                out.append(st)
                continue
            except Exception as e:  # pragma: no cover - defensive: lark internals
                ctx.err("unexpected-line", lineno, indent + 1, f"cannot read this line ({e})")
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
        out.append(Statement(lineno, indent, indent + 1, head, rule, toks, opens))
    return out


def _syntax_error(ctx: Context, lineno: int, raw: str, head: str, e: UnexpectedInput):
    """Report the ``bad-<directive>`` error of a line lark rejected; for a line with an unknown
    first word, return its (code, column, message, hint) instead: it is an unknown directive at
    top level and a malformed joint target inside a step, so the block pass decides."""
    key = head
    if head == "joint":
        if re.match(_SP + r"*[A-Za-z_][\w\-]*" + _SP + "*:" + _SP + r"*hold\b", raw):
            key = "hold"
    elif head.startswith("?"):
        key = "joint"
    code, msg = USAGE[key]
    tok = getattr(e, "token", None)
    col = getattr(e, "column", None) or 1
    if tok is None or tok.type == "$END" or not str(tok):
        col = len(raw.rstrip()) + 1
        found = "end of line"
    else:
        found = f"`{tok}`"
    if head.startswith("?"):
        word = head[1:]
        col = len(raw) - len(raw.lstrip(SPACE)) + 1
        if word in V.JOINT_NAMES:
            return (code, col, msg, f"put a `:` after `{word}`, e.g. `{word}: flex 40`")
        return (code, col, f"{msg}; `{word}` is not a joint name or directive",
                did_you_mean(word, V.JOINT_NAMES + KEYWORDS) or USAGE_HINT["joint"])
    usage = USAGE_HINT.get(key)
    hint = f"found {found}" + (f"; {usage}" if usage else "")
    ctx.err(code, lineno, col, msg, hint)
    return None
