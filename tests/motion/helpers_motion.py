"""Helpers shared by the motion tests (not a test module), and Posecode sources that the numpy
solve's tests and the browser runtime's (playwright_tests/, as ``tests.motion.helpers_motion``)
both check: the same movement through both solvers; and :func:`demo_figure`, a figure of the demo
library's content/ pages with the equipment the build draws on it.

``shared_path`` is tests/conftest.py's, loaded by file path under a private module name: test
folders without ``__init__.py`` share the module name ``conftest``, so ``from conftest import``
could pick up another tree's conftest depending on collection order.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir

_NAME = "posecode_tests_root_conftest"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).resolve().parent.parent / "conftest.py")
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _mod
    _spec.loader.exec_module(_mod)
shared_path = sys.modules[_NAME].shared_path

#: the demo library's pages (the repository's content/ folder)
CONTENT = Path(__file__).resolve().parents[2] / "content"


def demo_figure(rel: str) -> tuple[str, tuple[str, ...]]:
    """(Posecode source, equipment words) of the first ```posecode fence of content/``rel``, the
    words as the build decides them (site/compilation.py ``figure_options``): the fence's
    ``equipment`` attribute when it has one, else what the page's front matter lists
    (motion/equipment.py ``page_equipment``)."""
    from posecode_ssg.motion.equipment import page_equipment
    from posecode_ssg.site.fences import extract_posecode_blocks, front_matter

    text = (CONTENT / rel).read_text(encoding="utf-8")
    block = extract_posecode_blocks(text)[0]
    if "equipment" in block.attrs:
        return block.source, tuple(block.attrs["equipment"])
    return block.source, tuple(page_equipment(front_matter(text).get("equipment")))


def compile_source(src: str, **kw):
    """Parse a Posecode document (dedented) and compile it; fails the test on parse errors."""
    result = parse(textwrap.dedent(src).lstrip("\n"))
    assert not result.errors, [d.to_dict() for d in result.errors]
    return compile_ir(result.ir, **kw)


#: A quarter turn on 'ground-lock: feet' while the right foot has only just come down (free in the
#: phase before, so no support yet): the left foot is the pivot (test_motion_solve.py,
#: playwright_tests/test_runtime_contacts.py).
PIVOT_ON_THE_STANDING_FOOT = """posecode exercise "Turn on the standing foot"
  rig humanoid
  pose start = standing

  step "Lift" 1s settle:
    hip_right: flex 40
    knee_right: flex 60
    ground-lock: foot_left

  step "Set down" 1s settle:
    hip_right: flex 0
    knee_right: flex 0
    ground-lock: foot_left

  step "Turn" 1.2s settle:
    turn: 90
    ground-lock: feet

  step "Back" 1.2s settle:
    turn: 0
    ground-lock: feet
"""

#: Standing on the box (the right foot pinned to it), the left foot lowered from over the box to
#: the floor by a floor reach: one step of a document with ``prop box`` (test_motion_solve.py,
#: playwright_tests/test_runtime_contacts.py and test_runtime_collide.py).
LOWER_THE_LEFT_FOOT_FROM_THE_BOX = """  step "Lower the left foot" 1.5s settle:
    hip_right: flex 70
    knee_right: flex 85
    ankle_right: dorsiflex 15
    hip_left: flex 0
    knee_left: flex 0
    pin: foot_right box
    reach: foot_left floor
"""

#: Up on the box (the right foot pinned), then :data:`LOWER_THE_LEFT_FOOT_FROM_THE_BOX`.
LOWER_FROM_THE_BOX = """posecode exercise "Lower from the box"
  rig humanoid
  prop box
  pose start = standing

  step "Up" 1.3s settle:
    hip_left: flex 70
    knee_left: flex 90
    pin: foot_right box

""" + LOWER_THE_LEFT_FOOT_FROM_THE_BOX


#: content/rehab/prone-on-elbows.md's first phases as first written: the arms swing from beside
#: the body (shoulders at 0) through the floor to under the shoulders (issue 18: the runtime lifted
#: the pinned pelvis 392 mm; the arms of a lying body now swing out along the floor)
PRONE_ON_ELBOWS = """
posecode stretch "Prone on elbows"
  rig humanoid
  pose start = prone:
    ankles: plantarflex 50
  step "Up onto the elbows" 2s settle:
    spine: extend 30
    chest: extend 20
    neck: extend 10
    shoulders: flex 70
    elbows: flex 70
    pin: pelvis floor
    reach: elbow_left floor
    reach: elbow_right floor
  step "Rest on the forearms" 6s linear:
    ground-lock: forearms
"""

#: a demi-plié of 20 degrees of knee in first position: with the thighs upright the shins need 19
#: degrees of ankle dorsiflexion, 4 past the ankle's range (issue 18: the heels lifted 15 mm)
SHALLOW_PLIE = """posecode exercise "Shallow plie"
  rig humanoid
  pose start = first-position

  step "Demi-plie" 1.5s settle:
    knees: flex 20
    ground-lock: feet

  step "Rise" 1.5s settle:
    knees: flex 0
    ground-lock: feet
"""


#: a glute bridge as people write it (issue 19 item 1; test_motion_settle.py,
#: playwright_tests/test_runtime_settle.py): hook-lying (docs/language.md's start block), the
#: feet locked, the hips extended to 0
BRIDGE = """posecode exercise "Glute bridge"
  rig humanoid
  pose start = supine:
    hips: flex 46
    knees: flex 110
    ankles: plantarflex 26

  step "Lift" 2s settle:
    hips: flex 0
    ankles: plantarflex 10
    ground-lock: feet

  step "Lower" 2s settle:
    hips: flex 46
    ankles: plantarflex 26
    ground-lock: feet
"""

#: the bones of the upper back and shoulders a bridge rests on
UPPER_BACK = ("chest", "neck", "head", "shoulder_left", "shoulder_right")


#: a knee lifted while standing on the left foot, then back down (issue 19: a balanced one-foot
#: stance; test_motion_balance_report.py, playwright_tests/test_runtime_balance.py)
KNEE_UP = """posecode exercise "Knee up"
  rig humanoid
  pose start = standing

  step "Lift" 1s settle:
    hip_right: flex 60
    knee_right: flex 80
    ground-lock: foot_left

  step "Down" 1s settle:
    hip_right: flex 0
    knee_right: flex 0
    ground-lock: feet
"""


#: a good morning with the arms out front: without the weight shift its centre of mass lies 5+ cm
#: past the toes (tests/motion/test_motion_balance.py, test_motion_balance_report.py)
GOOD_MORNING = """
posecode exercise "Good morning"
  rig humanoid
  pose start = standing

  step "Hinge" 1.5s settle:
    pelvis: hinge 80
    knees: flex 15
    shoulders: flex 90
    ground-lock: feet
"""


#: a squat whose centre of mass stays over the feet (the weight shift leaves it alone): the
#: loop seam and ground-lock round shortcuts (test_motion_solve_skips.py), the loop-start report
SQUAT_HOME = """
    posecode exercise "Squat home"
      rig humanoid
      pose start = standing
      step "Down" 1.5s settle:
        hips: flex 50
        knees: flex 60
        pelvis: hinge 30
        ground-lock: feet
      step "Up" 1.2s drive:
        hips: flex 0
        knees: flex 0
        pelvis: hinge 0
        ground-lock: feet
"""


def without_weight_shift(monkeypatch) -> None:
    """Solve keyframes without the weight-shift pass (solve/keyframes.py ``PASSES``): a body the
    shift would balance is left where its angles put it."""
    import posecode_ssg.motion.solve.keyframes as keyframes

    monkeypatch.setattr(keyframes, "PASSES", tuple((n, (lambda st: None) if n == "weight shift" else f)
                                                   for n, f in keyframes.PASSES))


#: the demo's cat-cow before it tilted the pelvis with the spine: the hips stay at 80 throughout
#: (tests/motion/test_motion_kneel.py, playwright_tests/test_runtime_kneel.py)
CAT_COW = """
    posecode stretch "Cat-cow"
      rig humanoid
      pose start = plank:
        hips: flex 80
        knees: flex 100
        shoulders: flex 70
        ankles: plantarflex 45
      step "Cat: round up" 2.5s flow:
        spine: flex 25
        chest: flex 15
        neck: flex 30
        ground-lock: hands, feet
      step "Cow: arch down" 2.5s flow:
        spine: extend 15
        chest: extend 5
        neck: extend 25
        ground-lock: hands, feet
      step "Back to neutral" 1.5s settle:
        spine: hold neutral
        chest: hold neutral
        neck: hold neutral
        ground-lock: hands, feet
"""


#: A forward toe tap on a bent standing leg: the free foot touches the floor with its toes only, in
#: front of the stance foot (test_motion_balance_free_foot.py, playwright_tests/test_runtime_balance.py).
TOE_TAP = """posecode exercise "Toe tap forward"
  rig humanoid
  pose start = standing

  step "Tap" 1s settle:
    hip_left: flex 15
    hip_right: flex 15
    knee_right: flex 15
    ankle_right: dorsiflex 5
    ankle_left: plantarflex 25
    pin: foot_right floor
    reach: foot_left floor
"""
