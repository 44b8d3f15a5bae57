"""A Pygments lexer for Posecode v0.4 (alias ``posecode``, files ``*.posecode``), its words
taken from :mod:`posecode_ssg.language.vocabulary` and the directive list of
:mod:`posecode_ssg.language.lexer`, so it colours what the parser reads.

Registered under the entry point group ``pygments.lexers`` (pyproject.toml), so MkDocs, Sphinx
and anything else using Pygments highlight ```` ```posecode ```` code blocks; the site's own
pages use it for a ``.posecode`` page's source listing and for code blocks in that language.

Token kinds: comments (``#``, ``//``) ``Comment.Single``; strings (names, cues) ``String``;
directives (``posecode``, ``step``, ``ground-lock``…) ``Keyword``; kinds, rigs, avatars, start
poses and timing modes ``Keyword.Type``; joints ``Name.Builtin``; actions ``Name.Function``;
effectors, props, anchors and ``floor`` ``Name.Constant``; numbers with their unit (``1.5s``)
``Number``; ``:`` ``=`` ``,`` ``Punctuation``; any other word ``Name``. A valid document
lexes without an ``Error`` token (tested on every conformance example).
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, words
from pygments.token import Comment, Keyword, Name, Number, Punctuation, String, Text, Whitespace

from posecode_ssg.language import vocabulary as V
from posecode_ssg.language.lexer import KEYWORDS

#: a word boundary that treats ``-`` and ``_`` as part of a word (``ground-lock``, ``hand_left``)
_BEFORE, _AFTER = r"(?<![\w-])", r"(?![\w-])"


def _words(items) -> str:
    """A pattern matching any of ``items`` as a whole word, longest first."""
    return words(sorted(set(items), key=len, reverse=True), prefix=_BEFORE, suffix=_AFTER)


class PosecodeLexer(RegexLexer):
    """Posecode v0.4 (../shared/seeds/000: §1 grammar, §2–§6 vocabulary)."""

    name = "Posecode"
    aliases = ["posecode"]
    filenames = ["*.posecode"]
    mimetypes = ["text/x-posecode"]
    url = "https://github.com/posecode"
    flags = re.MULTILINE

    tokens = {
        "root": [
            (r"[ \t]+", Whitespace),
            (r"\n", Whitespace),
            (r"(#|//).*?$", Comment.Single),
            (r'"[^"\n]*"?', String),
            (_words(KEYWORDS), Keyword),
            (_words((*V.KINDS, *V.RIGS, *V.AVATARS, *V.START_POSES, *V.TIMING_MODES, *V.TIMING_ALIASES,
                     "start")), Keyword.Type),
            (_words((*V.JOINT_NAMES, *V.BONES)), Name.Builtin),
            (_words((*V.ACTION_NAMES, *V.ACTION_SYNONYMS)), Name.Function),
            (_words((*V.EFFECTOR_BONE, *V.EFFECTOR_GROUPS, *V.GROUND_LOCK_NAMES, *V.PROPS,
                     *V.ALL_ANCHORS, V.FLOOR, *V.SIDES)), Name.Constant),
            (r"-?\d+(\.\d+)?(ms|s|deg|°)?(?![\w])", Number),
            (r"[:=,]", Punctuation),
            (r"[A-Za-z_][\w-]*", Name),
            (r".", Text),
        ],
    }
