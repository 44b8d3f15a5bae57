"""The ``posecode`` header and the top-level directives beneath it (spec §1 ``header``,
``directive``): ``rig``, ``avatar``, ``prop``, ``clip``, ``repeat``, the ``pose start``
declaration (at most one) and the ``step`` blocks, in document order."""

from __future__ import annotations

from dataclasses import dataclass, field

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language.context import Context, did_you_mean
from posecode_ssg.language.lexer import Block, Statement, unquote


def header(ctx: Context, st: Statement) -> tuple[str | None, str | None]:
    """The (kind, name) of a ``posecode <kind> "<name>"`` line; ``kind`` is None when it is not
    one of :data:`V.KINDS` (reported), ``name`` is the quoted text (an empty one is reported)."""
    kind_tok, name_tok = st.tokens
    kind = str(kind_tok)
    if kind not in V.KINDS:
        ctx.err("unknown-kind", st.line, kind_tok.column,
                f'unknown movement kind "{kind}"; expected one of {", ".join(V.KINDS)}',
                did_you_mean(kind, V.KINDS))
        kind = None
    name = unquote(name_tok)
    if name == "":
        ctx.err("empty-name", st.line, name_tok.column,
                "name: the movement name must not be empty (expected string to have >=1 "
                "characters)", 'e.g. `posecode exercise "Squat"`')
    return kind, name


@dataclass
class Directives:
    """What the top-level directives declare. ``overrides_block`` is the ``pose start = X:``
    block of a known start pose; ``dropped_children`` are the blocks (children, of a pose block)
    of directives that could not be read, checked anyway so every mistake shows in one run;
    ``dropped_steps`` the lines of step headers that failed to parse."""

    rig: str = V.DEFAULT_RIG
    avatar: str | None = None
    clip: str | None = None
    repeat: int = 1
    start_pose: str | None = None
    overrides_block: Block | None = None
    steps: list[Block] = field(default_factory=list)
    dropped_children: list[tuple[list[Statement], bool]] = field(default_factory=list)
    dropped_steps: list[int] = field(default_factory=list)


def read_props(ctx: Context, top: list[Block]) -> None:
    """Record every ``prop`` of the document in ``ctx.props`` (declaration order, duplicates
    kept) before any step is read: a prop may be declared after the step that uses it."""
    for st, _children in top:
        if st.rule == "prop":
            word = ctx.closed_word(st.tokens[0], st.line, "unknown-prop", "prop", V.PROPS)
            if word is not None:
                ctx.props.append(word)
            else:
                ctx.unknown_props.append((st.line, str(st.tokens[0])))


def read_directives(ctx: Context, top: list[Block]) -> Directives:
    """Resolve the top-level directives other than ``prop`` (see :func:`read_props`); a second
    ``pose start`` is an error, not a replacement (spec §1)."""
    d = Directives()
    pose_seen = False
    for st, children in top:
        r = st.rule
        if r is None:
            if st.head == "step":
                d.dropped_steps.append(st.line)
            if st.head == "pose":
                if pose_seen:
                    ctx.err("duplicate-start-pose", st.line, st.col,
                            "duplicate `pose start` declaration; a document may define "
                            "exactly one start pose")
                pose_seen = True
            d.dropped_children.append((children, st.head == "pose"))
            continue
        if r == "rig":
            d.rig = ctx.closed_word(st.tokens[0], st.line, "unknown-rig", "rig", V.RIGS) or d.rig
        elif r == "avatar":
            d.avatar = ctx.closed_word(st.tokens[0], st.line, "unknown-avatar", "avatar",
                                       V.AVATARS) or d.avatar
        elif r == "clip":
            d.clip = unquote(st.tokens[0])
        elif r == "repeat":
            tok = st.tokens[0]
            value = float(tok)
            if value <= 0 or not value.is_integer():
                ctx.err("bad-repeat", st.line, tok.column,
                        "repeat requires a positive integer count",
                        f"found `{tok}`; e.g. `repeat 3`")
            else:
                d.repeat = int(value)
        elif r == "pose":
            tok = st.tokens[0]
            if pose_seen:
                ctx.err("duplicate-start-pose", st.line, st.col,
                        "duplicate `pose start` declaration; a document may define exactly "
                        "one start pose", "merge the two declarations into one")
                d.dropped_children.append((children, True))
                continue
            pose_seen = True
            word = ctx.closed_word(tok, st.line, "unknown-start-pose", "start pose", V.START_POSES)
            if word is None:
                d.dropped_children.append((children, True))
            else:
                d.start_pose = word
                if st.opens_block:
                    d.overrides_block = (st, children)
        elif r == "step":
            d.steps.append((st, children))
    return d
