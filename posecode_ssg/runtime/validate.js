/**
 * Checks a motion JSON object (docs/motion-json.md, posecode_ssg/motion/motion.schema.json)
 * against the page's rig.json before anything is built from it, so bad data becomes one readable
 * message instead of a NaN pose or an exception deep in the render loop.
 * @module validate
 */

/** The timing modes of spec §1 `timingMode` (aliases are normalised by the compiler). */
export const TIMING_MODES = ["flow", "settle", "drive", "snap", "linear"];

/** An error in the motion data; `message` says what to fix. */
export class MotionDataError extends Error {
  constructor(message) {
    super(message);
    this.name = "MotionDataError";
  }
}

const isNum = (x) => typeof x === "number" && Number.isFinite(x);
const describe = (x) => (x === undefined ? "nothing" : JSON.stringify(x)?.slice(0, 40));

function checkQuatMap(map, where, bones) {
  if (map === undefined) return;
  if (map === null || typeof map !== "object" || Array.isArray(map)) {
    throw new MotionDataError(`${where} must be an object {bone: [x, y, z, w]}, got ${describe(map)}`);
  }
  for (const [bone, q] of Object.entries(map)) {
    if (!bones.has(bone)) throw new MotionDataError(`${where}: unknown bone "${bone}"`);
    if (!Array.isArray(q) || q.length !== 4 || !q.every(isNum)) {
      throw new MotionDataError(`${where}.${bone} must be a quaternion [x, y, z, w] of 4 numbers, got ${describe(q)}`);
    }
    const n = Math.hypot(q[0], q[1], q[2], q[3]);
    if (Math.abs(n - 1) > 0.01) throw new MotionDataError(`${where}.${bone} is not a unit quaternion (length ${n.toFixed(3)})`);
  }
}

function checkPairs(list, where) {
  if (list === undefined) return;
  if (!Array.isArray(list) || !list.every((p) => Array.isArray(p) && p.length === 2 && p.every((s) => typeof s === "string"))) {
    throw new MotionDataError(`${where} must be a list of [effector, anchor] pairs, got ${describe(list)}`);
  }
}

/**
 * Validate `m` against `rig`; returns `m` or throws {@link MotionDataError}.
 * @param {any} m parsed motion JSON
 * @param {object} rig parsed rig.json
 */
export function validateMotion(m, rig) {
  if (m === null || typeof m !== "object" || Array.isArray(m)) throw new MotionDataError("the motion data must be a JSON object");
  if (m.format !== "posecode-motion/1") {
    throw new MotionDataError(`unsupported motion format ${describe(m.format)} (this runtime reads "posecode-motion/1"); rebuild the site`);
  }
  const bones = new Set(rig.bones.map((b) => b.id));
  const avatar = m.avatar ?? rig.defaultAvatar;
  if (!rig.avatars[avatar]) throw new MotionDataError(`unknown avatar ${describe(m.avatar)}; expected one of ${Object.keys(rig.avatars).join(", ")}`);
  const pose = m.startPose ?? rig.defaultStartPose;
  if (!rig.startPoses[pose]) throw new MotionDataError(`unknown start pose ${describe(m.startPose)}`);
  for (const p of m.props ?? []) if (!rig.props[p]) throw new MotionDataError(`unknown prop ${describe(p)}`);
  if (m.repeat !== undefined && !(Number.isInteger(m.repeat) && m.repeat >= 0)) throw new MotionDataError(`"repeat" must be a whole number ≥ 0, got ${describe(m.repeat)}`);
  checkQuatMap(m.base, '"base"', bones);
  if (!Array.isArray(m.phases) || m.phases.length === 0) throw new MotionDataError('"phases" must be a non-empty list');
  let total = 0;
  m.phases.forEach((p, i) => {
    const where = `phase ${i + 1}${p && typeof p.name === "string" ? ` ("${p.name}")` : ""}`;
    if (p === null || typeof p !== "object") throw new MotionDataError(`${where} must be an object`);
    if (typeof p.name !== "string") throw new MotionDataError(`${where}: "name" must be a string`);
    if (!isNum(p.d) || p.d <= 0) throw new MotionDataError(`${where}: "d" must be a positive number of seconds, got ${describe(p.d)}`);
    if (!TIMING_MODES.includes(p.m)) throw new MotionDataError(`${where}: timing mode "m" must be one of ${TIMING_MODES.join(", ")}, got ${describe(p.m)}`);
    checkQuatMap(p.q, `${where} "q"`, bones);
    if (p.gl !== undefined && !(Array.isArray(p.gl) && p.gl.every((s) => typeof s === "string"))) throw new MotionDataError(`${where}: "gl" must be a list of contact names`);
    checkPairs(p.pin, `${where} "pin"`);
    checkPairs(p.grip, `${where} "grip"`);
    checkPairs(p.reach, `${where} "reach"`);
    if (p.turn !== undefined && !isNum(p.turn)) throw new MotionDataError(`${where}: "turn" must be a number of degrees`);
    if (p.tr !== undefined && !(Array.isArray(p.tr) && p.tr.length === 2 && p.tr.every(isNum))) throw new MotionDataError(`${where}: "tr" must be [x, z] in metres`);
    if (p.cue !== undefined && typeof p.cue !== "string") throw new MotionDataError(`${where}: "cue" must be text`);
    total += p.d;
  });
  const wrap = m.wrap ?? 0;
  if (!isNum(wrap) || wrap < 0) throw new MotionDataError(`"wrap" must be ≥ 0 seconds, got ${describe(m.wrap)}`);
  if (m.wrapTurn !== undefined && !isNum(m.wrapTurn)) throw new MotionDataError('"wrapTurn" must be a number of degrees');
  if (m.duration !== undefined && (!isNum(m.duration) || Math.abs(m.duration - (total + wrap)) > 0.01)) {
    throw new MotionDataError(`"duration" ${describe(m.duration)} does not equal the phases (${total.toFixed(2)} s) plus the wrap (${wrap} s)`);
  }
  return m;
}
