"""``posecode-ssg new DIR``: scaffold a movement library that builds at once.

Writes ``posecode.toml``, ``content/index.md`` (the library home),
``content/exercises/_index.md`` and one exercise page with a posecode
fence and complete front matter, plus a ``.gitignore`` for the output and
cache folders. Refuses to write into a non-empty folder (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FILES: dict[str, str] = {
    "posecode.toml": '''# posecode-ssg configuration (see docs/site.md for every key)
site_name = "{name}"
# base_url = "https://example.org/movement/"   # where the site will live; subpaths work
content_dir = "content"
output_dir = "site"
default_view = "auto"
strict = false
''',
    ".gitignore": "site/\n.posecode-cache/\n",
    "content/index.md": '''---
title: {name}
summary: A library of movements written in Posecode.
---

# {name}

Each page describes one movement in words and in a ```` ```posecode ```` block,
which the build turns into an animated figure with a still poster.

Start with the [exercises](exercises/_index.md).
''',
    "content/exercises/_index.md": '''---
title: Exercises
summary: Every exercise of the library.
---

# Exercises

Add a Markdown file here for each exercise.
''',
    "content/exercises/bodyweight-squat.md": '''---
title: Bodyweight squat
summary: Sit the hips down between the heels and stand back up, feet flat.
level: beginner
category: strength
equipment: [none]
primary_muscles: [quadriceps, glutes]
secondary_muscles: [hamstrings, core]
tags: [squat, legs]
---

# Bodyweight squat

Stand with the feet hip-width apart, then sit down between the heels and
stand back up.

```posecode title="Bodyweight squat"
posecode exercise "Bodyweight squat"
  rig humanoid
  pose start = standing

  step "Sit down" 1.8s settle:
    hips: flex 80
    knees: flex 95
    ankles: dorsiflex 15
    shoulders: flex 80
    ground-lock: feet
    cue "Hips and knees bend together, heels stay down"

  step "Stand up" 1.2s drive:
    hips: flex 0
    knees: flex 0
    ankles: dorsiflex 0
    shoulders: flex 0
    ground-lock: feet
    cue "Push the floor away"

  repeat 10
```

## Coaching points

- Keep the whole foot on the floor.
- Go only as deep as you can with a long back.
''',
}


def scaffold(target: Path) -> list[Path]:
    """Write the starter files into ``target`` (created if missing); returns the written paths.

    :raises FileExistsError: ``target`` exists and is not empty.
    """
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise FileExistsError(f"{target} exists and is not an empty folder")
    name = target.resolve().name.replace("-", " ").replace("_", " ").strip().capitalize() or "Movement library"
    name = name.replace("\\", "").replace('"', "")
    written = []
    for rel, text in FILES.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{name}", name), encoding="utf-8")
        written.append(path)
    return written


def run(args: argparse.Namespace) -> int:
    """Scaffold ``args.dir``; returns 0, or 2 when the folder is not empty."""
    target = Path(args.dir)
    try:
        written = scaffold(target)
    except FileExistsError as exc:
        print(f"posecode-ssg new: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"created {path}")
    print(f"next: cd {target} && posecode-ssg build")
    return 0
