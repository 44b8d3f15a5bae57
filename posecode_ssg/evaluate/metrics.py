"""Fidelity metrics of a sampled runtime loop, computed with numpy from :class:`Samples` and
``rig.json``. Every definition, threshold and source is listed in docs/eval.md; in short:

=====================  ======  ==========  =====================================================
metric (JSON key)      unit    limit       source
=====================  ======  ==========  =====================================================
``drift``              mm      ≤ 5         issue 5 item 4; bugs README "sole planted within N mm"
``heel_lift``          mm      ≤ 5         issue 5 item 4; bugs README
``toe_lift``           mm      ≤ 5         issue 5 item 4; bugs README
``sole_tilt``          °       ≤ 5         issue 5 item 4 (KR §12 uses 12°)
``grip_residual``      mm      ≤ 5         issue 5 item 4
``pin_residual``       mm      ≤ 5         our choice: a prop pin is exact (spec §5 "pin")
``reach_residual``     mm      listed >10  issue 5 item 4 (never fails)
``penetration``        mm      ≤ 5         issue 5 item 4; faces and capsules KR §10.1
``self_collision``     mm      ≤ 5         issue 5 item 4; capsules KR §10.2
``rom``                count   0           issue 5 item 4; boxes ``rig.json`` ``rom`` ± 0.5°
``velocity_jump``      rad/s   see below   spec §4 "C1-continuous"; docs/runtime.md exemptions
=====================  ======  ==========  =====================================================

Which contacts are active when: the destination phase's ground-locks, pins, grips and reaches
for its whole segment; none in the wrap (kinematics-reference §5.3). A floor contact is **held**
over a segment when it is within ``rig.json solver.plantedHeight`` (5 cm) of the floor at both
the segment's first and last sample (so a swing foot under ``feet`` is free, as in the numpy
solve and the bugs case mo-planted-feet-skate); consecutive held segments of the same kind form
one contact interval, measured from where it began.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from posecode_ssg.evaluate.sampler import Samples

# ---------------------------------------------------------------------------------------------
# thresholds
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """One metric: JSON ``key``, table ``label``, ``unit``, the ``limit`` a value may reach, and
    whether crossing it fails the document (``fails``; reach residuals are only listed)."""

    key: str
    label: str
    unit: str
    limit: float
    fails: bool = True


METRICS: tuple[Metric, ...] = (
    Metric("drift", "drift", "mm", 5.0),
    Metric("heel_lift", "heel", "mm", 5.0),
    Metric("toe_lift", "toe", "mm", 5.0),
    Metric("sole_tilt", "tilt", "°", 5.0),
    Metric("grip_residual", "grip", "mm", 5.0),
    Metric("pin_residual", "pin", "mm", 5.0),
    Metric("reach_residual", "reach", "mm", 10.0, fails=False),
    Metric("penetration", "prop", "mm", 5.0),
    Metric("self_collision", "self", "mm", 5.0),
    Metric("rom", "rom", "", 0.0),
    Metric("velocity_jump", "C1", "rad/s", 0.0),   # limit per keyframe: VELOCITY_* below
)
METRIC = {m.key: m for m in METRICS}

#: Euler tolerance (degrees) of the range-of-motion check: quaternions in the motion JSON are
#: rounded to 4 decimals (≈ 0.012°) and the solver clamps in Euler space; 0.5° is far above both
ROM_TOLERANCE_DEG = 0.5
#: angular-velocity continuity at a keyframe where C1 is required: the jump of any bone's local
#: angular velocity across the keyframe may be at most VELOCITY_ABS + VELOCITY_REL × the larger
#: of the two speeds (second-order one-sided differences over ±2 ms: their error is O(h²·jerk),
#: far under VELOCITY_ABS). 0.5 rad/s changes the per-frame step at 60 Hz by under 0.5°, which
#: no reader sees; the relative part keeps fast moves from failing on rounding.
VELOCITY_ABS = 0.5
VELOCITY_REL = 0.1
#: timing modes whose keyframes are not C1 by design (docs/runtime.md "Timeline": a snap arrival
#: stops sharply; a linear segment moves at constant speed)
NON_C1_ARRIVAL = ("snap", "linear")
NON_C1_DEPARTURE = ("linear",)


@dataclass
class Violation:
    """A threshold crossed: ``metric`` key, time ``t`` (s, within the loop), ``phase`` name
    (``"wrap"`` for the loop reset), ``value`` (the worst of a contiguous run), ``limit``,
    ``subject`` (the contact, bone or body part), ``explained`` (the numpy solve's kinematic
    diagnostic that predicts it: ``{line, column, code, message}``) and ``fails``."""

    metric: str
    t: float
    phase: str
    value: float
    limit: float
    subject: str
    fails: bool = True
    explained: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"metric": self.metric, "t": round(self.t, 4), "phase": self.phase,
             "value": round(self.value, 3), "limit": self.limit, "subject": self.subject,
             "fails": self.fails and self.explained is None}
        if self.explained is not None:
            d["explained"] = self.explained
        return d


@dataclass
class DocumentMetrics:
    """Worst value per metric (None: nothing to measure) and the violations."""

    worst: dict[str, float | None] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# quaternion helpers (vectorised; [x, y, z, w])
# ---------------------------------------------------------------------------------------------


def quat_matrices(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices of (..., 4) quaternions (renormalised)."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def euler_xyz(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both intrinsic-XYZ Euler decompositions (degrees, (..., 3) each) of (..., 4) quaternions:
    R = Rx(a)·Ry(b)·Rz(c) gives b = asin R₀₂, a = atan2(−R₁₂, R₂₂), c = atan2(−R₀₁, R₀₀)
    (docs/motion-json.md conventions); the second is (a + 180°, 180° − b, c + 180°), wrapped to
    (−180°, 180°]. A rotation lies in a box when either triple does."""
    m = quat_matrices(q)
    b = np.degrees(np.arcsin(np.clip(m[..., 0, 2], -1.0, 1.0)))
    a = np.degrees(np.arctan2(-m[..., 1, 2], m[..., 2, 2]))
    c = np.degrees(np.arctan2(-m[..., 0, 1], m[..., 0, 0]))
    first = np.stack([a, b, c], axis=-1)
    wrap = lambda v: (v + 180.0) % 360.0 - 180.0   # noqa: E731
    second = np.stack([wrap(a + 180.0), wrap(180.0 - b), wrap(c + 180.0)], axis=-1)
    return first, second


