"""Benchmark ``posecode-ssg eval`` over the conformance examples: browser start, sampling and
metric time per document, and the whole run (wall and this process's CPU time; Chromium's own
CPU is not included in the latter).

Usage: python3 bench/eval.py [--hz 60] [--examples DIR] [--per-doc]

Prints the median / max sampling time per document (one ``page.evaluate`` each), the median
metric time, the sample count and the total wall time against the issue-5 target (the 55
examples at 60 Hz "well under a minute"). Timings on a shared 2-core machine are noisy: read the
medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hz", type=float, default=60.0)
    ap.add_argument("--examples", type=Path, default=ROOT.parent / "shared" / "conformance" / "examples")
    ap.add_argument("--per-doc", action="store_true", help="print one line per document")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from posecode_ssg.evaluate.documents import load_documents
    from posecode_ssg.evaluate.metrics import evaluate_samples
    from posecode_ssg.evaluate.sampler import RuntimePage

    w0, c0 = time.perf_counter(), time.process_time()
    docs, problems = load_documents([str(args.examples)])
    if problems or not docs:
        print(f"no examples in {args.examples}", file=sys.stderr)
        return 2
    t_load = time.perf_counter() - w0
    t_sample, t_metric, counts = [], [], []
    w1 = time.perf_counter()
    with RuntimePage() as rp:
        t_launch = time.perf_counter() - w1
        for doc in docs:
            if doc.motion is None:
                continue
            a = time.perf_counter()
            s = rp.sample(doc.motion, args.hz)
            b = time.perf_counter()
            evaluate_samples(s, doc.motion, rp.rig)
            c = time.perf_counter()
            t_sample.append((b - a) * 1000)
            t_metric.append((c - b) * 1000)
            counts.append(len(s.t))
            if args.per_doc:
                print(f"{doc.name[-40:]:40s} {len(s.t):5d} samples  sample {t_sample[-1]:7.1f} ms  "
                      f"metrics {t_metric[-1]:6.1f} ms")
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    print(f"documents {len(counts)} at {args.hz:g} Hz, {sum(counts)} samples (median {statistics.median(counts):.0f})")
    print(f"parse + compile + keyframe solve {t_load:6.2f} s; browser start {t_launch:5.2f} s")
    print(f"sampling per document   median {statistics.median(t_sample):7.1f} ms  max {max(t_sample):7.1f} ms")
    print(f"metrics per document    median {statistics.median(t_metric):7.1f} ms  max {max(t_metric):7.1f} ms")
    print(f"total wall {wall:6.2f} s, Python CPU {cpu:6.2f} s (target: well under 60 s); load average "
          f"{os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
