"""Completion, hover, code actions, formatting, document symbols and folding ranges over stdio,
in ``.posecode`` documents and in a ```` ```posecode ```` fence of a Markdown page (inside a list
item, after emoji): each feature's answer and its ranges in UTF-16.
"""

from __future__ import annotations

import pytest
from lsp_helpers import (
    apply_edits,
    change_full,
    close_doc,
    open_doc,
    rng,
    settle,
    uri_of,
    wait_publish,
)
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")

DOC = '''posecode exercise "Café squat 💪"
  rig humanoid
  prop box
  pose start = standing

  step "Down 👇" 1.5s settle:
    hips: flex 70
    knees: flex 200
    reach: hand_left box
    ground-lock: feet
    cue "Knees over toes"

  step "Up" 1s drive:
    hips: flex 0
    knees: flex 0
    ground-lock: feet
  repeat 3
'''

STEP_UP = '''posecode exercise "Step-up"
  rig humanoid
  prop box
  pose start = standing

  step "Foot up" 1s settle:
    hip_left: flex 20
    knee_left: flex 90
    pin: foot_right floor
    reach: foot_left box

  step "Down" 1s settle:
    hip_left: flex 0
    knee_left: flex 0
    ground-lock: feet
'''


def td(uri):
    return T.TextDocumentIdentifier(uri=uri)


async def complete(client, uri, line, character):
    res = await client.text_document_completion_async(
        T.CompletionParams(text_document=td(uri), position=T.Position(line=line, character=character)))
    return {i.label: i for i in (res.items if res else [])}


async def hover(client, uri, line, character):
    return await client.text_document_hover_async(
        T.HoverParams(text_document=td(uri), position=T.Position(line=line, character=character)))


async def actions(client, uri, line, start, end=None):
    return await client.text_document_code_action_async(T.CodeActionParams(
        text_document=td(uri), range=T.Range(start=T.Position(line=line, character=start),
                                              end=T.Position(line=line, character=end if end is not None else start)),
        context=T.CodeActionContext(diagnostics=[])))


def edits_of(action: T.CodeAction, uri: str) -> list[T.TextEdit]:
    e = action.edit
    if e.document_changes:
        return [x for dc in e.document_changes if dc.text_document.uri == uri for x in dc.edits]
    return list(e.changes[uri])


# -- completion ---------------------------------------------------------------------------------

async def test_completion_of_each_vocabulary_where_it_is_valid(client):
    uri = "file:///features/complete.posecode"
    lines = DOC.split("\n")
    lines[5] = '  step "Down 👇" 1.5s '
    lines[7] = "    knees: "
    lines[8] = "    reach: hand_left "
    lines[9] = "    ground-lock: feet, "
    lines[2] = "  prop "
    text = "\n".join(lines)
    open_doc(client, uri, text)
    modes = await complete(client, uri, 5, 22)               # UTF-16: 👇 counts 2
    assert list(modes) == ["flow", "settle", "drive", "snap", "linear"]
    assert all(i.documentation for i in modes.values())
    assert modes["settle"].documentation == "decelerate into a deliberate rest"
    assert rng(modes["snap"].text_edit.range) == (5, 22, 5, 22)
    knees = await complete(client, uri, 7, 11)
    assert list(knees) == ["flex", "extend", "hold neutral"]  # the knee: flex and extend only
    assert "0–144°" not in knees["flex"].documentation and "144°" in knees["flex"].documentation
    props = await complete(client, uri, 2, 7)
    assert list(props) == ["chair", "wall", "bar", "box", "dip-bars"]
    gl = await complete(client, uri, 9, 23)
    assert "feet" not in gl and {"hands", "back", "foot_left", "elbow_right"} <= set(gl)
    # reach targets with no prop declared (line 2 is `prop ` now): floor and landmarks, no box
    targets = await complete(client, uri, 8, 21)
    assert "floor" in targets and "ankle_left" in targets and "box" not in targets
    assert "wrist_left" not in targets                        # the hand's own joint
    # a step line start: joints and step directives; top level: directives; the header: kinds
    children = await complete(client, uri, 10, 4)
    assert {"knees", "hips", "reach", "ground-lock", "cue", "turn"} <= set(children)
    assert "step" not in children and "repeat" not in children
    assert children["knees"].text_edit.new_text == "knees"   # the line goes on after the word
    top = await complete(client, uri, 4, 2)
    assert set(top) == {"rig", "avatar", "prop", "pose", "clip", "repeat", "step"}
    change_full(client, uri, 'posecode \n  pose start = \n  step "A" 1s flow:\n    grip: hands \n', 2)
    assert list(await complete(client, uri, 0, 9)) == ["exercise", "stretch", "posture"]
    assert "first-position" in await complete(client, uri, 1, 15)
    assert await complete(client, uri, 3, 16) == {}          # no bar declared: no grip anchor
    change_full(client, uri, 'posecode exercise "x"\n  prop bar\n  step "A" 1s flow:\n    grip: hand_left \n'
                '    cue "kn', 3)
    assert list(await complete(client, uri, 3, 20)) == ["bar", "bar_left"]
    assert await complete(client, uri, 4, 11) == {}          # inside a cue string
    close_doc(client, uri)


