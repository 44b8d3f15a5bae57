"""Test pages for the browser runtime: HTML following the page contract of <posecode-figure>
(docs/motion-json.md, /posecode_ssg/runtime/posecode-figure.js) built from motion JSON.

``RuntimeSite(root)`` owns a folder served over HTTP: it copies the built runtime bundle and
writes ``rig.json`` (from :func:`posecode_ssg.motion.rig.rig_json`) once, then writes pages made of
figures. Motion JSON comes from the motion compiler (:func:`compiled_example`) or is written by a
test directly (:func:`motion`), which keeps the timeline tests independent of the compiler.
"""

from __future__ import annotations

import html
import json
import math
import os
import shutil
from pathlib import Path
from typing import Iterable

import pytest

REPO = Path(__file__).resolve().parents[1]
RUNTIME_DIR = REPO / "posecode_ssg" / "runtime"
BUNDLE = RUNTIME_DIR / "dist" / "posecode-runtime.js"

SHARED = Path(os.environ.get("POSECODE_SHARED", REPO.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """A path under ../shared (as tests/conftest.py), skipping the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared test data not found: {path}")
    return path


def script_json(data: dict) -> str:
    """Compact JSON safe inside <script>: < > & U+2028 U+2029 escaped (page contract)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def euler_quat(x: float = 0.0, y: float = 0.0, z: float = 0.0) -> list[float]:
    """Quaternion [x, y, z, w] of intrinsic XYZ Euler degrees (q = qX·qY·qZ), 6 decimals."""
    hx, hy, hz = (math.radians(a) / 2 for a in (x, y, z))
    c1, s1, c2, s2, c3, s3 = math.cos(hx), math.sin(hx), math.cos(hy), math.sin(hy), math.cos(hz), math.sin(hz)
    q = [s1 * c2 * c3 + c1 * s2 * s3, c1 * s2 * c3 - s1 * c2 * s3,
         c1 * c2 * s3 + s1 * s2 * c3, c1 * c2 * c3 - s1 * s2 * s3]
    return [round(v, 6) for v in q]


def motion(phases: list[dict], *, base: dict | None = None, wrap: float | None = None,
           name: str = "Test", repeat: int = 1, start_pose: str = "neutral",
           props: Iterable[str] = (), wrap_turn: float | None = None) -> dict:
    """A hand-written posecode-motion/1 document. ``phases`` items: {name, d, m, q?, ...};
    ``wrap`` defaults to the first phase's duration."""
    wrap = phases[0]["d"] if wrap is None else wrap
    doc = {"format": "posecode-motion/1", "name": name, "kind": "exercise", "avatar": "avatar1",
           "props": list(props), "repeat": repeat, "startPose": start_pose, "base": base or {},
           "phases": [{"line": 0, **p} for p in phases], "wrap": wrap,
           "duration": round(sum(p["d"] for p in phases) + wrap, 6)}
    if wrap_turn is not None:
        doc["wrapTurn"] = wrap_turn
    return doc


def compiled_example(name: str, avatar: str | None = None) -> dict:
    """Motion JSON of a conformance example (../shared/conformance/examples/NAME.posecode) via
    the language parser and the motion compiler; skips when either is not available yet."""
    path = shared_path("conformance", "examples", f"{name}.posecode")
    try:
        from posecode_ssg.language import parse
        from posecode_ssg.motion import compile_ir
    except (ImportError, AttributeError) as exc:  # parser / compiler not in this tree yet
        pytest.skip(f"motion compiler not available: {exc}")
    result = parse(path.read_text(encoding="utf-8"))
    assert result.ir is not None, f"{name}: {result.errors}"
    return compile_ir(result.ir, avatar=avatar).to_json()


def example_names() -> list[str]:
    """Names of the conformance examples (empty when ../shared is absent)."""
    folder = SHARED / "conformance" / "examples"
    return sorted(p.stem for p in folder.glob("*.posecode")) if folder.exists() else []


def figure_html(fig_id: str, data: dict | str, *, title: str | None = None, autoplay: bool = False,
                view: str | None = None, poster: str | None = None, src: str | None = None) -> str:
    """One <posecode-figure>: inline JSON (``data`` a dict, or raw text for broken-data tests),
    or ``src`` pointing at a JSON file."""
    attrs = [f'id="{html.escape(fig_id)}"']
    name = title or (data.get("name") if isinstance(data, dict) else fig_id)
    attrs.append(f'data-title="{html.escape(str(name))}"')
    if autoplay:
        attrs.append("autoplay")
    if view:
        attrs.append(f'data-view="{view}"')
    if src:
        attrs.append(f'src="{html.escape(src)}"')
        inner = ""
    else:
        payload = script_json(data) if isinstance(data, dict) else data
        inner = f'<script type="application/json">{payload}</script>'
    poster_html = f'<figure class="posecode-poster">{poster}</figure>' if poster else ""
    phases = ""
    if isinstance(data, dict) and isinstance(data.get("phases"), list):
        items = "".join(f"<li>{html.escape(str(p.get('name')))} {p.get('d')} s {p.get('m')}</li>"
                        for p in data["phases"] if isinstance(p, dict))
        phases = f'<ol class="posecode-phases">{items}</ol>'
    return f"<posecode-figure {' '.join(attrs)}>{inner}{poster_html}{phases}</posecode-figure>"


POSTER = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" role="img">'
          '<title>poster</title><rect width="100" height="100" fill="#eee"/>'
          '<circle cx="50" cy="20" r="8" fill="#555"/><line x1="50" y1="28" x2="50" y2="65" '
          'stroke="#555" stroke-width="6"/></svg>')


class RuntimeSite:
    """A served folder holding the runtime bundle, rig.json and test pages."""

    def __init__(self, root: Path, base_url: str):
        self.root = root
        self.base_url = base_url.rstrip("/")
        if not BUNDLE.exists():
            pytest.skip("runtime bundle not built (pip install -e . with Node.js, or npm ci && npm run build)")
        from posecode_ssg.motion.rig import rig_json

        (root / "assets").mkdir(exist_ok=True)
        shutil.copyfile(BUNDLE, root / "assets" / "posecode-runtime.js")
        (root / "assets" / "rig.json").write_text(json.dumps(rig_json(), separators=(",", ":")))

    def page(self, name: str, figures: Iterable[str], *, head: str = "", body_style: str = "",
             between: str = "", rig: str = "assets/rig.json") -> str:
        """Write ``name``.html with the given figure snippets (``rig``: the rig.json URL in the
        page's <meta name="posecode-rig">); returns its URL."""
        body = between.join(f'<section class="fig">{f}</section>' for f in figures)
        text = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<meta name="posecode-rig" content="{html.escape(rig)}">
<title>{html.escape(name)}</title>
<style>body{{font:15px/1.4 "DejaVu Sans",sans-serif;margin:0 auto;max-width:1200px;padding:12px;{body_style}}}
.grid{{display:grid;grid-template-columns:repeat(auto-fill,minmax(280px,1fr));gap:14px}}</style>
{head}
<script type="module" src="assets/posecode-runtime.js"></script>
</head><body>
{body}
</body></html>"""
        (self.root / f"{name}.html").write_text(text, encoding="utf-8")
        return f"{self.base_url}/{name}.html"

    def write_json(self, name: str, data: dict) -> str:
        """Write a JSON file beside the pages; returns its relative URL."""
        (self.root / name).write_text(json.dumps(data))
        return name
