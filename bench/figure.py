"""Benchmark one figure of the build: CPU milliseconds per stage of ``compile_figure``.

    python3 bench/figure.py [--figures 30] [--rounds 5]

The figures are bench/build.py's generated blocks (a two-phase squat with ``ground-lock: feet``,
angles varying by page and figure), the blocks a cold build of the 1,000-page benchmark library
compiles. Each round compiles ``--figures`` new, distinct blocks (no round repeats another's
angles), timing each stage with ``time.process_time`` (CPU time: the machine is shared; wall
times under load mean little): parse (text -> IR), compile (IR -> motion program), JSON (the
compact motion JSON), solve (keyframe solve + kinematic diagnostics), view (the poster's view
choice) and poster (the SVG), then ``compile_figure`` whole. The minimum over rounds is printed,
with the load average. A cold build costs about figures-per-page x the ``compile_figure`` figure
per page, plus the site generator's own share (bench/build.py "cold, figs cached"), over the
machine's cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build import block  # noqa: E402

from posecode_ssg.language import parse  # noqa: E402
from posecode_ssg.motion import compile_ir  # noqa: E402
from posecode_ssg.motion.poster import choose_view, render_poster  # noqa: E402
from posecode_ssg.motion.diagnostics import kinematic_diagnostics  # noqa: E402
from posecode_ssg.site.figures import compile_figure  # noqa: E402

STAGES = ("parse", "compile", "json", "solve", "view", "poster")


def one_round(first_page: int, figures: int) -> dict[str, float]:
    """CPU ms per figure of each stage over ``figures`` blocks starting at page ``first_page``."""
    total = dict.fromkeys(STAGES, 0.0)
    sources = [block(first_page + i, i % 3) for i in range(figures)]
    for source in sources:
        marks = [time.process_time()]
        result = parse(source)
        marks.append(time.process_time())
        program = compile_ir(result.ir)
        marks.append(time.process_time())
        program.to_json()
        marks.append(time.process_time())
        kinematic_diagnostics(program)
        marks.append(time.process_time())
        view = choose_view(program)
        marks.append(time.process_time())
        render_poster(program, view=view, title=result.ir.name)
        marks.append(time.process_time())
        for stage, a, b in zip(STAGES, marks, marks[1:]):
            total[stage] += (b - a) * 1000 / figures
    start = time.process_time()
    for i in range(figures):   # the same work through the build's entry point, on fresh blocks
        compile_figure(block(first_page + 50_000 + i, i % 3))
    total["compile_figure"] = (time.process_time() - start) * 1000 / figures
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--figures", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (CPU times; they still grow under heavy load)")
    compile_figure(block(99_999, 0))   # imports, parser tables, caches of the rig
    best: dict[str, float] | None = None
    for r in range(args.rounds):
        times = one_round(1000 * (r + 1), args.figures)
        best = times if best is None else {k: min(best[k], v) for k, v in times.items()}
    assert best is not None
    print("CPU ms per figure (min of rounds): " + "  ".join(f"{k} {v:.2f}" for k, v in best.items()))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
