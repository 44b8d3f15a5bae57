"""The content folder -> pages: scanning, front matter, page URLs, internal links.

Path names say what they hold (the MkDocs convention): ``src_path`` an OS
path, ``src_uri`` the path relative to the content folder with ``/``
separators, ``dest_uri`` the output file relative to the site root, ``url``
the page's URL relative to the site root (``""`` for the home page,
``strength/squat/`` for a page; the build prefixes ``base_path``).

URL rules:

* ``index.md`` or ``_index.md`` in the content root is the library home;
  in a folder it is that section's index page (``strength/``);
* ``a/b.md`` and ``a/b.posecode`` become ``a/b/`` (pretty URLs);
* other files are copied unchanged (images, PDFs...); names starting with
  ``.`` or ``_`` (other than ``_index.md``) are skipped.

Front matter (YAML between ``---`` lines at the top) is validated by
:func:`validate_front_matter` against :mod:`posecode_ssg.site.taxonomy` (``level``,
``category``) and the site's taxonomies (:mod:`posecode_ssg.site.vocabularies`).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from posecode_ssg.site import taxonomy
from posecode_ssg.site.frontkeys import FRONT_MATTER_KEYS
from posecode_ssg.site.markdown import posecode_plugin
from posecode_ssg.site.markdownext import markdown_extensions
from posecode_ssg.site.prescription import PRESCRIPTION_KEYS, check_field
from posecode_ssg.site.problems import Problem
from posecode_ssg.site.programs import read_program
from posecode_ssg.site.vocabularies import Taxonomy, Vocabulary, vocabulary as builtin_vocabulary

PAGE_SUFFIXES = (".md", ".posecode")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: same results, faster
INDEX_NAMES = ("_index.md", "index.md")


@dataclass
class Link:
    """An internal link found in a page: target as written, its 1-based line/column, kind ``href|src``."""

    target: str
    line: int
    column: int


@dataclass
class Page:
    """One page of the site (see module docstring for the path vocabulary)."""

    src_path: Path
    src_uri: str
    url: str
    dest_uri: str
    source_kind: str  # "markdown" | "posecode"
    text: str = ""
    meta: dict = field(default_factory=dict)
    title: str = ""
    is_index: bool = False
    #: front matter ``program:`` (site/programs.py), seen in the source before it is parsed
    is_program: bool = False
    problems: list[Problem] = field(default_factory=list)
    tokens: list[Token] = field(default_factory=list)
    env: dict = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)

    @property
    def lists_pages(self) -> bool:
        """Whether the page shows other pages' data (a section index lists their cards, a
        program their figures and prescriptions): parsed and rendered in the process that has
        every page's record, and re-rendered when another page's record changes."""
        return self.is_index or self.is_program

    @property
    def folder(self) -> str:
        """The ``src_uri`` folder (``""`` for the content root)."""
        return posixpath.dirname(self.src_uri)


def page_url(src_uri: str) -> tuple[str, str, bool]:
    """Return ``(url, dest_uri, is_index)`` of a page source path (``/``-separated)."""
    folder, name = posixpath.split(src_uri)
    if name in INDEX_NAMES:
        url = f"{folder}/" if folder else ""
        return url, f"{url}index.html", True
    stem = name.rsplit(".", 1)[0]
    url = f"{folder}/{stem}/" if folder else f"{stem}/"
    return url, f"{url}index.html", False


def new_page(root: Path, src_uri: str, **fields: Any) -> Page:
    """The :class:`Page` of the source ``src_uri`` (``/``-separated, relative to the content
    folder ``root``): its URL, output path and index flag (:func:`page_url`) and its kind
    (``posecode`` for a ``.posecode`` file, else ``markdown``); ``fields`` set the rest."""
    url, dest, is_index = page_url(src_uri)
    return Page(src_path=root / src_uri, src_uri=src_uri, url=url, dest_uri=dest,
                source_kind="posecode" if src_uri.endswith(".posecode") else "markdown",
                is_index=is_index, **fields)


#: Names editors and tools write next to a file while saving it: swap files,
#: backups, lock files, partial downloads. They are never pages or static files of the
#: site, and never trigger a rebuild in ``serve``. (Vim:
#: ``.x.swp``, ``x~``, ``4913``; Emacs: ``#x#``, ``.#x``; JetBrains:
#: ``x___jb_tmp___``; Kate: ``.x.kate-swp``; LibreOffice ``.~lock.x#``;
#: Chrome's File System Access ``.crswap``; generic ``.tmp``, ``.bak``,
#: ``.orig``, ``.rej``, ``.part``.)
EDITOR_TEMP_PATTERNS = (
    r"^\.",  # hidden files and folders, including .#lock, .x.swp, .~lock.x#
    r"~$",
    r"^#.*#$",
    r"\.sw[a-z]$",
    r"\.sw[a-z]x$",
    r"___jb_(tmp|old|bak)___$",
    r"^4913$",
    r"\.(tmp|temp|bak|orig|rej|part|crswap|kate-swp)$",
    r"^flycheck_",
    r"\.py[cod]$",
)
_EDITOR_TEMP = re.compile("|".join(EDITOR_TEMP_PATTERNS))


def scan_content(content_dir: Path) -> tuple[list[Path], list[Path]]:
    """Return ``(page sources, static files)`` under ``content_dir``, sorted by ``src_uri``.

    Skips names starting with ``.`` and ``_`` (except ``_index.md``), ``__pycache__``-like
    folders, and editor swap, backup and lock files (:data:`EDITOR_TEMP_PATTERNS`).
    """
    pages: list[Path] = []
    static: list[Path] = []
    for path in sorted(content_dir.rglob("*"), key=lambda p: p.relative_to(content_dir).as_posix()):
        rel = path.relative_to(content_dir).parts
        if any(part.startswith(".") or (part.startswith("_") and part != "_index.md") for part in rel):
            continue
        if not path.is_file() or _EDITOR_TEMP.search(path.name):
            continue
        (pages if path.suffix in PAGE_SUFFIXES else static).append(path)
    return pages, static


def decode_source(data: bytes) -> tuple[str, str | None]:
    """Decode file bytes as UTF-8, dropping one leading BOM; returns ``(text, error message or None)``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "", f"not UTF-8 text (byte {exc.start}: {exc.reason})"
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def create_markdown(*, compile_figure=None, default_view: str | None = None, autoplay: bool = True,
                    raw_html: bool = False) -> MarkdownIt:
    """Return the site's markdown-it-py pipeline, the one that ``build``, ``check`` and ``serve``
    use: CommonMark + tables + strikethrough + front matter + the extensions of
    :mod:`posecode_ssg.site.markdownext` (admonitions, containers, content tabs, footnotes, task
    lists, definition lists, attribute lists, heading anchors, Pygments highlighting) + posecode.

    Raw HTML in Markdown is shown as text (every author string reaches the page escaped) unless
    ``raw_html`` (posecode.toml ``raw_html = true``: unsafe with untrusted authors); the figures'
    data is escaped either way.
    """
    md = MarkdownIt("commonmark", {"html": bool(raw_html)}).enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.use(markdown_extensions)
    md.use(posecode_plugin, compile_figure=compile_figure, defer=True, default_view=default_view,
           autoplay=autoplay)
    return md