def rotation_vectors(qa: np.ndarray, qb: np.ndarray) -> np.ndarray:
    """(..., 3) rotation vectors (radians) of conj(a)·b: the rotation from a to b in a's frame."""
    ax, ay, az, aw = -qa[..., 0], -qa[..., 1], -qa[..., 2], qa[..., 3]
    bx, by, bz, bw = qb[..., 0], qb[..., 1], qb[..., 2], qb[..., 3]
    x = aw * bx + ax * bw + ay * bz - az * by
    y = aw * by - ax * bz + ay * bw + az * bx
    z = aw * bz + ax * by - ay * bx + az * bw
    w = aw * bw - ax * bx - ay * by - az * bz
    sgn = np.where(w < 0, -1.0, 1.0)
    x, y, z, w = x * sgn, y * sgn, z * sgn, w * sgn
    s = np.sqrt(x * x + y * y + z * z)
    f = np.where(s < 1e-12, 2.0, 2.0 * np.arctan2(s, w) / np.maximum(s, 1e-300))
    return np.stack([x * f, y * f, z * f], axis=-1)


def point_segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(...,) distances from points p to segments a→b (all (..., 3), broadcast)."""
    ab = b - a
    den = np.maximum(np.sum(ab * ab, axis=-1), 1e-12)
    u = np.clip(np.sum((p - a) * ab, axis=-1) / den, 0.0, 1.0)
    return np.linalg.norm(p - (a + u[..., None] * ab), axis=-1)


# ---------------------------------------------------------------------------------------------
# per-document context
# ---------------------------------------------------------------------------------------------


SIDES = ("left", "right")


def _side(name: str) -> str:
    return "left" if name.endswith("_left") else "right"


class Context:
    """What every metric reads: the samples, the motion JSON, rig.json and the avatar."""

    def __init__(self, samples: Samples, motion: dict[str, Any], rig: dict[str, Any]):
        self.s = samples
        self.motion = motion
        self.rig = rig
        self.avatar = rig["avatars"][motion.get("avatar") or rig["defaultAvatar"]]
        self.solver = rig["solver"]
        self.planted_h = float(self.solver["plantedHeight"])
        phases = motion["phases"]
        self.phases = phases
        n = len(samples.t)
        self.n = n
        T = samples.timing
        self.names = T.names
        # contiguous runs of one segment, in time order: (segment, first index, last index)
        seg = samples.segment
        cuts = np.flatnonzero(np.diff(seg) != 0) + 1
        starts = np.concatenate([[0], cuts])
        ends = np.concatenate([cuts - 1, [n - 1]])
        self.runs = [(int(seg[a]), int(a), int(b)) for a, b in zip(starts, ends)]
        self.loop_t = samples.t % T.duration
        # gait (KR §8; solve.py): travel plus floor foot pins on both sides
        pinned = {_side(e) for ph in phases for e, a in ph.get("pin", []) if a == "floor" and e.startswith("foot_")}
        self.gait = len(pinned) == 2 and any(ph.get("tr") and any(ph["tr"]) for ph in phases)
        self.anchors = {name: np.asarray(p, float) for prop in rig["props"].values()
                        for name, p in prop.get("anchors", {}).items()}
        self._ankle_x = self._keyframe_ankle_x()

    def phase(self, seg: int) -> dict[str, Any]:
        """The phase of a segment ({} for the wrap)."""
        return self.phases[seg] if 0 <= seg < len(self.phases) else {}

    def phase_name(self, i: int) -> str:
        seg = int(self.s.segment[i])
        return self.names[seg] if 0 <= seg < len(self.names) else "wrap"

    def _keyframe_ankle_x(self) -> list[dict[str, float]]:
        """Authored ankle x (degrees, plantarflexion positive) at every keyframe (K0 = base)."""
        cur = {b: np.asarray(q, float) for b, q in self.motion.get("base", {}).items()}
        out = []
        for k in range(len(self.phases) + 1):
            if k > 0:
                cur.update({b: np.asarray(q, float) for b, q in (self.phases[k - 1].get("q") or {}).items()})
            row = {}
            for s in SIDES:
                q = cur.get(f"ankle_{s}", np.array([0.0, 0.0, 0.0, 1.0]))
                row[s] = float(euler_xyz(q)[0][0])
            out.append(row)
        return out

    def flat_expected(self, seg: int, side: str) -> bool:
        """A locked or floor-pinned foot is expected flat in segment ``seg`` unless its authored
        ankle x exceeds ``plantigradeMaxAnkle`` (tiptoe intent) at either end, hands or forearms
        are locked too (plank: the feet stand on their toes), or it is a stance foot of a
        travelling gait (push-off) — the numpy solve's levelling rules (motion-json.md)."""
        ph = self.phase(seg)
        if any(c.startswith(("hand_", "elbow_")) for c in ph.get("gl", [])):
            return False
        if self.gait and any(e == f"foot_{side}" and a == "floor" for e, a in ph.get("pin", [])):
            return False
        lim = float(self.solver["plantigradeMaxAnkle"])
        k0, k1 = seg, min(seg + 1, len(self._ankle_x) - 1)
        return self._ankle_x[k0][side] <= lim and self._ankle_x[k1][side] <= lim

    # -- contact geometry ---------------------------------------------------------------------

    def contact_points(self, effector: str) -> np.ndarray:
        """(N, P, 3) the points of a floor contact whose floor position must not move: heel and
        toe of a foot, the palm of a hand (the knuckle joint… i.e. the wrist for a fist), the
        joint of an elbow, knee or the pelvis."""
        s = self.s
        if effector.startswith("foot_"):
            side = _side(effector)
            return np.stack([s.landmark(f"heel_{side}"), s.landmark(f"toe_{side}")], axis=1)
        if effector.startswith("hand_"):
            return s.landmark(f"palm_{_side(effector)}")[:, None, :]
        bone = self.rig["effectors"].get(effector, effector)
        return s.bone(bone)[:, None, :]

    def contact_height(self, effector: str) -> np.ndarray:
        """(N,) height (m) of a contact's lowest surface point above the floor: a foot's lower
        sole point (heel, toe); a hand's lowest of palm and fingertips; an elbow's joint minus
        ``elbowFloorHeight``; a knee's joint minus the thigh's distal radius; the pelvis's joint
        minus ``pelvisFloorMin``."""
        s = self.s
        side = _side(effector)
        if effector.startswith("foot_"):
            return np.minimum(s.landmark(f"heel_{side}")[:, 1], s.landmark(f"toe_{side}")[:, 1])
        if effector.startswith(("hand_", "fist_")):
            names = [f"palm_{side}"] + [f"{d}_tip_{side}" for d in self.rig["digits"]]
            return np.min(np.stack([s.landmark(n)[:, 1] for n in names if n in s.landmarks]), axis=0)
        if effector.startswith("elbow_"):
            return s.bone(f"elbow_{side}")[:, 1] - float(self.solver["elbowFloorHeight"])
        if effector.startswith("knee_"):
            r = max(seg["r"][1] for seg in self.avatar["segments"] if seg["to"] == f"knee_{side}")
            return s.bone(f"knee_{side}")[:, 1] - r
        if effector == "pelvis":
            return s.bone("pelvis")[:, 1] - float(self.solver["pelvisFloorMin"])
        raise KeyError(effector)

    def to_frame(self, p: np.ndarray, mode: str, sl: slice = slice(None)) -> np.ndarray:
        """(n, P, 3) points (samples ``sl``) in a measuring frame: ``world``; ``travel`` (travel removed: a single
        locked foot is the pivot of a turn, carried by travel — solve.py); ``chor`` (turn and
        travel removed: the choreography frame, KR §13)."""
        if mode == "world":
            return p
        q = p.copy()
        q[..., 0] -= self.s.travel[sl, None, 0]
        q[..., 2] -= self.s.travel[sl, None, 1]
        if mode == "travel":
            return q
        th = np.radians(self.s.yaw[sl])[:, None]
        c, sn = np.cos(th), np.sin(th)
        x, z = q[..., 0].copy(), q[..., 2].copy()
        q[..., 0] = c * x - sn * z
        q[..., 2] = sn * x + c * z
        return q


