"""Property test: random and mutated documents never make parse() raise, and the invariants hold.

Invariants (contract of posecode_ssg.language.parse): no exception for any str; ``ir`` is None
exactly when errors exist; every diagnostic sits on a line of the document with a column inside
that line (or just past its end); warnings are rom-clamp records, hints are hints; the result is
JSON-serialisable and deterministic.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lang_shared import SHARED
from posecode_ssg.language import parse
from posecode_ssg.language import vocabulary as V
from posecode_ssg.language.lexer import split_lines

FALLBACK = [
    'posecode exercise "Squat"\n  rig humanoid\n  pose start = standing\n'
    '  step "Down" 1.5s settle:\n    hips: flex 70\n    knees: flex 80\n    ground-lock: feet\n'
    '  step "Up" 1s drive:\n    hips: flex 0\n    knees: flex 0\n    ground-lock: feet\n  repeat 3\n',
]


def _examples() -> list[str]:
    folder = SHARED / "conformance"
    docs = [p.read_bytes().decode("utf-8") for p in sorted(folder.glob("*/*.posecode"))]
    return docs or FALLBACK


EXAMPLES = _examples()
WORDS = sorted(set(V.JOINT_NAMES + V.ACTION_NAMES + V.START_POSES + V.PROPS + V.KINDS
                   + V.TIMING_MODES + tuple(V.TIMING_ALIASES) + V.GROUND_LOCK_NAMES
                   + V.ALL_ANCHORS + tuple(V.EFFECTOR_BONE) + tuple(V.EFFECTOR_GROUPS)
                   + ("posecode", "rig", "avatar", "prop", "pose", "start", "=", "clip", "repeat",
                      "step", "ground-lock:", "reach:", "pin:", "grip:", "turn:", "travel:",
                      "cue", "hold", "neutral", "floor", "1s", "-1s", "0s", "2", "-20", "999",
                      '"x"', '""', ":", ",", "#", "//")))
ODD = "\r\n\t \u2028\u2029\ufeff\u00a0\"'#/:=,.-_°é\x00\x0b\x0c\\"

odd_text = st.text(alphabet=st.sampled_from(list(ODD) + list("abcdefghijklmnopqrstuvwxyz0123456789")),
                   max_size=200)
word_soup = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(["\n", "\n  ", "\n    ", " "])),
                     max_size=60).map(" ".join)


@st.composite
def mutated(draw):
    lines = draw(st.sampled_from(EXAMPLES)).split("\n")
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "indent", "word",
                                   "truncate"]))
        if not lines:
            lines = [""]
        i = draw(st.integers(0, len(lines) - 1))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "insert":
            pos = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:pos] + draw(odd_text.filter(lambda s: len(s) < 6)) + lines[i][pos:]
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "   ", "    ", "\t", "      "])) \
                + lines[i].lstrip(" \t")
        elif op == "word":
            words = lines[i].split(" ")
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.sampled_from(WORDS))
            lines[i] = " ".join(words)
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
    sep = draw(st.sampled_from(["\n", "\r\n"]))
    return draw(st.sampled_from(["", "\ufeff"])) + sep.join(lines)


def check_invariants(source: str) -> None:
    result = parse(source)
    assert (result.ir is None) == bool(result.errors)
    lines = split_lines(source)
    for d in result.errors + result.warnings + result.hints:
        assert 1 <= d.line <= max(1, len(lines)), (d, len(lines))
        line_text = lines[d.line - 1] if lines else ""
        assert 1 <= d.column <= len(line_text) + 1, (d, line_text)
        assert d.message
    assert all(e.severity == "error" and e.code != "internal-error" for e in result.errors)
    assert all(w.severity == "warning" and w.code == "rom-clamp" for w in result.warnings)
    assert all(h.severity == "hint" for h in result.hints)
    encoded = json.dumps(result.to_dict())
    assert json.dumps(parse(source).to_dict()) == encoded


@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(mutated(), word_soup, odd_text))
def test_random_and_mutated_documents_keep_invariants(source):
    check_invariants(source)


def test_every_example_keeps_invariants_unmutated():
    for source in EXAMPLES:
        check_invariants(source)
