"""A trailing foot dragged forward on its toes (the demo's reverse lunge, 'Return': the front foot
locked, the back leg's angles straightening under a low pelvis) in the browser runtime: the swing
clearance turns its ankle the way that raises the toe, with no swap of ways between frames
(solvers/swingclearance.js ``hingeUp``, eval ``pop``), and the entry blend's joint offsets do not
lift it off the floor it rests on (``keepFreeFeetDown``), so the body stays on both feet until
the back foot comes in. And a loop that ends over one pinned foot, the other's toes touching
(the demo's step touch), stays on that foot through the wrap home (plan.js ``planWrap``)."""

from __future__ import annotations

import numpy as np
import pytest

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.documents import load_documents
from posecode_ssg.evaluate.floor import bone_lows
from posecode_ssg.evaluate.pops import pop_excess, step_angles
from posecode_ssg.evaluate.sampler import RUNTIME_BUNDLE, RuntimePage
from posecode_ssg.evaluate.support import support_distances
from posecode_ssg.evaluate.thresholds import METRIC

from .pages import REPO, needs_browser

pytestmark = [needs_browser, pytest.mark.skipif(not RUNTIME_BUNDLE.exists(), reason="runtime bundle not built")]


def _sampled(browser, *page: str):
    """A demo page's one figure in the runtime at 60 Hz: (samples, eval context)."""
    (doc,), problems = load_documents([str(REPO.joinpath("content", *page))])
    assert not problems
    with RuntimePage(browser=browser) as rp:
        s = rp.sample(doc.motion, 60.0)
        assert not rp.problems, rp.problems
        return s, Context(s, doc.motion, rp.rig)


@pytest.fixture(scope="module")
def lunge(browser):
    return _sampled(browser, "strength", "reverse-lunge.md")


def test_the_trailing_ankle_never_jumps_between_frames(lunge):
    s, _ctx = lunge
    inside = (s.segment[1:] == s.segment[:-1]) & (np.diff(s.t) > 1e-9)
    excess = pop_excess(step_angles(s.local), inside)
    for side in ("left", "right"):
        # under eval's limit (5°): 63° in one frame before (the ankle swapped from pointed to
        # flexed); what is left is the kink where the ankle reaches the end of its range
        assert excess[:, s.bones.index(f"ankle_{side}")].max() < METRIC["pop"].limit


def test_the_dragged_foot_stays_on_the_floor_and_the_body_over_its_feet(lunge):
    s, ctx = lunge
    names = [p["name"] for p in ctx.motion["phases"]]
    back = {"Return": "right", "Return again": "left"}
    low = bone_lows(ctx)
    dist, measured = support_distances(ctx)
    for phase, side in back.items():
        k = names.index(phase)
        rows = np.nonzero(s.phase == k)[0]
        first_half = rows[: len(rows) // 2]   # the back foot drags forward on its toes
        ankle = low[f"ankle_{side}"][first_half] * 1000.0
        assert ankle.max() <= 5.0, f"{phase}: the {side} foot rose {ankle.max():.1f} mm off the floor"
        assert (dist[rows][measured[rows]] <= 20.0).all()


def test_the_wrap_home_keeps_the_pinned_foot_down(browser):
    # step touch ends 'Touch right' pinned on the left foot, the right toes reaching the floor
    # (motion JSON support: both feet); the wrap held nothing and the left foot rose as the body
    # came home, the centre of mass 170 mm from the right toes
    s, ctx = _sampled(browser, "dance", "step-touch.md")
    wrap = np.nonzero(s.phase == -1)[0]
    assert len(wrap) > 10
    assert (bone_lows(ctx)["ankle_left"][wrap] * 1000.0).max() <= 5.0
    # and the body no further off its feet than in the steps themselves (their 2-3 cm lag over
    # the stepping foot is the transfer fault of issue 19, listed in test_eval_corpus.py)
    dist, measured = support_distances(ctx)
    steps = np.nonzero(s.phase >= 0)[0]
    assert dist[wrap][measured[wrap]].max() <= dist[steps][measured[steps]].max()