# ---------------------------------------------------------------------------------------------
# run grouping: one violation per contiguous run of offending samples
# ---------------------------------------------------------------------------------------------


def _intervals(mask: np.ndarray, label: np.ndarray | None = None) -> Iterable[tuple[int, int]]:
    """Contiguous runs of samples where ``mask`` holds (and ``label`` stays the same):
    (first, last) indices."""
    i, n = 0, len(mask)
    while i < n:
        if not mask[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and mask[j + 1] and (label is None or label[j + 1] == label[i]):
            j += 1
        yield i, j
        i = j + 1


def _violations(ctx: Context, metric: str, subject: str, values: np.ndarray, mask: np.ndarray,
                limit: float, fails: bool = True) -> list[Violation]:
    """One :class:`Violation` per contiguous run of samples where ``mask`` holds and ``values``
    exceeds ``limit``, at the run's worst sample."""
    out = []
    for i, j in _intervals(mask & (values > limit + 1e-9)):
        k = i + int(np.argmax(values[i:j + 1]))
        out.append(Violation(metric, float(ctx.loop_t[k]), ctx.phase_name(k), float(values[k]), limit,
                             subject, fails))
    return out


def _worst(values: np.ndarray, mask: np.ndarray) -> float | None:
    return float(np.max(values[mask])) if np.any(mask) else None


def _merge(res: DocumentMetrics, key: str, worst: float | None) -> None:
    if worst is None:
        res.worst.setdefault(key, None)
        return
    cur = res.worst.get(key)
    res.worst[key] = worst if cur is None else max(cur, worst)


# ---------------------------------------------------------------------------------------------
# planted contacts: drift, heel / toe lift, sole tilt
# ---------------------------------------------------------------------------------------------


def held_contacts(ctx: Context) -> dict[str, dict[str, np.ndarray]]:
    """Per floor contact (``foot_left``, ``hand_right``, ``elbow_left``, ``pelvis``...): boolean
    (N,) ``held`` samples and (N,) ``mode`` codes (0 none, 1 ground-lock in the choreography
    frame, 2 single locked foot (travel frame), 3 floor pin (world frame)). ``back`` is not
    measured (its contact is a surface, not a point)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    heights: dict[str, np.ndarray] = {}
    # the contacts of the phase before each run (the loop's last phase before the first run when
    # there is no wrap): a ground-locked foot that was none of them arrives during the run (a
    # tucked foot returning to the floor) and is not held, as the solver holds it (plan.js,
    # solve.py); None: every foot (the start, or after a phase with no lock, pin or grip)
    prev = ctx.phase(len(ctx.phases) - 1 if not ctx.motion.get("wrap") else -1)
    for seg, a, b in ctx.runs:
        ph = ctx.phase(seg)
        support = None if not (prev.get("gl") or prev.get("pin") or prev.get("grip")) else \
            set(prev.get("gl", [])) | {e for e, _a in prev.get("pin", [])} | \
            {e for e, anchor in prev.get("reach", []) if anchor == "floor"}
        prev = ph
        locks = [c for c in ph.get("gl", []) if c != "back"]
        pins = [e for e, anchor in ph.get("pin", []) if anchor == "floor"]
        held_here = []
        for c in locks + pins:
            if support is not None and c.startswith("foot_") and c not in pins and c not in support:
                continue
            if c not in heights:
                heights[c] = ctx.contact_height(c)
            h = heights[c]
            if h[a] <= ctx.planted_h and h[b] <= ctx.planted_h:
                held_here.append(c)
        locked_held = [c for c in held_here if c in locks]
        for c in held_here:
            rec = out.setdefault(c, {"held": np.zeros(ctx.n, bool), "mode": np.zeros(ctx.n, int)})
            rec["held"][a:b + 1] = True
            if c in pins and c not in locks:
                mode = 3
            elif locked_held == [c] and c.startswith("foot_"):
                mode = 2
            else:
                mode = 1
            rec["mode"][a:b + 1] = mode
    return out


MODE_FRAME = {1: "chor", 2: "travel", 3: "world"}


def _interval_drift(ctx: Context, pts: np.ndarray, held: np.ndarray, mode: np.ndarray,
                    touch: bool = False) -> np.ndarray:
    """(N,) mm: horizontal distance of each point from where its interval began, worst point.
    With ``touch``, a point is followed from the first sample of the interval where it is on the
    floor (within ``plantTolerance``): toes that come down onto a planted heel are planted when
    they land, not while they are lowered."""
    drift = np.zeros(ctx.n)
    tol = float(ctx.solver["plantTolerance"])
    for a, b in _intervals(held, mode):
        p = ctx.to_frame(pts[a:b + 1], MODE_FRAME[int(mode[a])], slice(a, b + 1))
        for j in range(p.shape[1]):
            start = 0
            if touch:
                down = np.flatnonzero(np.abs(pts[a:b + 1, j, 1]) <= tol)
                if down.size == 0:
                    continue
                start = int(down[0])
            d = np.linalg.norm((p[start:, j] - p[start, j])[:, [0, 2]], axis=-1) * 1000.0
            drift[a + start:b + 1] = np.maximum(drift[a + start:b + 1], d)
    return drift


def pivot_drift(heel: np.ndarray, toe: np.ndarray, steps: int = 41) -> np.ndarray:
    """(n,) mm: how far a foot has slid, allowing it to turn about any point of its sole line.

    ``heel``, ``toe``: (n, 3) metres, sample 0 the start of the hold. The horizontal rigid motion
    from sample 0 to sample i (rotation by the heel→toe heading change, then translation) moves
    each point c(s) = heel₀ + s·(toe₀ − heel₀), s ∈ [0, 1], of the starting sole line; the drift
    is the smallest such displacement. A foot pivoting on its ball, heel or sole centre has a
    point that stays put (drift 0); a foot that slides moves every point (drift = the slide).
    Source: spec §5 / pc-ground-lock-effectors — a single ground-locked foot is the pivot of a
    turn, "the right sole planted within 20 mm: the body turns about the planted foot"."""
    h, t = heel[:, [0, 2]], toe[:, [0, 2]]
    d0 = t[0] - h[0]
    d = t - h
    ang = np.arctan2(d[:, 1], d[:, 0]) - np.arctan2(d0[1], d0[0])
    c, sn = np.cos(ang)[:, None], np.sin(ang)[:, None]
    best = np.full(len(h), np.inf)
    for s_ in np.linspace(0.0, 1.0, steps):
        rel = s_ * d0                                         # point relative to the starting heel
        moved = np.stack([c[:, 0] * rel[0] - sn[:, 0] * rel[1], sn[:, 0] * rel[0] + c[:, 0] * rel[1]], axis=1) + h
        best = np.minimum(best, np.linalg.norm(moved - (h[0] + rel), axis=1))
    return best * 1000.0


def _turning_pivots(ctx: Context, held: np.ndarray, mode: np.ndarray, heel_pts: np.ndarray,
                    toe_pts: np.ndarray, drift: np.ndarray) -> np.ndarray:
    """``drift`` with each single-locked-foot interval (mode 2) in which the choreography turns
    (yaw changes by more than 1°) measured by :func:`pivot_drift` instead: the foot is the pivot
    of the turn and may rotate about a point of its sole, not slide."""
    out = drift.copy()
    for a, b in _intervals(held, mode):
        if int(mode[a]) != 2 or np.ptp(ctx.s.yaw[a:b + 1]) <= 1.0:
            continue
        sl = slice(a, b + 1)
        hp = ctx.to_frame(heel_pts[sl][:, None, :], "travel", sl)[:, 0]
        tp = ctx.to_frame(toe_pts[sl][:, None, :], "travel", sl)[:, 0]
        out[sl] = pivot_drift(hp, tp)
    return out


def planted_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Drift (horizontal movement of a held contact's points from where its interval began, in
    its frame; a foot's toe always, its heel too while the foot is expected flat and the heel is
    down (within ``plantTolerance``) — a heel rising on tiptoe, or lifted by the ankle's range
    (kinematic-foot-flat), swings about the ball by design, KR §13 "toe centre when on tiptoe" —
    each sole point
    from when it touches down), heel and toe height (|y|, mm) of a held foot (the heel only while
    flat is expected), and sole tilt (angle between the sole normal, ankle local +Y, and world
    up) of a held foot expected flat. A segment whose held foot does not begin flat (heel or toe
    more than ``plantTolerance`` up: the author lowers the toes or heel onto the floor during the
    phase) is measured for lift and tilt at its phase end only."""
    s = ctx.s
    tol_mm = float(ctx.solver["plantTolerance"]) * 1000.0
    for contact, rec in held_contacts(ctx).items():
        held, mode = rec["held"], rec["mode"]
        pts = ctx.contact_points(contact)
        if not contact.startswith("foot_"):
            drift = _interval_drift(ctx, pts, held, mode)
            _merge(res, "drift", _worst(drift, held))
            res.violations += _violations(ctx, "drift", contact, drift, held, METRIC["drift"].limit)
            continue
        side = _side(contact)
        toe = np.abs(s.landmark(f"toe_{side}")[:, 1]) * 1000.0
        heel = np.abs(s.landmark(f"heel_{side}")[:, 1]) * 1000.0
        flat = np.zeros(ctx.n, bool)
        lift_toe = held.copy()
        for seg, a, b in ctx.runs:
            if not held[a]:
                continue
            expect_flat = ctx.flat_expected(seg, side)
            if expect_flat:
                flat[a:b + 1] = True
            placing = toe[a] > tol_mm or (expect_flat and heel[a] > tol_mm)
            if placing:   # measured at the phase end only
                lift_toe[a:b] = False
                flat[a:b] = False
        flat &= held
        # the heel counts while it is down: a heel the ankle's range lifts (kinematic-foot-flat)
        # swings about the ball of the foot with the rest of the sole, as on tiptoe (issue 5)
        heel_drift = _interval_drift(ctx, pts[:, 0:1], flat, mode, touch=True)
        drift = np.maximum(_interval_drift(ctx, pts[:, 1:2], held, mode, touch=True),     # toe
                           np.where(heel <= tol_mm, heel_drift, 0.0))                     # heel
        drift = _turning_pivots(ctx, held, mode, pts[:, 0], pts[:, 1], drift)             # a pivot foot
        _merge(res, "drift", _worst(drift, held))
        res.violations += _violations(ctx, "drift", contact, drift, held, METRIC["drift"].limit)
        up = quat_matrices(s.orient[:, s.bones.index(f"ankle_{side}")])[:, :, 1]
        tilt = np.degrees(np.arccos(np.clip(up[:, 1], -1.0, 1.0)))
        for key, vals, mask in (("toe_lift", toe, lift_toe), ("heel_lift", heel, flat), ("sole_tilt", tilt, flat)):
            _merge(res, key, _worst(vals, mask))
            res.violations += _violations(ctx, key, contact, vals, mask, METRIC[key].limit)
    for key in ("drift", "toe_lift", "heel_lift", "sole_tilt"):
        res.worst.setdefault(key, None)


# ---------------------------------------------------------------------------------------------
# grip, prop pins, reach
# ---------------------------------------------------------------------------------------------


def _effector_point(ctx: Context, effector: str, target: str) -> np.ndarray:
    """(N, 3): a foot meets a top surface (``box``, ``seat``) with its sole centre, everything
    else with its joint (solve.py ``_effector_point``); a grip holds the wrist joint."""
    if effector.startswith("foot_") and target in ("box", "seat"):
        return ctx.s.landmark(f"sole_{_side(effector)}")
    return ctx.s.bone(ctx.rig["effectors"].get(effector, effector))


def anchored_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Grip residual (wrist joint to its bar anchor) and prop-pin residual (effector point to the
    prop anchor), in mm: over a whole segment when the previous phase already held the same
    effector on the same anchor, else at the phase end only (the body travels to the bar during
    the segment that takes hold). Reach residual (mm) at each phase end: distance to a prop anchor
    or body landmark, or the contact's height above the floor for ``floor``."""
    grip = np.zeros(ctx.n)
    gmask = np.zeros(ctx.n, bool)
    pin = np.zeros(ctx.n)
    pmask = np.zeros(ctx.n, bool)
    #: per metric: (values, mask, subject) of each anchored contact, for its own violations
    subjects: dict[str, list[tuple[np.ndarray, np.ndarray, str]]] = {"grip_residual": [], "pin_residual": []}
    for seg, a, b in ctx.runs:
        ph = ctx.phase(seg)
        prev = ctx.phase(seg - 1) if seg > 0 else (ctx.phases[-1] if ctx.s.timing.wrap == 0 else {})
        for kind, key, vals, mask in (("grip", "grip_residual", grip, gmask), ("pin", "pin_residual", pin, pmask)):
            for e, anchor in ph.get(kind, []):
                if anchor == "floor" or anchor not in ctx.anchors:
                    continue
                first = a if [e, anchor] in [list(x) for x in prev.get(kind, [])] else b
                p = _effector_point(ctx, e, anchor)[first:b + 1]
                r = np.linalg.norm(p - ctx.anchors[anchor], axis=-1) * 1000.0
                v = np.zeros(ctx.n)
                m = np.zeros(ctx.n, bool)
                v[first:b + 1] = r
                m[first:b + 1] = True
                subjects[key].append((v, m, f"{e} {anchor}"))
                vals[first:b + 1] = np.maximum(vals[first:b + 1], r)
                mask[first:b + 1] = True
    for key, vals, mask in (("grip_residual", grip, gmask), ("pin_residual", pin, pmask)):
        _merge(res, key, _worst(vals, mask))
        for v, m, subject in subjects[key]:
            res.violations += _violations(ctx, key, subject, v, m, METRIC[key].limit)

    worst = None
    for seg, a, b in ctx.runs:
        for e, target in ctx.phase(seg).get("reach", []):
            if target == "floor":
                r = float(abs(ctx.contact_height(e)[b]))
            elif target in ctx.anchors:
                r = float(np.linalg.norm(_effector_point(ctx, e, target)[b] - ctx.anchors[target]))
            else:
                bone = ctx.rig["effectors"].get(target, target)
                if bone not in ctx.s.bones:
                    continue
                r = float(np.linalg.norm(_effector_point(ctx, e, target)[b] - ctx.s.bone(bone)[b]))
            r *= 1000.0
            worst = r if worst is None else max(worst, r)
            if r > METRIC["reach_residual"].limit:
                res.violations.append(Violation("reach_residual", float(ctx.loop_t[b]), ctx.phase_name(b), r,
                                                METRIC["reach_residual"].limit, f"{e} {target}", fails=False))
    _merge(res, "reach_residual", worst)


# ---------------------------------------------------------------------------------------------
# props and self-collision
# ---------------------------------------------------------------------------------------------

#: sample fractions along a capsule (KR §10.1)
CAPSULE_T = (0.0, 0.33, 0.66, 1.0)


def body_capsules(ctx: Context) -> list[tuple[str, str, np.ndarray, float]]:
    """Body sample points for the prop pass (KR §10.1): ``(part, limb, (N, P, 3) points,
    radius)`` where part is ``torso``, ``head``, ``thighs``, ``shins`` or ``arms`` and limb the
    effector side it belongs to (``leg_left``...; "" for torso and head). Torso pelvis→neck;
    head neck→head plus 0.05 m; thighs; shins plus ``shinOverhang``; upper arms; forearms plus
    0.09 m; samples at t = 0, 0.33, 0.66, 1 and the overhang; radii ``avatar.collision``."""
    s, col = ctx.s, ctx.avatar["collision"]

    def seg(a, b, over=0.0):
        pa, pb = s.bone(a), s.bone(b)
        pts = [pa + t * (pb - pa) for t in CAPSULE_T]
        if over > 0:
            d = pb - pa
            d = d / np.maximum(np.linalg.norm(d, axis=-1, keepdims=True), 1e-9)
            pts.append(pb + over * d)
        return np.stack(pts, axis=1)

    out = [("torso", "", seg("pelvis", "neck"), col["torso"]),
           ("head", "", seg("neck", "head", 0.05), col["head"])]
    for side in SIDES:
        out.append(("thighs", f"leg_{side}", seg(f"hip_{side}", f"knee_{side}"), col["thigh"]))
        out.append(("shins", f"leg_{side}", seg(f"knee_{side}", f"ankle_{side}", float(ctx.solver["shinOverhang"])), col["shin"]))
        out.append(("arms", f"arm_{side}", seg(f"shoulder_{side}", f"elbow_{side}"), col["arm"]))
        out.append(("arms", f"arm_{side}", seg(f"elbow_{side}", f"wrist_{side}", 0.09), col["arm"]))
    return out


def _limb_of(effector: str) -> str:
    side = _side(effector)
    return f"leg_{side}" if effector.startswith(("foot_", "knee_")) else f"arm_{side}"


def _supports(ph: dict[str, Any]) -> set[str]:
    """Limbs a phase rests on a prop: pinned, gripped or reached to a non-floor anchor (KR §10.1
    declared supports; the pelvis on a seat is not a limb)."""
    return {_limb_of(e) for kind in ("pin", "grip", "reach") for e, anchor in ph.get(kind, [])
            if anchor != "floor" and not e.startswith("pelvis")}


def prop_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Prop penetration (mm): for each declared prop's blocking face (``rig.json`` ``faces``),
    the depth r − (p − c)·n of every body sample it owns (−capture ≤ (p − c)·n < r, inside the
    face's half extents + r), skipping limbs pinned, gripped or reached to a non-floor anchor in
    that segment (declared supports, KR §10.1).

    A leg **stepping off** a prop (a declared support of the phase before, free in this one: the
    foot that stood on the box) starts the segment standing on it, where the shin model (radius
    and overhang past the ankle) already reads as deep inside; it is measured by its sole until
    its shin first clears the face (its depth 0): the sole landmarks (heel, toe, sole centre) may
    not go below the top while over the prop (depth top − y). From then on the shin model holds
    for the rest of the segment."""
    faces = [f for prop in ctx.motion.get("props", []) for f in ctx.rig["props"].get(prop, {}).get("faces", [])]
    if not faces:
        res.worst["penetration"] = None
        return
    order = ["leg_left", "leg_right", "arm_left", "arm_right"]
    exempt = np.zeros((ctx.n, 4), bool)   # leg_left, leg_right, arm_left, arm_right
    leaving = []                          # (limb, first, last): stepping off a prop
    wrap = ctx.s.timing.wrap > 0
    for seg, a, b in ctx.runs:
        now = _supports(ctx.phase(seg))
        for limb in now:
            exempt[a:b + 1, order.index(limb)] = True
        before = seg - 1 if seg > 0 else (-1 if wrap else len(ctx.phases) - 1)
        leaving += [(limb, a, b) for limb in _supports(ctx.phase(before)) - now if limb.startswith("leg_")]
    depth_all = np.zeros(ctx.n)
    for face in faces:
        c, nrm = np.asarray(face["center"], float), np.asarray(face["normal"], float)
        u, v = np.asarray(face["u"], float), np.asarray(face["v"], float)
        blocks = set(face["blocks"])
        depth = np.zeros(ctx.n)
        for part, limb, pts, r in body_capsules(ctx):
            if "all" not in blocks and part not in blocks:
                continue
            rel = pts - c
            d = rel @ nrm
            own = (d >= -face["capture"]) & (d < r) & (np.abs(rel @ u) <= face["halfU"] + r) & \
                (np.abs(rel @ v) <= face["halfV"] + r)
            dep = np.where(own, r - d, 0.0).max(axis=1)
            if limb:
                dep = np.where(exempt[:, order.index(limb)], 0.0, dep)
                for who, a, b in leaving:
                    if who != limb:
                        continue
                    clear = np.flatnonzero(dep[a:b + 1] <= 0.0)
                    end = a + int(clear[0]) if clear.size else b + 1
                    sole = np.stack([ctx.s.landmark(f"{n}_{limb[4:]}")[a:end] - c for n in ("heel", "toe", "sole")], axis=1)
                    over = (sole @ nrm <= 0) & (sole @ nrm >= -face["capture"]) & (np.abs(sole @ u) <= face["halfU"])
                    dep[a:end] = np.where(over, np.maximum(face["halfV"] - sole @ v, 0.0), 0.0).max(axis=1)
            depth = np.maximum(depth, dep * 1000.0)
        mask = np.ones(ctx.n, bool)
        res.violations += _violations(ctx, "penetration", face["name"], depth, mask, METRIC["penetration"].limit)
        depth_all = np.maximum(depth_all, depth)
    res.worst["penetration"] = float(depth_all.max())


def _self_collision_candidates(ctx: Context) -> dict[str, np.ndarray]:
    """A conservative screen (speed only, not a definition): per limb, (N,) True where its
    distal segment, extended 0.1 m and sampled every ≤ 9 cm, comes within (limb radius +
    obstacle radius + 5 cm sampling slack) of the torso, head or other-leg axis (each extended
    0.1 m, more than collide's overhangs), so every sample :func:`collide.deepest` could find
    overlapping is kept."""
    s, col = ctx.s, ctx.avatar["collision"]
    pel, neck, head = s.bone("pelvis"), s.bone("neck"), s.bone("head")
    up = neck - pel
    up = up / np.maximum(np.linalg.norm(up, axis=-1, keepdims=True), 1e-9)
    hd = head - neck
    hd = hd / np.maximum(np.linalg.norm(hd, axis=-1, keepdims=True), 1e-9)
    out = {}
    for side in SIDES:
        other = "right" if side == "left" else "left"
        for limb, a, b in ((f"arm_{side}", s.bone(f"elbow_{side}"), s.bone(f"wrist_{side}")),
                           (f"leg_{side}", s.bone(f"knee_{side}"), s.bone(f"ankle_{side}"))):
            d = b - a
            dn = d / np.maximum(np.linalg.norm(d, axis=-1, keepdims=True), 1e-9)
            end = b + 0.1 * dn
            pts = np.stack([a + f * (end - a) for f in np.linspace(0.0, 1.0, 7)], axis=1)
            r = col["arm"] if limb.startswith("arm") else col["shin"]
            caps = [(pel - 0.1 * up, neck, col["torso"]), (head - 0.1 * hd, head + 0.1 * hd, col["head"])]
            if limb.startswith("leg"):
                caps += [(s.bone(f"hip_{other}"), s.bone(f"knee_{other}"), col["thigh"]),
                         (s.bone(f"knee_{other}"), s.bone(f"ankle_{other}"), col["shin"])]
            hit = np.zeros(ctx.n, bool)
            for ca, cb, rc in caps:
                dist = point_segment_distance(pts, ca[:, None, :], cb[:, None, :]).min(axis=1)
                hit |= dist < r + rc + 0.05
            out[limb] = hit
    return out


def self_collision_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Self-collision depth (mm): per limb (``arm_*``: forearm and hand samples against the torso
    and head; ``leg_*``: shin and foot samples against the torso and the other leg), the deepest
    overlap of :func:`posecode_ssg.motion.collide.deepest` — the one definition the numpy solve,
    its ``kinematic-self-collision`` diagnostic and the runtime's self-collision pass share
    (KR §10.2; radii ``avatar.collision``) — evaluated on every sample's joint positions."""
    from posecode_ssg.motion.collide import LIMBS, deepest
    from posecode_ssg.motion.fk import World
    from posecode_ssg.motion.rig import avatar as rig_avatar

    s = ctx.s
    av = rig_avatar(ctx.motion.get("avatar") or ctx.rig["defaultAvatar"])
    depth = {limb: np.zeros(ctx.n) for limb in LIMBS}
    obstacle = {limb: [""] * ctx.n for limb in LIMBS}
    near = _self_collision_candidates(ctx)
    for i in np.flatnonzero(np.any(np.stack(list(near.values())), axis=0)):
        w = World(av, dict(zip(s.bones, s.pos[i])), {}, {}, np.zeros(3), np.eye(3))
        for limb in LIMBS:
            if not near[limb][i]:
                continue
            d, _p, _n, name = deepest(w, limb)
            depth[limb][i] = d * 1000.0
            obstacle[limb][i] = name
    total = np.zeros(ctx.n)
    for limb, vals in depth.items():
        for v in _violations(ctx, "self_collision", limb, vals, np.ones(ctx.n, bool),
                             METRIC["self_collision"].limit):
            k = int(np.argmin(np.abs(ctx.loop_t - v.t) + np.abs(vals - v.value)))
            v.subject = f"{limb} {obstacle[limb][k]}"
            res.violations.append(v)
        total = np.maximum(total, vals)
    res.worst["self_collision"] = float(total.max())


# ---------------------------------------------------------------------------------------------
# range of motion and angular-velocity continuity
# ---------------------------------------------------------------------------------------------


def box_excess(e: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """(...,) degrees by which Euler triples e (..., 3) lie outside the box [lo, hi] (3,), the
    largest over the axes; an angle counts modulo a full turn (a shoulder flexed to −180.2° reads
    as +179.8° from atan2 and is 0.2° past a −180° limit, not 119.8° past +60°)."""
    out = np.full(e.shape, np.inf)
    for turn in (-360.0, 0.0, 360.0):
        v = e + turn
        out = np.minimum(out, np.maximum(np.maximum(lo - v, v - hi), 0.0))
    return out.max(axis=-1)


def rom_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Range-of-motion violations: samples × bones whose solved local rotation lies outside its
    ``rig.json`` ``rom`` box by more than :data:`ROM_TOLERANCE_DEG` in both Euler decompositions
    (:func:`box_excess`). The worst value is the count over one loop; each violation's value is
    the excess in degrees."""
    s = ctx.s
    count = 0
    for bi, bone in enumerate(s.bones):
        box = ctx.rig["rom"].get(bone)
        if box is None:
            continue
        lo = np.array([box[a][0] for a in "xyz"])
        hi = np.array([box[a][1] for a in "xyz"])
        e1, e2 = euler_xyz(s.local[:, bi])
        excess = np.minimum(box_excess(e1, lo, hi), box_excess(e2, lo, hi))
        bad = (excess > ROM_TOLERANCE_DEG) & (s.t < s.timing.duration)   # one loop's samples
        count += int(bad.sum())
        res.violations += _violations(ctx, "rom", bone, excess, np.ones(ctx.n, bool), ROM_TOLERANCE_DEG)
    for v in res.violations:
        if v.metric == "rom":
            v.limit = 0.0
    res.worst["rom"] = float(count)


def keyframe_c1_required(ctx: Context, k: int) -> tuple[bool, str, str]:
    """Whether keyframe ``k`` of the extended sample sequence must be C1, with its incoming and
    outgoing modes. Keyframe k ≥ number of segments is the loop seam again."""
    T = ctx.s.timing
    S = len(T.modes)
    j = k % S
    m_in, m_out = T.modes[(j - 1) % S], T.modes[j]
    req = m_in not in NON_C1_ARRIVAL and m_out not in NON_C1_DEPARTURE
    return req, m_in, m_out


def velocity_metrics(ctx: Context, res: DocumentMetrics) -> None:
    """Angular-velocity continuity: at each keyframe where C1 is required
    (:func:`keyframe_c1_required`), every bone's local angular velocity just before and just after
    the keyframe, body frame, rad/s, by second-order one-sided differences of the rotation
    vectors r(x) of q(t)⁻¹·q(t + x) at x = ±1, ±2 ms: ω₋ = (r(−2h) − 4 r(−h)) / 2h,
    ω₊ = (4 r(h) − r(2h)) / 2h (their error is O(h²), so acceleration does not read as a jump).
    The jump |ω₊ − ω₋| may be at most VELOCITY_ABS + VELOCITY_REL·max(|ω₋|, |ω₊|). The worst
    value is the largest jump in excess of that allowance (0 when all hold)."""
    s = ctx.s
    worst = 0.0
    for k, i in s.keys:
        req, m_in, m_out = keyframe_c1_required(ctx, k)
        if not req:
            continue
        h = (s.t[i + 2] - s.t[i - 2]) / 4.0
        q0 = s.local[i]
        r = {j: rotation_vectors(q0, s.local[i + j]) for j in (-2, -1, 1, 2)}
        wb = (r[-2] - 4.0 * r[-1]) / (2.0 * h)
        wa = (4.0 * r[1] - r[2]) / (2.0 * h)
        jump = np.linalg.norm(wa - wb, axis=-1)
        allow = VELOCITY_ABS + VELOCITY_REL * np.maximum(np.linalg.norm(wa, axis=-1), np.linalg.norm(wb, axis=-1))
        over = jump - allow
        b = int(np.argmax(over))
        if over[b] > 0:
            worst = max(worst, float(over[b]))
            res.violations.append(Violation("velocity_jump", float(ctx.loop_t[i]), ctx.phase_name(i),
                                            float(jump[b]), round(float(allow[b]), 3),
                                            f"{s.bones[b]} ({m_in}→{m_out})"))
    res.worst["velocity_jump"] = worst


# ---------------------------------------------------------------------------------------------
# all together
# ---------------------------------------------------------------------------------------------


def evaluate_samples(samples: Samples, motion: dict[str, Any], rig: dict[str, Any]) -> DocumentMetrics:
    """Every metric of one sampled document; violations sorted by time."""
    ctx = Context(samples, motion, rig)
    res = DocumentMetrics()
    planted_metrics(ctx, res)
    anchored_metrics(ctx, res)
    prop_metrics(ctx, res)
    self_collision_metrics(ctx, res)
    rom_metrics(ctx, res)
    velocity_metrics(ctx, res)
    res.worst = {m.key: res.worst.get(m.key) for m in METRICS}
    # the extended sample range repeats the first segment: keep one copy of each violation
    # (the larger, should the two loops differ by rounding)
    best: dict[tuple, Violation] = {}
    for v in res.violations:
        key = (v.metric, v.subject, round(v.t, 3))
        if key not in best or v.value > best[key].value:
            best[key] = v
    res.violations = sorted(best.values(), key=lambda v: (v.t, v.metric, v.subject))
    return res


def explain(violations: list[Violation], diagnostics: list, phases: list[str]) -> None:
    """Attach to each violation the kinematic diagnostic of the numpy keyframe solve that
    predicts it (same effector; the same phase, or the phase before it — the segment leaving an
    impossible keyframe starts from it; ``phases`` the phase names in order, the wrap after
    them): ``kinematic-foot-flat`` explains heel/toe lift and
    sole tilt of that foot, ``kinematic-foot-drift`` and ``kinematic-ground-lock-lifted`` its
    drift, ``kinematic-grip-unreachable`` / ``kinematic-pin-unreachable`` those residuals,
    ``kinematic-reach-short`` a reach residual, ``kinematic-self-collision`` (same limb) a
    self-collision depth. Explained violations do not fail (docs/eval.md)."""
    codes = {
        "heel_lift": ("kinematic-foot-flat",), "toe_lift": ("kinematic-foot-flat",),
        "sole_tilt": ("kinematic-foot-flat",),
        "drift": ("kinematic-foot-drift", "kinematic-ground-lock-lifted"),
        "grip_residual": ("kinematic-grip-unreachable",), "pin_residual": ("kinematic-pin-unreachable",),
        "reach_residual": ("kinematic-reach-short",),
        "self_collision": ("kinematic-self-collision",),
    }
    for v in violations:
        want = codes.get(v.metric)
        if not want:
            continue
        effector = v.subject.split()[0]
        # the phase of the violation, or the one before it (leaving an impossible keyframe)
        k = phases.index(v.phase) if v.phase in phases else len(phases)
        near = {v.phase, phases[k - 1] if phases else None}
        for d in diagnostics:
            extra = getattr(d, "extra", {}) or {}
            if d.code not in want or extra.get("phase") not in near:
                continue
            named = extra.get("foot") or extra.get("limb")
            if named is not None and named != effector:
                continue
            if named is None and effector not in d.message:
                continue
            v.explained = {"line": d.line, "column": d.column, "code": d.code, "message": d.message}
            break
