"""Benchmark the motion compiler over the conformance examples: compiled size and time per document.

Usage: python3 bench/motion.py [--rounds N] [--examples DIR] [--per-doc]

For every ``*.expected.json`` of ../shared/conformance/examples (55 documents) it rebuilds the IR,
then times, per document: ``compile_ir`` alone, the keyframe solve + kinematic diagnostics, and the
SVG poster + phase strip (the solve is cached on the program, so the poster times exclude it). It
prints the compact motion JSON size (raw and gzipped: median, max) against the issue-3 target
(median gzipped <= 1.5 KB) and the median / mean / max milliseconds per document.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--examples", type=Path, default=ROOT.parent / "shared" / "conformance" / "examples")
    ap.add_argument("--per-doc", action="store_true", help="print one line per document")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from posecode_ssg.language.ir import IR
    from posecode_ssg.motion import compile_ir
    from posecode_ssg.motion.poster import render_phase_strip, render_poster
    from posecode_ssg.motion.diagnostics import kinematic_diagnostics

    files = sorted(args.examples.glob("*.expected.json"))
    if not files:
        print(f"no examples in {args.examples}", file=sys.stderr)
        return 2
    irs = [(f.name.split(".")[0], IR.from_dict(json.loads(f.read_text())["ir"])) for f in files]
    raw_sizes, gz_sizes = [], []
    t_compile, t_solve, t_poster = [], [], []
    for name, ir in irs:
        best_c = best_s = best_p = float("inf")
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            program = compile_ir(ir)
            doc = program.to_json()
            t1 = time.perf_counter()
            diags = kinematic_diagnostics(program)
            t2 = time.perf_counter()
            render_poster(program)
            render_phase_strip(program)
            t3 = time.perf_counter()
            best_c, best_s, best_p = min(best_c, t1 - t0), min(best_s, t2 - t1), min(best_p, t3 - t2)
        raw = json.dumps(doc, separators=(",", ":")).encode("utf-8")
        raw_sizes.append(len(raw))
        gz_sizes.append(len(gzip.compress(raw, 9)))
        t_compile.append(best_c * 1000)
        t_solve.append(best_s * 1000)
        t_poster.append(best_p * 1000)
        if args.per_doc:
            print(f"{name:28s} {len(raw):6d} B {gz_sizes[-1]:5d} B gz  compile {t_compile[-1]:6.2f} ms  "
                  f"solve {t_solve[-1]:6.1f} ms  poster {t_poster[-1]:6.1f} ms  {len(diags)} kinematic")

    def row(label, xs, unit):
        return (f"{label:34s} median {statistics.median(xs):8.2f} {unit}  mean {statistics.mean(xs):8.2f} {unit}"
                f"  max {max(xs):8.2f} {unit}")

    print(f"{len(irs)} documents, best of {args.rounds} rounds each")
    print(row("motion JSON size", raw_sizes, "B "))
    print(row("motion JSON size, gzipped", gz_sizes, "B "))
    target = statistics.median(gz_sizes) <= 1536
    print(f"target: median gzipped <= 1.5 KB (1536 B): {'met' if target else 'NOT met'}")
    print(row("compile_ir + to_json", t_compile, "ms"))
    print(row("keyframe solve + diagnostics", t_solve, "ms"))
    print(row("poster + phase strip", t_poster, "ms"))
    total = [a + b + c for a, b, c in zip(t_compile, t_solve, t_poster)]
    print(row("total per document", total, "ms"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
