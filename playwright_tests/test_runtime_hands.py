"""Hands locked to the floor with the feet, sampled at 60 Hz in the browser runtime (issue 5: each
contact held where it was planted; runtime/solvers/hands.js, solve.py ``_hold_uppers``).

The push-up of the demo library (content/strength/push-up.md): ground-lock hands and feet in both
phases. Before the hands were held, the authored arms carried the palms 207 mm along the floor
in "Lower the chest".
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from .pages import needs_browser

pytestmark = needs_browser

PUSH_UP = Path(__file__).resolve().parents[1] / "content" / "strength" / "push-up.md"


@pytest.fixture(scope="module")
def push_up():
    from posecode_ssg.evaluate.documents import load_documents
    from posecode_ssg.evaluate.sampler import RuntimePage
    from posecode_ssg.motion.solve import solve_keyframes

    docs, problems = load_documents([str(PUSH_UP)])
    assert not problems and docs and docs[0].motion is not None
    doc = docs[0]
    with RuntimePage() as page:
        samples = page.sample(doc.motion, 60)
    program = doc.checked.result.ir
    from posecode_ssg.motion import compile_ir

    return samples, solve_keyframes(compile_ir(program))


def test_palms_stay_on_their_anchors_through_a_phase_that_continues_the_lock(push_up):
    # "Press the floor away" continues the lock of "Lower the chest": the palms are held where that
    # phase left them, frame by frame (the 207 mm slide is gone); a straight arm reaching no
    # further leaves at most 1 cm
    s, _sol = push_up
    seg = np.flatnonzero(s.segment == 1)
    for side in ("left", "right"):
        palm = s.landmark(f"palm_{side}")[seg]
        drift = np.hypot(palm[:, 0] - palm[0, 0], palm[:, 2] - palm[0, 2])
        assert drift.max() < 0.010, f"palm_{side} slides {drift.max() * 1000:.1f} mm"


def test_held_hands_match_the_keyframe_solve_at_phase_ends(push_up):
    # the arms and palms the hold solves (the whole-body agreement over the conformance examples,
    # mountain-climber's locked hands among them, is test_runtime_figure's)
    s, sol = push_up
    worst = (0.0, "")
    for k, i in s.keys:
        if not 1 <= k <= len(sol.phases):
            continue
        w = sol.phases[k - 1].world
        j = i - 1   # just before the boundary: the phase's own end
        for side in ("left", "right"):
            for name in (f"shoulder_{side}", f"elbow_{side}", f"wrist_{side}"):
                worst = max(worst, (math.dist(w.pos[name], s.bone(name)[j]), f"phase {k} {name}"))
            name = f"palm_{side}"
            worst = max(worst, (math.dist(w.landmarks[name], s.landmark(name)[j]), f"phase {k} {name}"))
    assert worst[0] < 0.005, f"{worst[0] * 1000:.2f} mm at {worst[1]}"
