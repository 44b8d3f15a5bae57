"""TextMate grammars for Posecode v0.4, generated from :mod:`posecode_ssg.language.vocabulary`
(issue 26 item 4: the VS Code extension in ``editors/vscode/``).

Two grammars, written by ``python3 -m posecode_ssg.language.textmate editors/vscode/syntaxes/``
(a test checks the committed files equal this module's output, so the vocabulary stays the one
source):

- ``posecode.tmLanguage.json``, scope ``source.posecode``, for ``.posecode`` files;
- ``posecode.markdown.tmLanguage.json``, scope ``markdown.posecode.codeblock``, injected into
  ``text.html.markdown`` (``L:`` so it wins over Markdown's own fences): a fence whose info string
  starts with the word ``posecode`` (any case, attributes after it such as ``title="Squat"``, or
  pandoc braces ``{.posecode ...}``, as :func:`posecode_ssg.site.markdown.parse_info` reads it)
  has its body scoped ``meta.embedded.block.posecode source.posecode`` (the first is what the
  extension's ``embeddedLanguages`` maps to the ``posecode`` language: comments, indentation) up to
  the closing fence, in a list item or a block quote too.

Posecode is line-oriented (spec §1): a line's first word says what it is, so each statement is one
rule anchored at the start of the line (``^`` or ``\\G``: inside a Markdown list the list's
indentation is consumed first) that runs to the end of the line, and a word is scoped by the
closed vocabulary of its *position*. ``knee_left`` is a joint before ``:``, an effector after
``reach:`` and a target as ``reach``'s second word; ``bar`` is a prop after ``prop`` and an anchor
after ``grip: hands``. The grouping follows the Pygments lexer (:mod:`.highlight`):

=========================================  =====================================================
Pygments token (words)                     TextMate scope
=========================================  =====================================================
``Keyword`` (directives)                   ``keyword.control.posecode``
``Keyword.Type``: kinds, rigs              ``storage.type.kind`` / ``storage.type.rig``
``Keyword.Type``: avatars, start poses,    ``constant.language.avatar`` / ``.start-pose`` /
timing modes (legacy easings too)          ``.timing``
``Keyword.Type``: ``start``                ``keyword.other.start``
``Name.Builtin`` (joints)                  ``support.variable.joint``
``Name.Function`` (actions, ``hold``)      ``entity.name.function.action``
``Name.Constant``: effectors, ground-lock  ``constant.language.effector``
contacts; props; anchors, ``floor`` and    ``constant.language.prop``
body landmarks as targets; ``neutral``     ``constant.language.target`` / ``.neutral``
``Number`` (``90``, ``-10``, ``1.5s``)     ``constant.numeric`` (``.duration`` with the unit
                                           ``s`` also ``keyword.other.unit.seconds``)
``String``                                 ``string.quoted.double``
``Comment.Single`` (``#``, ``//``)         ``comment.line.number-sign`` / ``.double-slash``
``Punctuation`` ``:`` ``=`` ``,``          ``punctuation.separator.key-value`` (a step's or a
                                           pose block's ``:`` ``punctuation.section.block.begin``),
                                           ``keyword.operator.assignment``,
                                           ``punctuation.separator.comma``
=========================================  =====================================================

(every scope ends in ``.posecode``). Where the Pygments lexer, having no context, falls back to
``Name``, this grammar knows the position's closed vocabulary: a word outside it (an unknown joint,
a did-you-mean synonym such as ``bend``, a keyword in the wrong case) is
``invalid.illegal.unknown.posecode``, the colour of the parser's "unknown ..." error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterable

from posecode_ssg.language import vocabulary as V
from posecode_ssg.language.lexer import KEYWORDS

SCOPE = "source.posecode"
INJECTION_SCOPE = "markdown.posecode.codeblock"
#: the Markdown grammar the injection goes into (VS Code's built-in ``markdown-basics``)
MARKDOWN_SCOPE = "text.html.markdown"
EMBEDDED_SCOPE = "meta.embedded.block.posecode"
#: file names under ``editors/vscode/syntaxes/``
GRAMMAR_FILE = "posecode.tmLanguage.json"
INJECTION_FILE = "posecode.markdown.tmLanguage.json"

#: a Posecode word (the lark grammar's WORD) and a number (NUMBER / DURATION)
WORD = r"[A-Za-z_][A-Za-z0-9_\-]*"
NUMBER = r"-?\d+(?:\.\d+)?"
#: word boundaries that treat ``-`` and ``_`` as part of a word (``ground-lock``, ``hand_left``)
_BEFORE, _AFTER = r"(?<![A-Za-z0-9_\-])", r"(?![A-Za-z0-9_\-])"
#: the start of a statement: the line's start, or where a Markdown container's prefix ended
_LINE = r"(?:^|\G)([ \t]*)"

#: scope -> the vocabulary words given it, in every position that takes that scope
KIND = "storage.type.kind.posecode"
RIG = "storage.type.rig.posecode"
AVATAR = "constant.language.avatar.posecode"
PROP = "constant.language.prop.posecode"
START_POSE = "constant.language.start-pose.posecode"
TIMING = "constant.language.timing.posecode"
JOINT = "support.variable.joint.posecode"
ACTION = "entity.name.function.action.posecode"
NEUTRAL = "constant.language.neutral.posecode"
EFFECTOR = "constant.language.effector.posecode"
TARGET = "constant.language.target.posecode"
KEYWORD = "keyword.control.posecode"
START = "keyword.other.start.posecode"
NUMERIC = "constant.numeric.posecode"
DURATION = "constant.numeric.duration.posecode"
UNIT = "keyword.other.unit.seconds.posecode"
STRING = "string.quoted.double.posecode"
COMMENT_HASH = "comment.line.number-sign.posecode"
COMMENT_SLASHES = "comment.line.double-slash.posecode"
COLON = "punctuation.separator.key-value.posecode"
BLOCK_COLON = "punctuation.section.block.begin.posecode"
ASSIGN = "keyword.operator.assignment.posecode"
COMMA = "punctuation.separator.comma.posecode"
UNKNOWN = "invalid.illegal.unknown.posecode"

#: ``reach`` effectors and targets (spec §1, §6): any single or grouped effector; floor, a prop
#: anchor or a body landmark
EFFECTORS: tuple[str, ...] = tuple(dict.fromkeys((*V.EFFECTOR_BONE, *V.EFFECTOR_GROUPS)))
REACH_TARGETS: tuple[str, ...] = (V.FLOOR, *V.ALL_ANCHORS, *V.REACH_LANDMARKS)
#: ``pin`` targets: fixed world anchors only
PIN_TARGETS: tuple[str, ...] = (V.FLOOR, *V.ALL_ANCHORS)
#: ``grip`` anchors: those of the bar-like props
GRIP_TARGETS: tuple[str, ...] = tuple(a for p in V.GRIP_PROPS for a in V.PROP_ANCHORS[p])
#: single-word ground-lock contacts; the two-word readable forms (``left foot``) are matched apart
GROUND_LOCK_WORDS: tuple[str, ...] = tuple(n for n in V.GROUND_LOCK_NAMES if " " not in n)
GROUND_LOCK_PHRASES: tuple[str, ...] = tuple(V.GROUND_LOCK_READABLE)
TIMING_WORDS: tuple[str, ...] = (*V.TIMING_MODES, *V.TIMING_ALIASES)


def words_pattern(items: Iterable[str]) -> str:
    """A regular expression (Oniguruma) matching any of ``items`` as a whole Posecode word, longest
    first; a space inside an item (``left foot``) matches any run of spaces and tabs."""
    unique = sorted(set(items), key=lambda w: (-len(w), w))
    for w in unique:
        if not all(c.isalnum() or c in "_- " for c in w):
            raise ValueError(f"not a Posecode word: {w!r}")
    alternatives = "|".join(w.replace(" ", r"[ \t]+") for w in unique)
    return f"{_BEFORE}(?:{alternatives}){_AFTER}"


def _word_rule(items: Iterable[str], scope: str) -> dict:
    return {"match": words_pattern(items), "name": scope}


def _slot(items: Iterable[str], scope: str) -> dict:
    """A capture holding one word of a closed vocabulary: its scope when it belongs, else invalid."""
    return {"patterns": [_word_rule(items, scope), {"include": "#unknown-word"}]}


def _statement(key: str, head: str, tail: str, captures: dict, rest: list[str]) -> dict:
    """One statement: ``head`` (a regex with its own groups from 2 on) at the start of a line
    followed by ``tail``; the line's remainder is read with the ``rest`` repository rules."""
    return {
        "name": f"meta.statement.{key}.posecode",
        "begin": _LINE + head + tail,
        "beginCaptures": captures,
        "end": "$",
        "patterns": [{"include": "#comment"}] + [{"include": f"#{r}"} for r in rest]
        + [{"include": "#leftover"}],
    }


