/**
 * Grounding pass: the bounding-box drop (kinematics-reference §4 "the whole figure's lowest mesh
 * point is placed on y = 0"; §5 the reference also re-clamps every frame of floor-bound phases).
 *
 * In a floor-bound segment (no grip, no pin to a non-floor anchor) the figure is moved vertically
 * so its lowest mesh point (capsules, ellipsoids, soles: Skeleton#measureLowest) lies on y = 0,
 * both ways (a squat lowers the body, a lift raises it). Hanging segments keep the root where the
 * timeline put it (the grip and pin passes place them) but are lifted if they would sink below the
 * floor, as the build-time solve's floor clamp does (posecode_ssg/motion/solve/).
 * @module solvers/grounding
 */

export const grounding = {
  /** @param {{skeleton: import("../skeleton.js").Skeleton, floorBound: boolean}} ctx */
  run(ctx) {
    const low = ctx.skeleton.measureLowest();
    // floor-bound: touch the floor both ways; hanging: only never sink below it
    if (Number.isFinite(low) && (ctx.floorBound || low < 0)) ctx.skeleton.translate(0, -low, 0);
  },
};
