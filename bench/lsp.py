"""Benchmark the language server's diagnostics latency (issue 26 item 1) over stdio.

Usage: python3 bench/lsp.py [--edits N] [--phases P] [--burst K]

Starts ``python -m posecode_ssg lsp --stdio`` (this checkout), opens a ``P``-phase document
(default 10; every phase has a reach that ends short, so the kinematic solve always reports) and
types: each edit changes one angle (an incremental ``didChange``, one character replaced). For
every edit it measures, from the moment the change is written to the server's stdin,

- **parser**: until the first ``publishDiagnostics`` of that version (the fast path);
- **kinematic**: until the publish of that version that carries the solve's ``kinematic-*``
  diagnostics (debounce + solve).

A second run types ``K`` characters 30 ms apart (a burst) and measures the kinematic latency
after the last one (earlier versions must not be solved meanwhile). Prints median, p90 and max.
Targets: parser ≤ 50 ms, kinematic ≤ 300 ms after the last change (10 phases).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def document(phases: int) -> str:
    steps = []
    for i in range(phases):
        steps.append(
            f'  step "Phase {i + 1} 💪" 1s {"settle" if i % 2 else "drive"}:\n'
            f"    hips: flex {20 + 3 * i}\n"
            f"    knees: flex {25 + 2 * i}\n"
            f"    reach: hand_left ankle_left\n"
            f"    ground-lock: feet\n"
            f'    cue "Phase {i + 1}: reach down 👇"\n')
    return ('posecode exercise "Latency bench"\n  rig humanoid\n  pose start = standing\n\n'
            + "\n".join(steps) + "  repeat 3\n")


def stats(name: str, values: list[float], target: float) -> str:
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, int(round(0.9 * (len(ms) - 1))))]
    verdict = "ok" if p90 <= target else "OVER TARGET"
    return (f"{name:<28} median {statistics.median(ms):6.1f} ms   p90 {p90:6.1f} ms   max {ms[-1]:6.1f} ms"
            f"   (n={len(ms)}, target <= {target:.0f} ms: {verdict})")


async def run(edits: int, phases: int, burst: int) -> int:
    from lsprotocol import types as T
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    events: list[tuple[float, int, bool]] = []   # (time, version, has kinematic)

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: T.PublishDiagnosticsParams):
        kin = any(str(d.code).startswith("kinematic-") for d in params.diagnostics)
        events.append((time.perf_counter(), params.version or 0, kin))

    await client.start_io(sys.executable, "-m", "posecode_ssg", "lsp", "--stdio", cwd=str(ROOT))
    t0 = time.perf_counter()
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(
        general=T.GeneralClientCapabilities(position_encodings=["utf-16"]))))
    client.initialized(T.InitializedParams())
    start_ms = (time.perf_counter() - t0) * 1000
    uri = "file:///bench/latency.posecode"
    text = document(phases)
    lines = text.split("\n")
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id="posecode", version=1, text=text)))

    async def wait(version: int, kinematic: bool, timeout: float = 10.0) -> float:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for t, v, k in events:
                if v == version and (k or not kinematic):
                    return t
            await asyncio.sleep(0.001)
        raise SystemExit(f"no publish for version {version} (kinematic={kinematic}) within {timeout} s")

    await wait(1, True)
    # the edits: the hips angle of a phase (one digit replaced)
    hips = [i for i, ln in enumerate(lines) if ln.startswith("    hips: flex ")]
    version = 1
    parser, kinematic = [], []

    def type_digit(k: int) -> None:
        nonlocal version
        version += 1
        line = hips[k % len(hips)]
        col = len(lines[line]) - 1
        digit = str((int(lines[line][col]) + 1) % 10)
        lines[line] = lines[line][:col] + digit
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[T.TextDocumentContentChangePartial(
                range=T.Range(start=T.Position(line=line, character=col), end=T.Position(line=line, character=col + 1)),
                text=digit)]))

    for k in range(edits):
        sent = time.perf_counter()
        type_digit(k)
        parser.append(await wait(version, False) - sent)
        kinematic.append(await wait(version, True) - sent)
        await asyncio.sleep(0.1)
    bursts = []
    for round_ in range(max(1, edits // 4)):
        for k in range(burst):
            type_digit(round_ + k)
            last_sent = time.perf_counter()
            if k < burst - 1:
                await asyncio.sleep(0.03)
        first_version = version - burst + 1
        bursts.append(await wait(version, True) - last_sent)
        solved_early = [v for _t, v, kin in events if kin and first_version <= v < version]
        if solved_early:
            print(f"note: versions {solved_early} were solved during the burst", file=sys.stderr)
        await asyncio.sleep(0.2)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.2)
    await client.stop()

    print(f"posecode-ssg lsp: {phases}-phase document ({len(text.splitlines())} lines), "
          f"server ready in {start_ms:.0f} ms")
    print(stats("parser diagnostics", parser, 50))
    print(stats("kinematic diagnostics", kinematic, 300))
    print(stats(f"kinematic after a {burst}-key burst", bursts, 300))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--phases", type=int, default=10)
    ap.add_argument("--burst", type=int, default=5)
    args = ap.parse_args()
    return asyncio.run(run(args.edits, args.phases, args.burst))


if __name__ == "__main__":
    sys.exit(main())
