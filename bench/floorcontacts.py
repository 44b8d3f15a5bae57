"""Floor contacts that hold (issue 18 item 2): in the real runtime (headless Chromium, the built
bundle), for every floor pin and floor ground-lock of every phase, the worst height (mm) of the
contact's lowest surface point above the floor over the phase's samples, and the samples where
no foot is within 5 mm of the floor while some foot is pinned or locked to it.

Usage: PYTHONPATH=$PWD python3 bench/floorcontacts.py [PATHS...] [--hz 60] [--all]

Heights are ``evaluate/context.py`` ``Context.contact_height`` (a foot: the lower of heel and
toe; a knee: the joint minus the thigh's radius; the pelvis: minus ``pelvisFloorMin`` ...), so a
figure here reads like the eval's. Every run of a phase's segment is measured (the first phase
twice: once more after the loop seam). A contact is listed when it hovers more than 5 mm at any
sample (``--all`` lists every one); ``sole`` is a foot's worst lowest sole-box corner (a foot
rolled onto its edge by a sideways lean touches with it, heel and toe up). ``air`` counts the samples of a phase where at least one foot
is pinned or locked to the floor but neither foot's heel or toe is within 5 mm of it (``airsole``:
neither foot's sole box).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 0.005   # m: the "within 5 mm of the floor"


def floor_contacts(ph: dict) -> list[tuple[str, str]]:
    """(kind, effector) of a phase's floor pins and floor ground-locks (``back`` left out)."""
    out = [("pin", e) for e, a in (ph.get("pin") or []) if a == "floor"]
    out += [("lock", e) for e in (ph.get("gl") or []) if e != "back"]
    return out


def sole_low(ctx, side: str) -> np.ndarray:
    """(N,) height (m) of the lowest bottom corner of a foot's sole box (the rig's sole mesh: a
    foot rolled onto its edge touches the floor with it while heel and toe are up)."""
    sole = ctx.avatar["sole"]
    size, center = np.asarray(sole["size"], float), np.asarray(sole["center"], float)
    corners = np.array([[sx, -0.5, sz] for sx in (-0.5, 0.5) for sz in (-0.5, 0.5)]) * size + center
    i = ctx.s.bones.index(f"ankle_{side}")
    x, y, z, w = (ctx.s.orient[:, i, k] for k in range(4))
    # row y of each world rotation matrix, applied to the corner offsets
    ry = np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=1)
    return ctx.s.pos[:, i, 1] + np.min(ry @ corners.T, axis=1)


def measure(samples, motion, rig) -> list[tuple]:
    """Rows (phase name, kind, effector, height at the phase's first and last sample, worst height,
    a foot's worst sole-box height (mm; nan otherwise), air samples by heel/toe, by sole box, phase
    samples), one per floor contact and phase run."""
    from posecode_ssg.evaluate.context import Context

    ctx = Context(samples, motion, rig)
    feet = np.minimum(ctx.contact_height("foot_left"), ctx.contact_height("foot_right"))
    soles = {side: sole_low(ctx, side) for side in ("left", "right")}
    feet_sole = np.minimum(soles["left"], soles["right"])
    heights: dict[str, np.ndarray] = {}
    rows = []
    for seg, a, b in ctx.runs:
        ph = ctx.phase(seg)
        contacts = floor_contacts(ph)
        if not contacts:
            continue
        n = b - a + 1
        has_feet = any(e.startswith("foot_") for _, e in contacts)
        air = int(np.sum(feet[a:b + 1] > LIMIT)) if has_feet else 0
        air_sole = int(np.sum(feet_sole[a:b + 1] > LIMIT)) if has_feet else 0
        for kind, eff in contacts:
            if eff not in heights:
                heights[eff] = ctx.contact_height(eff)
            h = 1000 * heights[eff][a:b + 1]
            sole = 1000 * float(np.max(soles[eff[5:]][a:b + 1])) if eff.startswith("foot_") else float("nan")
            rows.append((ph["name"], kind, eff, float(h[0]), float(h[-1]), float(np.max(h)), sole, air, air_sole, n))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(ROOT.parent.parent / "shared" / "conformance" / "examples"),
                                                 str(ROOT / "content")])
    ap.add_argument("--hz", type=float, default=60.0)
    ap.add_argument("--all", action="store_true", help="list every floor contact, not only the hovering ones")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from posecode_ssg.evaluate.documents import load_documents
    from posecode_ssg.evaluate.sampler import RuntimePage

    docs, problems = load_documents(args.paths)
    for p in problems:
        print(p, file=sys.stderr)
    n_contacts = n_bad = n_air_docs = n_air = n_air_sole = 0
    worst = 0.0
    print(f"{'document':44s} {'phase':28s} {'kind':4s} {'effector':11s} {'start':>6s} {'end':>6s} {'worst':>6s} {'sole':>6s} {'air':>9s} {'airsole':>7s}")
    with RuntimePage() as rp:
        for doc in docs:
            if doc.motion is None:
                continue
            rows = measure(rp.sample(doc.motion, args.hz), doc.motion, rp.rig)
            air_doc = False
            for name, kind, eff, h0, h1, h, sole, air, air_sole, n in rows:
                n_contacts += 1
                worst = max(worst, h)
                bad = h > 1000 * LIMIT or air
                n_bad += h > 1000 * LIMIT
                air_doc |= air > 0
                n_air += air
                n_air_sole += air_sole
                if bad or args.all:
                    label = doc.name.replace(str(ROOT.parent.parent / "shared") + "/", "").replace(str(ROOT) + "/", "")
                    print(f"{label[-44:]:44s} {name[:28]:28s} {kind:4s} {eff:11s} {h0:6.1f} {h1:6.1f} {h:6.1f} {sole:6.1f} {air:4d}/{n:<4d} {air_sole:4d}")
            n_air_docs += air_doc
    print(f"{n_contacts} floor contact-phase runs; {n_bad} above 5 mm at some sample (worst {worst:.1f} mm); "
          f"{n_air_docs} documents with samples where no foot is within 5 mm of the floor "
          f"({n_air} samples by heel/toe, {n_air_sole} by the sole box)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
