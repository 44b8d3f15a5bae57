"""Range of motion of <posecode-figure> sampled at 60 Hz over one whole loop, the wrap included
(issue 5: "0 range-of-motion violations"; spec §2.5 joint ranges): every bone's solved local
rotation (``el.sample().local``, after every solver pass) stays inside its rig.json ``rom`` box
on the documents that used to leave it (``EXAMPLES``, ``CONTENT`` below), and the timeline's
joint-coordinate interpolation (posecode_ssg/runtime/timeline.js) keeps in-box keyframes in the
box in between.

The measure is computed here independently of the runtime and of ``posecode-ssg eval``: a local
quaternion's rotation matrix gives the two intrinsic X-Y-Z Euler triples of the rotation
(R = Rx(a)·Ry(b)·Rz(c): b = asin R₀₂, a = atan2(−R₁₂, R₂₂), c = atan2(−R₀₁, R₀₀), and
(a + 180°, 180° − b, c + 180°)); an angle is measured modulo a full turn (−180.7° is 0.7° past a
−180° limit, not 359.3°). A sample is out of its box when both triples are more than 0.5° out
(the eval harness's tolerance, docs/eval.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .pages import (READY_ALL, REPO, compiled_example, euler_quat, example_names, figure_html, motion,
                    needs_browser)

pytestmark = needs_browser

HZ = 60
TOLERANCE_DEG = 0.5

SAMPLE_LOCAL = """([id, hz]) => {
  const el = document.getElementById(id), n = Math.ceil(el.duration * hz), out = [];
  for (let k = 0; k <= n; k++) {
    el.seek(Math.min(k / hz, el.duration - 1e-9));
    const s = el.sample();
    out.push(s.local);
  }
  return out;
}"""


def excess_deg(q: np.ndarray, box: dict) -> np.ndarray:
    """(N,) degrees by which (N, 4) local quaternions [x, y, z, w] lie outside ``box``
    ({axis: [lo, hi]} degrees), the smaller over the rotation's two Euler triples, each angle
    taken modulo 360° nearest its interval."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    r02 = 2 * (x * z + w * y)
    r12 = 2 * (y * z - w * x)
    r22 = 1 - 2 * (x * x + y * y)
    r01 = 2 * (x * y - w * z)
    r00 = 1 - 2 * (y * y + z * z)
    a = np.degrees(np.arctan2(-r12, r22))
    b = np.degrees(np.arcsin(np.clip(r02, -1, 1)))
    c = np.degrees(np.arctan2(-r01, r00))
    lo = np.array([box[k][0] for k in "xyz"])
    hi = np.array([box[k][1] for k in "xyz"])
    worst = []
    for e in (np.stack([a, b, c], 1), np.stack([a + 180, 180 - b, c + 180], 1)):
        out = np.full(e.shape, np.inf)
        for turn in (-720, -360, 0, 360, 720):
            v = e + turn
            out = np.minimum(out, np.maximum(np.maximum(lo - v, v - hi), 0))
        worst.append(out.max(axis=1))
    return np.minimum(*worst)


def test_excess_measure_itself():
    """The measure: in-box rotations are 0, a locked axis turned by 10° is 10° out, and a
    shoulder flexed 180.7° overhead is 0.7° past its −180° limit whichever triple names it."""
    box = {"x": [-154, 10], "y": [-84, 92], "z": [0, 0]}
    q = np.array([euler_quat(-135, 0, 0), euler_quat(0, -80, 0), euler_quat(-60, 30, 10),
                  euler_quat(20, 0, 0)])
    assert excess_deg(q, box) == pytest.approx([0, 0, 10, 10], abs=1e-3)
    shoulder = {"x": [-180, 60], "y": [-70, 90], "z": [-50, 180]}
    assert excess_deg(np.array([euler_quat(-180.7, 0, 0), euler_quat(179.3, 0, 0)]), shoulder) == \
        pytest.approx([0.7, 0.7], abs=1e-3)


def rom_boxes() -> dict:
    from posecode_ssg.motion.rigjson import rig_json

    return rig_json()["rom"]


def sample_locals(rt_page, runtime_site, docs: dict[str, dict], page: str) -> dict[str, list[dict]]:
    url = runtime_site.page(page, [figure_html(n, d) for n, d in docs.items()])
    rt_page.goto(url)
    rt_page.evaluate(READY_ALL)
    return {name: rt_page.evaluate(SAMPLE_LOCAL, [name, HZ]) for name in docs}


def violations(samples: list[dict], rom: dict) -> list[str]:
    out = []
    for bone, box in rom.items():
        q = np.array([s[bone] for s in samples], float)
        ex = excess_deg(q, box)
        bad = np.flatnonzero(ex > TOLERANCE_DEG)
        if bad.size:
            k = int(bad[np.argmax(ex[bad])])
            out.append(f"{bone}: {bad.size} samples, worst {ex[k]:.1f}° at t={k / HZ:.3f}")
    return out


def check_documents(rt_page, runtime_site, docs: dict[str, dict], page: str) -> None:
    rom = rom_boxes()
    problems = []
    names = sorted(docs)
    for i in range(0, len(names), 12):      # a dozen figures per page
        chunk = {n: docs[n] for n in names[i:i + 12]}
        for name, samples in sample_locals(rt_page, runtime_site, chunk, f"{page}-{i}").items():
            assert len(samples) >= HZ * 0.5, f"{name}: too few samples"
            problems += [f"{name} {v}" for v in violations(samples, rom)]
    assert not problems, "out of the rig's range of motion at 60 Hz: " + "; ".join(problems)


