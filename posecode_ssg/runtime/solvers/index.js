/**
 * The solver-pass slot. After the timeline and forward kinematics have posed a figure, each pass
 * below runs once per frame, in this order, on a {@link SolveContext}:
 *
 *   1. `grounding`      bounding-box drop of floor-bound phases (kinematics-reference §4, §6)
 *   2. `ground-lock`    keep locked contacts planted (spec §5 ground_lock)     [next issue]
 *   3. `pin`            translate the root so a pinned effector meets its anchor [next issue]
 *   4. `grip`           translate, arm CCD, orient, close the fingers          [next issue]
 *   5. `props`          push the body out of prop blocking faces              [next issue]
 *   6. `reach`          CCD within the ROM boxes, residual recorded           [next issue]
 *   7. `self-collision` bounded arm/leg depenetration                         [next issue]
 *
 * A pass is `{name, run(ctx)}`; `run` mutates `ctx.skeleton` (root transform, local rotations via
 * `ctx.localQ` + `ctx.skeleton.forward`) and may push `{code, message}` to `ctx.warnings`. Passes
 * allocate nothing per frame. To add one, export it from its own file in this folder and put it in
 * {@link PASSES} at its place in the order above. After the passes, `measureContacts`
 * (contacts.js) reports the residual of every active contact, so a missing pass shows up as a
 * residual rather than silently.
 * @module solvers
 */

import { grounding } from "./grounding.js";

/** The passes that exist, in run order (a subsequence of the order documented above). */
export const PASSES = [grounding];

/** The documented full order (names), for tests and docs. */
export const PASS_ORDER = ["grounding", "ground-lock", "pin", "grip", "props", "reach", "self-collision"];

/**
 * Run every pass on `ctx` in order.
 * @param {object} ctx the {@link SolveContext} of one figure (see pose.js)
 */
export function runPasses(ctx) {
  for (let i = 0; i < PASSES.length; i++) PASSES[i].run(ctx);
}