async def test_completion_in_a_markdown_fence(site_client, site_dir):
    page = site_dir / "content" / "complete.md"
    text = "# A page 💪\n\n- item 👣:\n\n  ```posecode\n  posecode exercise \"X\"\n    prop box\n" \
           "    step \"A 💪\" 1s flow:\n      knees: \n      reach: foot_left \n  ```\n"
    uri = uri_of(page)
    open_doc(site_client, uri, text)
    acts = await complete(site_client, uri, 8, 13)
    assert list(acts) == ["flex", "extend", "hold neutral"]
    assert rng(acts["flex"].text_edit.range) == (8, 13, 8, 13)
    targets = await complete(site_client, uri, 9, 23)
    assert "box" in targets and "floor" in targets
    assert await complete(site_client, uri, 0, 5) == {}       # outside the fence
    close_doc(site_client, uri)


# -- hover --------------------------------------------------------------------------------------

async def test_hover_joint_action_clamp_contact_step(client):
    uri = "file:///features/hover.posecode"
    open_doc(client, uri, DOC)
    await wait_publish(client, uri, lambda p: p.version == 1)
    h = await hover(client, uri, 7, 5)                        # knees
    assert "knee_left" in h.contents.value and "knee_right" in h.contents.value
    assert "flex 0–144°" in h.contents.value and "extend 0–5°" in h.contents.value
    assert rng(h.range) == (7, 4, 7, 9)
    h = await hover(client, uri, 6, 11)                       # flex
    assert "axis X" in h.contents.value and "bend" in h.contents.value
    h = await hover(client, uri, 7, 17)                       # 200, clamped
    assert "clamped to 144°" in h.contents.value and "knee_left" in h.contents.value
    assert rng(h.range) == (7, 16, 7, 19)
    h = await hover(client, uri, 8, 6)                        # reach
    assert "moves the limb" in h.contents.value and "§5" in h.contents.value
    h = await hover(client, uri, 9, 8)                        # ground-lock
    assert "already planted" in h.contents.value
    h = await hover(client, uri, 5, 10)                       # the step's name, after 👇
    assert "1.5 s" in h.contents.value and "settle" in h.contents.value
    assert "reach hand_left → box" in h.contents.value and "cm" in h.contents.value
    assert rng(h.range) == (5, 7, 5, 16)
    assert await hover(client, uri, 4, 0) is None             # a blank line
    close_doc(client, uri)


# -- code actions -------------------------------------------------------------------------------

async def test_did_you_mean_fix_applied_in_a_posecode_file(client):
    uri = "file:///features/fix.posecode"
    text = DOC.replace("knees: flex 200", "knees: flx 20").replace("drive", "drve")
    open_doc(client, uri, text)
    p = await wait_publish(client, uri, lambda p: p.version == 1)
    assert sorted(d.code for d in p.diagnostics) == ["unknown-action", "unknown-timing-mode"]
    acts = await actions(client, uri, 7, 12)
    assert [a.title for a in acts] == ["Replace `flx` with `flex`"]
    assert acts[0].kind == T.CodeActionKind.QuickFix and acts[0].is_preferred
    assert acts[0].diagnostics[0].code == "unknown-action"
    new = apply_edits(text, edits_of(acts[0], uri))
    assert new.split("\n")[7] == "    knees: flex 20"
    acts = await actions(client, uri, 12, 16)
    new = apply_edits(new, edits_of(acts[0], uri))
    since = len(client.published)
    change_full(client, uri, new, 2)
    p = await wait_publish(client, uri, lambda p: p.version == 2, since=since)
    assert not [d for d in p.diagnostics if d.severity == T.DiagnosticSeverity.Error]
    close_doc(client, uri)


