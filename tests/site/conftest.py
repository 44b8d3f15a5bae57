"""Fixtures for the site tests: write a small content tree from a dict, build it, read the output."""

from __future__ import annotations

import re
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest

from posecode_ssg.config import load_config
from posecode_ssg.site.build import build_site


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    """Write ``{relative path: text or bytes}`` under ``root`` (text is written as UTF-8, no newline change)."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


@pytest.fixture
def make_site(tmp_path):
    """Return ``build(files, toml=None, **build_kwargs) -> (result, config)`` building into tmp_path/site."""

    def build(files: dict[str, str | bytes], toml: str | None = None, **kwargs):
        write_tree(tmp_path / "content", files)
        if toml is not None:
            (tmp_path / "posecode.toml").write_text(toml, encoding="utf-8")
        config = load_config(None, cwd=tmp_path)
        result = build_site(config, progress=False, **kwargs)
        return result, config

    return build


def read(site: Path, rel: str) -> str:
    """Text of an output file."""
    return (site / rel).read_text(encoding="utf-8")


class Collector(HTMLParser):
    """Collect start tags (name, attrs dict), ids and checks well-formedness of nesting."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict, list[str]]] = []  # (tag, attrs, ancestor stack)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs), list(self.stack)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs), list(self.stack)))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            # p may be closed implicitly in HTML; track only strict mismatches of containers
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        if data.strip():
            self.text.append((data, list(self.stack)))


def parse_html(text: str) -> Collector:
    """Parse HTML with :class:`Collector`."""
    c = Collector()
    c.feed(text)
    c.close()
    return c


def visible_text(text: str) -> str:
    """Text outside <script>, <style>, <pre>/<code> and <svg> elements."""
    c = parse_html(text)
    hidden = {"script", "style", "pre", "code", "svg", "title"}
    return "\n".join(d for d, stack in c.text if not hidden.intersection(stack))


def figures(text: str) -> list[dict]:
    """Attributes of each <posecode-figure> in document order."""
    return [attrs for tag, attrs, _ in parse_html(text).tags if tag == "posecode-figure"]


SCRIPT_RE = re.compile(r'<script type="application/json">(.*?)</script>', re.DOTALL)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """``{relative path: bytes}`` of every file under ``root``."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def only_thread(timeout: float = 30.0) -> None:
    """Wait until this process runs no thread but the main one: threads an earlier test left
    (AnyIO's worker threads end after 10 s idle) would keep the build from forking."""
    import time

    deadline = time.monotonic() + timeout
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert threading.active_count() == 1, [t.name for t in threading.enumerate()]
