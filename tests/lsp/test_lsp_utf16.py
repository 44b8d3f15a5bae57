"""Public fault ls-utf16-positions (../shared/cases/bugs/ls-utf16-positions): positions in the
negotiated encoding (UTF-16 unless the client offers another), incremental edits after emoji
(two adjacent ones included) applied at the right place, every range the server sends matching
positions.json, ends of lines accepted, and a fence's diagnostic at its Markdown line.

The sessions of session.json are replayed message by message over stdio.
"""

from __future__ import annotations

import json

import pytest
from lsp_helpers import (
    case_dir,
    change_range,
    open_doc,
    rng,
    wait_publish,
)
from lsprotocol import types as T

from posecode_ssg.language import parse

pytestmark = pytest.mark.asyncio(loop_scope="module")

CASE = "ls-utf16-positions"


def _session(name_start: str) -> list[dict]:
    data = json.loads((case_dir(CASE) / "session.json").read_text("utf-8"))
    return next(v for k, v in data.items() if k.startswith(name_start))


def _positions() -> dict:
    return json.loads((case_dir(CASE) / "positions.json").read_text("utf-8"))


def _cli_message() -> str:
    d = parse((case_dir(CASE) / "squat-emoji.posecode").read_text("utf-8")).errors[0]
    assert (d.code, d.line, d.column) == ("unknown-timing-mode", 5, 26)   # the CLI's 5:26
    return f"{d.message}\nhint: {d.hint}"


def _td(uri: str) -> T.TextDocumentIdentifier:
    return T.TextDocumentIdentifier(uri=uri)


async def _symbols(client, uri):
    return await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=_td(uri)))


async def _hover(client, uri, line, character):
    return await client.text_document_hover_async(
        T.HoverParams(text_document=_td(uri), position=T.Position(line=line, character=character)))


async def _complete(client, uri, line, character):
    return await client.text_document_completion_async(
        T.CompletionParams(text_document=_td(uri), position=T.Position(line=line, character=character)))


async def replay_utf16_session(client) -> None:
    steps = _session("utf-16 session")
    enc = client.init_result.capabilities.position_encoding
    assert enc in (None, T.PositionEncodingKind.Utf16)
    open_params = steps[1]["send"]["params"]["textDocument"]
    uri = open_params["uri"]
    open_doc(client, uri, open_params["text"], open_params["version"], open_params["languageId"])

    want = steps[2]["expect"]["params"]
    p = await wait_publish(client, uri, lambda p: p.version == want["version"])
    assert p.version == 1
    assert len(p.diagnostics) == 1
    d = p.diagnostics[0]
    r = want["diagnostics"][0]["range"]
    assert rng(d.range) == (r["start"]["line"], r["start"]["character"], r["end"]["line"], r["end"]["character"])
    assert rng(d.range) == (4, 27, 4, 32)                      # not 25 → 30, not 32 → 37
    assert d.severity == want["diagnostics"][0]["severity"] == T.DiagnosticSeverity.Error
    assert d.code == want["diagnostics"][0]["code"]
    assert d.message == _cli_message()                         # the CLI's message and hint
    assert d.data == {"hint": "did you mean `settle`?"}

    # "replace 4:27–4:32 with settle": the next publish for version 2 is empty
    change = steps[3]["send"]["params"]
    c = change["contentChanges"][0]["range"]
    since = len(client.published)
    change_range(client, uri, change["textDocument"]["version"], (c["start"]["line"], c["start"]["character"]),
                 (c["end"]["line"], c["end"]["character"]), change["contentChanges"][0]["text"])
    p = await wait_publish(client, uri, since=since)
    assert p.version == steps[4]["expect"]["params"]["version"] == 2
    assert list(p.diagnostics) == steps[4]["expect"]["params"]["diagnostics"] == []
    line4 = steps[3]["expect_text_line_4"]
    syms = await _symbols(client, uri)
    assert syms[0].children[0].name == line4.split('"')[1] == "Zejście 💪💪"
    assert syms[0].children[0].detail == "1.6s settle"

    # insert "!" between the two emoji (UTF-16 column 18)
    change = steps[5]["send"]["params"]
    c = change["contentChanges"][0]["range"]
    change_range(client, uri, 3, (c["start"]["line"], c["start"]["character"]),
                 (c["end"]["line"], c["end"]["character"]), change["contentChanges"][0]["text"])
    syms = await _symbols(client, uri)
    assert syms[0].children[0].name == steps[5]["expect_text_line_4"].split('"')[1] == "Zejście 💪!💪"
    assert rng(syms[0].children[0].selection_range) == (4, 7, 4, 22)

    hv = steps[6]["send"]["params"]["position"]
    h = await _hover(client, uri, hv["line"], hv["character"])
    assert h is not None and "settle" in h.contents.value and "timing mode" in h.contents.value
    assert "Zejście" not in h.contents.value and "1.6" not in h.contents.value
    assert rng(h.range) == (4, 28, 4, 34)                      # `settle` on the new line


async def test_utf16_session_client_offering_utf16(client):
    await replay_utf16_session(client)


async def test_utf16_session_client_offering_nothing(fresh):
    await replay_utf16_session(fresh)


