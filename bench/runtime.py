"""Browser runtime benchmark: JS bytes a page loads and per-figure frame cost in headless Chromium.

    python3 bench/runtime.py [--screenshots DIR]

Prints:
- the bytes of posecode_ssg/runtime/dist/posecode-runtime.js (the script a page with a figure
  loads: our code + the three.js modules it imports) and of the theme's site.js (the home's
  filters, a handout's Print button: the pages without a figure that load a script), raw and
  gzip -9, and the most any page loads (target ≤ 165 KB gzip in all), our own
  code's share (the same package.json build steps with three marked external) and each of our
  modules: its bytes in the bundle (esbuild's metafile, minified, before terser) and the gzip -9 of
  the file minified alone by esbuild (no bundling; alone a file compresses without the others'
  context, so these sum to more than our code's gzip);
- solve ms per figure-frame (timeline + FK + solver passes, every figure, 100 frames) and draw ms
  per figure-frame (render + copy of the figures in view while they play), for pages with 1, 20
  and 200 figures of conformance examples (1280×800 viewport, device scale 1, SwiftShader);
- timeline continuity: the knee 0° → 40° → 90° → 0° table of kinematics-reference §5.2 (velocity
  just before / after keyframe K1 for each mode pair; the reference jumps ×2–3) and, over every
  conformance example, the largest angular-velocity jump at keyframes where C1 is required;
- the largest distance between sample() and the numpy keyframe solve at phase ends over the
  FK-only conformance examples, per avatar;
- equipment (issue 20): a page of 20 figures holding dumbbells, a barbell (in the hands, on the
  back), a band and lying on a mat: solve ms per figure-frame with and without the equipment,
  the equipment's own per-frame cost (runtime/equipment.js `Equipment.update`: attach every
  item and place its meshes, timed over many repeats) and the motion JSON bytes it adds;
- with --screenshots DIR: desktop (1280×800) and phone (390×844) screenshots of a page with 12
  conformance examples, posed at a fixed time.

Needs the built bundle (pip install -e .), Chromium (/usr/bin/chromium or Playwright's), the
conformance examples in ../shared and the motion compiler.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import shlex
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "playwright_tests"))  # pages.py as a top-level module
sys.path.insert(0, str(REPO))

from posecode_ssg.evaluate.browser import have_browser, launch_args  # noqa: E402
from pages import (BUNDLE, TIMELINE_PROBE, RuntimeSite, compiled_example, euler_quat,  # noqa: E402
                   example_names, figure_html, motion)

SHOWCASE = ["squat", "deadlift", "pull-up", "cobra", "bicycle-crunch", "pirouette", "wall-sit",
            "box-step", "seated-forward-fold", "lateral-raise", "mountain-climber", "demi-plie"]


def kb(n: int) -> str:
    return f"{n / 1024:.1f} KB"


RUNTIME = REPO / "posecode_ssg" / "runtime"
SITE_JS = REPO / "posecode_ssg" / "themes" / "default" / "static" / "site.js"


def tool(name: str) -> Path:
    path = REPO / "node_modules" / ".bin" / name
    if not path.exists():
        raise SystemExit(f"{name} not installed (npm ci)")
    return path


def own_code(tmp: Path) -> bytes:
    """Our runtime with three.js left out, built by the steps of package.json's build script
    (esbuild, then terser) with ``three`` external and the output in ``tmp``."""
    script = json.loads((REPO / "package.json").read_text())["scripts"]["build"]
    out = str(tmp / "own.js")
    for step in script.split("&&"):
        args = [a.replace("posecode_ssg/runtime/dist/posecode-runtime.js", out) for a in shlex.split(step)]
        if args[0] == "esbuild":
            args.append("--external:three")
        subprocess.run([str(tool(args[0])), *args[1:]], cwd=REPO, capture_output=True, check=True)
    return Path(out).read_bytes()


def module_sizes(tmp: Path) -> list[tuple[str, int, int]]:
    """(module, bytes in the esbuild-minified bundle, gzip -9 of the file minified alone) for each
    of our runtime's modules, largest share first."""
    meta = tmp / "meta.json"
    subprocess.run([str(tool("esbuild")), "posecode_ssg/runtime/index.js", "--bundle", "--format=esm", "--minify",
                    "--target=es2020", "--external:three", f"--outfile={tmp / 'meta.js'}", f"--metafile={meta}"],
                   cwd=REPO, capture_output=True, check=True)
    inputs = next(iter(json.loads(meta.read_text())["outputs"].values()))["inputs"]
    rows = []
    for path, info in inputs.items():
        alone = subprocess.run([str(tool("esbuild")), path, "--minify", "--format=esm", "--target=es2020"],
                               cwd=REPO, capture_output=True, check=True).stdout
        rows.append((str(Path(path).relative_to("posecode_ssg/runtime")), info["bytesInOutput"], len(gzip.compress(alone, 9))))
    return sorted(rows, key=lambda r: -r[1])