async def test_fix_in_a_fence_and_reach_instead_of_ground_lock(site_client, site_dir):
    """A fence in a list item: the did-you-mean fix lands on the Markdown line; the ground-lock of
    a hand in the air becomes a reach for the floor."""
    page = site_dir / "content" / "fixes.md"
    body = ['posecode exercise "Lift"', '  rig humanoid', '  pose start = standing', '',
            '  step "Down" 1.5s settle:', '    hips: flex 20', '    ground-lock: feet, hand_left', '',
            '  step "Up" 1s setle:', '    hips: flex 0', '    ground-lock: feet']
    text = "# Fixes 💪\n\n- 👣 lift:\n\n  ```posecode\n" + "".join(f"  {b}\n" if b else "\n" for b in body) + "  ```\n"
    uri = uri_of(page)
    open_doc(site_client, uri, text)
    p = await wait_publish(site_client, uri, lambda p: p.version == 1)
    setle = next(d for d in p.diagnostics if d.code == "unknown-timing-mode")
    assert rng(setle.range) == (13, 17, 13, 22)
    acts = await actions(site_client, uri, 13, 18)
    assert [a.title for a in acts] == ["Replace `setle` with `settle`"]
    assert acts[0].edit.document_changes[0].text_document.version == 1
    text = apply_edits(text, edits_of(acts[0], uri))
    assert text.split("\n")[13] == '    step "Up" 1s settle:'
    since = len(site_client.published)
    change_full(site_client, uri, text, 2)
    p = await wait_publish(site_client, uri, lambda p: p.version == 2 and p.diagnostics, since=since)
    lifted = next(d for d in p.diagnostics if d.code == "kinematic-ground-lock-lifted")
    assert lifted.range.start.line == 11
    acts = await actions(site_client, uri, 11, 6)
    fix = next(a for a in acts if "reach: hand_left floor" in a.title)
    text = apply_edits(text, edits_of(fix, uri))
    assert text.split("\n")[11:13] == ["      ground-lock: feet", "      reach: hand_left floor"]
    since = len(site_client.published)
    change_full(site_client, uri, text, 3)
    last = await settle(site_client, uri, 3)
    assert last.version == 3
    assert "kinematic-ground-lock-lifted" not in [d.code for d in last.diagnostics]
    close_doc(site_client, uri)


async def test_solver_backed_fix_applied(client):
    """propose_fixes' proposal for a reach 23 cm short, offered on its diagnostic and applied:
    the reach then lands."""
    uri = "file:///features/step-up.posecode"
    open_doc(client, uri, STEP_UP)
    last = await settle(client, uri)
    short = next(d for d in last.diagnostics if d.code == "kinematic-reach-short")
    assert short.range.start.line == 9
    acts = await actions(client, uri, 9, 6)
    solver = [a for a in acts if a.diagnostics and a.diagnostics[0].code == "kinematic-reach-short"]
    assert solver, [a.title for a in acts]
    new = apply_edits(STEP_UP, edits_of(solver[0], uri))
    assert new != STEP_UP
    change_full(client, uri, new, 2)
    last = await settle(client, uri, 2)
    assert last.version == 2 and "kinematic-reach-short" not in [d.code for d in last.diagnostics]
    close_doc(client, uri)


# -- formatting, symbols, folding ----------------------------------------------------------------

UGLY = '''posecode exercise   "Ugly 💪"
    rig humanoid
    pose start =   standing
    step "Down"   1.5s settle:
          hips: flex   20
          ground-lock: feet
'''