def _node_line(node: yaml.Node, offset: int) -> tuple[int, int]:
    return node.start_mark.line + offset, node.start_mark.column + 1


def _span(node: yaml.Node | None) -> int:
    """How many carets underline a scalar value written on one line (all its words, quotes
    included); 0 (the word at the column) for anything else."""
    if not isinstance(node, yaml.ScalarNode) or node.end_mark.line != node.start_mark.line:
        return 0
    return max(0, node.end_mark.column - node.start_mark.column)


def _as_list(value: Any) -> list | None:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    return None


def _yaml_error_position(exc: yaml.MarkedYAMLError, text: str, offset: int) -> tuple[int, int, str]:
    """``(line, column, message)`` of a YAML syntax error, on the document's lines.

    PyYAML's ``problem_mark`` is where the parser gave up; when that is the end of the front
    matter (an unclosed ``[``, ``{`` or quote), it would point at the closing ``---``, so the
    ``context_mark`` (where the unclosed construct opened) is used instead, and the message
    says what was left open."""
    mark, message = exc.problem_mark, str(exc.problem or exc)
    body = text.rstrip("\n").split("\n")
    past_end = mark is not None and (mark.line >= len(body) or not body[mark.line][mark.column:].strip())
    if (mark is None or past_end) and exc.context_mark is not None:
        mark = exc.context_mark
        if exc.context:
            message += f" ({exc.context} that starts here)"
    if mark is None:
        return offset, 1, message
    line = min(mark.line, len(body) - 1) if body else 0
    column = mark.column + 1 if line == mark.line else len(body[line]) + 1 if body else 1
    return line + offset, column, message


