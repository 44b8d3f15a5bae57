"""Benchmark the Posecode parser: ms per document over the conformance examples.

Usage: python3 bench/parse.py [--rounds N] [--examples DIR]

Parses every ``*.posecode`` of ../shared/conformance/examples (55 documents) N times and prints
the mean and best per-document time. Target: <= 1 ms per document (issue 2). The lark grammar is
built once at import, so the import time is printed separately.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--examples", type=Path, default=ROOT.parent / "shared" / "conformance" / "examples")
    args = ap.parse_args()

    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    from posecode_ssg.language import parse  # noqa: E402 (timed import: grammar build)

    parse("")
    import_ms = (time.perf_counter() - t0) * 1000

    docs = [p.read_bytes().decode("utf-8") for p in sorted(args.examples.glob("*.posecode"))]
    if not docs:
        print(f"no .posecode files in {args.examples}", file=sys.stderr)
        return 2
    lines = sum(d.count("\n") + 1 for d in docs)
    for d in docs:  # warm-up, and make sure the corpus is clean
        assert parse(d).ir is not None
    per_round = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for d in docs:
            parse(d)
        per_round.append((time.perf_counter() - start) * 1000 / len(docs))
    print(f"import + grammar build: {import_ms:.1f} ms")
    print(f"documents: {len(docs)} ({lines / len(docs):.0f} lines each on average), rounds: {args.rounds}")
    print(f"parse: median {statistics.median(per_round):.3f} ms/doc, best {min(per_round):.3f} ms/doc "
          f"(target <= 1 ms/doc)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