def payload() -> None:
    raw = BUNDLE.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        own = own_code(Path(tmp))   # the build's steps with three external
        modules = module_sizes(Path(tmp))
    total, ours = len(gzip.compress(raw, 9)), len(gzip.compress(own, 9))
    site = SITE_JS.read_bytes()
    site_gz = len(gzip.compress(site, 9))
    print("JS a page loads (a page with a figure: the runtime, with the three.js it imports; the home and a")
    print("handout: the theme's site.js; the other pages none)")
    print(f"  posecode-runtime.js   raw {kb(len(raw)):>9}   gzip {kb(total):>8}")
    print(f"  site.js               raw {kb(len(site)):>9}   gzip {kb(site_gz):>8}")
    print(f"  the most a page loads           gzip {kb(max(total, site_gz)):>8}   ({max(total, site_gz)} B; "
          f"target ≤ 165 KB = 168960 B gzip)")
    print(f"  of which our code     raw {kb(len(own)):>9}   gzip {kb(ours):>8}   ({100 * ours / total:.0f} % of the gzip;"
          " built with three external)")
    print("  our modules: bytes in the bundle (esbuild metafile, minified, before terser) and gzip -9 of the file")
    print("  minified alone (esbuild, no bundling: without the other files' context, so these add up to more)")
    for name, inside, alone in modules:
        print(f"    {name:<28} {inside:>7} B   alone gzip {alone:>6} B")
    print(f"    {'(sum)':<28} {sum(r[1] for r in modules):>7} B   alone gzip {sum(r[2] for r in modules):>6} B")


MEASURE = """async (frames) => {
  await Promise.all(posecode.figures.map(f => f.ready));
  const figs = posecode.figures;
  // solve: every figure, `frames` frames, through the model the stage uses
  for (let k = 0; k < 300; k++) for (const f of figs.slice(0, 20)) f._model.evaluate(k / 60);  // JIT warm-up
  const t0 = performance.now();
  for (let k = 0; k < frames; k++) for (const f of figs) f._model.evaluate(k / 60);
  const solve = (performance.now() - t0) / (frames * figs.length);
  // draw: play everything for ~3 s; the stage draws the figures in view
  for (const f of figs) f.play();
  await posecode.frame(); await posecode.frame();
  const s0 = posecode.stats(); const w0 = performance.now();
  while (performance.now() - w0 < 3000) await posecode.frame();
  const s1 = posecode.stats();
  const draws = s1.draws - s0.draws, loops = s1.frames - s0.frames;
  return { solve, draw: (s1.drawMs - s0.drawMs) / Math.max(1, draws), drawsPerFrame: draws / Math.max(1, loops),
           fps: loops / ((performance.now() - w0) / 1000), contexts: s1.contexts };
}"""


#: (conformance example, fence equipment words) of the equipment page
EQUIPPED = [("lateral-raise", ("dumbbells",)), ("deadlift", ("barbell",)), ("squat", ("barbell-back",)),
            ("biceps-curl", ("band",)), ("dead-bug", ("mat",))]

EQUIPMENT_MEASURE = """async ([frames, repeat]) => {
  await Promise.all(posecode.figures.map(f => f.ready));
  const figs = posecode.figures;
  for (let k = 0; k < 300; k++) for (const f of figs) f._model.evaluate(k / 60);  // JIT warm-up
  let t0 = performance.now();
  for (let k = 0; k < frames; k++) for (const f of figs) f._model.evaluate(k / 60);
  const solve = (performance.now() - t0) / (frames * figs.length);
  // draw every figure once (all in view): builds the mannequins and their equipment meshes
  // (a figure is drawn once it is in view and the shared renderer has had a frame: ask again)
  for (let i = 0; i < 20 && (i === 0 || figs.some(f => !f.mannequin)); i++) await posecode.freeze(0);
  const eq = figs.filter(f => f.mannequin && f.mannequin.equipment).map(f => [f._model, f.mannequin.equipment]);
  for (let k = 0; k < 300; k++) for (const [, e] of eq) e.update();  // warm-up
  let ms = 0;
  for (let k = 0; k < frames; k++) {
    for (const [m] of eq) m.evaluate(k / 60);
    // many repeats of the same pose: one update is below the timer's resolution
    t0 = performance.now();
    for (let r = 0; r < repeat; r++) for (const [, e] of eq) e.update();
    ms += performance.now() - t0;
  }
  return { solve, update: eq.length ? ms / (frames * repeat * eq.length) : NaN, drawn: eq.length,
           items: eq.reduce((n, [, e]) => n + e.records.length, 0) };
}"""


