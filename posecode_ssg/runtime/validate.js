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
const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const isText = (x) => typeof x === "string";
const isList = (x, item, n) => Array.isArray(x) && (n === undefined || x.length === n) && x.every(item);
const describe = (x) => (x === undefined ? "nothing" : JSON.stringify(x)?.slice(0, 40));
/** Throw a {@link MotionDataError} with `message` unless `ok`. */
const need = (ok, message) => { if (!ok) throw new MotionDataError(message); };
/** Check field `k` of `obj` (absent is fine when `optional`): `ok(value)`, else "`where`"k" must be `what`". */
const field = (obj, k, ok, what, where = "", optional = true) =>
  need((optional && obj[k] === undefined) || ok(obj[k]), `${where}"${k}" must be ${what}, got ${describe(obj[k])}`);

const pairs = [(x) => isList(x, (p) => isList(p, isText, 2)), "a list of [effector, anchor] pairs"];
const rest = [(x) => isList(x, isNum, 6), "[rx, ry, rz, dx, dy, dz] (a rotation vector in degrees, a root offset in metres)"];
/** Per-phase fields: [key, test, what it must be, optional]. */
const PHASE_FIELDS = [
  ["name", isText, "text", false],
  ["d", (x) => isNum(x) && x > 0, "a positive number of seconds", false],
  ["m", (x) => TIMING_MODES.includes(x), `a timing mode (${TIMING_MODES.join(", ")})`, false],
  ["gl", (x) => isList(x, isText), "a list of contact names"],
  ["pin", ...pairs], ["grip", ...pairs], ["reach", ...pairs],
  ["turn", isNum, "a number of degrees"],
  ["tr", (x) => isList(x, isNum, 2), "[x, z] in metres"],
  ["rest", ...rest],
  ["cue", isText, "text"],
];

function checkQuatMap(map, where, bones) {
  if (map === undefined) return;
  need(isObject(map), `${where} must be an object {bone: [x, y, z, w]}, got ${describe(map)}`);
  for (const [bone, q] of Object.entries(map)) {
    need(bones.has(bone), `${where}: unknown bone "${bone}"`);
    // 4 numbers of length 1 (± 0.01: stored to 4 decimals)
    need(isList(q, isNum, 4) && Math.abs(Math.hypot(...q) - 1) <= 0.01, `${where}.${bone} must be a unit quaternion [x, y, z, w], got ${describe(q)}`);
  }
}

/**
 * Validate `m` against `rig`; returns `m` or throws {@link MotionDataError}. Checks what the
 * runtime reads (the informational `duration` is not read, so not checked).
 * @param {any} m parsed motion JSON
 * @param {object} rig parsed rig.json
 */
export function validateMotion(m, rig) {
  need(isObject(m), "the motion data must be a JSON object");
  need(m.format === "posecode-motion/1", `unsupported motion format ${describe(m.format)} (this runtime reads "posecode-motion/1"); rebuild the site`);
  const bones = new Set(rig.bones.map((b) => b.id));
  need(rig.avatars[m.avatar ?? rig.defaultAvatar], `unknown avatar ${describe(m.avatar)}; expected one of ${Object.keys(rig.avatars).join(", ")}`);
  need(rig.startPoses[m.startPose ?? rig.defaultStartPose], `unknown start pose ${describe(m.startPose)}`);
  for (const p of m.props ?? []) need(rig.props[p], `unknown prop ${describe(p)}`);
  field(m, "repeat", (x) => Number.isInteger(x) && x >= 0, "a whole number ≥ 0");
  field(m, "wrap", (x) => isNum(x) && x >= 0, "≥ 0 seconds");
  field(m, "wrapTurn", isNum, "a number of degrees");
  field(m, "rest", ...rest);
  checkQuatMap(m.base, '"base"', bones);
  const eq = m.equipment, words = rig.equipment?.words || {};
  if (eq !== undefined) {
    need(isObject(eq) && isList(eq.items, (w) => Array.isArray(words[w])),
      `"equipment" must be {"items": [words of ${Object.keys(words).join(", ")}], …}, got ${describe(eq)}`);
    const has = (w) => eq.items.includes(w), at = '"equipment": ';
    field(eq, "anchor", (x) => isList(x, isNum, 3), "[x, y, z] in metres (with band-anchor)", at, !has("band-anchor"));
    field(eq, "mat", (x) => isObject(x) && isList(x.center, isNum, 2) && isList(x.size, (v) => isNum(v) && v > 0, 2) && isNum(x.yaw),
      '{"center": [x, z], "size": [width, length], "yaw": degrees} (with mat)', at, !has("mat"));
  }
  field(m, "phases", (x) => Array.isArray(x) && x.length > 0, "a non-empty list", "", false);
  m.phases.forEach((p, i) => {
    const where = `phase ${i + 1}${p && isText(p.name) ? ` ("${p.name}")` : ""}`;
    need(isObject(p), `${where} must be an object`);
    for (const [k, ok, what, optional] of PHASE_FIELDS) field(p, k, ok, what, `${where}: `, optional);
    checkQuatMap(p.q, `${where} "q"`, bones);
  });
  return m;
}