# Documents that left their boxes between keyframes before the joint-coordinate timeline and the
# joint-angle entry blend (measured Dec 1 at 60 Hz, out-of-box bone samples per loop): the
# quaternion arc between in-box keyframes (elbows of biceps-curl 232, cobra 264, hand-wave 94,
# jab-cross 78, wrist-forearm-rolls 136, standing-quad-stretch 278; thumbs of pinch-grip 106 and
# finger-and-thumb-mobility 386), the entry blend's slerp between an open and a gripping hand
# (thumbs of dead-hang 412, pull-up 136, hanging-knee-raise 136, chin-up, active-hang, the dips)
# and between a lifted and a levelled ankle (superman 28, box-step 61, walk-cycle 6). The whole
# corpus is also measured by `posecode-ssg eval` (docs/eval.md).
EXAMPLES = ["biceps-curl", "cobra", "hand-wave", "jab-cross", "wrist-forearm-rolls", "standing-quad-stretch",
            "pinch-grip", "dead-hang", "pull-up", "hanging-knee-raise", "superman", "box-step", "walk-cycle"]
CONTENT = ["props/active-hang.md", "props/chin-up.md", "props/dip-bar-tuck-hold.md", "props/parallel-bar-dip.md",
           "rehab/finger-and-thumb-mobility.md"]


def test_conformance_examples_stay_in_their_joint_ranges_at_60_hz(rt_page, runtime_site):
    if not example_names():
        pytest.skip("conformance examples missing")
    docs = {n: compiled_example(n) for n in EXAMPLES}
    check_documents(rt_page, runtime_site, docs, "rom-examples")


def test_demo_content_stays_in_its_joint_ranges_at_60_hz(rt_page, runtime_site):
    from posecode_ssg.evaluate.documents import load_documents

    found, problems = load_documents([str(Path(REPO) / "content" / c) for c in CONTENT])
    assert not problems
    docs = {f"doc{i}": d.motion for i, d in enumerate(found) if d.motion is not None}
    assert len(docs) == 6        # active-hang.md holds two documents
    check_documents(rt_page, runtime_site, docs, "rom-content")


# --- the timeline alone: joint-coordinate interpolation between in-box keyframes ----------------

TRACK = """([doc, bone]) => (async () => {
  const mod = await import('./assets/posecode-runtime.js');
  const rig = await (await fetch('./assets/rig.json')).json();
  const ids = rig.bones.map(b => b.id), i = ids.indexOf(bone) * 4;
  const tl = new mod.Timeline(doc, ids, rig.rom), q = new Float64Array(ids.length * 4), r = new Float64Array(3);
  const out = [];
  for (let k = 0; k <= 600; k++) { tl.evaluate(tl.duration * k / 600 - (k === 600 ? 1e-9 : 0), q, r); out.push(Array.from(q.subarray(i, i + 4))); }
  return out;
})()"""


def euler_track(rt_page, runtime_site, doc: dict, bone: str) -> np.ndarray:
    rt_page.goto(runtime_site.page("rom-track", []))
    q = np.array(rt_page.evaluate(TRACK, [doc, bone]))
    x, y, z, w = q.T
    a = np.degrees(np.arctan2(-2 * (y * z - w * x), 1 - 2 * (x * x + y * y)))
    b = np.degrees(np.arcsin(np.clip(2 * (x * z + w * y), -1, 1)))
    c = np.degrees(np.arctan2(-2 * (x * y - w * z), 1 - 2 * (y * y + z * z)))
    return np.stack([a, b, c], 1)


def test_elbow_curl_from_pronation_keeps_the_locked_axis(rt_page, runtime_site):
    """Biceps curl's first phase: from the pronated straight elbow (y = −80°) to 135° of flexion
    with a neutral forearm. The shortest quaternion arc swings the forearm ~40° about the elbow's
    locked Z axis; in joint coordinates flexion and pronation change together and monotonically,
    and Z stays 0."""
    doc = motion([{"name": "curl", "d": 1.1, "m": "settle", "q": {"elbow_left": euler_quat(-135, 0, 0)}}],
                 base={"elbow_left": euler_quat(0, -80, 0)}, wrap=1.1)
    e = euler_track(rt_page, runtime_site, doc, "elbow_left")
    half = e[:301]                               # base → curl
    assert np.abs(e[:, 2]).max() < 1e-6          # locked Z untouched
    assert np.all(np.diff(half[:, 0]) <= 1e-9) and np.all(np.diff(half[:, 1]) >= -1e-9)   # monotone
    assert half[0] == pytest.approx([0, -80, 0], abs=1e-3) and half[-1] == pytest.approx([-135, 0, 0], abs=1e-3)
    assert excess_deg(np.array(rt_page.evaluate(TRACK, [doc, "elbow_left"])), rom_boxes()["elbow_left"]).max() < 1e-6


def test_shoulder_raised_to_180_goes_forward_and_up(rt_page, runtime_site):
    """A shoulder flexed to its −180° limit (arm overhead) is read back as −180°, not +180° (the
    same rotation): the arm rises forward through −90°, never backward past the +60° extension
    limit."""
    doc = motion([{"name": "up", "d": 1.0, "m": "flow", "q": {"shoulder_right": euler_quat(-180, 0, 0)}}], wrap=1.0)
    e = euler_track(rt_page, runtime_site, doc, "shoulder_right")
    x = np.degrees(np.unwrap(np.radians(e[:, 0])))
    assert x[150] == pytest.approx(-90, abs=15)  # a quarter through the loop, mid-rise
    assert x.max() <= 1e-6 and x.min() >= -180 - 1e-3
