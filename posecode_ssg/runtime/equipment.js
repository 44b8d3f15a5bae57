/**
 * Equipment drawn on the solved body (issue 20): where each item of the motion JSON `equipment`
 * is on the skeleton's world pose ({@link attachItems}, the twin of
 * posecode_ssg/motion/equipment.py `attach`), and its three.js meshes ({@link Equipment}), built
 * once per figure from rig.json `equipment.geometry` and moved after every solve.
 *
 * Holders (rig.json `equipment.words`: each fence word's (item, holder) pairs): `left` / `right`
 * a hand's grip point (`grip_<side>` landmark; the axis is wrist local +X, the axis the digits curl
 * about), `both` the grip points' midpoint (a medicine ball: the palms'), `back` the shoulders'
 * midpoint plus `geometry.barbell.back` in the chest's frame, `feet` / `anchor` a band from the
 * soles / the motion JSON `anchor` to both grip points, `floor` the mat. A record's `attached` list
 * names what it follows and, read back, how it is placed, so no holder is stored beside it.
 * @module equipment
 */

import { Group, Mesh, Vector3 } from "three";
import { material, unitBox, unitCylinder, unitSphere } from "./meshes.js";
import { rotateVec } from "./quat.js";

const GRIPS = ["grip_left", "grip_right"];
/** what each holder follows (`attached`) */
const HOLDS = { left: ["grip_left"], right: ["grip_right"], both: GRIPS, back: ["shoulder_left", "shoulder_right", "chest"],
  feet: ["sole_left", "sole_right", ...GRIPS], anchor: ["anchor", ...GRIPS], floor: ["floor"] };
// typed like every vector the solvers hand to quat.js: a plain array there would make rotateVec
// polymorphic, which slowed every figure's solve on the page threefold
const X = Float64Array.of(1, 0, 0), _a = new Float64Array(3), _b = new Float64Array(3), _r = new Float64Array(3);
const _up = new Vector3(0, 1, 0), _v = new Vector3();

/** Copy joint or landmark `n`'s world position (m) into `d`. */
const put = (sk, n, d) => {
  const b = sk.index.get(n), P = b === undefined ? sk.landmarkP : sk.worldP, i = 3 * (b ?? sk.landmarkIndex.get(n));
  for (let k = 0; k < 3; k++) d[k] = P[i + k];
};

/** d := (a − b) / |a − b| */
const unit = (d, a, b) => {
  for (let k = 0; k < 3; k++) d[k] = a[k] - b[k];
  const n = Math.max(Math.hypot(d[0], d[1], d[2]), 1e-12);
  for (let k = 0; k < 3; k++) d[k] /= n;
};

/**
 * The unplaced records of the items motion JSON `equipment` `eq` draws (in word order), to be
 * filled by {@link attachItems}.
 * @param {object} rig rig.json (its `equipment.words`)
 * @param {{items: string[]}|undefined} eq motion JSON `equipment`
 * @returns {{item: string, position: number[], axis: number[], attached: string[], ends: number[][]}[]}
 */
export function equipmentRecords(rig, eq) {
  return (eq?.items || []).flatMap((w) => rig.equipment.words[w]).map(([item, h]) => ({
    item, position: [0, 0, 0], axis: [0, 0, 0],
    attached: item === "medicine-ball" ? ["palm_left", "palm_right"] : HOLDS[h].slice(),
    ends: item === "band" ? [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]] : [],
  }));
}

/**
 * Where each drawn item of motion JSON `equipment` `eq` is on the skeleton's current world pose
 * (posecode_ssg/motion/equipment.py `attach`, the same records). All in world metres:
 * `position` the item's centre (a held item's grip point, or the grip points' midpoint; a bar on
 * the back its middle; a band the mean of its ends; the mat's centre on the floor), `axis` a unit
 * vector (a handle's or bar's direction: wrist local X, the grip points' line left − right, the
 * shoulders' line; a band the first strand, start to hand; the mat's length), `attached` the
 * landmark, joint or `anchor` / `floor` ids it follows, `ends` a band's strands as
 * [start_left, grip_left, start_right, grip_right] (start: the sole landmark or the anchor), else [].
 * @param {import("./skeleton.js").Skeleton} sk posed skeleton
 * @param {object} rig rig.json
 * @param {{items: string[], anchor?: number[], mat?: {center: number[], size: number[], yaw: number}}|undefined} eq
 * @param {object[]} [out] records of {@link equipmentRecords} to fill in place (no allocation)
 * @returns {object[]} `out` (new records when not given; [] without equipment)
 */