async def test_utf8_session(utf8_client):
    steps = _session("utf-8 session")
    enc = utf8_client.init_result.capabilities.position_encoding
    assert enc in (T.PositionEncodingKind.Utf8, T.PositionEncodingKind.Utf16)
    doc = steps[1]["send"]["params"]["textDocument"]
    open_doc(utf8_client, doc["uri"], doc["text"], doc["version"], doc["languageId"])
    p = await wait_publish(utf8_client, doc["uri"], lambda p: p.version == 1)
    want = steps[2]["expect"]["diagnostics[0].range"]["if utf-8" if enc == T.PositionEncodingKind.Utf8 else "if utf-16"]
    assert rng(p.diagnostics[0].range) == (want["start"]["line"], want["start"]["character"],
                                           want["end"]["line"], want["end"]["character"])
    assert enc == T.PositionEncodingKind.Utf8   # pygls takes the client's first choice
    assert rng(p.diagnostics[0].range) == (4, 32, 4, 37)


async def _ranges_match_positions(client, uri: str, text: str, enc: str) -> None:
    pos = _positions()

    def want(key: str) -> tuple[int, int, int, int]:
        e = pos[key]
        return (e["line"], e["start"][enc], e["line"], e["end"][enc])

    open_doc(client, uri, text)
    p = await wait_publish(client, uri, lambda p: p.version == 1)
    assert rng(p.diagnostics[0].range) == want("diagnostic unknown-timing-mode")
    syms = await _symbols(client, uri)
    assert rng(syms[0].selection_range) == want("movement name (with quotes)")
    assert rng(syms[0].children[0].selection_range) == want("step 1 name (with quotes)")
    assert [s.name for s in syms[0].children] == ["Zejście 💪💪", "Wstań 🚀"]
    # hover ranges: the step name, the cue, the movement name
    line, a, _l, b = want("step 1 name (with quotes)")
    h = await _hover(client, uri, line, b - 1)
    assert rng(h.range) == want("step 1 name (with quotes)")
    line, a, _l, b = want("cue string (with quotes)")
    h = await _hover(client, uri, line, a + 1)
    assert rng(h.range) == want("cue string (with quotes)")
    line, a, _l, b = want("movement name (with quotes)")
    h = await _hover(client, uri, line, b - 2)
    assert rng(h.range) == want("movement name (with quotes)")
    # completion edit range: the unknown mode `setle` replaced by a mode
    line, a, _l, b = want("diagnostic unknown-timing-mode")
    items = (await _complete(client, uri, line, b)).items
    assert "settle" in [i.label for i in items]
    assert {rng(i.text_edit.range) for i in items} == {want("diagnostic unknown-timing-mode")}
    # the end of line 10 (and past it) is answered, not rejected
    end10 = pos["end of line 10 (step 2 header)"]["end"][enc]
    assert await _complete(client, uri, 10, end10) is not None
    await _hover(client, uri, 10, end10)
    await _hover(client, uri, 10, end10 + 40)
    items = (await _complete(client, uri, 10, end10 + 40)).items
    assert items == [] or all(i.text_edit.range.end.character <= end10 for i in items)
    h = await _hover(client, uri, 10, end10 - 2)        # `drive` at the end of the line
    assert h is not None and "drive" in h.contents.value
    assert rng(h.range)[3] == end10 - 1


async def test_every_range_matches_positions_json_utf16(client):
    text = (case_dir(CASE) / "squat-emoji.posecode").read_text("utf-8")
    await _ranges_match_positions(client, "file:///home/author/case/ranges-utf16.posecode", text, "utf-16")


async def test_every_range_matches_positions_json_utf8(utf8_client):
    text = (case_dir(CASE) / "squat-emoji.posecode").read_text("utf-8")
    await _ranges_match_positions(utf8_client, "file:///home/author/case/ranges-utf8.posecode", text, "utf-8")


async def test_fence_in_markdown_page(client):
    """The fence's diagnostic is at the page's line 11 (0-based), columns converted on the
    Markdown line; the emoji in the heading above changes nothing."""
    text = (case_dir(CASE) / "page.md").read_text("utf-8")
    uri = "file:///home/author/case/page.md"
    open_doc(client, uri, text)
    p = await wait_publish(client, uri, lambda p: p.version == 1)
    assert [(d.code, rng(d.range)) for d in p.diagnostics] == [("unknown-timing-mode", (11, 27, 11, 32))]
    assert p.diagnostics[0].message == _cli_message()
    syms = await _symbols(client, uri)
    assert rng(syms[0].selection_range) == (7, 18, 7, 36)
    assert rng(syms[0].children[0].selection_range) == (11, 7, 11, 21)
    h = await _hover(client, uri, 11, 29)
    assert h is not None and "timing mode" in h.contents.value and rng(h.range) == (11, 27, 11, 32)
    # the fix: an incremental edit on the Markdown line clears it
    since = len(client.published)
    change_range(client, uri, 2, (11, 27), (11, 32), "settle")
    p = await wait_publish(client, uri, since=since)
    assert p.version == 2 and list(p.diagnostics) == []
    # outside the fence there is nothing to complete or hover
    assert await _hover(client, uri, 4, 3) is None
