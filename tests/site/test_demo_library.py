"""The demo library in content/ builds, strictly: no errors, no warnings (issue 6, item 9)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import re

from conftest import parse_html

from posecode_ssg.config import load_config
from posecode_ssg.site.build import build_site

REPO = Path(__file__).resolve().parents[2]


def test_demo_content_builds_without_warnings(tmp_path):
    content = REPO / "content"
    if not any(content.rglob("*.md")):
        pytest.skip("no demo content in this checkout")
    config = replace(load_config(None, cwd=tmp_path), content_dir=content, cache_dir=tmp_path / "cache")
    result = build_site(config, out_dir=tmp_path / "site", strict=True, progress=False)
    problems = [f"{p}:{d.line}:{d.column}: {d.severity}[{d.code}] {d.message}"
                for p, d in [*result.errors, *result.warnings]]
    assert problems == []
    assert result.written and result.figures >= len([p for p in result.pages if p.figures])
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert home.count('class="card"') == len([p for p in result.pages if p.figures and not
                                               p.src_uri.endswith(("_index.md", "/index.md")) and p.src_uri != "index.md"])

    # every page is well-formed HTML with unique ids
    for html_file in (tmp_path / "site").rglob("*.html"):
        text = html_file.read_text(encoding="utf-8")
        tree = parse_html(text)
        assert not tree.errors and not tree.stack, (html_file, tree.errors, tree.stack)
        ids = re.findall(r'\bid="([^"]+)"', text)
        assert len(ids) == len(set(ids)), html_file