LIST_HINT = "write a list: [word, word] (or one word)"


def validate_front_matter(text: str, first_line: int,
                          vocabulary: Vocabulary | None = None) -> tuple[dict, list[Problem]]:
    """Parse and validate YAML front matter.

    :param text: the YAML between the ``---`` lines.
    :param first_line: 1-based document line of the YAML's first line.
    :param vocabulary: the site's taxonomies (default: the built-in ones).
    :returns: ``(meta, problems)``. ``meta`` holds only valid values, with
        list keys always lists of strings (taxonomy words as their terms).
        Unknown keys are warnings (with a "did you mean" hint); YAML syntax
        errors, wrong types and words outside the closed level and category
        vocabularies are errors. A taxonomy word it does not know is a warning
        and a term of its own in an open taxonomy, an error in a closed one
        (:meth:`~posecode_ssg.site.vocabularies.Taxonomy.resolve`).
    """
    site_vocab = vocabulary or builtin_vocabulary()
    problems: list[Problem] = []
    offset = first_line
    try:
        loader = _LOADER(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else {}
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        line, column, message = _yaml_error_position(exc, text, offset)
        problems.append(Problem("error", "front-matter-yaml", line, column,
                                f"front matter is not valid YAML: {message}"))
        return {}, problems
    except yaml.YAMLError as exc:
        problems.append(Problem("error", "front-matter-yaml", offset, 1, f"front matter is not valid YAML: {exc}"))
        return {}, problems
    if data is None:
        return {}, problems
    if not isinstance(data, dict):
        problems.append(Problem("error", "front-matter-type", offset, 1,
                                "front matter must be a mapping of keys to values"))
        return {}, problems
    positions: dict[str, tuple[int, int]] = {}
    value_positions: dict[str, yaml.Node] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in positions:   # YAML keeps the last one without a word
                line, column = _node_line(key_node, offset)
                problems.append(Problem("warning", "front-matter-duplicate-key", line, column,
                                        f"front matter key '{key}' is given twice (also on line "
                                        f"{positions[key][0]}); this later one is used",
                                        "keep one of them"))
            positions[key] = _node_line(key_node, offset)
            value_positions[key] = value_node
    meta: dict = {}
    none_at: dict = {}

    def problem(severity: str, code: str, key: str, message: str, hint: str | None = None, at_value=True):
        line, col = positions.get(key, (offset, 1))
        node = value_positions.get(key) if at_value else None
        if node is not None:
            line, col = _node_line(node, offset)
        problems.append(Problem(severity, code, line, col, message, hint, span=_span(node)))

    def term_list(key: str, tax: Taxonomy, value: Any) -> None:
        items = _as_list(value)
        if items is None or not all(isinstance(i, str) for i in items):
            problem("error", "front-matter-type", key, f"'{key}' must be a list of words", LIST_HINT)
            return
        if isinstance(value, str) and "," in value:   # `key: a, b` is one YAML string, not a list
            words = [w.strip() for w in value.split(",") if w.strip()]
            problem("error", "front-matter-type", key, f"'{key}' must be a list of words, not one text",
                    f"write a list: {key}: [{', '.join(words)}]")
            return
        good = []
        seq = value_positions.get(key)
        nodes = seq.value if isinstance(seq, yaml.SequenceNode) else [seq]
        for i, item in enumerate(items):
            if not item.strip():
                continue
            term, bad = tax.resolve(item.strip(), key.replace("_", " "))
            if term is not None and term not in good:
                good.append(term)
            if term == "none" and key == "equipment" and i < len(nodes) and nodes[i] is not None:
                none_at[key] = nodes[i]   # where the "none" was written (its warning's caret)
            if bad is None:
                continue
            node = nodes[i] if i < len(nodes) else None
            if node is None:
                problem(bad[0], "front-matter-unknown-word", key, bad[1], bad[2])
                continue
            line, col = _node_line(node, offset)
            problems.append(Problem(bad[0], "front-matter-unknown-word", line, col, bad[1], bad[2], span=_span(node)))
        meta[key] = good

    for key, value in data.items():
        key = str(key)
        if key in site_vocab.by_key:   # a taxonomy's words: equipment, muscles, declared ones
            term_list(key, site_vocab.by_key[key], value)
        elif key not in FRONT_MATTER_KEYS or key in site_vocab.dropped_keys:
            known = [k for k in [*FRONT_MATTER_KEYS, *site_vocab.by_key] if k not in site_vocab.dropped_keys]
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(dict.fromkeys(known))}"
            problem("warning", "front-matter-unknown-key", key, f"unknown front matter key '{key}' (ignored)",
                    hint, at_value=False)
        elif key in ("title", "summary"):
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                problem("error", "front-matter-type", key, f"'{key}' must be text",
                        "put the text in quotes when it starts with [, {, - or contains ': '")
            else:
                meta[key] = str(value).strip()
        elif key in ("level", "category"):
            vocab = taxonomy.LEVELS if key == "level" else taxonomy.CATEGORIES
            word = str(value).strip().lower() if isinstance(value, str) else None
            if word in vocab:
                meta[key] = word
            else:
                close = difflib.get_close_matches(str(value).lower(), list(vocab), n=1)
                hint = f"did you mean '{close[0]}'?" if close else f"one of: {', '.join(vocab)}"
                problem("error", "front-matter-value", key, f"unknown {key} '{value}'", hint)
        elif key == "tags":
            items = _as_list(value)
            if items is None or not all(isinstance(i, (str, int, float)) and not isinstance(i, bool) for i in items):
                problem("error", "front-matter-type", key, "'tags' must be a list of words", LIST_HINT)
            else:
                tags: list[str] = []
                for item in items:
                    tag = str(item).strip()
                    if tag and tag not in tags:
                        tags.append(tag)
                meta[key] = tags
        elif key == "weight":
            if not isinstance(value, int) or isinstance(value, bool):
                problem("error", "front-matter-type", key, "'weight' must be a whole number")
            else:
                meta[key] = value
        elif key == "draft":
            if not isinstance(value, bool):
                problem("error", "front-matter-type", key, "'draft' must be true or false")
            else:
                meta[key] = value
        elif key == "program":   # issue 22: a program page (site/programs.py)
            items = read_program(value, value_positions.get(key), offset, positions.get(key, (offset, 1)),
                                 lambda *a: problems.append(Problem(*a[:6], span=a[6])))
            if items is not None:
                meta[key] = items
        elif key == "rest_between":
            checked, bad = check_field("rest", value)
            if bad is not None:
                problem("error", "front-matter-value", key, *bad)
            else:
                meta[key] = checked
        elif key in PRESCRIPTION_KEYS:   # issue 21: sets, reps, hold ... (site/prescription.py)
            checked, bad = check_field(key, value)
            if bad is not None:
                problem("error", "front-matter-value", key, *bad)
            else:
                meta[key] = checked
    if "equipment" in meta and "none" in meta["equipment"] and len(meta["equipment"]) > 1:
        node = none_at.get("equipment")
        if node is not None:   # under the word that means none ("body only", "none (bodyweight exercise)")
            line, col = _node_line(node, offset)
            problems.append(Problem("warning", "front-matter-value", line, col,
                                    "equipment lists 'none' together with other items", span=_span(node)))
        else:
            problem("warning", "front-matter-value", "equipment", "equipment lists 'none' together with other items")
    if meta.get("per_side") and meta.get("side") in ("left", "right"):
        problem("warning", "front-matter-value", "side",
                f"'side: {meta['side']}' with 'per_side: true': the reps are done on one side, not each side",
                "drop per_side, or write side: both or side: alternating")
    return meta, problems