def equipment_cost(browser, site) -> None:
    """Solve cost, equipment update cost and motion JSON bytes of a page of 20 figures with
    equipment (:data:`EQUIPPED` in turn), and the same figures without it."""
    from posecode_ssg.site.figures import compile_figure

    from pages import shared_path

    source = {n: shared_path("conformance", "examples", f"{n}.posecode").read_text(encoding="utf-8") for n, _ in EQUIPPED}
    grid = ("<style>body{max-width:none}.fig{display:inline-block;width:150px;margin:2px;vertical-align:top}"
            ".pc-phase-list{display:none}</style>")   # all 20 in view
    print("\nEquipment (issue 20): 20 figures, dumbbells / barbell / barbell on the back / band / mat in turn")
    print(f"  {'page':<18} {'solve ms':>9} {'equipment ms':>12} {'figures drawn':>13} {'items':>6} {'motion JSON':>12}")
    results = {}
    for label, with_eq in (("without equipment", False), ("with equipment", True)):
        docs = []
        for i in range(20):
            name, words = EQUIPPED[i % len(EQUIPPED)]
            docs.append(compile_figure(source[name], {"equipment": words if with_eq else None}).motion)
        size = sum(len(json.dumps(d, separators=(",", ":"))) for d in docs)
        page = browser.new_page(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
        page.goto(site.page(f"equipment-{with_eq}", [figure_html(f"e{i}", d) for i, d in enumerate(docs)], head=grid))
        r = page.evaluate(EQUIPMENT_MEASURE, [100, 50])
        page.close()
        results[label] = (r, size)
        update = f"{r['update']:>12.4f}" if r["drawn"] else f"{'-':>12}"
        print(f"  {label:<18} {r['solve']:>9.3f} {update} {r['drawn']:>13} {r['items']:>6} {size:>10} B")
    (r0, s0), (r1, s1) = results["without equipment"], results["with equipment"]
    print(f"  added per figure-frame: solve {r1['solve'] - r0['solve']:+.4f} ms (equipment is placed on the drawn"
          f" frame, not in the solve), equipment update {r1['update']:.4f} ms (target <= 0.02 ms);"
          f" motion JSON +{(s1 - s0) / 20:.0f} B per figure")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path):
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def continuity(browser, site, docs) -> None:
    page = browser.new_page()
    page.goto(site.page("continuity", []))
    run = lambda doc: page.evaluate(TIMELINE_PROBE, {"motion": doc, "h": 1e-5, "samples": 50})  # noqa: E731
    print("\nTimeline continuity: knee 0 -> 40 -> 90 -> 0 deg, 1 s phases, velocity at K1 (deg/s)")
    print(f"  {'modes':<16} {'in':>7} {'out':>7}   (reference: flow>flow 45/45, flow>settle 45/91, flow>snap 45/136,")
    print(f"  {'':<16} {'':>7} {'':>7}    flow>drive 45/0, drive>flow 90/45, flow>linear 45/50)")
    for m1, m2 in (("flow", "flow"), ("flow", "settle"), ("flow", "snap"), ("flow", "drive"), ("drive", "flow"), ("flow", "linear")):
        doc = motion([{"name": "a", "d": 1, "m": m1, "q": {"knee_left": euler_quat(40)}},
                      {"name": "b", "d": 1, "m": m2, "q": {"knee_left": euler_quat(90)}},
                      {"name": "c", "d": 1, "m": "settle", "q": {"knee_left": euler_quat(0)}}], wrap=0)
        k = run(doc)["keys"][1]
        print(f"  {m1 + '>' + m2:<16} {k['vb'] * 57.29578:>7.1f} {k['va'] * 57.29578:>7.1f}")
    worst, keys, jumps_allowed = (0.0, ""), 0, 0
    for name, doc in docs.items():
        for k in run(doc)["keys"]:
            if k["inMode"] == "snap" or "linear" in (k["inMode"], k["outMode"]):
                jumps_allowed += 1
                continue
            keys += 1
            worst = max(worst, (k["jump"], f"{name} K{k['k']} {k['jumpBone']}"))
    print(f"  {len(docs)} conformance examples: {keys} keyframes where C1 is required, largest angular-velocity"
          f" jump {worst[0] * 57.29578:.4f} deg/s ({worst[1]}); {jumps_allowed} snap/linear keyframes exempt")
    page.close()