export function attachItems(sk, rig, eq, out = equipmentRecords(rig, eq)) {
  for (const r of out) {
    const A = r.attached, n = A.length, p = r.position, x = r.axis, E = r.ends;
    if (E.length) {   // a band: start and grip point per side
      for (let s = 0; s < 2; s++) {
        if (n < 4) for (let k = 0; k < 3; k++) E[2 * s][k] = eq.anchor[k];
        else put(sk, A[s], E[2 * s]);
        put(sk, A[n - 2 + s], E[2 * s + 1]);
      }
      for (let k = 0; k < 3; k++) p[k] = (E[0][k] + E[1][k] + E[2][k] + E[3][k]) / 4;
      unit(x, E[1], E[0]);
    } else if (A[0] === "floor") {
      const m = eq.mat, y = (m.yaw * Math.PI) / 180;
      p[0] = m.center[0]; p[1] = 0; p[2] = m.center[1];
      x[0] = Math.sin(y); x[1] = 0; x[2] = Math.cos(y);
    } else if (n === 1) {   // one hand: its grip point, along wrist local X
      put(sk, A[0], p);
      rotateVec(_r, 0, sk.worldQ, 4 * sk.index.get(A[0] === "grip_left" ? "wrist_left" : "wrist_right"), X, 0);
      for (let k = 0; k < 3; k++) x[k] = _r[k];
    } else {   // both hands, or the shoulders (+ the chest's offset up the back)
      put(sk, A[0], _a); put(sk, A[1], _b);
      for (let k = 0; k < 3; k++) p[k] = 0.5 * (_a[k] + _b[k]);
      unit(x, _a, _b);
      if (n === 3) {
        for (let k = 0; k < 3; k++) _r[k] = rig.equipment.geometry.barbell.back[k];
        rotateVec(_a, 0, sk.worldQ, 4 * sk.index.get("chest"), _r, 0);
        for (let k = 0; k < 3; k++) p[k] += _a[k];
      }
    }
  }
  return out;
}

/** A cylinder of radius r and length len along local Y, centred at y. */
const cyl = (mat, r, len, y = 0) => {
  const m = new Mesh(unitCylinder(), mat);
  m.scale.set(r, len, r);
  m.position.y = y;
  return m;
};

/** A sphere of radius r. */
const ball = (mat, r) => {
  const m = new Mesh(unitSphere(), mat);
  m.scale.setScalar(r);
  return m;
};

/**
 * The meshes of one figure's equipment (`group`), from rig.json `equipment.geometry` (m):
 * dumbbell a handle and two heads beyond its ends, kettlebell a handle along the grip axis and a
 * bell `drop` straight below it, barbell (held or on the back) a bar and two plates at ±`plateAt`,
 * medicine ball a sphere, band two strands stretched between its ends every frame (and a knob at
 * an anchor), mat a box on the floor, its top 1 mm up (no z-fight with the floor at −1 mm).
 * Shared geometries and materials (mannequin.js); {@link Equipment#update} allocates nothing.
 * @param {import("./skeleton.js").Skeleton} sk
 * @param {object} rig rig.json
 * @param {object} eq motion JSON `equipment`
 * @param {{load: string, scene: string}} palette CSS colours: held items, the mat and anchor
 */
export class Equipment {
  constructor(sk, rig, eq, palette) {
    const g = rig.equipment.geometry, load = material(palette.load), scene = material(palette.scene);
    this.skeleton = sk;
    this.rig = rig;
    this.eq = eq;
    this.records = equipmentRecords(rig, eq);
    this.group = new Group();
    /** per record: [a group along its axis at its position, meshes placed apart] (null: the mat, fixed) */
    this.parts = this.records.map(({ item, attached }) => {
      const G = g[item], along = new Group(), free = [];
      if (item === "dumbbell") {
        const [L, r] = G.handle, [hr, hl] = G.head;
        along.add(cyl(load, r, L), cyl(load, hr, hl, (L + hl) / 2), cyl(load, hr, hl, -(L + hl) / 2));
      } else if (item === "barbell") {
        const [pr, pt] = G.plate;
        along.add(cyl(load, G.bar[1], G.bar[0]), cyl(load, pr, pt, G.plateAt), cyl(load, pr, pt, -G.plateAt));
      } else if (item === "kettlebell") {
        along.add(cyl(load, G.handle[1], G.handle[0]));
        free.push(ball(load, G.bell));
      } else if (item === "medicine-ball") along.add(ball(load, G.radius));
      else if (item === "band") {
        free.push(cyl(load, G.radius, 1), cyl(load, G.radius, 1));
        if (attached[0] === "anchor") {
          const k = ball(scene, 0.025);
          k.position.fromArray(eq.anchor);
          this.group.add(k);
        }
      } else {   // the mat: fixed on the floor
        const m = new Mesh(unitBox(), scene), M = eq.mat, t = G.thickness;
        m.scale.set(M.size[0], t, M.size[1]);
        m.position.set(M.center[0], 0.001 - t / 2, M.center[1]);
        m.rotation.y = (M.yaw * Math.PI) / 180;
        this.group.add(m);
        return null;
      }
      this.group.add(along, ...free);
      return [along, free];
    });
  }

  /** Place every item on the skeleton's current world pose (call after each solve). */
  update() {
    const R = attachItems(this.skeleton, this.rig, this.eq, this.records);
    for (let i = 0; i < R.length; i++) {
      const P = this.parts[i];
      if (!P) continue;
      const along = P[0], free = P[1], p = R[i].position, E = R[i].ends;
      along.position.fromArray(p);
      along.quaternion.setFromUnitVectors(_up, _v.fromArray(R[i].axis));
      if (E.length) {   // each strand from its start to its grip point
        for (let s = 0; s < 2; s++) {
          const m = free[s], a = E[2 * s], b = E[2 * s + 1];
          m.position.set(0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2]));
          _v.set(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
          m.scale.y = Math.max(_v.length(), 1e-6);
          m.quaternion.setFromUnitVectors(_up, _v.normalize());
        }
      } else if (free.length) free[0].position.set(p[0], p[1] - this.rig.equipment.geometry.kettlebell.drop, p[2]);
    }
  }
}
