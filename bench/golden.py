"""Golden compare: prove that a change of the code leaves every output as it was.

    python3 bench/golden.py record OUT.pickle        # before the change
    python3 bench/golden.py compare OUT.pickle       # after it: exit 1 on any difference
    python3 bench/golden.py site BEFORE_DIR AFTER_DIR   # two builds of the demo site

**Corpora** (``record``/``compare``): every Posecode document of

- ``../shared/conformance/examples/*.posecode`` and ``../shared/conformance/cases/*.posecode``
  (``$POSECODE_SHARED`` names another folder), each compiled on every avatar;
- ``../shared/cases/bugs/*/*.md`` and ``*.posecode``: their fences;
- ``content/``: the demo library's fences and ``.posecode`` files;
- ``docs/*.md``: the fences of the documentation;
- bench/build.py's generated blocks (90: pages 0-29, three figures each).

**Fields** compared per document (and avatar): the parser's diagnostics; the compact motion JSON
(``MotionProgram.to_json()``) as canonical text; the kinematic diagnostics; the SVG poster of
the chosen view; and the full-precision solve state of ``solve_keyframes`` — per phase every
joint Euler angle, every joint and landmark position and world rotation (the float64 bits), the
root transform, the contacts (kind, effector, target, anchor, residual), foot reports, drift,
rolled soles, lifted locks and planted points, and the solved base pose. Equality is by bits;
where a field differs, the largest absolute difference is printed.

**Site** (``site``): every file of two builds compared byte for byte, after masking the
content-hashed asset names (``name.<hash>.ext``; card posters, named by figure key, are named
by their content instead) and the ``solver`` and per-phase fields that
a change is declared to add (``--mask-json-keys a,b``: removed from rig.json and motion JSON
before comparing).

The eval tables are compared with ``posecode-ssg eval PATH... --json`` before and after (the
browser runtime, docs/eval.md); this script does not run Chromium.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from build import block  # noqa: E402

from posecode_ssg.language import parse  # noqa: E402
from posecode_ssg.language.vocabulary import AVATARS  # noqa: E402
from posecode_ssg.site.fences import extract_posecode_blocks  # noqa: E402


def _shared() -> Path:
    return Path(os.environ.get("POSECODE_SHARED") or ROOT.parent / "shared")


def _name(path: Path, shared: Path) -> str:
    """A document's name: its path below the checkout or the shared folder."""
    for base in (ROOT, shared):
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return str(path)


def corpus() -> list[tuple[str, str, tuple[str | None, ...]]]:
    """``(name, source, avatars)`` of every document compared; ``None`` = the document's own."""
    docs: list[tuple[str, str, tuple[str | None, ...]]] = []
    shared = _shared()
    for folder in ("conformance/examples", "conformance/cases"):
        for path in sorted((shared / folder).glob("*.posecode")):
            docs.append((f"{folder}/{path.name}", path.read_text(encoding="utf-8"), (None, *AVATARS)))
    markdown = sorted((shared / "cases/bugs").glob("*/*.md")) + sorted((ROOT / "content").rglob("*.md")) \
        + sorted((ROOT / "docs").glob("*.md"))
    for path in markdown:
        text = path.read_text(encoding="utf-8")
        for k, b in enumerate(extract_posecode_blocks(text)):
            docs.append((f"{_name(path, shared)}#{k + 1}", b.source, (None,)))
    for path in sorted((shared / "cases/bugs").glob("*/*.posecode")) + sorted((ROOT / "content").rglob("*.posecode")):
        docs.append((_name(path, shared), path.read_text(encoding="utf-8"), (None,)))
    for page in range(30):
        for fig in range(3):
            docs.append((f"bench block {page}-{fig}", block(page, fig), (None,)))
    return docs


