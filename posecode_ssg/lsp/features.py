"""The request features of the server: completion, hover, code actions, formatting, document
symbols and folding ranges (the feature logic lives in :mod:`.completion`, :mod:`.hover`,
:mod:`.actions` and :mod:`.outline`; this module maps positions and builds the LSP answers).
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types as T

from . import convert
from .actions import Fix, kinematic_fixes, parser_fixes, solver_fixes
from .analysis import all_diagnostics
from .completion import complete
from .context import head_of
from .hover import hover
from .outline import folding, formatted, symbols

log = logging.getLogger("posecode_ssg.lsp")

_SYMBOL_KIND = {"movement": T.SymbolKind.Module, "step": T.SymbolKind.Event}


def _locate(ls, uri: str, position: T.Position):
    """(state, analysis, unit, 0-based unit line, 0-based column) of a request position, or
    None outside every Posecode unit."""
    st = ls.hooks.state_of(ls, uri)
    if st is None or st.analysis is None:
        return None
    a = st.analysis
    off = a.lines.offset_at(position.line, position.character, ls.encoding)
    line, col = a.lines.check_position(off)
    unit = a.unit_at(line)
    if unit is None:
        return None
    where = unit.unit_position(line, col)
    if where is None:
        return None
    return st, a, unit, where[0] - 1, where[1] - 1


def _unit_offset(a, unit, index: int, col: int) -> int:
    line, column = unit.file_position(index + 1, col + 1)
    return a.lines.check_offset(line, column)


def _edit(a, start: int, end: int, text: str, enc: str) -> T.TextEdit:
    return T.TextEdit(range=convert.span(a.lines, start, end, enc), new_text=text)


def register(ls, safe) -> None:
    """Register the request features on the server ``ls`` (each wrapped by ``safe``). The
    server's own helpers come as ``ls.hooks`` (``state_of``, ``solved_program``,
    ``fix_timeout``), so this module does not import the server's."""
    state_of, solved_program = ls.hooks.state_of, ls.hooks.solved_program

    @ls.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[" ", ":", ",", "="]))
    @safe
    def completion(params: T.CompletionParams):
        found = _locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        _st, a, unit, index, col = found
        enc = ls.encoding
        items = []
        for n, item in enumerate(complete(unit.lines, index, col)):
            rng = convert.span(a.lines, _unit_offset(a, unit, index, item.start),
                               _unit_offset(a, unit, index, item.end), enc)
            items.append(convert.completion_item(item, rng, n))
        return T.CompletionList(is_incomplete=False, items=items)

    @ls.feature(T.TEXT_DOCUMENT_HOVER)
    @safe
    async def on_hover(params: T.HoverParams):
        found = _locate(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        st, a, unit, index, col = found
        program, solved = None, False
        if unit.result.ir is not None and head_of(unit.lines[index]) == "step":
            program, solved = await solved_program(ls, st, unit)
        h = hover(unit.lines, index, col, unit.result, program, solved)
        if h is None:
            return None
        rng = convert.span(a.lines, _unit_offset(a, unit, index, h.start), _unit_offset(a, unit, index, h.end),
                           ls.encoding)
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=h.text), range=rng)

    @ls.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    @safe
    async def code_action(params: T.CodeActionParams):
        only = params.context.only if params.context else None
        if only and not any(str(k.value if hasattr(k, "value") else k).startswith("quickfix") for k in only):
            return []
        st = state_of(ls, params.text_document.uri)
        if st is None or st.analysis is None:
            return None
        a = st.analysis
        enc = ls.encoding
        r = params.range
        lo = a.lines.offset_at(r.start.line, r.start.character, enc)
        hi = a.lines.offset_at(r.end.line, r.end.character, enc)
        diags = all_diagnostics(a)
        chosen = []
        for d in diags:
            s, e = convert.diagnostic_offsets(a.lines, d)
            if s <= hi and lo <= e:
                chosen.append(d)
        kin = [d for d in diags if d.code.startswith("kinematic-")]
        fixes: list[Fix] = []
        for d in chosen:
            fixes += kinematic_fixes(a, d, kin) if d.code.startswith("kinematic-") else parser_fixes(a, d)
        fixes += await _solver_fixes(ls, st, a, chosen, diags)
        if st.analysis is not a:
            return []   # the document changed while the fixes were computed: their edits are stale
        return _code_actions(ls, st, a, fixes, enc)

    @ls.feature(T.TEXT_DOCUMENT_FORMATTING)
    @safe
    def formatting(params: T.DocumentFormattingParams):
        st = state_of(ls, params.text_document.uri)
        if st is None or st.analysis is None:
            return None
        a = st.analysis
        new = formatted(a)
        if new is None:
            return []
        return [_edit(a, 0, len(a.text), new, ls.encoding)]

    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @safe
    def document_symbol(params: T.DocumentSymbolParams):
        st = state_of(ls, params.text_document.uri)
        if st is None or st.analysis is None:
            return None
        a = st.analysis
        enc = ls.encoding
        caps = ls.client_capabilities
        tdc = caps.text_document if caps else None
        hier = bool(tdc and tdc.document_symbol and tdc.document_symbol.hierarchical_document_symbol_support)

        def tree(s):
            return T.DocumentSymbol(name=s.name, detail=s.detail or None, kind=_SYMBOL_KIND[s.kind],
                                    range=convert.span(a.lines, *s.range, enc),
                                    selection_range=convert.span(a.lines, *s.selection, enc),
                                    children=[tree(c) for c in s.children] or None)

        found = symbols(a)
        if hier:
            return [tree(s) for s in found]
        flat = []
        for s in found:
            flat.append(T.SymbolInformation(name=s.name, kind=_SYMBOL_KIND[s.kind],
                                            location=T.Location(uri=st.uri, range=convert.span(a.lines, *s.selection, enc))))
            for c in s.children:
                flat.append(T.SymbolInformation(name=c.name, kind=_SYMBOL_KIND[c.kind], container_name=s.name,
                                                location=T.Location(uri=st.uri, range=convert.span(a.lines, *c.selection, enc))))
        return flat

    @ls.feature(T.TEXT_DOCUMENT_FOLDING_RANGE)
    @safe
    def folding_range(params: T.FoldingRangeParams):
        st = state_of(ls, params.text_document.uri)
        if st is None or st.analysis is None:
            return None
        a = st.analysis
        out = []
        for x, y in folding(a):
            first, last = a.lines.position(x).line, a.lines.position(y).line
            if last > first:
                out.append(T.FoldingRange(start_line=first, end_line=last, kind=T.FoldingRangeKind.Region))
        return out


