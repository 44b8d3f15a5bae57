"""The manifest of an output folder, and what a build reuses from the previous build.

One manifest per output folder, ``<cache_dir>/manifest-<hash of the output path>.json``,
records the build's fingerprint (config, theme, compiler and site generator code, runtime
bundle), a hash of its inputs (the sources' hashes, the static files' sizes and times), each
page's key and record, every output file's size and time stamp, and the site-wide files with
the key of the data they were made from. From it a build replays an unchanged build without
writing (:meth:`Incremental._replay`), keeps each page whose key and output file are unchanged
(:meth:`Incremental._reuse_pages`), and keeps the site-wide files when the data they show is
unchanged (:meth:`Incremental._reusable_site`).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from posecode_ssg.site.content import INDEX_NAMES, Page
from posecode_ssg.site.digest import json_bytes, sha
from posecode_ssg.site.exports import export_fingerprint
from posecode_ssg.site.figures import compiler_fingerprint
from posecode_ssg.site.links import LinkRec
from posecode_ssg.site.result import PageSummary, as_diagnostic, bucket_of

SITE_DIR = Path(__file__).resolve().parent
MANIFEST_VERSION = 3

_SITE_FINGERPRINT: str | None = None
#: The manifest each output folder's last build in this process wrote, with the file's
#: (inode, size, mtime): a rebuild in the same process (the dev server) skips parsing it.
_MANIFESTS: dict[str, tuple[tuple[int, int, int], dict]] = {}


def site_fingerprint() -> str:
    """Hash of the site generator's own code and data (``site/*.py``, ``config.py``, the
    built-in taxonomies ``site/vocabularies.toml``): part of every page key."""
    global _SITE_FINGERPRINT
    if _SITE_FINGERPRINT is None:
        digest = hashlib.sha256()
        for path in sorted(SITE_DIR.glob("*.py")) + [SITE_DIR.parent / "config.py", SITE_DIR / "vocabularies.toml"]:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        _SITE_FINGERPRINT = digest.hexdigest()[:16]
    return _SITE_FINGERPRINT


def site_view(record: dict) -> dict:
    """The part of a page record that site-wide pages (cards, sections, taxonomies, search
    index, sitemap) read: the record without its diagnostics, links, anchors and figure
    line numbers, which only the page itself uses."""
    view = {k: v for k, v in record.items() if k not in ("diagnostics", "links", "anchors")}
    view["figures"] = [{k: v for k, v in f.items() if k != "line"} for f in record.get("figures", [])]
    return view


class Incremental:
    """The manifest and reuse steps of :class:`posecode_ssg.site.build._Build`."""

    def _fingerprint(self) -> str:
        """Hash of everything but the sources that shapes the output: the config, the theme,
        the compiler and site generator code, the runtime bundle. A change rebuilds every page."""
        config = self.config
        return sha(json.dumps([
            MANIFEST_VERSION, config.site_name, config.base_url, config.default_avatar, config.default_view,
            config.autoplay, config.raw_html, config.language, config.description, config.theme, str(config.theme_dir),
            json.dumps(config.extra, sort_keys=True, default=str), json.dumps(config.taxonomies, sort_keys=True),
            self.theme.fingerprint(),
            compiler_fingerprint(), site_fingerprint(), sha(self.runtime) if self.runtime else None,
            self.strings.fingerprint(),   # the interface strings in the site's language
            # cards and GIFs (site/exports.py): their code shapes the pages' links and images
            *([list(config.exports), export_fingerprint()] if config.exports else []),
        ]).encode())

    def _static_state(self) -> list:
        """``[src_uri, size, mtime_ns]`` of each static content file."""
        return [[uri, p.stat().st_size, p.stat().st_mtime_ns] for uri, p in self.static.items()]

    def _inputs(self, static_state: list) -> str:
        """Hash of the inputs: every source's hash and the static files' state."""
        return sha(json.dumps([sorted(self.hashes.items()), static_state]).encode())

    def _context_key(self, fingerprint: str) -> str:
        """Hash of what every page's output depends on beside its own source: the fingerprint,
        the set of sources and static files (link targets), the section index pages."""
        index_hashes = sorted((u, h) for u, h in self.hashes.items() if u.rsplit("/", 1)[-1] in INDEX_NAMES)
        return sha(json.dumps([fingerprint, sorted(self.hashes), sorted(self.static), index_hashes]).encode())

    def _site_key(self, context: str, static_state: list) -> str:
        """Hash of what the site-wide pages read: the page context, the static files and each
        page's :func:`site_view`."""
        return sha(json.dumps([context, static_state] + [
            [p.src_uri, site_view(self.records[p.src_uri])] for p in self.pages if p.src_uri in self.records
        ], sort_keys=True).encode())

    def _load_manifest(self) -> dict | None:
        try:
            st = os.stat(self.manifest_path)
            held = _MANIFESTS.get(str(self.manifest_path))
            if held is not None and held[0] == (st.st_ino, st.st_size, st.st_mtime_ns):
                return held[1]  # the one this process wrote last (not parsed again)
            data = json.loads(self.manifest_path.read_bytes())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("version") == MANIFEST_VERSION else None

    def _output_intact(self, manifest: dict) -> bool:
        outputs = manifest.get("outputs") or {}
        if not outputs or not self.out.is_dir():
            return False
        out = f"{self.out}/"
        for dest, (size, mtime) in outputs.items():
            try:
                st = os.stat(out + dest)
            except OSError:
                return False
            if st.st_size != size or st.st_mtime_ns != mtime:
                return False
        return True

    def _replay(self, manifest: dict) -> None:
        result = self.result
        result.unchanged = True
        for uri, entry in manifest["pages"].items():
            record = entry["record"]
            path = self.config.content_dir / uri
            result.pages.append(PageSummary(path, uri, record["dest_uri"], record["url"], record["title"],
                                            len(record["figures"])))
            result.figures += len(record["figures"])
            for d in record["diagnostics"]:
                bucket_of(result, d["severity"]).append((path, as_diagnostic(d)))
        result.notes.extend(manifest.get("notes", []))

    def _save_manifest(self, fingerprint: str, inputs: str) -> None:
        outputs = {}
        out = f"{self.out}/"  # (a string path: a Path made per file cost as much as the stat)
        for dest in self.outputs:
            st = os.stat(out + dest)
            outputs[dest] = [st.st_size, st.st_mtime_ns]
        pages = {uri: {"key": self.page_keys[uri], "record": rec} for uri, rec in self.records.items()}
        site_outputs = sorted(set(self.outputs) - set(self.page_html) - set(self.static))
        data = {"version": MANIFEST_VERSION, "fingerprint": fingerprint, "inputs": inputs, "pages": pages,
                "outputs": outputs, "notes": self.result.notes, "clean": not self.result.errors,
                "site_key": self.site_key, "site_outputs": site_outputs}
        try:
            self.config.cache_dir.mkdir(parents=True, exist_ok=True)
            tmp = self.manifest_path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(json_bytes(data))
            os.replace(tmp, self.manifest_path)
            st = os.stat(self.manifest_path)
            _MANIFESTS[str(self.manifest_path)] = ((st.st_ino, st.st_size, st.st_mtime_ns), data)
        except OSError:
            pass

    def _reuse_pages(self, context: str, old_pages: dict, old_outputs: dict) -> list[Page]:
        """Key every page (its source hash and ``context``); take the record of each page whose
        key and output file the previous build left unchanged. Returns the pages to parse."""
        to_parse: list[Page] = []
        for page in self.pages:
            key = sha(f"{self.hashes[page.src_uri]}:{context}".encode())
            self.page_keys[page.src_uri] = key
            old = old_pages.get(page.src_uri)
            stat = old_outputs.get(page.dest_uri)
            same = bool(old and old.get("key") == key and stat and self._same_stat(page.dest_uri, stat))
            if same:
                rec = old["record"]
                self.records[page.src_uri] = rec
                page.title, page.meta = rec["title"], rec["meta"]
                page.links = [LinkRec(*l) for l in rec["links"]]
                if page.lists_pages:
                    # index pages list the cards of their section (a program its exercises): parsed and re-rendered
                    # unless the site-wide data is unchanged too (decided in _run once all
                    # records are known)
                    self.index_unchanged.add(page.src_uri)
                else:
                    self.page_html[page.dest_uri] = self.out / page.dest_uri
            else:
                to_parse.append(page)
        return to_parse

    def _same_stat(self, dest: str, stat: list) -> bool:
        try:
            st = os.stat(self.out / dest)
        except OSError:
            return False
        return [st.st_size, st.st_mtime_ns] == list(stat)

    def _reusable_site(self, manifest: dict | None, old_outputs: dict) -> bool:
        """True when the previous build's site-wide files can be kept: same site key, every
        one of them still on disk as that build left it."""
        if not manifest or manifest.get("site_key") != self.site_key:
            return False
        site_outputs = manifest.get("site_outputs")
        if not isinstance(site_outputs, list):
            return False
        for dest in site_outputs:
            stat = old_outputs.get(dest)
            if not stat or not self._same_stat(dest, stat):
                return False
        self.site_outputs = site_outputs
        return True
