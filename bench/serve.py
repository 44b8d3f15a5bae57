"""Benchmark: save -> browser updated, for `posecode-ssg serve`.

Copies a content folder (default: the demo library in ./content) into a
temporary project, starts `python -m posecode_ssg serve --port 0` on it, opens
one page in headless Chromium and times N saves of each kind:

- text edit: a word in a paragraph changes; the tab updates the page's <main>
  in place ("patch": the page is fetched and merged, figures kept) or, when it
  cannot, reloads. "Updated" is when the live client's merge is done, or the
  reloaded document's DOMContentLoaded end (page parsed, module scripts run).
- figure edit: one angle inside a ```posecode block changes; the tab swaps
  the figure's motion in place. "Updated" is when the live client's swap is
  done (the element's ``load(motion)`` resolved). The server's fast path
  pushes the recompiled figure before the full build finishes.

Both are measured from the moment before the file is written (wall clock,
shared by both processes) and printed as min / median / p90 / max in ms,
with the median of each stage (watcher, quiet wait, build, diff + send, to
the browser, apply) from the timing marks the server puts in its events.
Target: median <= 150 ms on the reference machine (2 cores, no GPU).

Usage: python3 bench/serve.py [--runs 20] [--content DIR] [--page REL.md]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from posecode_ssg.evaluate.browser import launch_args  # noqa: E402


def start_server(project: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "posecode_ssg", "serve", "--port", "0"],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    deadline = time.monotonic() + 300
    assert proc.stdout is not None
    for line in proc.stdout:
        print("  server:", line.rstrip())
        match = re.search(r"Serving on (http://\S+)", line)
        if match:
            return proc, match.group(1)
        if time.monotonic() > deadline:
            break
    proc.kill()
    raise SystemExit("server did not start")


def pick_page(content: Path, wanted: str | None) -> Path:
    candidates = [content / wanted] if wanted else sorted(content.rglob("*.md"))
    for path in candidates:
        text = path.read_text(encoding="utf-8")
        if "```posecode" in text and re.search(r"^    \w+: flex \d+$", text, re.M):
            return path
    raise SystemExit("no page with a posecode block and a 'flex N' line")


def output_url(base: str, content: Path, page: Path) -> str:
    rel = page.relative_to(content).with_suffix("").as_posix()
    from urllib.parse import quote

    return base + quote(rel) + "/"


def summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return (f"{name:<14} n={len(values):<3} min {values[0]:6.1f}  median {statistics.median(values):6.1f}  "
            f"p90 {p90:6.1f}  max {values[-1]:6.1f}  ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--content", default=str(REPO / "content"))
    parser.add_argument("--page", help="content-relative .md file to edit (default: first with a figure)")
    parser.add_argument("--pause-figures", action="store_true",
                        help="pause every figure so the software-WebGL animation does not compete for the CPU")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="posecode-bench-") as tmp:
        project = Path(tmp)
        shutil.copytree(args.content, project / "content")
        if (REPO / "posecode.toml").exists():
            shutil.copy(REPO / "posecode.toml", project / "posecode.toml")
        page_src = pick_page(project / "content", args.page)
        print(f"page: {page_src.relative_to(project)}")
        proc, base = start_server(project)
        try:
            url = output_url(base, project / "content", page_src)
            original = page_src.read_text(encoding="utf-8")
            flex = re.search(r"^(    \w+: flex )(\d+)$", original, re.M)
            assert flex is not None
            paragraph = next(line for line in original.splitlines()
                             if line and line[0].isalpha() and " " in line and "```" not in line
                             and ":" not in line)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(**launch_args())
                page = browser.new_page(viewport={"width": 1000, "height": 800})
                page.goto(url)
                page.wait_for_function("window.posecodeLive && window.posecodeLive.instance")
                page.wait_for_load_state("load")
                time.sleep(0.5)

                if args.pause_figures:
                    page.evaluate("Promise.all([...document.querySelectorAll('posecode-figure')]"
                                  ".map(f => f.ready.then(() => f.pause()).catch(() => {})))")
                text_ms, text_stages, text_modes = [], [], []
                for n in range(args.runs):
                    marker = f"benchword{n}x"
                    new = original.replace(paragraph, paragraph + " " + marker, 1)
                    t0 = time.time() * 1000
                    page_src.write_text(new, encoding="utf-8")
                    page.wait_for_function(f"document.body && document.body.textContent.includes('{marker}')",
                                           timeout=30000)
                    page.wait_for_load_state("domcontentloaded")
                    live = page.evaluate("({a: window.posecodeLive.appliedAt, m: window.posecodeLive.lastAction})")
                    if live["m"] == "patch":  # updated in place: the client's own mark
                        done = live["a"]
                    else:
                        done = page.evaluate(
                            "performance.timeOrigin + performance.getEntriesByType('navigation')[0]"
                            ".domContentLoadedEventEnd")
                    text_modes.append(live["m"] or "reload")
                    text_ms.append(done - t0)
                    text_stages.append(stages(page, t0, done))
                    page.wait_for_load_state("load")
                    if args.pause_figures:
                        page.evaluate("Promise.all([...document.querySelectorAll('posecode-figure')]"
                                      ".map(f => f.ready.then(() => f.pause()).catch(() => {})))")
                    time.sleep(0.4)

                page_src.write_text(original, encoding="utf-8")
                page.wait_for_function("!document.body.textContent.includes('benchword')", timeout=30000)
                page.wait_for_load_state("load")
                time.sleep(0.5)

                fig_ms, modes, fig_stages = [], [], []
                base_angle = int(flex.group(2))
                for n in range(args.runs):
                    angle = base_angle + 1 + (n % 2)
                    new = original.replace(flex.group(0), f"{flex.group(1)}{angle}", 1)
                    before = page.evaluate("window.posecodeLive ? window.posecodeLive.updates : -1")
                    version = page.evaluate("window.posecodeLive ? window.posecodeLive.version : 0")
                    t0 = time.time() * 1000
                    page_src.write_text(new, encoding="utf-8")
                    page.wait_for_function(
                        f"window.posecodeLive && (window.posecodeLive.updates > {before}"
                        f" || window.posecodeLive.updates === 0 && performance.timeOrigin > {t0})",
                        timeout=30000)
                    live = page.evaluate("({a: window.posecodeLive.appliedAt, m: window.posecodeLive.lastAction,"
                                         " o: performance.timeOrigin})")
                    if live["m"] == "figures":
                        fig_ms.append(live["a"] - t0)
                    else:  # the runtime could not swap: the page reloaded
                        page.wait_for_load_state("domcontentloaded")
                        done = page.evaluate(
                            "performance.timeOrigin + performance.getEntriesByType('navigation')[0]"
                            ".domContentLoadedEventEnd")
                        fig_ms.append(done - t0)
                    modes.append(live["m"] or "reload")
                    fig_stages.append(stages(page, t0, t0 + fig_ms[-1]))
                    # The fast path swaps before the build ends: wait for the
                    # build's own event so it does not land in the next sample.
                    page.wait_for_function(f"window.posecodeLive.version > {version}", timeout=30000)
                    time.sleep(0.4)
                browser.close()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()

    print()
    print(f"save -> browser updated, {args.runs} saves each"
          + (" (figures paused)" if args.pause_figures else " (figures playing)"))
    print(summary("text edit", text_ms) + f"   (modes: {json.dumps({m: text_modes.count(m) for m in set(text_modes)})})")
    print_stages(text_stages)
    print(summary("figure edit", fig_ms) + f"   (modes: {json.dumps({m: modes.count(m) for m in set(modes)})})")
    print_stages(fig_stages)
    return 0


STAGES = [
    ("watcher", "t0", "changeSeenAt"),
    ("quiet wait", "changeSeenAt", "buildStartAt"),
    ("build", "buildStartAt", "buildEndAt"),
    ("diff+send", "buildEndAt", "publishedAt"),
    ("to browser", "publishedAt", "receivedAt"),
    ("apply", "receivedAt", "done"),
]


def stages(page, t0: float, done: float) -> dict:
    """Per-stage times (ms) of the last update, from the server's and the client's clocks."""
    event = page.evaluate("window.posecodeLive && window.posecodeLive.lastEvent") or {}
    marks = {"t0": t0, "done": done, **(event.get("timing") or {}), "receivedAt": event.get("receivedAt")}
    return {name: marks[b] - marks[a] for name, a, b in STAGES
            if marks.get(a) is not None and marks.get(b) is not None}


def print_stages(samples: list[dict]) -> None:
    for name, _a, _b in STAGES:
        values = [s[name] for s in samples if name in s]
        if values:
            print(f"    {name:<12} median {statistics.median(values):7.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
