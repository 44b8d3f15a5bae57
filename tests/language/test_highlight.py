"""The Pygments lexer for Posecode (issue 23 item 3, issue 24's source listings): every
conformance example lexes without an Error token, the text comes back whole, and the words
of each kind get their token type."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, String

from posecode_ssg.language.highlight import PosecodeLexer
from tests.conftest import shared_path

EXAMPLES = sorted(Path(shared_path("conformance", "examples")).glob("*.posecode"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_lexes_without_an_error_token(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(PosecodeLexer().get_tokens(text))
    assert not [v for t, v in tokens if t in Error]
    assert "".join(v for _t, v in tokens) == text if text.endswith("\n") else text + "\n"


def test_each_kind_of_word_gets_its_token():
    text = ('posecode exercise "Squat"\n  rig humanoid\n  pose start = standing\n  # a comment\n'
            '  step "Down" 1.5s settle:\n    knees: flex 90\n    ground-lock: feet\n    reach: hand_left floor\n')
    kinds = {v: t for t, v in PosecodeLexer().get_tokens(text) if v.strip()}
    assert kinds["posecode"] in Keyword and kinds["step"] in Keyword and kinds["ground-lock"] in Keyword
    assert kinds["exercise"] in Keyword.Type and kinds["settle"] in Keyword.Type and kinds["standing"] in Keyword.Type
    assert kinds['"Squat"'] in String and kinds["# a comment"] in Comment
    assert kinds["knees"] in Name.Builtin and kinds["flex"] in Name.Function
    assert kinds["feet"] in Name.Constant and kinds["hand_left"] in Name.Constant and kinds["floor"] in Name.Constant
    assert kinds["1.5s"] in Number and kinds["90"] in Number


def test_pygments_finds_it_by_its_alias_when_installed():
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name("posecode")
    except ClassNotFound:
        pytest.skip("entry point not registered (an install that predates it: pip install -e .)")
    assert isinstance(lexer, PosecodeLexer)
