"""Diagnostics over stdio are ``posecode-ssg check``'s: parser, kinematic (after the debounced
solve) and, for a page of a site, front matter, fence attributes and links, each at check's line
and column (UTF-16 on the client's side), with check's code, severity, message and hint; a page
outside any site gets its fences' only.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsp_helpers import (
    SITE_PAGE,
    case_dir,
    change_full,
    close_doc,
    init_params,
    open_doc,
    publishes,
    rng,
    settle,
    start_client,
    stop_client,
    uri_of,
    wait_publish,
)
from lsprotocol import types as T

from posecode_ssg.checking import PageChecker, add_kinematics, check_file
from posecode_ssg.config import load_config
from posecode_ssg.lsp.documents import Lines
from posecode_ssg.site.report import caret_width
from posecode_ssg.site.vocabularies import vocabulary

pytestmark = pytest.mark.asyncio(loop_scope="module")

SEVERITY = {"error": 1, "warning": 2, "hint": 4}


def expected(path: Path, site: Path | None) -> list[tuple]:
    """What ``check`` (run in ``site``) reports for ``path``, as the client must see it: the
    range (UTF-16), code, severity and message + hint. The fix search ``check`` appends to a
    hint ("; this works: …") is a code action in the editor, not part of the hint."""
    pages = None
    if site is not None and path.suffix == ".md":
        cfg = load_config(site / "posecode.toml", cwd=site) if (site / "posecode.toml").is_file() \
            else load_config(None, cwd=site)
        pages = PageChecker(cfg.content_dir, vocabulary(cfg.taxonomies), raw_html=cfg.raw_html)
    text = path.read_text("utf-8")
    lines = Lines(text, path.suffix == ".md")
    out = []
    for doc in check_file(path, pages=pages):
        add_kinematics(doc)
        for d in doc.diagnostics():
            start = lines.check_offset(d.line, d.column)
            width = (d.extra or {}).get("width") or caret_width(lines.check_line(d.line), d.column)
            a, b = lines.position(start), lines.position(start + width)
            hint = re.sub(r"(; )?this works: .*$", "", d.hint or "") or None
            out.append(((a.line, a.character, b.line, b.character), d.code, SEVERITY[d.severity],
                        d.message + (f"\nhint: {hint}" if hint else "")))
    return sorted(out)


def got(p: T.PublishDiagnosticsParams) -> list[tuple]:
    return sorted((rng(d.range), d.code, d.severity, d.message) for d in p.diagnostics)


async def test_site_page_diagnostics_are_checks(site_client, site_dir):
    page = site_dir / "content" / "page.md"
    uri = uri_of(page)
    open_doc(site_client, uri, page.read_text("utf-8"))
    first = await wait_publish(site_client, uri, lambda p: p.version == 1)
    # the fast path: the parser's diagnostics at once (no kinematic solve yet)
    assert "unknown-timing-mode" in [d.code for d in first.diagnostics]
    assert not any(d.code.startswith("kinematic-") for d in first.diagnostics)
    last = await settle(site_client, uri)
    want = expected(page, site_dir)
    codes = {w[1] for w in want}
    assert {"front-matter-unknown-key", "broken-link", "fence-attribute", "unknown-timing-mode",
            "kinematic-reach-short"} <= codes
    assert got(last) == want
    # the fence in the list item: its reach line is the Markdown line, columns past the list indent
    reach = next(d for d in last.diagnostics if d.code == "kinematic-reach-short")
    line = page.read_text("utf-8").split("\n").index("      reach: foot_left box")
    assert rng(reach.range) == (line, 6, line, 11)
    close_doc(site_client, uri)


async def test_kinematic_results_survive_edits_elsewhere(site_client, site_dir):
    """Editing one fence keeps the other fence's kinematic diagnostics in the fast publish (they
    are still exact), and a stale one is never shown."""
    page = site_dir / "content" / "page.md"
    uri = uri_of(page.parent / "copy.md")   # the same text, an unsaved buffer beside it
    text = page.read_text("utf-8")
    open_doc(site_client, uri, text)
    await settle(site_client, uri)
    since = len(site_client.published)
    edited = text.replace("hips: flex 20", "hips: flex 25")        # the first fence only
    change_full(site_client, uri, edited, 2)
    p = await wait_publish(site_client, uri, lambda p: p.version == 2, since=since)
    assert "kinematic-reach-short" in [d.code for d in p.diagnostics]
    since = len(site_client.published)
    shifted = edited.replace("# Page 💪\n", "# Page 💪\n\nA new paragraph.\n")   # lines move
    change_full(site_client, uri, shifted, 3)
    p = await wait_publish(site_client, uri, lambda p: p.version == 3, since=since)
    assert "kinematic-reach-short" not in [d.code for d in p.diagnostics]   # dropped, not stale
    last = await settle(site_client, uri, 3)
    reach = next(d for d in last.diagnostics if d.code == "kinematic-reach-short")
    assert last.version == 3 and reach.range.start.line == shifted.split("\n").index("      reach: foot_left box")
    close_doc(site_client, uri)


async def test_case_files_match_check(client):
    for name in ("ls-utf16-positions/squat-emoji.posecode", "ls-utf16-positions/page.md",
                 "ls-stale-diagnostics/hinge-broken.posecode", "ls-stale-diagnostics/page.md"):
        folder, file = name.split("/")
        path = case_dir(folder) / file
        uri = "file:///nosite/" + name
        open_doc(client, uri, path.read_text("utf-8"))
        last = await settle(client, uri)
        assert got(last) == expected(path, None), name
        close_doc(client, uri)


async def test_kinematic_after_debounce_on_a_fixed_document(client):
    """Once the timing mode is fixed, the solve's hint arrives for the same version."""
    path = case_dir("ls-utf16-positions") / "squat-emoji.posecode"
    uri = "file:///nosite/debounce.posecode"
    text = path.read_text("utf-8")
    open_doc(client, uri, text)
    await wait_publish(client, uri, lambda p: p.version == 1)
    since = len(client.published)
    change_full(client, uri, text.replace("setle", "settle"), 2)
    p = await wait_publish(client, uri, lambda p: p.version == 2, since=since)
    assert list(p.diagnostics) == []
    p = await wait_publish(client, uri, lambda p: p.version == 2 and p.diagnostics, since=since)
    assert [(d.code, d.severity, rng(d.range)) for d in p.diagnostics] == [("kinematic-balance", 4, (4, 2, 4, 6))]
    assert all(q.version == 2 for q in publishes(client, uri, since))
    close_doc(client, uri)


