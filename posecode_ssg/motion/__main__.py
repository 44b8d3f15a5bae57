"""Maintenance entry points of the motion package (not part of ``posecode-ssg``'s CLI).

    python3 -m posecode_ssg.motion sheet OUT.svg FILE.posecode...   contact sheet of posters
    python3 -m posecode_ssg.motion gif OUT.gif FILE.posecode         animated GIF preview (Pillow)
    python3 -m posecode_ssg.motion rig OUT.json                      write rig.json
    python3 -m posecode_ssg.motion schema OUT.json                   write motion.schema.json

Files that do not parse are reported on standard error and skipped. Exit status 0, or 1 when a
file failed, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _load(paths: list[str]):
    from posecode_ssg.language import parse

    from . import compile_ir

    programs, failed = [], 0
    for name in paths:
        try:
            text = Path(name).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{name}: cannot read: {exc}", file=sys.stderr)
            failed += 1
            continue
        result = parse(text)
        if result.ir is None:
            for d in result.errors:
                print(f"{name}:{d.line}:{d.column}: error[{d.code}]: {d.message}", file=sys.stderr)
            failed += 1
            continue
        programs.append(compile_ir(result.ir))
    return programs, failed


def main(argv: list[str] | None = None) -> int:
    """Run the maintenance command in ``argv`` (default ``sys.argv[1:]``); returns the status."""
    ap = argparse.ArgumentParser(prog="python3 -m posecode_ssg.motion", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("sheet", help="contact sheet SVG of several documents")
    p.add_argument("out")
    p.add_argument("files", nargs="+")
    p.add_argument("--columns", type=int, default=4)
    p = sub.add_parser("gif", help="animated GIF preview of one document")
    p.add_argument("out")
    p.add_argument("file")
    p.add_argument("--fps", type=int, default=12)
    p = sub.add_parser("rig", help="write rig.json")
    p.add_argument("out")
    p = sub.add_parser("schema", help="write the motion JSON schema (motion.schema.json)")
    p.add_argument("out")
    args = ap.parse_args(argv)

    if args.cmd == "schema":
        from .schema import write_motion_schema

        write_motion_schema(args.out)
        return 0

    if args.cmd == "rig":
        from .rigjson import write_rig_json

        write_rig_json(args.out)
        return 0
    from .gif import render_gif
    from .poster import render_contact_sheet

    programs, failed = _load(args.files if args.cmd == "sheet" else [args.file])
    if not programs:
        return 1
    try:
        if args.cmd == "sheet":
            Path(args.out).write_text(render_contact_sheet(programs, columns=args.columns), encoding="utf-8")
        else:
            render_gif(programs[0], args.out, fps=args.fps)
    except (OSError, RuntimeError) as exc:
        print(f"cannot write {args.out}: {exc}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
