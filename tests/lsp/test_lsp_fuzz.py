"""The server survives any partial document: the parser's property-test mutations
(tests/language/test_parse_property.py: deleted, duplicated, swapped, re-indented and truncated
lines, odd characters inserted, words replaced, CRLF, a BOM) fed to every feature.

- In process (hypothesis): every feature function on every mutated document, as a ``.posecode``
  file and as a fence in a Markdown list item, at random positions: nothing raises, every range is
  inside the document, and position conversion round-trips in UTF-8, UTF-16 and UTF-32.
- Over stdio: one server receives a long run of incremental edits (computed client-side in UTF-16
  from one mutated document to the next) and requests of every feature at random positions; no
  request fails, nothing is shown to the user, and at the end the server's copy of the text is
  exactly the client's (its parser diagnostics equal the in-process parse of the final text).
"""

from __future__ import annotations

import importlib.util
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsp_helpers import REPO, change_full, change_range, close_doc, open_doc, rng, settle
from lsprotocol import types as T

from posecode_ssg.lsp import actions, completion, convert, hover, outline
from posecode_ssg.lsp.analysis import all_diagnostics, analyze
from posecode_ssg.lsp.documents import UTF8, UTF16, UTF32, Lines, Pos, apply_change, units


def _property_module():
    folder = REPO / "tests" / "language"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location("posecode_lsp_parse_property", folder / "test_parse_property.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PROP = _property_module()
DOCUMENTS = st.one_of(PROP.mutated(), PROP.word_soup, PROP.odd_text)
EMOJI = st.text(alphabet=st.sampled_from(list("ab \n\r\t💪👣é𝕏\u2028\ufeff\"")), max_size=40)


def as_page(source: str) -> str:
    body = "".join("  " + line + "\n" for line in source.replace("\r\n", "\n").split("\n"))
    return "# Page 💪\n\n- 👣 item:\n\n  ```posecode\n" + body + "  ```\n"


def exercise_features(text: str, markdown: bool, rnd: random.Random) -> None:
    a = analyze(text, markdown)
    n = len(text)
    for d in all_diagnostics(a):
        for enc in (UTF8, UTF16, UTF32):
            r = convert.diagnostic(a.lines, d, enc).range
            assert (r.start.line, r.start.character) <= (r.end.line, r.end.character)
            assert r.end.line < a.lines.lsp_line_count
        actions.parser_fixes(a, d)
        actions.kinematic_fixes(a, d, [])
        for s, e in [convert.diagnostic_offsets(a.lines, d)]:
            assert 0 <= s <= e <= n
    for s in outline.symbols(a):
        assert 0 <= s.range[0] <= s.range[1] <= n and s.range[0] <= s.selection[0] <= s.selection[1] <= n
    for x, y in outline.folding(a):
        assert 0 <= x <= y <= n
    outline.formatted(a)
    for unit in a.units:
        for _ in range(6):
            i = rnd.randrange(len(unit.lines) + 1) if unit.lines else 0
            line = unit.lines[i] if i < len(unit.lines) else ""
            col = rnd.randrange(len(line) + 3)
            for item in completion.complete(unit.lines, i, col):
                assert 0 <= item.start <= item.end <= len(line) + 0 or not line
            h = hover.hover(unit.lines, i, col, unit.result, None, False)
            assert h is None or (h.text and 0 <= h.start <= h.end)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(DOCUMENTS, st.randoms(use_true_random=False))
def test_features_never_fail_on_mutated_documents(source, rnd):
    exercise_features(source, False, rnd)
    exercise_features(as_page(source), True, rnd)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(EMOJI, st.integers(0, 30), st.integers(-2, 60), st.integers(0, 30), st.integers(-2, 60), EMOJI)
def test_positions_round_trip_and_edits_splice(text, l1, c1, l2, c2, new):
    lines = Lines(text)
    for enc in (UTF8, UTF16, UTF32):
        for off in range(len(text) + 1):
            p = lines.position(off, enc)
            back = lines.offset_at(p.line, p.character, enc)
            # an offset inside a line break maps to the end of its line
            assert back == off or (text[back:off] in ("\r", "\n", "\r\n") and back < off)
        a = lines.offset_at(l1, c1, enc)
        b = lines.offset_at(l2, c2, enc)
        lo, hi = min(a, b), max(a, b)
        assert apply_change(text, Pos(l1, c1), Pos(l2, c2), new, enc) == text[:lo] + new + text[hi:]
        assert lines.end_position(enc).character == units(lines.lsp_line(lines.lsp_line_count - 1), enc)


def _collect(n: int) -> list[str]:
    out: list[str] = []

    @settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
              database=None)
    @given(PROP.mutated())
    def collect(source):
        out.append(source)

    collect()
    return out


def _single_edit(old: str, new: str) -> tuple[int, int, str]:
    """(start, end, text): the one replacement that turns ``old`` into ``new``."""
    a = 0
    while a < min(len(old), len(new)) and old[a] == new[a]:
        a += 1
    b = 0
    while b < min(len(old), len(new)) - a and old[len(old) - 1 - b] == new[len(new) - 1 - b]:
        b += 1
    return a, len(old) - b, new[a:len(new) - b]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("markdown", [False, True])
async def test_server_survives_a_run_of_mutated_edits(client, markdown):
    docs = _collect(60)
    rnd = random.Random(26)
    uri = f"file:///fuzz/doc{'.md' if markdown else '.posecode'}"
    text = as_page(docs[0]) if markdown else docs[0]
    open_doc(client, uri, text)
    td = T.TextDocumentIdentifier(uri=uri)
    version = 1
    for k, nxt in enumerate(docs[1:], 1):
        nxt = as_page(nxt) if markdown else nxt
        version += 1
        if k % 7 == 0:
            change_full(client, uri, nxt, version)
        else:
            a, b, new = _single_edit(text, nxt)
            lines = Lines(text)
            pa, pb = lines.position(a, UTF16), lines.position(b, UTF16)
            change_range(client, uri, version, (pa.line, pa.character), (pb.line, pb.character), new)
        text = nxt
        lines = Lines(text)
        line = rnd.randrange(lines.lsp_line_count + 2)
        char = rnd.randrange(80)
        pos = T.Position(line=line, character=char)
        rng_ = T.Range(start=T.Position(line=max(0, line - 2), character=0), end=pos)
        await client.text_document_hover_async(T.HoverParams(text_document=td, position=pos))
        await client.text_document_completion_async(T.CompletionParams(text_document=td, position=pos))
        if k % 3 == 0:
            await client.text_document_code_action_async(T.CodeActionParams(
                text_document=td, range=rng_, context=T.CodeActionContext(diagnostics=[])))
            await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=td))
            await client.text_document_folding_range_async(T.FoldingRangeParams(text_document=td))
            await client.text_document_formatting_async(T.DocumentFormattingParams(
                text_document=td, options=T.FormattingOptions(tab_size=2, insert_spaces=True)))
    last = await settle(client, uri, version)
    assert last.version == version
    a = analyze(text, markdown)
    want = sorted((rng(convert.diagnostic(a.lines, d, UTF16).range), d.code, d.message)
                  for u in a.units for d in u.checked.result.diagnostics())
    got = sorted((rng(d.range), d.code, d.message.split("\nhint: ")[0]) for d in last.diagnostics
                 if not d.code.startswith("kinematic-"))
    assert got == [(r, c, m) for r, c, m in want]
    assert client._server.returncode is None
    assert not [m for m in client.messages if m.type == T.MessageType.Error]
    close_doc(client, uri)
