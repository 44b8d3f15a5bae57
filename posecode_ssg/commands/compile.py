"""``posecode-ssg compile FILE [--json] [--poster OUT.svg]``: inspect one document's compiled motion.

FILE is a ``.posecode`` file, or a ``.md`` file whose ``--fence N``-th ```` ```posecode ```` fence
(default the first) is used; a page with more fences says so on standard error.
Diagnostics (the parser's, then the motion compiler's ``kinematic-*`` warnings) go to standard
error in the same compiler format as ``check``; standard output gets a one-screen summary, or the
compact motion JSON with ``--json`` (see docs/motion-json.md). ``--poster`` writes the SVG poster.

Exit status: 0 compiled (warnings do not fail), 1 the document has errors, 2 usage error (missing
file, no Posecode fence, unwritable poster path).
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

from posecode_ssg.checking import add_kinematics, check_file
from posecode_ssg.commands.check import format_text


def _summary(program, doc: dict, ms: float) -> str:
    raw = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    lines = [
        f"{program.name} ({program.kind}), avatar {program.avatar}, start pose {program.start_pose}",
        f"  {len(program.keyframes)} phase{'' if len(program.keyframes) == 1 else 's'}, loop {program.duration:g} s (wrap {program.wrap:g} s), "
        f"repeat {program.repeat}",
    ]
    for kf in program.keyframes:
        extra = []
        if kf.ground_lock:
            extra.append("ground-lock " + ", ".join(kf.ground_lock))
        for kind, items in (("pin", kf.pins), ("grip", kf.grips), ("reach", kf.reaches)):
            extra += [f"{kind} {c.effector} {c.target}" for c in items]
        lines.append(f"  - {kf.name}: {kf.duration:g} s {kf.mode}" + (f"; {'; '.join(extra)}" if extra else ""))
    lines.append(f"  motion JSON {len(raw)} bytes ({len(gzip.compress(raw))} gzipped), compiled in {ms:.1f} ms")
    return "\n".join(lines)


def run(args) -> int:
    """Entry point of ``posecode-ssg compile`` (namespace with ``file``, ``json``, ``poster``, ``fence``)."""
    from posecode_ssg.motion.poster import render_poster

    path = Path(args.file)
    if not path.is_file():
        print(f"posecode-ssg compile: no such file: {args.file}", file=sys.stderr)
        return 2
    docs = check_file(path)
    if not docs:
        print(f"posecode-ssg compile: {args.file} holds no ```posecode fence", file=sys.stderr)
        return 2
    n = getattr(args, "fence", 1)
    if not 1 <= n <= len(docs):
        print(f"posecode-ssg compile: {args.file} has {len(docs)} ```posecode fence"
              f"{'' if len(docs) == 1 else 's'}, not {n}", file=sys.stderr)
        return 2
    doc = docs[n - 1]
    if len(docs) > 1:
        lines = ", ".join(f"{k} (line {d.fence_line})" for k, d in enumerate(docs, 1))
        print(f"note: {args.file} has {len(docs)} ```posecode fences: {lines}; compiling fence {n} "
              f"(--fence N picks another)", file=sys.stderr)
    t0 = time.perf_counter()
    program = add_kinematics(doc)
    ms = (time.perf_counter() - t0) * 1000
    format_text([doc], sys.stderr)
    if program is None:
        return 1
    motion = program.to_json()
    if args.poster:
        try:
            Path(args.poster).write_text(render_poster(program), encoding="utf-8")
        except OSError as exc:
            print(f"posecode-ssg compile: cannot write {args.poster}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if args.json:
        sys.stdout.write(json.dumps(motion, separators=(",", ":"), ensure_ascii=False) + "\n")
    else:
        print(_summary(program, motion, ms))
        if args.poster:
            print(f"  poster written to {args.poster}")
    return 0