def fidelity(browser, site, docs) -> None:
    """Largest distance between the runtime's sample() and the numpy keyframe solve at phase ends,
    over the FK-only conformance examples (no contacts, no props), per avatar."""
    import math

    from posecode_ssg.language import parse
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.solve import solve_keyframes

    from pages import shared_path

    print("\nsample() vs the numpy keyframe solve at phase ends (FK-only examples: bones + landmarks)")
    for avatar in ("avatar1", "avatar2", "avatar3"):
        page = browser.new_page()
        progs, worst, count = {}, (0.0, ""), 0
        for name in docs:
            ir = parse(shared_path("conformance", "examples", f"{name}.posecode").read_text(encoding="utf-8")).ir
            prog = compile_ir(ir, avatar=avatar)
            doc = prog.to_json()
            if doc["props"] or any(p.get(k) for p in doc["phases"] for k in ("gl", "pin", "grip", "reach")):
                continue
            progs[name] = (prog, doc)
        page.goto(site.page(f"fidelity-{avatar}", [figure_html(n, d) for n, (_, d) in progs.items()]))
        page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
        for name, (prog, doc) in progs.items():
            sol = solve_keyframes(prog)
            ends, t = [], 0.0
            for ph in doc["phases"]:
                t += ph["d"]
                ends.append(t)
            samples = page.evaluate("([id, ends]) => { const el = document.getElementById(id);"
                                    " return ends.map(t => { el.seek(t); return el.sample(); }); }", [name, ends])
            for i, smp in enumerate(samples):
                w = sol.phases[i].world
                for key, pts, got in (("bone", w.pos, smp["bones"]), ("landmark", w.landmarks, smp["landmarks"])):
                    for n, p in pts.items():
                        d = math.dist(p, got[n])
                        count += 1
                        worst = max(worst, (d, f"{name} phase {i + 1} {n}"))
        print(f"  {avatar}: {len(progs)} documents, {count} points, worst {worst[0] * 1000:.3f} mm ({worst[1]})")
        page.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--screenshots", type=Path, help="write desktop/phone screenshots here")
    args = ap.parse_args()
    if not BUNDLE.exists():
        print("runtime bundle missing: pip install -e . (needs Node.js)")
        return 1
    payload()
    if not have_browser():
        print("no Chromium found (apt-get install chromium)")
        return 1
    from playwright.sync_api import sync_playwright

    names = example_names()
    docs = {n: compiled_example(n) for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        server = serve(Path(tmp))
        site = RuntimeSite(Path(tmp), f"http://127.0.0.1:{server.server_address[1]}")
        grid = ("<style>body{max-width:none}.fig{display:inline-block;width:300px;margin:4px;"
                "vertical-align:top}</style>")
        with sync_playwright() as p:
            browser = p.chromium.launch(**launch_args())
            continuity(browser, site, docs)
            fidelity(browser, site, docs)
            equipment_cost(browser, site)
            print("\nFrame cost per figure-frame, headless Chromium (SwiftShader), 1280×800")
            print(f"  {'figures':>7} {'solve ms':>9} {'draw ms':>8} {'drawn/frame':>11} {'loop fps':>8} {'WebGL contexts':>14}")
            for n in (1, 20, 200):
                figs = [figure_html(f"f{i}", docs[names[i % len(names)]]) for i in range(n)]
                url = site.page(f"bench{n}", figs, head=grid)
                page = browser.new_page(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
                page.goto(url)
                r = page.evaluate(MEASURE, 100)
                print(f"  {n:>7} {r['solve']:>9.3f} {r['draw']:>8.2f} {r['drawsPerFrame']:>11.1f} {r['fps']:>8.1f} {r['contexts']:>14}")
                page.close()
            if args.screenshots:
                args.screenshots.mkdir(parents=True, exist_ok=True)
                show = [figure_html(n, docs[n], autoplay=True) for n in SHOWCASE if n in docs]
                url = site.page("showcase", show, head="<style>.fig{margin-bottom:18px}@media(min-width:700px)"
                                "{body{max-width:1240px}.wrap{display:grid}}</style>"
                                "<style>@media(min-width:700px){body{display:grid;grid-template-columns:repeat(3,1fr);gap:14px}}</style>")
                for label, vp in (("desktop", {"width": 1280, "height": 800}), ("phone", {"width": 390, "height": 844})):
                    page = browser.new_page(viewport=vp, device_scale_factor=1)
                    page.goto(url)
                    page.evaluate("Promise.all(posecode.figures.map(f => f.ready))")
                    page.evaluate("posecode.figures.forEach(f => f.seek(f.duration * 0.3))")
                    height = page.evaluate("document.body.scrollHeight")
                    for y in range(0, height, vp["height"] // 2):   # bring every figure into view once
                        page.evaluate(f"scrollTo(0, {y})")
                        page.evaluate("posecode.frame()")
                        page.evaluate("posecode.frame()")
                    page.evaluate("scrollTo(0, 0)")
                    page.evaluate("posecode.frame()")
                    out = args.screenshots / f"runtime-{label}.png"
                    page.screenshot(path=str(out), full_page=True)
                    page.screenshot(path=str(args.screenshots / f"runtime-{label}-viewport.png"))
                    print(f"screenshot: {out}")
                    page.close()
            browser.close()
        server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