_HTML_TAG = re.compile(r"<(/?[A-Za-z][A-Za-z0-9-]*)(?=[\s/>])")


def _raw_html(tokens: list[Token]) -> tuple[int, int, str] | None:
    """The first HTML tag a paragraph or heading starts with, as (line, column, ``<tag>``), in a
    page whose raw HTML is shown as text (CommonMark would have passed it through); None."""
    for token in tokens:
        if token.type == "inline" and token.map:
            m = _HTML_TAG.match(token.content)
            if m:
                return token.map[0] + 1, 1, f"<{m.group(1)}>"
    return None


def _inline_text(token: Token) -> str:
    return "".join(c.content for c in (token.children or []) if c.type in ("text", "code_inline", "softbreak"))


_YAML_KEY = re.compile(r"[A-Za-z_][\w-]*[ \t]*:(?:[ \t]|$)")


def _unclosed_front_matter(lines: list[str]) -> bool:
    """Whether a page opens front matter it never closes: a first line ``---`` followed by a
    ``key:`` line and no later ``---`` (the front matter plugin then leaves it as a thematic
    break and a paragraph of YAML, silently). A first ``---`` followed by anything else is the
    author's thematic break."""
    if not lines or lines[0].rstrip() != "---" or len(lines) < 2 or not _YAML_KEY.match(lines[1]):
        return False
    return not any(line.rstrip() in ("---", "...") for line in lines[2:])


