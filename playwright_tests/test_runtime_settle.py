"""Issue 19 item 1 in the browser runtime: the gravity settle between phase ends
(runtime/solvers/settle.js). The numpy solve settles a held lying body's phase ends (its
``rest``); between them the runtime corrects the interpolated turn so the body stays on what holds
it. Measured by eval's own metrics at 60 Hz over the whole loop, and against the numpy solve at
the phase ends."""

from __future__ import annotations

import numpy as np
import pytest

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.floor import bone_lows
from posecode_ssg.evaluate.metrics import evaluate_samples
from posecode_ssg.evaluate.sampler import RUNTIME_BUNDLE, RuntimePage
from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.solve import solve_keyframes
from tests.motion.helpers_motion import BRIDGE, UPPER_BACK

from .pages import needs_browser

pytestmark = [needs_browser, pytest.mark.skipif(not RUNTIME_BUNDLE.exists(), reason="runtime bundle not built")]

HZ = 60.0


@pytest.fixture(scope="module")
def bridge(browser):
    program = compile_ir(parse(BRIDGE + "\n  repeat 2\n").ir)
    motion = program.to_json()
    with RuntimePage(browser=browser) as rp:
        samples = rp.sample(motion, HZ)
        metrics = evaluate_samples(samples, motion, rp.rig)
        lows = bone_lows(Context(samples, motion, rp.rig))
        assert not rp.problems, rp.problems
    return program, samples, metrics, lows


def test_the_bridge_stays_on_its_feet_and_upper_back_at_60_hz(bridge):
    _program, s, metrics, lows = bridge
    # every eval threshold holds at every sample: feet flat and still, the centre of mass over the
    # feet and the upper back (support), nothing sunk or floating, no jump at a keyframe
    assert [f"{v.metric} {v.subject} {v.value:.1f} at {v.t:.3f}" for v in metrics.violations] == []
    # and the upper back touches the floor throughout (eval's 10 mm contact band): mid-lift too,
    # where the interpolated turn alone left it 2-9 cm up and the body on its feet alone
    back = np.min([lows[b] for b in UPPER_BACK], axis=0)
    assert back.max() <= 0.010, f"upper back {back.max() * 1000:.1f} mm up at t={s.t[int(back.argmax())]:.3f}"


def test_the_runtime_bridge_meets_the_numpy_phase_ends(bridge):
    program, s, _m, _lows = bridge
    sol = solve_keyframes(program)
    for k, i in s.keys:
        if k == 0 or k > len(sol.phases):
            continue
        w = sol.phases[k - 1].world
        for name in ("pelvis", "chest", "head", "ankle_left", "knee_right"):
            d = np.linalg.norm(s.bone(name)[i] - w.pos[name])
            assert d <= 0.005, (k, name, d)
    # the settled top of the bridge: upper back down in both
    top = [i for k, i in s.keys if k == 1][0]
    assert sol.phases[0].world.lowest(UPPER_BACK) <= 0.010
    assert s.bone("pelvis")[top][1] > s.bone("chest")[top][1]
