"""``posecode-ssg new DIR [--template basic|physio|fitness] [--language TAG] [--title TEXT]``:
scaffold a movement library that builds at once.

Each template is a folder of ``posecode_ssg/scaffolds/`` copied into DIR, ``{name}`` in its
text files replaced by the library's name (``--title``, else DIR's name as written: ``-`` and
``_`` as spaces, a first letter capitalised only in an all-lower-case name) and ``gitignore``
written as ``.gitignore`` (a leading dot would hide it from the package). With ``--language``
(a BCP 47 tag: ``de``, ``pt-BR``) the site's ``language`` is set, and a starter written in that
language is used where one exists (``scaffolds/<template>-<language>/``: ``basic-de``); else the
pages are English (the interface is in the language) and the command says so:

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


def library_name(target: Path, title: str | None = None) -> str:
    """The library's name: ``title`` as given, else the folder's name as written (``-`` and ``_``
    as spaces; the first letter capitalised only when the name is all lower case, so
    ``Physio-Übungen`` stays ``Physio Übungen`` and ``übungen`` becomes ``Übungen``)."""
    name = (title or "").strip()
    if not name:
        name = target.resolve().name.replace("-", " ").replace("_", " ").strip()
        if name == name.lower():
            name = name[:1].upper() + name[1:]
    return name.replace("\\", "").replace('"', "") or "Movement library"


def starter_folder(template: str, language: str | None) -> Path:
    """The scaffold folder of ``template`` in ``language`` (along its fallback chain), else the
    English one."""
    if language:
        from posecode_ssg.i18n import fallback_chain

        for tag in fallback_chain(language):
            folder = SCAFFOLDS / (template if tag == "en" else f"{template}-{tag}")
            if folder.is_dir():
                return folder
    return SCAFFOLDS / template


def scaffold(target: Path, template: str = "basic", language: str | None = None,
             title: str | None = None) -> list[Path]:
    """Write the starter files of ``template`` (a key of :data:`TEMPLATES`) into ``target``
    (created if missing), in ``language`` (a BCP 47 tag; None: English) where a starter in it
    exists (:func:`starter_folder`), with the site's ``language`` set; returns the written paths.

    :raises FileExistsError: ``target`` exists and is not empty.
    :raises KeyError: no such template.
    """
    if template not in TEMPLATES:
        raise KeyError(template)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise FileExistsError(f"{target} exists and is not an empty folder")
    name = library_name(target, title)
    source = starter_folder(template, language)
    written = []
    for path in sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        rel = path.relative_to(source).as_posix()
        out = target / (".gitignore" if rel == "gitignore" else rel)
        out.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text(encoding="utf-8").replace("{name}", name)
        if rel == "posecode.toml" and language:
            text = set_language(text, language)
        out.write_text(text, encoding="utf-8")
        written.append(out)
    return written


def set_language(config_text: str, language: str) -> str:
    """``posecode.toml`` text with ``language = "<tag>"`` (replacing a ``language`` line, else
    after ``site_name``)."""
    from posecode_ssg.i18n import normalise_tag

    line = f'language = "{normalise_tag(language)}"'
    lines = config_text.splitlines()
    for i, raw in enumerate(lines):
        if raw.split("=")[0].strip() == "language":
            lines[i] = line
            return "\n".join(lines) + "\n"
    at = next((i + 1 for i, raw in enumerate(lines) if raw.split("=")[0].strip() == "site_name"), len(lines))
    lines.insert(at, line)
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Scaffold ``args.dir`` from ``args.template``; returns 0, or 2 when the folder is not empty."""
    target = Path(args.dir)
    try:
        template, language = getattr(args, "template", "basic") or "basic", getattr(args, "language", None)
        written = scaffold(target, template, language, getattr(args, "title", None))
    except FileExistsError as exc:
        print(f"posecode-ssg new: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"created {path}")
    if language and starter_folder(template, language).name == template and not language.lower().startswith("en"):
        print(f"note: no {template} starter written in '{language}' yet: its pages are English, "
              f"the interface is in '{language}' (language in posecode.toml)")
    print(f"next: cd {target} && posecode-ssg build")
    return 0
