"""Export speed (issue 25 item 4): ``python3 bench/export.py [--pages N]``.

Prints:

- GIF: a 5 s movement to a 480×360 GIF at 15 fps, wall time, Chromium's start included
  (target ≤ 6 s);
- BVH: the same movement at 30 fps, wall time, start included (when posecode_ssg/export/bvh.py
  exists; else "skipped");
- cards: a site build of N pages with ``exports = ["card"]``: the CPU of this (the build's)
  process per card once Chromium runs (target ≤ 50 ms), Chromium's own CPU per card beside it,
  and the CPU a card costs in a second build with the cards cached (target 0: no browser).

Wall times are only comparable on an idle machine (the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MOVEMENT = """posecode exercise "Bench squat {n}"
  rig humanoid
  pose start = standing

  step "Down" 2.5s settle:
    hips: flex {hip}
    knees: flex {knee}
    ankles: dorsiflex 10
    ground-lock: feet
    cue "Sit back"

  step "Up" 2.5s flow:
    hips: flex 0
    knees: flex 0
    ankles: dorsiflex 0
    ground-lock: feet
"""


def movement(n: int = 0) -> str:
    return MOVEMENT.format(n=n, hip=50 + 3 * n, knee=60 + 3 * n)


def chromium_cpu() -> float:
    """CPU seconds of this process's descendants still running (Chromium's processes)."""
    try:
        import psutil
    except ImportError:
        return float("nan")
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def bench_gif(folder: Path) -> None:
    from posecode_ssg.export.animation import write_gif
    from posecode_ssg.export.core import ExportOptions, ExportSession, load_documents

    src = folder / "squat.posecode"
    src.write_text(movement(), encoding="utf-8")
    out = folder / "squat.gif"
    start = time.perf_counter()
    with ExportSession() as session:
        docs, _failed, _problems = load_documents([str(src)])
        notes = write_gif(docs[0], ExportOptions(fmt="gif", out=out, width=480, height=360, fps=15), out, session)
    wall = time.perf_counter() - start
    print(f"GIF  5 s movement, 480×360, 15 fps: {wall:6.2f} s wall incl. Chromium start "
          f"(target ≤ 6 s; {docs[0].duration:g} s loop) — {notes[0]}")


def bench_bvh(folder: Path) -> None:
    from posecode_ssg.export import core

    if not (Path(core.__file__).parent / "bvh.py").is_file():
        print("BVH  skipped (posecode_ssg/export/bvh.py does not exist)")
        return
    src = folder / "squat.posecode"
    src.write_text(movement(), encoding="utf-8")
    out = folder / "squat.bvh"
    start = time.perf_counter()
    with core.ExportSession() as session:
        docs, _failed, _problems = core.load_documents([str(src)])
        notes = core.writer("bvh")(docs[0], core.ExportOptions(fmt="bvh", out=out, fps=30), out, session)
    wall = time.perf_counter() - start
    print(f"BVH  5 s movement, 30 fps: {wall:6.2f} s wall incl. start (target ≤ 6 s) — {notes[0] if notes else ''}")


def bench_cards(folder: Path, pages: int) -> None:
    from posecode_ssg.config import load_config
    from posecode_ssg.site import exports
    from posecode_ssg.site.build import build_site

    content = folder / "site-src" / "content"
    for n in range(pages):
        page = content / "moves" / f"squat-{n}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"---\ntitle: Squat variation {n}\n---\n\n# Squat {n}\n\n```posecode\n{movement(n)}```\n",
                        encoding="utf-8")
    (folder / "site-src" / "posecode.toml").write_text(
        'site_name = "Bench library"\nbase_url = "https://example.org/"\nexports = ["card"]\n', encoding="utf-8")
    config = load_config(None, cwd=folder / "site-src")

    made: list[tuple[float, float, float]] = []   # (this process CPU, Chromium CPU, wall) per card
    starts: list[float] = []
    real_card, real_session = exports.render_card, exports.new_session

    def started_session():
        session = real_session()
        t = time.perf_counter()
        session.runtime()   # Chromium started before the first card: its start is not a card's
        starts.append(time.perf_counter() - t)
        return session

    def timed_card(*args, **kwargs):
        c0, b0, w0 = time.process_time(), chromium_cpu(), time.perf_counter()
        data = real_card(*args, **kwargs)
        made.append((time.process_time() - c0, chromium_cpu() - b0, time.perf_counter() - w0))
        return data

    exports.render_card, exports.new_session = timed_card, started_session
    try:
        c0 = time.process_time()
        result = build_site(config, progress=False)
        cold_cpu = time.process_time() - c0
        if result.errors:
            print("cards: the build failed:", result.errors[0][1].message)
            return
        n = len(made)
        mine = 1000 * sum(m[0] for m in made) / max(n, 1)
        chrome = 1000 * sum(m[1] for m in made) / max(n, 1)
        wall = 1000 * sum(m[2] for m in made) / max(n, 1)
        print(f"card {n} pages: {mine:6.1f} ms CPU per card in the build process once Chromium runs "
              f"(target ≤ 50 ms); Chromium {chrome:.0f} ms CPU, {wall:.0f} ms wall per card; "
              f"Chromium start {starts[0]:.2f} s; whole build {cold_cpu:.2f} s CPU")
        # cached: the prose changes, the figures do not
        for page in sorted(content.rglob("*.md")):
            page.write_text(page.read_text(encoding="utf-8") + "\nMore prose.\n", encoding="utf-8")
        made.clear()
        starts.clear()
        c0 = time.process_time()
        result = build_site(config, progress=False)
        cached_cpu = time.process_time() - c0
        print(f"card cached: {len(made)} cards made, {len(starts)} browsers started: 0 ms per card "
              f"(exports step {1000 * result.timings.get('exports', 0.0):.1f} ms wall for {pages} pages; "
              f"whole build {cached_cpu:.2f} s CPU)")
    finally:
        exports.render_card, exports.new_session = real_card, real_session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=8, help="pages of the card build (default 8)")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="posecode-bench-export-") as tmp:
        folder = Path(tmp)
        bench_gif(folder)
        bench_bvh(folder)
        bench_cards(folder, args.pages)


if __name__ == "__main__":
    main()
