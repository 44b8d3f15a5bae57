"""One page's record: its source parsed (Markdown, or a ``.posecode`` file as one figure), then,
once its figures are compiled, finished into the record the rest of the build reads (title,
metadata, figures, diagnostics, links, search text, anchors)."""

from __future__ import annotations

import re

from posecode_ssg.site import taxonomy
from posecode_ssg.site.content import Page, Problem, decode_source, parse_markdown_page
from posecode_ssg.site.markdown import FenceInfo, attach_figure, posecode_env
from posecode_ssg.site.prescription import search_text
from posecode_ssg.site.strings import UI

#: Pages parsed between two :meth:`posecode_ssg.site.build._Build._freeze` calls.
FREEZE_PAGES = 100


def leading_comment(text: str, title: str) -> str | None:
    """The summary a ``.posecode`` file gives itself: the first sentence of the comment lines
    before its header.

    Comments start with ``#`` or ``//`` (spec §1, Grammar). Consecutive comment lines are one
    paragraph (a sentence may wrap onto the next line); it ends at a blank comment line or the
    first non-comment line, and the summary is its first sentence (up to ``.``, ``!`` or ``?``
    followed by a space, or the paragraph's end). A leading ``"<title>:"`` (the movement's own
    name) is dropped and the rest capitalised: ``// Arm waves: a flowing warm-up.`` on a movement
    named "Arm waves" gives "A flowing warm-up.". None when the file starts with no comment.
    """
    words: list[str] = []
    for raw in text.lstrip("\ufeff").splitlines():
        line = raw.strip()
        mark = next((m for m in ("//", "#") if line.startswith(m)), None)
        if mark is None:
            if line or words:
                break
            continue
        part = line[len(mark):].strip()
        if not part:
            if words:
                break
            continue
        words.append(part)
    paragraph = " ".join(words)
    if paragraph.lower().startswith(title.lower() + ":"):
        paragraph = paragraph[len(title) + 1:].strip()
    end = re.search(r"[.!?](\s|$)", paragraph)
    sentence = paragraph[:end.end()].strip() if end else paragraph
    return (sentence[:1].upper() + sentence[1:]) or None


def humanize(name: str) -> str:
    return name.replace("-", " ").replace("_", " ").strip().capitalize() or name



def held_items(words) -> list[str]:
    """The front-matter equipment words of the items a figure's equipment ``words`` draw
    (motion/equipment.py: ``dumbbells`` → ``dumbbell``, ``barbell-back`` → ``barbell``), in order."""
    if not words:
        return []
    from posecode_ssg.motion.equipment import drawn_items

    return list(dict.fromkeys(item for item, _holder in drawn_items(words)))

