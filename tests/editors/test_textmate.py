"""The TextMate grammars of the VS Code extension (issue 26 item 4): the committed files are the
generator's output, and vscode-textmate + vscode-oniguruma (VS Code's engine, via
tests/editors/tokenize.mjs) give every word of every conformance example, of a document using
each vocabulary word and of a Markdown page's Posecode fences the scope its position calls for.

What each word *should* be comes from the parser, not from the grammar: the statement lexer
(:func:`posecode_ssg.language.lexer.read_statements`) says which rule a line is and which token is
the joint, the action, the effector..., and :mod:`posecode_ssg.language.vocabulary` says whether
the word belongs there (its scope) or not (``invalid.illegal``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import posecode_ssg.language.vocabulary as V
from posecode_ssg.language import textmate
from posecode_ssg.language.context import Context
from posecode_ssg.language.lexer import KEYWORDS, read_statements, split_lines
from tests.conftest import shared_path

from .support import (MARKDOWN, POSECODE, SYNTAXES, TRICKY_DOCUMENT, markdown_page,
                      vocabulary_document)

# -- the oracle: what the parser reads at each place of a line --------------------------------

EFFECTORS = (*V.EFFECTOR_BONE, *V.EFFECTOR_GROUPS)
#: role -> (the words it accepts, the scope prefix they get)
ROLES = {
    "kind": (V.KINDS, "storage.type.kind.posecode"),
    "rig": (V.RIGS, "storage.type.rig.posecode"),
    "avatar": (V.AVATARS, "constant.language.avatar.posecode"),
    "prop": (V.PROPS, "constant.language.prop.posecode"),
    "start-pose": (V.START_POSES, "constant.language.start-pose.posecode"),
    "timing": ((*V.TIMING_MODES, *V.TIMING_ALIASES), "constant.language.timing.posecode"),
    "joint": (V.JOINT_NAMES, "support.variable.joint.posecode"),
    "action": (V.ACTION_NAMES, "entity.name.function.action.posecode"),
    "neutral": ((V.HOLD_ARGUMENT,), "constant.language.neutral.posecode"),
    "effector": (EFFECTORS, "constant.language.effector.posecode"),
    "grip-effector": (V.GRIP_EFFECTORS, "constant.language.effector.posecode"),
    "reach-target": ((V.FLOOR, *V.ALL_ANCHORS, *V.REACH_LANDMARKS), "constant.language.target.posecode"),
    "pin-target": ((V.FLOOR, *V.ALL_ANCHORS), "constant.language.target.posecode"),
    "grip-target": (tuple(a for p in V.GRIP_PROPS for a in V.PROP_ANCHORS[p]),
                    "constant.language.target.posecode"),
    "contact": (V.GROUND_LOCK_NAMES, "constant.language.effector.posecode"),
}
#: rule -> the roles of its WORD tokens, in order
WORD_ROLES = {
    "header": ["kind"], "rig": ["rig"], "avatar": ["avatar"], "prop": ["prop"],
    "pose": ["start-pose"], "step": ["timing"], "joint_target": ["joint", "action"],
    "hold_target": ["joint", "neutral"], "reach": ["effector", "reach-target"],
    "pin": ["effector", "pin-target"], "grip": ["grip-effector", "grip-target"],
}
OTHER_TOKENS = {"STRING": "string.quoted.double.posecode", "NUMBER": "constant.numeric.posecode",
                "DURATION": "constant.numeric.duration.posecode",
                "COMMA": "punctuation.separator.comma.posecode"}
UNKNOWN = "invalid.illegal.unknown.posecode"
#: rule -> the grammar's statement name, where they differ
STATEMENT_NAMES = {"joint_target": "joint-target", "hold_target": "joint-target", "ground_lock": "ground-lock"}


def comment_start(line: str) -> tuple[int, str] | None:
    """Column and kind (``#`` or ``//``) of the comment of a line, outside strings, or None."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_string = not in_string
        elif not in_string and (ch == "#" or line.startswith("//", i)):
            return i, "#" if ch == "#" else "//"
    return None


def expectations(text: str) -> list[tuple[int, int, int, str, str]]:
    """``(line index, start, end, scope prefix, what)`` for each place the parser gives a meaning
    to; ``what`` is ``"role:word"`` for vocabulary words."""
    lines = split_lines(text)
    out = []
    for st in read_statements(Context(lines)):
        if st.rule is None:
            continue
        i, raw = st.line - 1, lines[st.line - 1]
        if st.head in KEYWORDS:
            out.append((i, st.col - 1, st.col - 1 + len(st.head), "keyword.control.posecode", "keyword:" + st.head))
        words = [t for t in st.tokens if t.type == "WORD"]
        roles = WORD_ROLES.get(st.rule, ["contact"] * len(words))
        for k, tok in enumerate(words):
            role = roles[k]
            accepted, scope = ROLES[role]
            word = str(tok)
            if role == "contact" and word in V.SIDES and k + 1 < len(words):
                word = f"{word} {words[k + 1]}"          # a readable form: `left foot`
            elif role == "contact" and k > 0 and str(words[k - 1]) in V.SIDES:
                word = f"{words[k - 1]} {word}"
            out.append((i, tok.column - 1, tok.end_column - 1, scope if word in accepted else UNKNOWN,
                        f"{role}:{word}"))
        for tok in st.tokens:
            if tok.type in OTHER_TOKENS:
                out.append((i, tok.column - 1, tok.end_column - 1, OTHER_TOKENS[tok.type], tok.type))
            elif tok.type == "COLON":   # only `pose start = X:` keeps its colon as a token
                out.append((i, tok.column - 1, tok.end_column - 1, "punctuation.section.block.begin.posecode", ":"))
        if st.rule == "pose":
            for m in re.finditer(r"\bstart\b|=", raw.split("#")[0]):
                scope = "keyword.other.start.posecode" if m.group() == "start" else "keyword.operator.assignment.posecode"
                out.append((i, m.start(), m.end(), scope, m.group()))
        if st.rule == "hold_target":
            m = re.search(r":\s*(hold)\b", raw)
            out.append((i, m.start(1), m.end(1), ROLES["action"][1], "action:hold"))
        statement = STATEMENT_NAMES.get(st.rule, st.rule)
        out.append((i, st.col - 1, st.col, f"meta.statement.{statement}.posecode", "statement"))
    for i, raw in enumerate(lines):
        found = comment_start(raw)
        if found:
            col, kind = found
            scope = "comment.line.number-sign.posecode" if kind == "#" else "comment.line.double-slash.posecode"
            out.append((i, col, len(raw), scope, "comment"))
    return out


def check(tokens, text: str) -> set[str]:
    """Assert every expectation of ``text`` on its tokens; returns the ``what`` s checked."""
    seen, problems = set(), []
    for i, start, end, prefix, what in expectations(text):
        covering = [t for t in tokens[i] if t[0] < end and t[1] > start]
        covered = {c for s, e, _ in covering for c in range(max(s, start), min(e, end))}
        line = split_lines(text)[i]
        if covered != set(range(start, end)):
            problems.append(f"line {i + 1} {line!r}: {what} [{start}:{end}] not covered by tokens")
        for s, e, scopes in covering:
            if not any(sc.startswith(prefix) for sc in scopes):
                problems.append(f"line {i + 1} {line!r}: {what} {line[s:e]!r} has {scopes[1:]}, expected {prefix}")
        seen.add(what)
    assert not problems, "\n".join(problems[:20])
    return seen


def unscoped(tokens, text: str) -> list[str]:
    """Non-space text whose only scopes are the document's root and statement wrappers."""
    out = []
    for i, line in enumerate(split_lines(text)):
        for s, e, scopes in tokens[i]:
            bare = [sc for sc in scopes[1:] if not sc.startswith(("meta.statement.", "meta.embedded.",
                                                                  "markup.fenced_code.", "markup.list."))]
            if line[s:e].strip() and not bare:
                out.append(f"line {i + 1}: {line[s:e]!r} in {line!r}")
    return out


# -- fixtures ---------------------------------------------------------------------------------

EXAMPLES = sorted(Path(shared_path("conformance", "examples")).glob("*.posecode"))
#: the conformance cases: invalid documents among them, read as the parser reads them
CASES = sorted(Path(shared_path("conformance", "cases")).glob("*.posecode"))


@pytest.fixture(scope="module")
def tokenized(tokenize):
    """name -> (text, tokens) for every document of these tests, tokenized in one node run."""
    docs = {p.stem: (POSECODE, p.read_text(encoding="utf-8")) for p in EXAMPLES}
    # VS Code drops a byte order mark when it reads a file, as the parser does
    docs |= {f"case:{p.stem}": (POSECODE, p.read_text(encoding="utf-8").removeprefix("\ufeff")) for p in CASES}
    docs["<vocabulary>"] = (POSECODE, vocabulary_document())
    docs["<tricky>"] = (POSECODE, TRICKY_DOCUMENT)
    page, fences = markdown_page()
    docs["<page>"] = (MARKDOWN, page)
    for k, fence in enumerate(fences):
        docs[f"<fence {k}>"] = (POSECODE, "\n".join(fence["body"]))
    results = tokenize(list(docs.values()))
    return {name: (doc[1], toks) for (name, doc), toks in zip(docs.items(), results)} | {"<fences>": fences}


# -- the committed files ----------------------------------------------------------------------

def test_committed_grammars_are_the_generated_output():
    for name, text in textmate.outputs().items():
        path = SYNTAXES / name
        assert path.is_file(), f"{path} missing: python3 -m posecode_ssg.language.textmate {SYNTAXES}"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python3 -m posecode_ssg.language.textmate editors/vscode/syntaxes/")


def test_the_command_writes_both_grammars(tmp_path, capsys):
    assert textmate.main([str(tmp_path / "out")]) == 0
    for name, text in textmate.outputs().items():
        assert (tmp_path / "out" / name).read_text(encoding="utf-8") == text
    assert textmate.main([]) == 2


def test_grammar_names_and_words_come_from_the_vocabulary():
    g, inj = textmate.grammar(), textmate.markdown_injection()
    assert g["scopeName"] == "source.posecode" and inj["scopeName"] == "markdown.posecode.codeblock"
    assert inj["injectionSelector"] == "L:text.html.markdown"
    text = textmate.dumps(g)
    for word in (*V.JOINT_NAMES, *V.ACTION_NAMES, *EFFECTORS, *V.PROPS, *V.START_POSES, *V.KINDS,
                 *V.TIMING_MODES, *V.TIMING_ALIASES, *V.AVATARS, *V.ALL_ANCHORS, *KEYWORDS):
        assert re.search(rf"[(|:]{re.escape(word)}[)|]", text), word
    with pytest.raises(ValueError):
        textmate.words_pattern(["a|b"])


# -- tokenized --------------------------------------------------------------------------------

@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_is_scoped_as_the_parser_reads_it(tokenized, path):
    text, tokens = tokenized[path.stem]
    assert len(tokens) == len(split_lines(text))
    seen = check(tokens, text)
    assert any(w.startswith("keyword:") for w in seen) and any(w.startswith("joint:") for w in seen)
    assert not unscoped(tokens, text), unscoped(tokens, text)
    invalid = [(i + 1, s) for i, line in enumerate(tokens) for s, _e, sc in line if any("invalid" in x for x in sc)]
    assert not invalid, f"a valid example has invalid tokens at {invalid}"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_conformance_cases_are_scoped_as_the_parser_reads_them(tokenized, path):
    """Unknown words, misplaced words, odd spacing: where a line parses, the grammar agrees."""
    text, tokens = tokenized[f"case:{path.stem}"]
    check(tokens, text)


def test_every_vocabulary_word_gets_its_scope_in_its_place(tokenized):
    text, tokens = tokenized["<vocabulary>"]
    seen = check(tokens, text)
    for role, (accepted, _scope) in ROLES.items():
        missing = {w for w in accepted if f"{role}:{w}" not in seen}
        assert not missing, f"{role}: never checked {sorted(missing)}"
    assert {"STRING", "NUMBER", "DURATION", "COMMA", "comment", "start", "=", ":"} <= seen
    assert {f"keyword:{k}" for k in KEYWORDS} <= seen
    assert not unscoped(tokens, text), unscoped(tokens, text)


def test_words_out_of_place_and_comments(tokenized):
    """Unknown words are invalid where the parser says so, a word is scoped by its position, and
    ``#`` / ``//`` start a comment anywhere but inside a string."""
    text, tokens = tokenized["<tricky>"]
    seen = check(tokens, text)
    assert {"joint:kneez", "action:bend", "reach-target:moon", "prop:trampoline", "timing:ease"} <= seen
    lines = split_lines(text)
    scopes = {(lines[i][s:e], i): sc for i, line in enumerate(tokens) for s, e, sc in line}
    knee_line = next(i for i, line in enumerate(lines) if "reach: knee_left knee_right" in line)
    assert "constant.language.effector.posecode" in scopes[("knee_left", knee_line)]
    assert "constant.language.target.posecode" in scopes[("knee_right", knee_line)]
    bar_lines = [i for i, line in enumerate(lines) if line.strip() in ("prop bar", "grip: hands bar")]
    assert [scopes[("bar", i)][-1] for i in bar_lines] == ["constant.language.prop.posecode",
                                                           "constant.language.target.posecode"]
    cue = next(i for i, line in enumerate(lines) if line.strip().startswith('cue "# not'))
    assert not any("comment" in x for x in scopes[("# not a comment", cue)])


def test_markdown_fences_embed_posecode_and_stop_at_the_closing_fence(tokenized):
    text, tokens = tokenized["<page>"]
    lines = split_lines(text)
    fences = tokenized["<fences>"]
    posecode_lines = set()
    for k, fence in enumerate(fences):
        opening, closing = fence["open"], fence["close"]
        body = range(opening + 1, closing)
        if not fence["posecode"]:
            for i in range(opening, closing + 1):
                assert not any(sc.endswith(".posecode") for _s, _e, scs in tokens[i] for sc in scs), lines[i]
            continue
        posecode_lines.update(body)
        open_scopes = {sc for _s, _e, scs in tokens[opening] for sc in scs}
        assert "fenced_code.block.language.markdown" in open_scopes, lines[opening]
        assert "meta.embedded.block.posecode" not in open_scopes
        _alone, alone_tokens = tokenized[f"<fence {k}>"]
        for n, i in enumerate(body):
            after_prefix = len(fence["prefix"].rstrip())    # a block quote's `>` is Markdown
            words = [(lines[i][s:e], scs) for s, e, scs in tokens[i] if lines[i][s:e].strip() and s >= after_prefix]
            for word, scs in words:
                assert {"meta.embedded.block.posecode", "source.posecode"} <= set(scs), (lines[i], scs)
            body_line = fence["body"][n]
            alone = [(body_line[s:e], [sc for sc in scs if sc.endswith(".posecode")])
                     for s, e, scs in alone_tokens[n] if body_line[s:e].strip()]
            embedded = [(w, [sc for sc in scs if sc.endswith(".posecode") and not sc.startswith("meta.embedded")])
                        for w, scs in words]
            assert embedded == alone, f"fence {k} line {lines[i]!r}"
        close_scopes = {sc for _s, _e, scs in tokens[closing] for sc in scs}
        assert "punctuation.definition.markdown" in close_scopes, lines[closing]
        assert not any(sc.endswith(".posecode") for sc in close_scopes), lines[closing]
    assert len(posecode_lines) > 20
    for i, line in enumerate(lines):   # after and between fences: Markdown, never Posecode
        if i not in posecode_lines:
            assert not any(sc.endswith(".posecode") for _s, _e, scs in tokens[i] for sc in scs), line
    embedded = {i for i, line in enumerate(tokens) if any("meta.embedded.block.posecode" in scs for _s, _e, scs in line)}
    assert embedded <= posecode_lines and {f["open"] + 1 for f in fences if f["posecode"]} <= embedded
