"""Issue 19 item 3 in the browser runtime: ``sample().warnings`` carries ``balance`` where a body
on its feet alone has its centre of mass more than ``solver.balanceLimit`` outside what its feet
cover (runtime/solvers/balancewarn.js), the twin of the build's ``kinematic-balance``
(motion/diagnostics.py): the same distance at a phase end, within the runtime/numpy agreement."""

from __future__ import annotations

import pytest

from posecode_ssg.evaluate.sampler import RUNTIME_BUNDLE, RuntimePage
from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.diagnostics import kinematic_diagnostics

from tests.motion.helpers_motion import KNEE_UP, TOE_TAP

from .pages import needs_browser, shared_path

pytestmark = [needs_browser, pytest.mark.skipif(not RUNTIME_BUNDLE.exists(), reason="runtime bundle not built")]

#: a figure's sample() warnings at each of some times (seconds)
WARNINGS_AT = """
async ({motion, times}) => {
  const el = document.createElement('posecode-figure');
  el.innerHTML = '<script type="application/json">' + JSON.stringify(motion) + '<\\/script>';
  document.getElementById('host').append(el);
  await el.ready;
  const out = times.map((t) => { el.seek(t); return el.sample().warnings; });
  el.remove();
  return out;
}
"""



def _warnings(browser, src: str, times: list[float]) -> tuple[list, list]:
    program = compile_ir(parse(src).ir)
    with RuntimePage(browser=browser) as rp:
        found = rp.page.evaluate(WARNINGS_AT, {"motion": program.to_json(), "times": times})
        assert not rp.problems, rp.problems
    return found, kinematic_diagnostics(program)


def test_a_squat_behind_its_heels_warns_with_the_builds_distance(browser):
    src = shared_path("conformance", "examples", "squat.posecode").read_text(encoding="utf-8")
    end = 1.6 - 1e-4   # just before the end of 'Descend' (1.6 s)
    (at_end, at_start), diags = _warnings(browser, src, [end, 0.0])
    (built,) = [d for d in diags if d.code == "kinematic-balance"]
    (warned,) = [w for w in at_end if w["code"] == "balance"]
    assert warned["phase"] == "Descend" and warned["limit"] == pytest.approx(0.02)
    assert warned["value"] == pytest.approx(built.extra["distance"], abs=0.005)
    # standing at the start, over both feet: no warning
    assert [w for w in at_start if w["code"] == "balance"] == []


def test_a_balanced_one_foot_stance_does_not_warn(browser):
    found, diags = _warnings(browser, KNEE_UP, [0.5, 1.0 - 1e-4, 1.5])
    assert [w for ws in found for w in ws if w["code"] == "balance"] == []
    assert [d for d in diags if d.code == "kinematic-balance"] == []


def test_a_curl_with_both_feet_locked_stands_over_the_other_foot_at_60_hz(browser):
    """The standing hamstring curl with ``ground-lock: feet`` (bugs case mo-planted-feet-skate):
    the body goes over the right foot once the left leaves the floor (plan.js ``liftedStance``),
    not before (a body moved over while the lock still holds the left foot dragged it 26 mm), so
    every eval threshold holds at 60 Hz: the centre of mass within 20 mm of the right sole, both
    feet planted while down."""
    from posecode_ssg.evaluate.metrics import evaluate_samples

    program = compile_ir(parse(shared_path("cases", "bugs", "mo-planted-feet-skate", "hamstring-curl.posecode")
                               .read_text(encoding="utf-8")).ir)
    motion = program.to_json()
    with RuntimePage(browser=browser) as rp:
        samples = rp.sample(motion, 60.0)
        metrics = evaluate_samples(samples, motion, rp.rig)
    assert [f"{v.metric} {v.subject} {v.value:.1f} at {v.t:.3f}" for v in metrics.violations] == []


def test_a_toe_tap_ends_over_the_sole_and_the_toe_as_the_numpy_solve_does(browser):
    """A forward toe tap (tests/motion/test_motion_balance_free_foot.py): the free foot touches
    with its toes only, so the body goes over the base the stance sole and the toe make
    (solvers/balance.js ``overBase`` with the free sole's corners); at the tap's end the runtime's
    centre of mass is the numpy twin's, within 5 mm, and inside that base within 20 mm."""
    from posecode_ssg.evaluate.context import Context
    from posecode_ssg.evaluate.support import centre_of_mass as sampled_com, support_distances
    from posecode_ssg.motion.rest import centre_of_mass
    from posecode_ssg.motion.solve import solve_keyframes

    program = compile_ir(parse(TOE_TAP).ir)
    motion = program.to_json()
    with RuntimePage(browser=browser) as rp:
        samples = rp.sample(motion, 60.0)
        ctx = Context(samples, motion, rp.rig)
        gaps, _measured = support_distances(ctx)
    end = int(abs(samples.t - (1.0 - 1e-3)).argmin())
    want = centre_of_mass(solve_keyframes(program).phases[0].world)
    got = sampled_com(ctx)[end]
    assert abs(got[0] - want[0]) <= 0.005 and abs(got[2] - want[2]) <= 0.005
    assert gaps[end] <= 20.0


def test_a_march_stands_on_the_reached_foot_and_comes_down_over_it_at_60_hz(browser):
    """high-knee-march at 60 Hz: 'Switch' ends on the right foot it reached down (plan.js
    ``reachedStance``, the numpy twin's end within 5 mm), and through 'Down' the body stays over
    that foot until the left lands (the stance decided where the segment starts), every sample
    within 20 mm of what touches."""
    from posecode_ssg.evaluate.context import Context
    from posecode_ssg.evaluate.support import centre_of_mass as sampled_com, support_distances
    from posecode_ssg.motion.rest import centre_of_mass
    from posecode_ssg.motion.solve import solve_keyframes

    program = compile_ir(parse(shared_path("conformance", "examples", "high-knee-march.posecode")
                               .read_text(encoding="utf-8")).ir)
    motion = program.to_json()
    with RuntimePage(browser=browser) as rp:
        samples = rp.sample(motion, 60.0)
        ctx = Context(samples, motion, rp.rig)
        gaps, measured = support_distances(ctx)
    end = int(abs(samples.t - (1.4 - 1e-3)).argmin())   # 'Switch' ends at 0.7 + 0.7 s
    want = centre_of_mass(solve_keyframes(program).phases[1].world)
    got = sampled_com(ctx)[end]
    assert abs(got[0] - want[0]) <= 0.005 and abs(got[2] - want[2]) <= 0.005
    down = (samples.t > 1.4) & (samples.t < 2.0)
    assert down.any() and float(gaps[down & measured].max()) <= 20.0
