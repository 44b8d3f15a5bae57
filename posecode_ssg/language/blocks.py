"""The block pass (spec §1: Posecode is line- and indentation-oriented): the lexed statements
of a document placed by their indentation into the header, the top-level directives at one
document indentation level, and the step children and start-pose overrides beneath the header
that opens their block (a ``step`` or ``pose start = X:`` line).

Misplaced and mis-indented lines are reported here; what each statement means is read by the
statement rules afterwards.
"""

from __future__ import annotations

from posecode_ssg.language.context import Context, did_you_mean
from posecode_ssg.language.lexer import KEYWORDS, TOP_LEVEL, Block, Statement
from posecode_ssg.language.statements.directives import header as header_statement


def split_header(ctx: Context, stmts: list[Statement]):
    """Take the header off a document's statements: (kind, name, header line, the statements
    after it). The header is the first statement, ``posecode <kind> "<name>"`` in the first
    column; otherwise ``bad-header`` is reported (unless the line's syntax error already was)
    and kind and name are None."""
    header = stmts[0]
    kind, name, header_line = None, None, header.line
    if header.rule == "header" and header.indent == 0:
        kind, name = header_statement(ctx, header)
        body = stmts[1:]
    else:
        # a header line with a syntax error has been reported already
        if header.rule is not None or header.head != "posecode":
            hint = ("the header must start in the first column" if header.rule == "header"
                    else 'the first line must be e.g. `posecode exercise "Squat"`')
            ctx.err("bad-header", header.line, header.col,
                    'document must start with a `posecode <kind> "<name>"` header', hint)
        body = stmts[1:] if header.head == "posecode" else stmts
    return kind, name, header_line, body


def group_blocks(ctx: Context, body: list[Statement]) -> list[Block]:
    """The top-level statements of ``body`` in order, each with the statements of its block.
    A second header, a directive outside the document indentation, a child outside any block
    (the pending error of an unknown first word becomes ``outside-step`` there) and a child
    not indented deeper than its header or off its block's one indentation level are
    reported."""
    doc_indent: int | None = None
    top: list[Block] = []
    block: Block | None = None
    child_indent: int | None = None
    for st in body:
        head = st.head
        is_top = head in TOP_LEVEL or head == "posecode"
        if is_top:
            if head == "posecode":
                ctx.err("bad-header", st.line, st.col,
                        "document must start with a `posecode <kind> \"<name>\"` header",
                        "a document has exactly one header: remove this second one")
                block = None
                continue
            if st.indent == 0:
                ctx.err("top-level-not-indented", st.line, st.col,
                        f"top-level `{head}` must be indented beneath the posecode header",
                        "indent it by the same amount as the other directives (e.g. 2 spaces)")
            elif doc_indent is None:
                doc_indent = st.indent
            elif st.indent != doc_indent:
                ctx.err("top-level-indent-mismatch", st.line, st.col,
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
                ctx.err("outside-step", st.line, st.col, "joint target outside of a step",
                        f"`{head[1:]}` is not a directive"
                        + (f"; {did_you_mean(head[1:], KEYWORDS)}"
                           if did_you_mean(head[1:], KEYWORDS) else
                           "; top-level directives: " + ", ".join(TOP_LEVEL)))
            elif st.rule is not None:
                what = "joint target" if head == "joint" else f"`{head}`"
                ctx.err("outside-step", st.line, st.col, f"{what} outside of a step",
                        'put it beneath a `step "<name>" <duration> <mode>:` line, '
                        "indented one level deeper")
            continue
        if st.pending is not None:
            ctx.err(st.pending[0], st.line, *st.pending[1:])
        owner = block[0]
        is_pose = owner.head == "pose"
        prefix = "start-override" if is_pose else "step-child"
        what = "start-pose overrides" if is_pose else "step children"
        under = "`pose start` header" if is_pose else "`step` header"
        if st.indent <= owner.indent:
            ctx.err(f"{prefix}-not-indented", st.line, st.col,
                    f"{what} must be indented beneath their {under}",
                    f"indent this line deeper than line {owner.line}"
                    + (" (a tab counts as one character)" if "\t" in
                       ctx.lines[st.line - 1][:st.indent] else ""))
        elif child_indent is None:
            child_indent = st.indent
        elif st.indent != child_indent:
            ctx.err(f"{prefix}-indent-mismatch", st.line, st.col,
                    f"{what} must use one indentation level ({child_indent} "
                    f"{'space' if child_indent == 1 else 'spaces'})",
                    f"indent it like line {block[1][0].line if block[1] else owner.line}")
        block[1].append(st)
    return top
