"""docs/i18n.md lists every key of the English catalogue (posecode_ssg/i18n/reference.py)."""

from __future__ import annotations

from pathlib import Path

from posecode_ssg.i18n.reference import key_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "i18n.md"


def test_the_document_lists_every_key():
    assert key_table() in DOC.read_text(encoding="utf-8"), \
        "docs/i18n.md is behind the catalogue: python3 -m posecode_ssg.i18n.reference"