def parse_markdown_page(page: Page, md: MarkdownIt, vocabulary: Vocabulary | None = None) -> None:
    """Parse a Markdown page in place: tokens, env (figures), front matter (against the site's
    ``vocabulary``, default the built-in one), title, internal links."""
    page.env = {}
    page.tokens = md.parse(page.text, page.env)
    lines = page.text.split("\n")
    first_h1 = None
    if not any(token.type == "front_matter" for token in page.tokens) and _unclosed_front_matter(lines):
        page.problems.append(Problem("error", "front-matter-unclosed", 1, 1,
                                     "the front matter opened on line 1 is never closed",
                                     "end it with a line '---' before the page's text"))
    for token in page.tokens:
        if token.type == "front_matter":
            meta, problems = validate_front_matter(token.content, (token.map[0] if token.map else 0) + 2,
                                                   vocabulary)
            page.meta, page.problems = meta, page.problems + problems
        elif token.type == "heading_open" and token.tag == "h1" and first_h1 is None:
            first_h1 = token
    if not md.options.get("html"):
        raw = _raw_html(page.tokens)
        if raw is not None:
            page.problems.append(Problem("hint", "raw-html", raw[0], raw[1],
                                         f"raw HTML ({raw[2]}) is shown as text on the page",
                                         "set raw_html = true in posecode.toml to pass it through "
                                         "(unsafe when authors are not trusted), or write it in Markdown"))
    if first_h1 is not None:
        idx = page.tokens.index(first_h1)
        h1_text = _inline_text(page.tokens[idx + 1]).strip()
    else:
        h1_text = ""
    stem = page.src_path.stem if page.src_path.name not in INDEX_NAMES else page.src_path.parent.name
    page.title = page.meta.get("title") or h1_text or stem.replace("-", " ").replace("_", " ").strip().capitalize()
    page.links = collect_links(page.tokens, lines)


def collect_links(tokens: list[Token], lines: list[str]) -> list[Link]:
    """Return the internal (no scheme, not ``//host``) links and image sources of a token stream.

    Each link's line is found by searching its target text in the source
    lines of the enclosing block (``token.map``), scanning forward.
    """
    found: list[Link] = []
    for block in tokens:
        if block.type != "inline" or not block.children:
            continue
        start, end = block.map if block.map else (0, len(lines))
        cursor_line, cursor_col = start, 0
        for child in block.children:
            found_target = internal_target(child)
            if found_target is None:
                continue
            attr, target = found_target
            line_no, col = start + 1, 1
            raw = child.meta.get("raw_target") if child.meta else None
            needle = raw or target
            for i in range(cursor_line, max(end, cursor_line + 1)):
                if i >= len(lines):
                    break
                pos = lines[i].find(needle, cursor_col if i == cursor_line else 0)
                if pos < 0 and needle != unquote(needle):
                    pos = lines[i].find(unquote(needle), cursor_col if i == cursor_line else 0)
                if pos >= 0:
                    line_no, col = i + 1, pos + 1
                    cursor_line, cursor_col = i, pos + len(needle)
                    break
            found.append(Link(target, line_no, col))
    return found


