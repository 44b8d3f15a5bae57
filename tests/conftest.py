"""Shared fixtures: locate ../shared (test data provided beside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("POSECODE_SHARED", REPO.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, skipping the calling test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        # also at a test module's import (a module of cases collected from the folder)
        pytest.skip(f"shared test data not found: {path}", allow_module_level=True)
    return path


@pytest.fixture
def shared():
    """The ../shared folder (skips the test when absent)."""
    return shared_path()


#: a page whose squat's centre of mass falls behind its heels at the end of 'Down' (the file's
#: line 8): a kinematic-balance hint (tests/site/test_build.py, tests/serve/test_serve_cases.py)
DEEP_SQUAT_PAGE = """# Deep squat

```posecode
posecode exercise "Deep squat"
  rig humanoid
  pose start = standing

  step "Down" 2s settle:
    hips: flex 100
    knees: flex 110
    ground-lock: feet

  step "Up" 2s drive:
    hips: flex 0
    knees: flex 0
    ground-lock: feet
```
"""


#: a two-step nod that repeats 3 times, as a page's fence (prescription tests: the rep counter
#: counts to the page's `reps`, else to this `repeat`)
NOD_FIGURE = """```posecode autoplay=false
posecode posture "Nod"
  rig humanoid
  step "Nod" 1s settle:
    neck: flex 15
    cue "Chin down a little"
  step "Up" 1s settle:
    neck: flex 0
    cue "Back to level"
  repeat 3
```
"""