async def test_formatting_is_fmt(client):
    from posecode_ssg.language.format import format_markdown, format_source

    uri = "file:///features/ugly.posecode"
    open_doc(client, uri, UGLY)
    opts = T.FormattingOptions(tab_size=2, insert_spaces=True)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(text_document=td(uri), options=opts))
    assert len(edits) == 1 and rng(edits[0].range) == (0, 0, 6, 0)
    assert apply_edits(UGLY, edits) == format_source(UGLY).text
    change_full(client, uri, format_source(UGLY).text, 2)
    assert not await client.text_document_formatting_async(T.DocumentFormattingParams(text_document=td(uri), options=opts))
    change_full(client, uri, UGLY.replace("settle", "setle"), 3)          # errors: left alone
    assert not await client.text_document_formatting_async(T.DocumentFormattingParams(text_document=td(uri), options=opts))
    close_doc(client, uri)
    md_uri = "file:///features/ugly.md"
    md = "# Ugly 💪\n\n```posecode\n" + UGLY + "```\n"
    open_doc(client, md_uri, md)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(text_document=td(md_uri), options=opts))
    assert apply_edits(md, edits) == format_markdown(md).text != md
    close_doc(client, md_uri)


async def test_document_symbols_and_folding(client):
    uri = "file:///features/outline.posecode"
    open_doc(client, uri, DOC)
    syms = await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=td(uri)))
    assert [(s.name, s.kind, s.detail) for s in syms] == [("Café squat 💪", T.SymbolKind.Module, "exercise")]
    assert [(c.name, c.detail, rng(c.range)) for c in syms[0].children] == [
        ("Down 👇", "1.5s settle", (5, 2, 10, 25)), ("Up", "1s drive", (12, 2, 15, 21))]
    assert rng(syms[0].selection_range) == (0, 18, 0, 33)
    folds = await client.text_document_folding_range_async(T.FoldingRangeParams(text_document=td(uri)))
    assert [(f.start_line, f.end_line) for f in folds] == [(5, 10), (12, 15)]
    close_doc(client, uri)
    md_uri = "file:///features/outline.md"
    open_doc(client, md_uri, "# Two 💪\n\n```posecode\n" + DOC + "```\n")
    folds = await client.text_document_folding_range_async(T.FoldingRangeParams(text_document=td(md_uri)))
    assert [(f.start_line, f.end_line) for f in folds] == [(2, 20), (8, 13), (15, 18)]
    close_doc(client, md_uri)


async def test_flat_symbols_for_a_client_without_hierarchy():
    from lsp_helpers import init_params, start_client, stop_client

    c = await start_client(init_params(["utf-16"], hierarchical=False))
    try:
        uri = "file:///features/flat.posecode"
        open_doc(c, uri, DOC)
        syms = await c.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=td(uri)))
        assert [(s.name, s.container_name, rng(s.location.range)) for s in syms] == [
            ("Café squat 💪", None, (0, 18, 0, 33)), ("Down 👇", "Café squat 💪", (5, 7, 5, 16)),
            ("Up", "Café squat 💪", (12, 7, 12, 11))]
    finally:
        await stop_client(c)


async def test_page_did_you_mean_fixes(site_client, site_dir):
    """Front-matter keys and values and fence attributes have their did-you-mean as quick fixes
    too (the page checks of a site)."""
    page = site_dir / "content" / "dym.md"
    text = ('---\ntitle: DYM\nlevl: beginner\nlevel: "Beginer"\n---\n\n# Intro 💪\n\n'
            '```posecode titel="x"\nposecode exercise "X"\n  rig humanoid\n  step "A" 1s flow:\n'
            '    knees: flex 10\n```\n')
    uri = uri_of(page)
    open_doc(site_client, uri, text)
    last = await settle(site_client, uri, 1)
    codes = sorted(d.code for d in last.diagnostics)
    assert codes == ["fence-attribute", "front-matter-unknown-key", "front-matter-value"]
    for line, col, title, fixed in [(2, 1, "Replace `levl` with `level`", "level: beginner"),
                                    (3, 10, "Replace `Beginer` with `beginner`", 'level: "beginner"'),
                                    (8, 13, "Replace `titel` with `title`", '```posecode title="x"')]:
        acts = await actions(site_client, uri, line, col)
        assert [a.title for a in acts] == [title]
        assert apply_edits(text, edits_of(acts[0], uri)).split("\n")[line] == fixed
    close_doc(site_client, uri)
