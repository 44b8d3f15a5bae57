/**
 * The solver-pass slot. After the timeline and forward kinematics have posed a figure, each pass
 * below runs once per frame, in this order, on a {@link SolveContext} (docs/runtime.md "Solve
 * order per frame"; the numpy keyframe solve posecode_ssg/motion/solve/ runs the same steps):
 *
 *   1. `grounding`       bounding-box drop of floor-bound phases (KR §4, §6)      (grounding.js)
 *   2. `ground-lock`     each held foot on its anchor: stance shift of the root, two-bone leg
 *                        IK (limb.js), levelling with a foot-flat warning when the ankle's range
 *                        cannot; hands/forearms + feet pivot the body about the feet
 *                        (groundlock.js, hands.js)
 *   3. `pin`             translate the root so a pinned effector meets its anchor; stance legs
 *                        of a travelling gait by two-bone IK                      (pin.js)
 *   4. `swing-clearance` a free foot whose toe goes through the floor turns up at the ankle
 *                        instead of the body being lifted off its support   (swingclearance.js)
 *   5. `grip`            translate the root so the wrists meet the bar, arm CCD  (grip.js, ccd.js)
 *   6. `props`           push the body out of the body faces (chair, wall): the root along a
 *                        face's normal (KR §10.1)                                (props.js)
 *   7. `reach`           CCD within the ROM boxes, blended across boundaries; residual
 *                        reported by sample() contacts (KR §7, §5.3)             (reach.js)
 *   8. `self-collision`  bounded shoulder/hip push of free limbs out of the torso and the
 *                        other leg (KR §10.2), free legs cleared of the floor again in their
 *                        own chain, then the floor clamp of limb changes (selfcollision.js)
 *   9. `floor-clamp`     floor-bound phases touch the floor, none sinks (KR §6.1 step 14);
 *                        foot-lifted warning for a held foot left off the floor (floorclamp.js)
 *  10. `entry-blend`     runtime-only: the offset between the previous phase's solved end and
 *                        this segment's solve at its start fades out (root, root rotation,
 *                        joints)                                                  (blend.js)
 *  11. `replant`         runtime-only: the firmly held feet back on their footprints after the
 *                        blend (its partial root and joint offsets walk them)     (replant.js)
 *  12. `prop-limbs`      a free leg lifted out of a limb face (the box) by its knee, on the
 *                        pose as shown (after the blend, so the box is clear at every frame)
 *                                                                                 (proplimbs.js)
 *
 * The runtime-only passes have no twin in the numpy keyframe solve: they act between phase ends
 * only (both are no-ops at u = 1). Shared measuring helpers (contact heights, footprints, hold
 * errors) are in measure.js, the limb moves (two-bone IK, swivel, levelling) in limb.js, CCD in
 * ccd.js; the contact report after the passes in contacts.js.
 *
 * Passes 2–5, 9 and 10 read `ctx.plan`, the segment's contact plan built once at load
 * (plan.js), and `ctx.root` / `ctx.startPos` (turn, travel, grounded base root).
 *
 * A pass is `{run(ctx)}` (its name in {@link PASS_ORDER}: the bundle carries no names); `run` mutates `ctx.skeleton` (root transform, local rotations via
 * `ctx.localQ` + `ctx.skeleton.forward`) and may push `{code, message}` to `ctx.warnings`. Passes
 * allocate nothing per frame. To add one, export it from its own file in this folder and put it in
 * {@link PASSES} at its place in the order above. After the passes, `measureContacts`
 * (contacts.js) reports the residual of every active contact, so a missing pass shows up as a
 * residual rather than silently.
 * @module solvers
 */

import { grounding } from "./grounding.js";
import { groundLock } from "./groundlock.js";
import { pin } from "./pin.js";
import { weightShift } from "./balance.js";
import { swingClearance } from "./swingclearance.js";
import { grip } from "./grip.js";
import { props } from "./props.js";
import { reach } from "./reach.js";
import { selfCollision } from "./selfcollision.js";
import { floorClamp } from "./floorclamp.js";
import { entryBlend } from "./blend.js";
import { replant } from "./replant.js";
import { propLimbs } from "./proplimbs.js";

/** The passes, in run order (the order documented above). */
export const PASSES = [
  grounding,
  groundLock,
  pin,
  swingClearance,
  weightShift,
  grip,
  props,
  reach,
  selfCollision,
  floorClamp,
  entryBlend,   // runtime-only
  replant,      // runtime-only
  propLimbs,
];

/** The documented order (names), for tests and docs. */
export const PASS_ORDER = ["grounding", "ground-lock", "pin", "swing-clearance", "weight-shift", "grip", "props", "reach", "self-collision", "floor-clamp", "entry-blend", "replant", "prop-limbs"];

/**
 * Run every pass on `ctx` in order.
 * @param {object} ctx the {@link SolveContext} of one figure (see figuremodel.js)
 */
export function runPasses(ctx) {
  for (let i = 0; i < PASSES.length; i++) PASSES[i].run(ctx);
}