def _world(w) -> dict:
    return {"pos": {k: np.asarray(v, float).copy() for k, v in w.pos.items()},
            "rot": {k: np.asarray(v, float).copy() for k, v in w.rot.items()},
            "landmarks": {k: np.asarray(v, float).copy() for k, v in w.landmarks.items()},
            "root_pos": np.asarray(w.root_pos, float).copy(), "root_rot": np.asarray(w.root_rot, float).copy()}


def _plain(value):
    """Dataclass records and tuples of the solution as comparable plain data."""
    if hasattr(value, "__dataclass_fields__"):
        return {k: _plain(getattr(value, k)) for k in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.astype(float).copy()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


def _solution(program) -> dict:
    from posecode_ssg.motion.solve import solve_keyframes

    sol = solve_keyframes(program)
    phases = []
    for ph in sol.phases:
        phases.append({"index": ph.index, "world": _world(ph.world),
                       "euler": {k: tuple(float(x) for x in v) for k, v in ph.euler.items()},
                       "contacts": [{"kind": c.kind, "effector": c.contact.effector, "target": c.contact.target,
                                     "anchor": np.asarray(c.target, float).copy(), "residual": float(c.residual)}
                                    for c in ph.contacts],
                       "lifted_locks": _plain(ph.lifted_locks), "feet": _plain(ph.feet), "drift": _plain(ph.drift),
                       "rolled": _plain(ph.rolled), "planted": _plain(ph.planted)})
    return {"base": _world(sol.base), "phases": phases}


def _kinematic(program) -> list:
    try:
        from posecode_ssg.motion.diagnostics import kinematic_diagnostics
    except ImportError:   # before the solve package split (issue 17)
        from posecode_ssg.motion.solve import kinematic_diagnostics
    return [d.to_dict() if hasattr(d, "to_dict") else repr(d) for d in kinematic_diagnostics(program)]


def record() -> dict:
    """Every field of every document of :func:`corpus`, by ``name|avatar``."""
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.poster import choose_view, render_poster

    out: dict = {}
    for name, source, avatars in corpus():
        result = parse(source)
        parsed = [d.to_dict() if hasattr(d, "to_dict") else repr(d) for d in [*result.errors, *result.warnings]]
        for av in avatars:
            key = f"{name}|{av or ''}"
            entry: dict = {"parse": parsed}
            if result.ir is not None and not result.errors:
                try:
                    program = compile_ir(result.ir, avatar=av)
                except ValueError as exc:
                    entry["compile_error"] = str(exc)
                else:
                    entry["motion"] = json.dumps(program.to_json(), sort_keys=True)
                    entry["kinematic"] = _kinematic(program)
                    view = choose_view(program)
                    entry["poster"] = render_poster(program, view=view, title=result.ir.name)
                    entry["solve"] = _solution(program)
            out[key] = entry
    return out


def _diff(a, b, path: str, found: list[str]) -> None:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape:
            found.append(f"{path}: shape {a.shape} -> {b.shape}")
        elif a.tobytes() != b.tobytes():
            found.append(f"{path}: max |diff| {np.max(np.abs(a - b)):.3g}")
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                found.append(f"{path}.{k}: {'added' if k not in a else 'removed'}")
            else:
                _diff(a[k], b[k], f"{path}.{k}", found)
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            found.append(f"{path}: length {len(a)} -> {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{path}[{i}]", found)
        return
    if isinstance(a, float) and isinstance(b, float):
        if a.hex() != b.hex():
            found.append(f"{path}: {a!r} -> {b!r} (|diff| {abs(a - b):.3g})")
        return
    if a != b:
        found.append(f"{path}: {str(a)[:80]!r} -> {str(b)[:80]!r}")


def _drop_motion_keys(data: dict, keys: set[str]) -> dict:
    """``data`` with ``keys`` removed from every motion JSON (a change's declared new fields)."""
    if not keys:
        return data
    out = {}
    for name, entry in data.items():
        if isinstance(entry, dict) and "motion" in entry:
            entry = dict(entry, motion=_masked(entry["motion"].encode(), keys).decode())
        out[name] = entry
    return out


def compare(before: dict, after: dict) -> list[str]:
    """Every difference between two :func:`record` results, one line each."""
    found: list[str] = []
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            found.append(f"{key}: {'new document' if key not in before else 'document gone'}")
            continue
        _diff(before[key], after[key], key, found)
    return found


_HASHED = re.compile(rb"\.[0-9a-f]{8,}\.(js|css|json|svg|png)")


def _masked(data: bytes, keys: set[str]) -> bytes:
    data = _HASHED.sub(rb".HASH.\1", data)
    if not keys:
        return data

    def drop(value):
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if k not in keys}
        if isinstance(value, list):
            return [drop(v) for v in value]
        return value

    try:
        return json.dumps(drop(json.loads(data)), sort_keys=True).encode()
    except ValueError:
        pass

    def inline(m: re.Match) -> bytes:   # motion JSON inlined in a page's <script type=application/json>
        try:
            return m.group(1) + json.dumps(drop(json.loads(m.group(2))), sort_keys=True).encode() + m.group(3)
        except ValueError:
            return m.group(0)

    return re.sub(rb'(<script type="application/json"[^>]*>)(.*?)(</script>)', inline, data, flags=re.S)


