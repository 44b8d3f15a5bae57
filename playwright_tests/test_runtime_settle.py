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


def sampled(browser, source: str):
    """A document compiled and sampled in the runtime at 60 Hz over its loop: (program, samples,
    eval's metrics, each bone's lowest mesh point per sample)."""
    program = compile_ir(parse(source).ir)
    motion = program.to_json()
    with RuntimePage(browser=browser) as rp:
        samples = rp.sample(motion, HZ)
        metrics = evaluate_samples(samples, motion, rp.rig)
        lows = bone_lows(Context(samples, motion, rp.rig))
        assert not rp.problems, rp.problems
    return program, samples, metrics, lows


def assert_numpy_phase_ends(program, s, names: tuple[str, ...]):
    """The runtime at each phase end within 5 mm of the numpy solve (the settle's correction is 0
    there), joints ``names``; returns the numpy solution."""
    sol = solve_keyframes(program)
    for k, i in s.keys:
        if k == 0 or k > len(sol.phases):
            continue
        w = sol.phases[k - 1].world
        for name in names:
            d = np.linalg.norm(s.bone(name)[i] - w.pos[name])
            assert d <= 0.005, (k, name, d)
    return sol


@pytest.fixture(scope="module")
def bridge(browser):
    return sampled(browser, BRIDGE + "\n  repeat 2\n")


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
    sol = assert_numpy_phase_ends(program, s, ("pelvis", "chest", "head", "ankle_left", "knee_right"))
    # the settled top of the bridge: upper back down in both
    top = [i for k, i in s.keys if k == 1][0]
    assert sol.phases[0].world.lowest(UPPER_BACK) <= 0.010
    assert s.bone("pelvis")[top][1] > s.bone("chest")[top][1]


#: a long sit folding forward over the legs, nothing locked or pinned (the conformance example's
#: 'Fold' and 'Rise'): the floor alone holds it, so its phase ends are the numpy rest's
SEATED_FOLD = """posecode stretch "Seated forward fold"
  rig humanoid
  pose start = seated

  step "Fold" 3s flow:
    hips: flex 115
    spine: flex 25
    chest: flex 15
    neck: flex 10
    shoulders: flex 60

  step "Rise" 2.5s settle:
    hips: flex 90
    spine: flex 0
    chest: flex 0
    neck: flex 0
    shoulders: flex 0

  repeat 2
"""
#: what a long sit rests on besides its buttocks and thighs: the shins and heels (the mesh the
#: ankle bones carry), or the hands
SECOND_SURFACE = ("ankle_left", "ankle_right", "wrist_left", "wrist_right", "index_left", "index_right",
                  "middle_left", "middle_right", "thumb_left", "thumb_right", "ring_left", "ring_right",
                  "pinky_left", "pinky_right")


@pytest.fixture(scope="module")
def seated_fold(browser):
    return sampled(browser, SEATED_FOLD)


def test_a_seated_fold_keeps_a_second_surface_down_between_its_phase_ends(seated_fold):
    _program, s, metrics, lows = seated_fold
    # every eval threshold at every sample, support among them: the centre of mass over the
    # buttocks and the legs (or the hands, once they reach the floor)
    assert [f"{v.metric} {v.subject} {v.value:.1f} at {v.t:.3f}" for v in metrics.violations] == []
    # the legs or the hands on the floor (eval's 10 mm contact band) at every sample: with the
    # interpolated turn alone the hips' flexion lifted the heels 27 cm and the body balanced on
    # its buttocks alone, its centre of mass 20 cm in front of them
    second = np.min([lows[b] for b in SECOND_SURFACE], axis=0)
    assert second.max() <= 0.010, f"{second.max() * 1000:.1f} mm up at t={s.t[int(second.argmax())]:.3f}"


def test_a_seated_fold_rocks_on_the_spot(seated_fold):
    """The settle turns the body about what it sits on, not about the pelvis above it: the
    buttocks stay between where the numpy rest puts them at the phase ends (a turn about the
    pelvis alone slid the body forward 10 cm and back)."""
    _program, s, _m, _lows = seated_fold
    seat = s.bone("pelvis")[:, [0, 2]]
    ends = np.array([seat[i] for _k, i in s.keys])
    lo, hi = ends.min(axis=0) - 0.005, ends.max(axis=0) + 0.005
    out = np.maximum(lo - seat, 0) + np.maximum(seat - hi, 0)
    assert out.max() <= 1e-9, f"pelvis {out.max() * 1000:.1f} mm outside its phase ends' span at t={s.t[int(out.max(axis=1).argmax())]:.3f}"


def test_the_runtime_seated_fold_meets_the_numpy_phase_ends(seated_fold):
    program, s, _m, _lows = seated_fold
    assert_numpy_phase_ends(program, s, ("pelvis", "chest", "head", "ankle_left", "wrist_right"))