class PageRecords:
    """The parse and finish steps of :class:`posecode_ssg.site.build._Build`."""

    def _parse_page(self, page: Page) -> None:
        self.parsed += 1
        if self.parsed % FREEZE_PAGES == 0:
            self._freeze()  # the pages parsed so far live to the end of the build
        text, err = decode_source(self.sources[page.src_uri])
        if err:
            page.problems.append(Problem("error", "encoding", 1, 1, err))
            return
        page.text = text
        if page.source_kind == "markdown":
            parse_markdown_page(page, self.md, self.vocabulary)
        else:
            self._parse_posecode_page(page)

    def _parse_posecode_page(self, page: Page) -> None:
        from markdown_it.token import Token

        page.env = {}
        pc = posecode_env(page.env)
        pc.src_lines = page.text.split("\n")
        token = Token("posecode", "code", 0)
        token.content = page.text
        token.map = [-1, len(pc.src_lines)]
        token.meta = {"info": FenceInfo("posecode"), "id": "posecode-figure-1"}
        pc.ids.add("posecode-figure-1")
        pc.figures.append(token)
        page.tokens = [token]

    def _finish_page(self, page: Page) -> None:
        """Attach figures, derive metadata, collect diagnostics, store the page record."""
        problems = [p.as_record() for p in page.problems]
        figures_meta = []
        pc = posecode_env(page.env) if page.env else None
        if pc is not None:
            for token in pc.figures:
                figure = self.figures[token.meta["key"]]
                attach_figure(token, figure, page.env)
                # (the motion JSON decoded only when it has equipment)
                drawn = ((figure.motion or {}).get("equipment", {}).get("items", [])
                         if figure.motion_json and '"equipment":' in figure.motion_json else [])
                figures_meta.append({"key": figure.key, "name": figure.name, "props": figure.props,
                                     "equipment": held_items(drawn), "loop": figure.loop, "repeat": figure.repeat,
                                     "both_sides": figure.both_sides,
                                     "poster": bool(figure.poster), "line": (token.map[0] + 1) if token.map else 1,
                                     "steps": [[p["name"], p.get("cue") or ""] for p in figure.phases],
                                     "title": token.meta["info"].attrs.get("title")})
            problems.extend(pc.diagnostics)
        if page.source_kind == "posecode":
            first = figures_meta[0] if figures_meta else None
            page.title = (first and first["name"]) or humanize(page.src_path.stem)
            kind = self.figures[pc.figures[0].meta["key"]].kind if pc and pc.figures else None
            category = taxonomy.KIND_CATEGORY.get(kind or "")
            page.meta = {"title": page.title, "equipment": list(dict.fromkeys(first["props"])) if first and first["props"] else ["none"]}
            described = leading_comment(page.text, page.title)
            if described:
                page.meta["summary"] = described
            elif pc and pc.figures:
                fig = self.figures[pc.figures[0].meta["key"]]
                if fig.phases:
                    steps = len(fig.phases)
                    seconds = sum(p["duration"] for p in fig.phases)
                    kind = UI[f"page.kind.{fig.kind}"] if f"page.kind.{fig.kind}" in UI else UI["page.kind.movement"]
                    page.meta["summary"] = UI.plural("page.generated_summary", steps, kind=kind, seconds=seconds)
            if category:
                page.meta["category"] = category
        elif "equipment" in page.meta:
            for fig in figures_meta:
                missing = [p for p in fig["props"] if p not in page.meta["equipment"]]
                if missing:
                    problems.append({"code": "front-matter-equipment", "severity": "warning", "line": fig["line"],
                                     "column": 1, "hint": "add it to the page's 'equipment' list",
                                     "message": f"figure '{fig['name']}' uses prop {', '.join(missing)} "
                                                f"but the front matter 'equipment' does not list it"})
                missing = [e for e in fig["equipment"] if e not in page.meta["equipment"]]
                if missing:   # drawn from its fence's equipment attribute (motion/equipment.py)
                    problems.append({"code": "front-matter-equipment", "severity": "warning", "line": fig["line"],
                                     "column": 1, "hint": "add it to the page's 'equipment' list",
                                     "message": f"figure '{fig['name']}' holds {', '.join(missing)} "
                                                f"but the front matter 'equipment' does not list it"})
        problems = [d for d in problems if d["severity"] in ("error", "warning", "hint")]
        problems.sort(key=lambda d: (d["line"], d["column"]))
        summary = page.meta.get("summary", "")
        search = " ".join([page.title, summary, " ".join(page.meta.get("tags", [])), search_text(page.meta)]
                          + [" ".join(filter(None, [f["name"], f["title"]] + [s for st in f["steps"] for s in st]))
                             for f in figures_meta]
                          + self.vocabulary.search_words(page.meta))   # labels and synonyms of its terms
        self.records[page.src_uri] = {
            "title": page.title, "url": page.url, "dest_uri": page.dest_uri, "meta": page.meta,
            "is_index": page.is_index, "source_kind": page.source_kind, "diagnostics": problems,
            "links": [[l.target, l.line, l.column] for l in page.links], "figures": figures_meta,
            "search": " ".join(search.split()),
            "anchors": sorted(pc.ids) if pc is not None else [],
        }