def _keyword(word: str) -> str:
    return f"({word}){_AFTER}"


def grammar() -> dict:
    """The TextMate grammar of ``.posecode`` files (scope ``source.posecode``) as a JSON-ready
    dict: one rule per statement kind, its words scoped by the vocabulary of their position."""
    kw = {"2": {"name": KEYWORD}}
    colon = r"[ \t]*(:)?"
    word = f"(?:[ \\t]*({WORD}))?"
    word_after_space = f"(?:[ \\t]+({WORD}))?"
    statements = {
        "header": _statement("header", _keyword("posecode"), "", kw, ["string", "kind"]),
        "rig": _statement("rig", _keyword("rig"), "", kw, ["rig-name"]),
        "avatar": _statement("avatar", _keyword("avatar"), "", kw, ["avatar-name"]),
        "prop": _statement("prop", _keyword("prop"), "", kw, ["prop-name"]),
        "pose": _statement(
            "pose", _keyword("pose"), f"(?:[ \\t]+(start){_AFTER})?",
            {**kw, "3": {"name": START}}, ["assignment", "start-pose", "block-colon"]),
        "clip": _statement("clip", _keyword("clip"), "", kw, ["string"]),
        "repeat": _statement("repeat", _keyword("repeat"), "", kw, ["number"]),
        "step": _statement("step", _keyword("step"), "", kw,
                           ["string", "duration", "number", "timing", "block-colon"]),
        "ground-lock": _statement("ground-lock", _keyword("ground-lock"), colon,
                                  {**kw, "3": {"name": COLON}}, ["contact", "comma"]),
        "reach": _statement("reach", _keyword("reach"), colon + word + word_after_space,
                            {**kw, "3": {"name": COLON}, "4": _slot(EFFECTORS, EFFECTOR),
                             "5": _slot(REACH_TARGETS, TARGET)}, []),
        "pin": _statement("pin", _keyword("pin"), colon + word + word_after_space,
                          {**kw, "3": {"name": COLON}, "4": _slot(EFFECTORS, EFFECTOR),
                           "5": _slot(PIN_TARGETS, TARGET)}, []),
        "grip": _statement("grip", _keyword("grip"), colon + word + word_after_space,
                           {**kw, "3": {"name": COLON}, "4": _slot(V.GRIP_EFFECTORS, EFFECTOR),
                            "5": _slot(GRIP_TARGETS, TARGET)}, []),
        "turn": _statement("turn", _keyword("turn"), colon, {**kw, "3": {"name": COLON}}, ["number"]),
        "travel": _statement("travel", _keyword("travel"), colon, {**kw, "3": {"name": COLON}},
                             ["number"]),
        "cue": _statement("cue", _keyword("cue"), "", kw, ["string"]),
        # `<joint>: <action> [degrees]` and `<joint>: hold neutral`, after every directive (a
        # directive followed by `:` is that directive, not a joint)
        "joint-target": _statement(
            "joint-target", f"({WORD})[ \\t]*(:)", word,
            {"2": _slot(V.JOINT_NAMES, JOINT), "3": {"name": COLON},
             "4": _slot(V.ACTION_NAMES, ACTION)}, ["neutral", "number"]),
    }
    # every directive of the lexer has its rule (a new directive must get one here)
    missing = set(KEYWORDS) - set(statements) - {"posecode"}
    if missing:  # pragma: no cover - guards the vocabulary / lexer staying in step
        raise RuntimeError(f"no TextMate rule for directive(s) {sorted(missing)}")

    repository: dict[str, dict] = {
        "comment": {"patterns": [
            {"match": r"(#).*$", "name": COMMENT_HASH,
             "captures": {"1": {"name": "punctuation.definition.comment.posecode"}}},
            {"match": r"(//).*$", "name": COMMENT_SLASHES,
             "captures": {"1": {"name": "punctuation.definition.comment.posecode"}}},
        ]},
        "string": {
            "name": STRING, "begin": '"', "end": '(")|$',
            "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.posecode"}},
            "endCaptures": {"1": {"name": "punctuation.definition.string.end.posecode"}},
        },
        "duration": {"match": f"(?<![A-Za-z0-9_.])({NUMBER})(s)(?![A-Za-z0-9_])", "name": DURATION,
                     "captures": {"2": {"name": UNIT}}},
        "number": {"match": f"(?<![A-Za-z0-9_.])({NUMBER})(?![A-Za-z0-9_.])", "name": NUMERIC},
        "kind": _word_rule(V.KINDS, KIND),
        "rig-name": _word_rule(V.RIGS, RIG),
        "avatar-name": _word_rule(V.AVATARS, AVATAR),
        "prop-name": _word_rule(V.PROPS, PROP),
        "start-pose": _word_rule(V.START_POSES, START_POSE),
        "timing": _word_rule(TIMING_WORDS, TIMING),
        "contact": {"patterns": [_word_rule(GROUND_LOCK_PHRASES, EFFECTOR),
                                 _word_rule(GROUND_LOCK_WORDS, EFFECTOR)]},
        "neutral": _word_rule((V.HOLD_ARGUMENT,), NEUTRAL),
        "assignment": {"match": "=", "name": ASSIGN},
        "block-colon": {"match": ":", "name": BLOCK_COLON},
        "comma": {"match": ",", "name": COMMA},
        "unknown-word": {"match": WORD, "name": UNKNOWN},
        # what a statement's rules leave: still a string, a number or a word, but out of place
        "leftover": {"patterns": [{"include": "#string"}, {"include": "#duration"},
                                  {"include": "#number"}, {"include": "#unknown-word"}]},
        **statements,
    }
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "information_for_contributors": [
            "Generated by `python3 -m posecode_ssg.language.textmate editors/vscode/syntaxes/` from "
            "posecode_ssg/language/vocabulary.py: edit those, not this file."
        ],
        "name": "Posecode",
        "scopeName": SCOPE,
        "fileTypes": ["posecode"],
        "patterns": [{"include": "#comment"}] + [{"include": f"#{k}"} for k in statements]
        + [{"include": "#leftover"}],
        "repository": repository,
    }


