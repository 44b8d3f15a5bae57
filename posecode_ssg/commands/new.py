"""``posecode-ssg new DIR [--template basic|physio|fitness]``: scaffold a movement library that
builds at once.

Each template is a folder of ``posecode_ssg/scaffolds/`` copied into DIR, ``{name}`` in its
text files replaced by the library's name (DIR's name, capitalised) and ``gitignore`` written
as ``.gitignore`` (a leading dot would hide it from the package):

- ``basic``: ``posecode.toml``, the library home, a section and one exercise page;
- ``physio``: a home-exercise library: exercises with prescriptions (sets, reps, holds, rest,
  how often) and a home program (docs/programs.md) to print as a handout;
- ``fitness``: a gym library: loaded exercises with sets, reps, rest and load, and a
  full-body session program.

Refuses to write into a non-empty folder (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: the scaffolds' folder (package data)
SCAFFOLDS = Path(__file__).resolve().parent.parent / "scaffolds"

#: template name -> what it makes (``posecode-ssg new --help``)
TEMPLATES: dict[str, str] = {
    "basic": "one section and one exercise",
    "physio": "home exercises with prescriptions and a printable home program",
    "fitness": "gym exercises with sets, reps and loads, and a session program",
}


def scaffold(target: Path, template: str = "basic") -> list[Path]:
    """Write the starter files of ``template`` (a key of :data:`TEMPLATES`) into ``target``
    (created if missing); returns the written paths.

    :raises FileExistsError: ``target`` exists and is not empty.
    :raises KeyError: no such template.
    """
    if template not in TEMPLATES:
        raise KeyError(template)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise FileExistsError(f"{target} exists and is not an empty folder")
    name = target.resolve().name.replace("-", " ").replace("_", " ").strip().capitalize() or "Movement library"
    name = name.replace("\\", "").replace('"', "")
    source = SCAFFOLDS / template
    written = []
    for path in sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        rel = path.relative_to(source).as_posix()
        out = target / (".gitignore" if rel == "gitignore" else rel)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(path.read_text(encoding="utf-8").replace("{name}", name), encoding="utf-8")
        written.append(out)
    return written


def run(args: argparse.Namespace) -> int:
    """Scaffold ``args.dir`` from ``args.template``; returns 0, or 2 when the folder is not empty."""
    target = Path(args.dir)
    try:
        written = scaffold(target, getattr(args, "template", "basic") or "basic")
    except FileExistsError as exc:
        print(f"posecode-ssg new: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"created {path}")
    print(f"next: cd {target} && posecode-ssg build")
    return 0
