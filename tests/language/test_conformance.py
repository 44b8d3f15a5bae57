"""The whole ../shared/conformance corpus, compared by the rules of its README.

IR: recursive equality (same key sets, ordered lists, numbers within 1e-6). Errors: `ir` is null
exactly when errors are expected, and every expected (line, kind) pair is among the reported
(line, code) pairs, the expected kind taken from error-kinds.json by re.search on the message.
Warnings: multisets of (line, joint, action, phase, requested, clamped, limit.min, limit.max).
Hints never appear among warnings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lang_shared import SHARED, shared_path
from posecode_ssg.language import parse

CONF = SHARED / "conformance"


def _cases() -> list[Path]:
    if not CONF.exists():
        return []
    return sorted(CONF.glob("cases/*.posecode")) + sorted(CONF.glob("examples/*.posecode"))


def _kinds() -> list[tuple[str, re.Pattern]]:
    data = json.loads(shared_path("conformance", "error-kinds.json").read_text("utf-8"))
    return [(k["kind"], re.compile(k["pattern"])) for k in data["kinds"]]


def kind_of(message: str, kinds) -> str:
    found = [k for k, pat in kinds if pat.search(message)]
    assert len(found) == 1, (message, found)
    return found[0]


def assert_same(expected, got, path="ir"):
    if isinstance(expected, dict):
        assert isinstance(got, dict), path
        assert set(expected) == set(got), f"{path}: keys {sorted(expected)} != {sorted(got)}"
        for k in expected:
            assert_same(expected[k], got[k], f"{path}.{k}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(expected) == len(got), f"{path}: {expected} != {got}"
        for i, (e, g) in enumerate(zip(expected, got)):
            assert_same(e, g, f"{path}[{i}]")
    elif isinstance(expected, (int, float)) and not isinstance(expected, bool):
        assert isinstance(got, (int, float)) and abs(expected - got) <= 1e-6, f"{path}: {expected} != {got}"
    else:
        assert expected == got, f"{path}: {expected!r} != {got!r}"


def _warn_key(w):
    return (w["line"], w["joint"], w["action"], w["phase"], round(w["requested"], 6),
            round(w["clamped"], 6), round(w["limit"]["min"], 6), round(w["limit"]["max"], 6))


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_conformance_case(case: Path):
    kinds = _kinds()
    expected = json.loads(case.with_name(case.stem + ".expected.json").read_text("utf-8"))
    result = parse(case.read_bytes().decode("utf-8")).to_dict()

    if expected["errors"]:
        assert result["ir"] is None
        reported = {(e["line"], e["code"]) for e in result["errors"]}
        for e in expected["errors"]:
            pair = (e["line"], kind_of(e["message"], kinds))
            assert pair in reported, f"missing {pair}; reported {sorted(reported)}"
    else:
        assert result["errors"] == [], result["errors"]
        assert_same(expected["ir"], result["ir"])

    assert sorted(map(_warn_key, expected["warnings"])) == sorted(map(_warn_key, result["warnings"]))
    assert all(w["code"] == "rom-clamp" and w["severity"] == "warning" for w in result["warnings"])
    assert all(h["severity"] == "hint" for h in result["hints"])


def test_corpus_present_and_complete():
    cases = _cases()
    if not cases:
        pytest.skip("conformance corpus not found")
    assert len(cases) >= 100


def _cases_with_ir() -> list[Path]:
    return [c for c in _cases()
            if json.loads(c.with_name(c.stem + ".expected.json").read_text("utf-8"))["ir"]]


@pytest.mark.parametrize("case", _cases_with_ir(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_expected_ir_round_trips_through_dataclasses(case: Path):
    """IR.from_dict(expected).to_dict() gives the expected dict back (the motion compiler's tests
    feed conformance IR through IR.from_dict)."""
    from posecode_ssg.language.ir import IR

    expected = json.loads(case.with_name(case.stem + ".expected.json").read_text("utf-8"))["ir"]
    assert_same(expected, IR.from_dict(expected).to_dict())
