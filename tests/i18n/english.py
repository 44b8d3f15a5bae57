"""The English interface strings a page in another language must not show (issue 27, "Done
when"): every text of the English catalogue, split at its fields, whose words the site's own
catalogue does not also use for that key (German "Start", "Tempo" and "Pause" are German too)
and that the author's own sources do not contain (the demo's prose is English: a section titled
"Strength" is the author's). Read from a page's text nodes and shown attributes (aria-label,
title, alt, placeholder, aria-roledescription, aria-valuetext), outside ``<script>``,
``<style>``, ``<pre>`` and ``<code>`` (the Posecode source listing is code)."""

from __future__ import annotations

import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

from posecode_ssg.i18n.catalogue import LOCALES

SHOWN = ("aria-label", "title", "alt", "placeholder", "aria-roledescription", "aria-valuetext")
SKIP = ("script", "style", "pre", "code")

#: what a live DOM walk returns (text nodes and shown attributes, shadow roots included)
DOM_TEXTS = """() => {
  const out = [], shown = %s, skip = new Set(%s);
  const walk = (node) => {
    for (const c of node.childNodes) {
      if (c.nodeType === 3) { if (c.textContent.trim()) out.push(c.textContent); continue; }
      if (c.nodeType !== 1 || skip.has(c.localName)) continue;
      for (const a of shown) { const v = c.getAttribute(a); if (v) out.push(v); }
      walk(c);
      if (c.shadowRoot) walk(c.shadowRoot);
    }
  };
  walk(document.body);
  return out;
}""" % (list(SHOWN), list(SKIP))


def _texts(value) -> list[str]:
    return [value] if isinstance(value, str) else list(value.values())


def interface_strings(tag: str, sources: list[str]) -> dict[str, str]:
    """{English phrase: its key} to look for on a page in language ``tag`` whose author wrote
    ``sources`` (the site's Markdown and Posecode files)."""
    english = tomllib.loads((LOCALES / "en.toml").read_text(encoding="utf-8"))
    own = tomllib.loads((LOCALES / f"{tag}.toml").read_text(encoding="utf-8"))
    authored = "\n".join(sources)
    found = {}
    for key, value in english.items():
        theirs = " ".join(_texts(own.get(key, "")))
        for text in _texts(value):
            for part in re.split(r"\{[^{}]*\}", text):
                part = part.strip(" .,:;·×()!?'\"…/")
                if len(part) < 3 or not re.search(r"[A-Za-z]{3}", part) or part in theirs:
                    continue
                if _word_in(part, authored):
                    continue
                found.setdefault(part, key)
    return found


def _word_in(phrase: str, text: str) -> bool:
    return re.search(r"(?<![A-Za-zÀ-ÿ])" + re.escape(phrase) + r"(?![A-Za-zÀ-ÿ])", text) is not None


class _Shown(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIP:
            self.skip += 1
        self.out += [v for n, v in attrs if n in SHOWN and v]

    def handle_endtag(self, tag):
        if tag in SKIP:
            self.skip = max(0, self.skip - 1)

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def shown_texts(html: str) -> list[str]:
    """A page's text nodes and shown attribute values."""
    parser = _Shown()
    parser.feed(html)
    parser.close()
    return parser.out


def leftovers(texts: list[str], phrases: dict[str, str]) -> dict[str, str]:
    """{phrase: key} of the ``phrases`` found in ``texts``."""
    joined = "\n".join(texts)
    return {p: k for p, k in phrases.items() if _word_in(p, joined)}


def sources_of(content: Path) -> list[str]:
    """The author's Markdown and Posecode files under ``content``."""
    return [p.read_text(encoding="utf-8") for p in sorted(content.rglob("*")) if p.suffix in (".md", ".posecode")]