def internal_target(token) -> tuple[str, str] | None:
    """(attribute, target) of a Markdown link or image token whose target is internal
    (:func:`is_internal`): ``href`` of ``link_open``, ``src`` of ``image``; None otherwise."""
    attr = "href" if token.type == "link_open" else "src" if token.type == "image" else None
    if attr is None:
        return None
    target = str(token.attrGet(attr) or "")
    return (attr, target) if is_internal(target) else None


def is_internal(target: str) -> bool:
    """True for a link that points into the site (no URL scheme, not protocol-relative, not empty)."""
    if not target or target.startswith("//"):
        return False
    parts = urlsplit(target)
    return not parts.scheme


def url_quote(url: str) -> str:
    """Percent-encode a site URL path (spaces, non-ASCII) keeping ``/`` and ``#``-free characters readable."""
    return quote(url, safe="/-._~!$&'()*+,;=:@")


@dataclass
class LinkIndex:
    """Lookup of link targets: page sources, page URLs and static files (all content-relative)."""

    pages_by_src: dict[str, Page]
    pages_by_url: dict[str, Page]
    static: set[str]

    def resolve(self, page: Page, target: str) -> tuple[str | None, str | None, Page | None]:
        """Resolve a link written in ``page``.

        :returns: ``(site-relative URL with fragment, error message, target page)``;
            the URL is ``None`` exactly when the link is broken.
        """
        parts = urlsplit(target)
        fragment = f"#{parts.fragment}" if parts.fragment else ""
        path = unquote(parts.path)
        if not path:
            return page.url + fragment, None, page
        if path.startswith("/"):
            rel = path.lstrip("/")
        else:
            rel = posixpath.join(page.folder, path)
        trailing = rel.endswith("/") or path in (".", "..") or path.endswith("/.") or path.endswith("/..")
        rel = posixpath.normpath(rel) if rel else "."
        if rel.startswith("../") or rel == "..":
            return None, f"link '{target}' points outside the content folder", None
        rel = "" if rel == "." else rel
        if rel in self.pages_by_src:
            hit = self.pages_by_src[rel]
            return hit.url + fragment, None, hit
        for index in INDEX_NAMES:
            key = posixpath.join(rel, index) if rel else index
            if key in self.pages_by_src:
                hit = self.pages_by_src[key]
                return hit.url + fragment, None, hit
        url_key = (rel + "/") if rel else ""
        if url_key in self.pages_by_url:
            hit = self.pages_by_url[url_key]
            return hit.url + fragment, None, hit
        if rel in self.static and not trailing:
            return rel + fragment, None, None
        close = self.suggest(page, rel, as_url=path.startswith("/"))
        hint = f" (did you mean '{close}'?)" if close else ""
        return None, f"broken link '{target}': no page or file '{rel or '/'}' in the content folder{hint}", None

    def suggest(self, page: Page, rel: str, *, as_url: bool) -> str | None:
        """The page or file a broken link to ``rel`` (content-relative) most likely meant, written
        as the link was: a site URL (``/section/page/``) when ``as_url``, else a path relative to
        ``page``'s folder. Names are compared by their last segment without extension (difflib,
        cutoff 0.6: ``lunge.md`` is not taken for ``index.md``, nor ``plank/`` for ``_index.md``);
        of equally close ones, the nearest folder wins. None when nothing is close."""
        def name(path: str) -> str:
            return posixpath.splitext(posixpath.basename(path.rstrip("/")))[0].lower()

        named: dict[str, list[tuple[str, str]]] = {}   # name -> [(content path, link text)]
        places = [(src, hit.url) for src, hit in self.pages_by_src.items()] + [(src, src) for src in sorted(self.static)]
        for src, url in places:
            text = "/" + url if as_url else posixpath.relpath(src, page.folder or ".")
            named.setdefault(name(url or src), []).append((src, text))
        close = difflib.get_close_matches(name(rel), list(named), n=1)
        if not close:
            return None
        folder = posixpath.dirname(rel)
        return min(named[close[0]], key=lambda c: (posixpath.dirname(c[0]) != folder, c[1].count("../"), c[1]))[1]