def _poster_names(root: Path) -> dict[bytes, bytes]:
    """Card poster files (``assets/posters/<figure key>.svg``) -> the sha256 of their content:
    the figure key hashes the compiler's source (site/figures.py ``compiler_fingerprint``), so
    any code change renames them; named by content, the two builds' posters pair up."""
    import hashlib

    folder = root / "assets" / "posters"
    return {p.stem.encode(): hashlib.sha256(p.read_bytes()).hexdigest()[:20].encode()
            for p in folder.glob("*.svg")} if folder.is_dir() else {}


def compare_sites(a: Path, b: Path, keys: set[str]) -> list[str]:
    """Files that differ between two site folders (hashed names masked, card posters named by
    their content, ``keys`` dropped)."""
    def renamer(root: Path):
        names = _poster_names(root)
        pattern = re.compile(rb"posters/([0-9a-f]{20})\.svg")
        return lambda data: pattern.sub(lambda m: b"posters/" + names.get(m.group(1), m.group(1)) + b".svg", data)

    def files(root: Path, rename) -> dict[str, Path]:
        return {rename(_HASHED.sub(rb".HASH.\1", p.relative_to(root).as_posix().encode())).decode(): p
                for p in root.rglob("*") if p.is_file()}

    ra, rb_ = renamer(a), renamer(b)
    fa, fb = files(a, ra), files(b, rb_)
    found = [f"{n}: only in {'after' if n not in fa else 'before'}" for n in sorted(set(fa) ^ set(fb))]
    for n in sorted(set(fa) & set(fb)):
        if _masked(ra(fa[n].read_bytes()), keys) != _masked(rb_(fb[n].read_bytes()), keys):
            found.append(f"{n}: differs")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("record").add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("golden")
    c.add_argument("--mask-json-keys", default="", help="motion JSON keys a change declares new (dropped in both)")
    s = sub.add_parser("site")
    s.add_argument("before")
    s.add_argument("after")
    s.add_argument("--mask-json-keys", default="")
    args = ap.parse_args(argv)
    if args.cmd == "record":
        data = record()
        Path(args.out).write_bytes(pickle.dumps(data))
        print(f"recorded {len(data)} documents ({sum('solve' in e for e in data.values())} solved) to {args.out}")
        return 0
    if args.cmd == "compare":
        before = pickle.loads(Path(args.golden).read_bytes())
        keys = {k for k in args.mask_json_keys.split(",") if k}
        found = compare(_drop_motion_keys(before, keys), _drop_motion_keys(record(), keys))
    else:
        keys = {k for k in args.mask_json_keys.split(",") if k}
        found = compare_sites(Path(args.before), Path(args.after), keys)
    for line in found[:200]:
        print(line)
    print(f"{len(found)} difference(s)" + (" (first 200 shown)" if len(found) > 200 else ""))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
