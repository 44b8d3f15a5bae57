"""``posecode-ssg eval PATH... [--hz 60] [--json]``: sample the real browser runtime over one
whole loop of every document and report contact fidelity (issue 5 item 4; docs/eval.md).

PATH: ``.posecode`` files, ``.md`` files (each ```` ```posecode ```` fence is one document,
reported as ``file.md:LINE``) and folders (recursive, sorted), as ``check`` finds them.

Exit status: 0 every threshold holds; 1 a threshold is crossed (violations explained by a
kinematic diagnostic of the keyframe solve do not count); 2 usage error — a missing path, a bad
``--hz``, no documents, a document that does not parse (reported ``file:line:col`` like
``check``; the others are still evaluated), or Playwright / Chromium / the runtime bundle missing.
"""

from __future__ import annotations

import json
import math
import sys
import time

from posecode_ssg.evaluate.browser import BrowserUnavailable
from posecode_ssg.evaluate.documents import load_documents
from posecode_ssg.evaluate.metrics import evaluate_samples, explain
from posecode_ssg.evaluate.report import DocumentResult, to_json, write_table
from posecode_ssg.evaluate.sampler import RuntimeMissing, RuntimePage
from posecode_ssg.site.problems import Problem
from posecode_ssg.site.report import format_diagnostic

PROG = "posecode-ssg eval"
#: sampling rates accepted (Hz); the reference's eval allows 1–120
HZ_RANGE = (1.0, 1000.0)


def _usage(msg: str) -> int:
    print(f"{PROG}: {msg}", file=sys.stderr)
    return 2


def run(args) -> int:
    """Entry point (argparse namespace with ``paths``, ``hz``, ``json``); returns the exit status."""
    hz = float(args.hz)
    if not math.isfinite(hz) or not HZ_RANGE[0] <= hz <= HZ_RANGE[1]:
        return _usage(f"--hz must be between {HZ_RANGE[0]:g} and {HZ_RANGE[1]:g} samples per second, got {args.hz}")
    docs, problems = load_documents(list(args.paths))
    for p in problems:
        print(f"{PROG}: {p}", file=sys.stderr)
    if problems:
        return 2
    if not docs:
        return _usage("no Posecode documents found in " + ", ".join(args.paths))

    results: list[DocumentResult] = []
    broken = False
    long_run = len(docs) > 5
    progress = long_run and sys.stderr.isatty()   # a live counter on a terminal only
    if all(d.motion is None for d in docs):   # nothing to sample: no browser needed
        for doc in docs:
            print(format_diagnostic(doc.checked.path, Problem.of(doc.errors[0], doc.checked.path)), file=sys.stderr)
        return 2
    try:
        with RuntimePage() as rp:
            t0 = time.monotonic()
            for i, doc in enumerate(docs, 1):
                if progress:
                    print(f"\r{PROG}: {i}/{len(docs)} {doc.name[-50:]:<50}", end="", file=sys.stderr, flush=True)
                if doc.motion is None:
                    broken = True
                    first = doc.errors[0]
                    text = format_diagnostic(doc.checked.path, Problem.of(first, doc.checked.path))
                    print(text, file=sys.stderr)
                    results.append(DocumentResult(doc.name, error=text.splitlines()[0]))
                    continue
                try:
                    samples = rp.sample(doc.motion, hz)
                except ValueError as exc:
                    results.append(DocumentResult(doc.name, error=f"{doc.name}: the runtime rejected the document: {exc}"))
                    continue
                metrics = evaluate_samples(samples, doc.motion, rp.rig)
                explain(metrics.violations, doc.kinematic, [p["name"] for p in doc.motion["phases"]])
                results.append(DocumentResult(doc.name, metrics, warnings=samples.warnings, samples=len(samples.t)))
            if long_run:
                print(("\r" if progress else "") + f"{PROG}: {len(docs)} documents sampled at {hz:g} Hz in "
                      f"{time.monotonic() - t0:.1f} s" + (" " * 40 if progress else ""), file=sys.stderr)
            for p in rp.problems:
                print(f"{PROG}: page error: {p}", file=sys.stderr)
    except (BrowserUnavailable, RuntimeMissing) as exc:
        if progress:
            print(file=sys.stderr)
        return _usage(str(exc))

    if args.json:
        json.dump(to_json(results, hz), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        write_table(results, sys.stdout, hz)
    if broken:
        return 2
    return 0 if all(r.passed for r in results) else 1