def markdown_injection() -> dict:
    """The grammar injected into Markdown (``injectionSelector`` ``L:text.html.markdown``) that
    scopes the body of a ```` ```posecode ```` / ``~~~posecode`` fence as ``source.posecode``.

    The opening fence is up to three spaces (more inside a list item) then three or more backticks
    or tildes; the info string's first word is ``posecode`` in any case, optionally followed by
    attributes, or ``{.posecode ...}``; the closing fence is the same run of fence characters.
    The rules have the shape of VS Code's own Markdown fences (``(^|\\G)`` so they work inside
    list items and block quotes, a ``while`` rule for the body)."""
    info = (r"(?i:(posecode)((?:[ \t]+[^`~]*)?)"
            r"|\{[ \t]*((?:#[^\s}]+[ \t]+)*)(\.posecode)((?:[ \t]+[^`~}]*)?)\})")
    return {
        "information_for_contributors": [
            "Generated by `python3 -m posecode_ssg.language.textmate editors/vscode/syntaxes/`."
        ],
        "fileTypes": [],
        "injectionSelector": f"L:{MARKDOWN_SCOPE}",
        "scopeName": INJECTION_SCOPE,
        "patterns": [{"include": "#posecode-code-block"}],
        "repository": {
            "posecode-code-block": {
                "name": "markup.fenced_code.block.markdown",
                "begin": r"(^|\G)(\s*)(`{3,}|~{3,})[ \t]*" + info + r"[ \t]*$",
                "beginCaptures": {
                    "3": {"name": "punctuation.definition.markdown"},
                    "4": {"name": "fenced_code.block.language.markdown"},
                    "5": {"name": "fenced_code.block.language.attributes.markdown"},
                    "6": {"name": "fenced_code.block.language.attributes.markdown"},
                    "7": {"name": "fenced_code.block.language.markdown"},
                    "8": {"name": "fenced_code.block.language.attributes.markdown"},
                },
                "end": r"(^|\G)(\2|\s{0,3})(\3)\s*$",
                "endCaptures": {"3": {"name": "punctuation.definition.markdown"}},
                "patterns": [{
                    "begin": r"(^|\G)(\s*)(.*)",
                    "while": r"(^|\G)(?!\s*([`~]{3,})\s*$)",
                    "contentName": f"{EMBEDDED_SCOPE} {SCOPE}",
                    "patterns": [{"include": SCOPE}],
                }],
            },
        },
    }


def dumps(data: dict, width: int = 100) -> str:
    """The JSON text a grammar is committed as: two-space indent, an object or array that fits in
    ``width`` columns kept on one line, a final newline."""

    def fmt(value, indent: int) -> str:
        flat = json.dumps(value, ensure_ascii=False)
        if not isinstance(value, (dict, list)) or not value or indent + len(flat) <= width:
            return flat
        pad = " " * (indent + 2)
        if isinstance(value, dict):
            items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {fmt(v, indent + 2)}"
                     for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
        items = [pad + fmt(v, indent + 2) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"

    return fmt(data, 0) + "\n"


def outputs() -> dict[str, str]:
    """File name -> text of every generated file."""
    return {GRAMMAR_FILE: dumps(grammar()), INJECTION_FILE: dumps(markdown_injection())}


def write(directory: str | Path) -> list[Path]:
    """Write both grammars into ``directory`` (created if needed); returns the paths written."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in outputs().items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    """``python3 -m posecode_ssg.language.textmate DIR``: write the grammars into DIR."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python3 -m posecode_ssg.language.textmate DIR  (e.g. editors/vscode/syntaxes/)",
              file=sys.stderr)
        return 2
    for path in write(args[0]):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