async def _solver_fixes(ls, st, a, chosen, diags) -> list[Fix]:
    """The solver-backed fixes (``posecode_ssg.motion.fixes.propose_fixes``) of the units the
    chosen diagnostics are in, computed in the fix worker (cached per unit source)."""
    if not chosen:
        return []
    try:
        from posecode_ssg.motion import fixes as fixes_module
    except ImportError:
        return []
    # the pairs name the diagnostic each fix answers (two feet of one step); the contract's
    # propose_fixes is enough without them
    propose = getattr(fixes_module, "fix_pairs", None) or getattr(fixes_module, "propose_fixes", None)
    if propose is None:
        return []
    out: list[Fix] = []
    seen = set()
    codes = getattr(fixes_module, "FIX_CODES", None)
    for d in chosen:
        unit = a.unit_at(d.line)
        if unit is None or id(unit) in seen or (codes is not None and d.code not in codes):
            continue
        seen.add(id(unit))
        proposed = ls.fix_cache.get(unit.source)
        if proposed is None:
            try:
                proposed = await asyncio.wait_for(asyncio.shield(_proposals(ls, unit.source, propose)), ls.hooks.fix_timeout)
            except asyncio.TimeoutError:
                log.warning("propose_fixes is still searching; offering the hints' fixes meanwhile")
                continue
            except Exception:
                log.exception("propose_fixes failed")
                continue
        for f in solver_fixes(a, unit, proposed, diags):
            if f.diagnostic is not None and f.diagnostic in chosen:
                out.append(f)
    return out


def _proposals(ls, source: str, propose) -> asyncio.Future:
    """The fix search of one unit text in the fix worker: one search per text however many code
    action requests ask meanwhile (an editor asks at every cursor move, and cancels), its result
    kept in the server's cache when it ends."""
    pending = ls.fix_pending.get(source)
    if pending is not None:
        return pending
    fut = ls.fixer.run(lambda: list(propose(source) or []))
    ls.fix_pending[source] = fut

    def done(f: asyncio.Future) -> None:
        ls.fix_pending.pop(source, None)
        if not f.cancelled() and f.exception() is None:
            ls.fix_cache[source] = f.result()
            while len(ls.fix_cache) > 16:
                ls.fix_cache.popitem(last=False)

    fut.add_done_callback(done)
    return fut


def _code_actions(ls, st, a, fixes: list[Fix], enc: str) -> list[T.CodeAction]:
    caps = ls.client_capabilities
    ws = caps.workspace if caps else None
    versioned = bool(ws and ws.workspace_edit and ws.workspace_edit.document_changes)
    out, seen = [], set()
    for f in fixes:
        key = (tuple(f.edits), f.title)
        if key in seen or not f.edits:
            continue
        seen.add(key)
        edits = [_edit(a, s, e, text, enc) for s, e, text in sorted(f.edits, key=lambda x: x[0])]
        if versioned:
            edit = T.WorkspaceEdit(document_changes=[T.TextDocumentEdit(
                text_document=T.OptionalVersionedTextDocumentIdentifier(uri=st.uri, version=a.version),
                edits=edits)])
        else:
            edit = T.WorkspaceEdit(changes={st.uri: edits})
        diag = [convert.diagnostic(a.lines, f.diagnostic, enc)] if f.diagnostic is not None else None
        out.append(T.CodeAction(title=f.title, kind=T.CodeActionKind.QuickFix, diagnostics=diag,
                                is_preferred=f.preferred or None, edit=edit))
    return out