async def test_page_outside_a_site_gets_fences_only(tmp_path):
    """No posecode.toml and no content folder: the page's links and front matter are not
    checked, its fences are."""
    folder = tmp_path / "notes"
    folder.mkdir()
    page = folder / "page.md"
    page.write_text(SITE_PAGE, "utf-8")
    c = await start_client(init_params(["utf-16"], root=folder))
    try:
        uri = uri_of(page)
        open_doc(c, uri, SITE_PAGE)
        last = await settle(c, uri)
        assert sorted(d.code for d in last.diagnostics) == ["kinematic-reach-short", "unknown-timing-mode"]
        assert got(last) == expected(page, None)
    finally:
        await stop_client(c)


async def test_requests_on_unknown_documents_answer_nothing(client):
    uri = "file:///nowhere/never-opened.posecode"
    td = T.TextDocumentIdentifier(uri=uri)
    pos = T.Position(line=3, character=4)
    assert await client.text_document_hover_async(T.HoverParams(text_document=td, position=pos)) is None
    assert await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=td)) in (None, [])
    assert not await client.text_document_formatting_async(T.DocumentFormattingParams(
        text_document=td, options=T.FormattingOptions(tab_size=2, insert_spaces=True)))


async def test_a_clean_solve_is_published_too(client, tmp_path):
    """A clean document is published at once (the parser's answer) and again when its debounced
    solve ends, with the same version: a client waiting for the kinematic result learns it came
    (clean), instead of waiting for a publish that never arrives."""
    uri = uri_of(tmp_path / "nod.posecode")
    since = len(client.published)
    open_doc(client, uri, 'posecode posture "Nod"\n  rig humanoid\n  step "Nod" 1s settle:\n    neck: flex 15\n'
                          '  step "Up" 1s settle:\n    neck: flex 0\n')
    await wait_publish(client, uri, lambda p: p.version == 1, since=since)
    await wait_publish(client, uri, lambda p: p.version == 1 and len(publishes(client, uri, since)) >= 2,
                       since=since)
    sent = publishes(client, uri, since)
    assert [p.version for p in sent[:2]] == [1, 1], sent
    assert [list(p.diagnostics) for p in sent[:2]] == [[], []], sent
    close_doc(client, uri)
