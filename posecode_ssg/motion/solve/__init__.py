"""The build-time keyframe solve (numpy): the figure at the start pose and at every phase end.

Each pass is a module named like its twin in ``runtime/solvers/`` and runs in the order of
:data:`~.keyframes.PASSES` (docs/runtime.md "Solve order per frame"); the shared measuring
(:mod:`.measure`), the working pose (:mod:`.pose`), the limb IK (:mod:`.limb`, :mod:`.ccd`,
:mod:`.hands`) and the phase plan (:mod:`.plan`) sit below them; :mod:`.keyframes` drives them.

Sources: spec §5–§6 (contact semantics: pin moves the body, reach moves the limb, CCD with a ROM
clamp every iteration, residuals recorded); kinematics-reference (KR) §4 (bounding-box drop), §6
(per-frame order, ground-lock paths, foot levelling), §7 (CCD chains, 12 iterations, 1 cm stop,
floor targets), §8 (pin), §9 (grip), §10.1 (prop faces). Where KR marks a gap we do better:

- ground-lock keeps **each** planted contact where it was at the end of the previous phase
  (translation first, then a per-leg IK for what translation cannot hold), not the average;
- a planted foot that cannot be levelled inside the ankle box is reported, never silently lifted.

The solve works on phase ends only (keyframes), which is what posters and diagnostics need; the
browser runtime solves every frame. The kinematic diagnostics built on it are in
:mod:`posecode_ssg.motion.diagnostics`; start-pose grounding in :mod:`posecode_ssg.motion.startpose`.
"""

from .keyframes import PASSES, solve_keyframes
from .results import ContactResult, FootReport, PhaseSolution, Solution

__all__ = ["solve_keyframes", "PASSES", "Solution", "PhaseSolution", "ContactResult", "FootReport"]
