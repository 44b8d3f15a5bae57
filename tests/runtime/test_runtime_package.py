"""Packaging of the browser runtime (issue 4 item 1): three.js pinned by the npm lock file, the
hatchling hook that bundles it registered, and — once built — one self-contained bundle with
three.js's licence travelling beside it."""

from __future__ import annotations

import gzip
import json
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "posecode_ssg" / "runtime" / "dist"


def test_three_and_esbuild_are_pinned_exactly_and_locked():
    pkg = json.loads((REPO / "package.json").read_text())
    lock = json.loads((REPO / "package-lock.json").read_text())
    for section, name in (("dependencies", "three"), ("devDependencies", "esbuild"), ("devDependencies", "terser")):
        spec = pkg[section][name]
        assert re.fullmatch(r"\d+\.\d+\.\d+", spec), f"{name} must be pinned exactly, got {spec!r}"
        assert lock["packages"][f"node_modules/{name}"]["version"] == spec
        assert lock["packages"][f"node_modules/{name}"]["integrity"].startswith("sha512-")
    # three >= 0.186 ships no minified build: the bundle step is what makes it small
    assert tuple(int(x) for x in pkg["dependencies"]["three"].split(".")) >= (0, 186, 0)
    assert "--bundle" in pkg["scripts"]["build"] and "--minify" in pkg["scripts"]["build"]
    assert "&& terser " in pkg["scripts"]["build"] and "--comments some" in pkg["scripts"]["build"]   # licence kept
    assert "posecode_ssg/runtime/dist/posecode-runtime.js" in pkg["scripts"]["build"]


def test_the_build_hook_is_registered_and_its_outputs_are_ignored_by_git():
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())
    hook = cfg["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]
    assert (REPO / hook["path"]).is_file()
    text = (REPO / hook["path"]).read_text()
    assert "npm" in text and '"ci"' in text and "--ignore-scripts" in text and "artifacts" in text
    ignored = (REPO / ".gitignore").read_text().split()
    assert "dist/" in ignored and "node_modules/" in ignored


def test_built_bundle_is_self_contained_and_carries_the_three_licence():
    bundle = DIST / "posecode-runtime.js"
    if not bundle.exists():
        pytest.skip("runtime bundle not built (pip install -e . needs Node.js/npm)")
    js = bundle.read_text(encoding="utf-8")
    # no bare module imports left (everything bundled) and no CDN
    assert not re.search(r"""\bfrom\s*["'](three|\.\.?/)""", js)
    assert not re.search(r"\bimport\s*\(", js)   # no dynamic imports either
    for cdn in ("unpkg.com", "jsdelivr", "cdnjs", "esm.sh", "skypack"):
        assert cdn not in js
    assert "customElements.define(\"posecode-figure\"" in js or "customElements.define('posecode-figure'" in js
    assert "@license" in js and "Three.js Authors" in js   # three's licence block kept at the end
    licence = (DIST / "THREE-LICENSE.txt").read_text(encoding="utf-8")
    assert licence.startswith("The MIT License") and "three.js authors" in licence


def mangled_names() -> list[str]:
    """The property names terser renames (terser.json ``mangle.properties.regex``, ``^(a|b|…)$``)."""
    regex = json.loads((REPO / "terser.json").read_text())["mangle"]["properties"]["regex"]
    m = re.fullmatch(r"\^\(([\w$|]+)\)\$", regex)
    assert m, f"terser.json's property regex must be a plain list of names ^(a|b|…)$, got {regex!r}"
    return m.group(1).split("|")


def test_property_mangling_renames_only_private_names_of_our_runtime():
    """terser.json renames a fixed list of our runtime's internal property names (plan and
    skeleton fields, private ``_`` members): none may be a property three.js (bundled in the same
    file, so renamed alike), the DOM or the language has, a key of rig.json or the motion JSON, or
    a name the test hooks, the bench, the eval harness or docs/runtime.md use (public API)."""
    from posecode_ssg.motion.rigjson import rig_json

    names = set(mangled_names())
    words = lambda text: set(re.findall(r"[A-Za-z_$][\w$]*", text))  # noqa: E731
    keys: set[str] = set()

    def walk(o):
        if isinstance(o, dict):
            keys.update(o)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
        elif isinstance(o, str):
            keys.update(words(o))

    walk(rig_json())
    walk(json.loads((REPO / "posecode_ssg" / "motion" / "motion.schema.json").read_text()))
    public = words((REPO / "docs" / "runtime.md").read_text())
    for folder in ("playwright_tests", "bench", "posecode_ssg/evaluate"):
        for path in (REPO / folder).rglob("*.py"):
            public |= words(path.read_text(encoding="utf-8"))
    assert not names & keys, f"rig/motion JSON keys in terser.json: {sorted(names & keys)}"
    assert not names & public, f"public names in terser.json: {sorted(names & public)}"
    outside = [REPO / "node_modules" / "three" / "build" / f for f in ("three.core.js", "three.module.js")]
    outside.append(REPO / "node_modules" / "terser" / "tools" / "domprops.js")
    if not all(p.exists() for p in outside):
        pytest.skip("three / terser not installed (npm ci)")
    clash = names & set().union(*(words(p.read_text(encoding="utf-8")) for p in outside))
    assert not clash, f"three.js or DOM property names in terser.json: {sorted(clash)}"


#: issue 4: all the JavaScript a page loads (the one bundle: our runtime and the three.js it
#: imports), gzip -9
PAGE_JS_BUDGET = 165 * 1024


def test_page_javascript_within_the_165_kb_gzip_budget():
    """bench/runtime.py prints the bundle's size, our code's share of it and each module's."""
    bundle = DIST / "posecode-runtime.js"
    if not bundle.exists():
        pytest.skip("runtime bundle not built (pip install -e . needs Node.js/npm)")
    size = len(gzip.compress(bundle.read_bytes(), 9))
    assert size <= PAGE_JS_BUDGET, f"the runtime bundle is {size} B gzip, over the 165 KB budget (issue 4)"
