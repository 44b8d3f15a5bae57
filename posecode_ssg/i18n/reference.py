"""The key list of docs/i18n.md, made from the English catalogue: ``python3 -m
posecode_ssg.i18n.reference`` prints it; tests/i18n/test_docs.py checks the document has it."""

from __future__ import annotations

import sys

from posecode_ssg.i18n.catalogue import _bundled

BEGIN = "<!-- keys: made by python3 -m posecode_ssg.i18n.reference -->"
END = "<!-- end of keys -->"


def key_table() -> str:
    """A Markdown table of every key with its English text (plural forms joined with `|`)."""
    def cell(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")

    rows = ["| key | English |", "|---|---|"]
    for key, value in _bundled("en").items():
        text = cell(value) if isinstance(value, str) else " · ".join(f"*{c}*: {cell(t)}" for c, t in value.items())
        rows.append(f"| `{key}` | {text} |")
    return "\n".join([BEGIN, *rows, END])


if __name__ == "__main__":
    sys.stdout.write(key_table() + "\n")
