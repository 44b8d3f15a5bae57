/**
 * The drawn figure: a capsule mannequin built from rig.json (the avatar's tapered segments,
 * ellipsoid volumes and sole boxes, kinematics-reference §2.2), the declared props
 * (rig.json `props[*].meshes`) and the page's equipment (equipment.js), all as three.js meshes
 * following the {@link Skeleton}'s world pose. Geometries are cached per page and shared by every
 * figure with the same avatar (the unit shapes and the materials by equipment.js too).
 * @module mannequin
 */

import {
  CanvasTexture, CircleGeometry, Group, LatheGeometry, Mesh, MeshBasicMaterial, Object3D, SRGBColorSpace, Vector2, Vector3,
} from "three";
import { Equipment } from "./equipment.js";
import { material, shared, unitBox, unitCylinder, unitSphere } from "./meshes.js";

const _up = new Vector3(0, 1, 0);
const _dir = new Vector3();

/**
 * A tapered capsule (the convex hull of a sphere of radius r0 at the origin and one of radius
 * r1 at (0, len, 0)) as a lathe: the outline follows each sphere up to the tangent line, whose
 * angle φ satisfies sin φ = (r0 − r1)/len.
 */
function taperedCapsule(r0, r1, len) {
  return shared(`c${r0}|${r1}|${len.toFixed(5)}`, () => {
    const phi = Math.asin(Math.max(-1, Math.min(1, (r0 - r1) / Math.max(len, 1e-6))));
    const pts = [];
    const steps = 6;
    // lower cap: from the south pole (angle −π/2) up to φ; upper cap: from φ up to the north pole
    for (const [r, y, a0, a1] of [[r0, 0, -Math.PI / 2, phi], [r1, len, phi, Math.PI / 2]]) {
      for (let i = 0; i <= steps; i++) {
        const a = a0 + ((a1 - a0) * i) / steps;
        pts.push(new Vector2(r * Math.cos(a), y + r * Math.sin(a)));
      }
    }
    pts[0].x = 0; pts[pts.length - 1].x = 0;
    return new LatheGeometry(pts, 16);
  });
}


/** A 64² texture: black fading radially from 22 % opacity at the centre to 0 at the rim. */
function softDisc() {
  const c = document.createElement("canvas");
  c.width = c.height = 64;
  const g = c.getContext("2d");
  const grad = g.createRadialGradient(32, 32, 0, 32, 32, 32);
  grad.addColorStop(0, "rgba(0,0,0,0.22)");
  grad.addColorStop(0.6, "rgba(0,0,0,0.12)");
  grad.addColorStop(1, "rgba(0,0,0,0)");
  g.fillStyle = grad;
  g.fillRect(0, 0, 64, 64);
  const t = new CanvasTexture(c);
  t.colorSpace = SRGBColorSpace;
  return t;
}


/**
 * @param {import("./skeleton.js").Skeleton} skeleton
 * @param {object} rig rig.json
 * @param {string[]} props declared props
 * @param {{body: string, left: string, right: string, prop: string, load: string, scene: string}} palette CSS colours
 * @param {object} [equipment] motion JSON `equipment` (none: nothing drawn)
 */
export class Mannequin {
  constructor(skeleton, rig, props, palette, equipment) {
    this.skeleton = skeleton;
    this.group = new Group();
    this.nodes = [];
    const av = skeleton.avatar;
    const colour = (name) => material(name.endsWith("_left") ? palette.left : name.endsWith("_right") ? palette.right : palette.body);
    for (const id of skeleton.boneIds) {
      const node = new Object3D();
      node.name = id;
      this.nodes.push(node);
      this.group.add(node);
    }
    for (const s of av.segments) {
      const from = skeleton.index.get(s.from);
      const off = skeleton.index.has(s.to) ? av.offsets[s.to] : av.landmarks[s.to].offset;
      _dir.set(off[0], off[1], off[2]);
      const len = _dir.length();
      if (len < 1e-6) continue;
      const mesh = new Mesh(taperedCapsule(s.r[0], s.r[1], len), colour(s.to));
      mesh.quaternion.setFromUnitVectors(_up, _dir.normalize());
      this.nodes[from].add(mesh);
    }
    for (const v of av.volumes) {
      const mesh = new Mesh(unitSphere(), colour(v.bone));
      mesh.scale.fromArray(v.scale).multiplyScalar(v.r);
      mesh.position.fromArray(v.offset);
      this.nodes[skeleton.index.get(v.bone)].add(mesh);
      if (v.name === "skull") {
        // a nose on the face (+Z) so the facing direction reads at a glance
        const nose = new Mesh(unitSphere(), colour(v.bone));
        const r = v.r * 0.28;
        nose.scale.set(r, r * 1.2, r);
        nose.position.set(v.offset[0], v.offset[1], v.offset[2] + v.r * v.scale[2]);
        this.nodes[skeleton.index.get(v.bone)].add(nose);
      }
    }
    for (const ankle of skeleton.soleBones) {
      const sole = new Mesh(unitBox(), colour(skeleton.boneIds[ankle]));
      sole.scale.fromArray(av.sole.size);
      sole.position.fromArray(av.sole.center);
      this.nodes[ankle].add(sole);
    }
    // props: world-fixed, axis-aligned
    this.props = new Group();
    const pm = material(palette.prop);
    for (const p of props) {
      for (const m of (rig.props[p] && rig.props[p].meshes) || []) {
        let mesh;
        if (m.shape === "box") {
          mesh = new Mesh(unitBox(), pm);
          mesh.scale.fromArray(m.size);
        } else if (m.shape === "cylinder") {
          mesh = new Mesh(unitCylinder(), pm);
          mesh.scale.set(m.radius, m.length, m.radius);
          if (m.axis === "x") mesh.rotation.z = Math.PI / 2;
          else if (m.axis === "z") mesh.rotation.x = Math.PI / 2;
        } else continue;
        mesh.position.fromArray(m.center);
        this.props.add(mesh);
      }
    }
    this.group.add(this.props);
    // a soft contact shadow on the floor under the pelvis (depth cue without a shadow map)
    const shadowMat = shared("shadow-mat", () => new MeshBasicMaterial({ map: softDisc(), transparent: true, depthWrite: false }));
    this.shadow = new Mesh(shared("disc", () => new CircleGeometry(1, 32)), shadowMat);
    this.shadow.rotation.x = -Math.PI / 2;
    const r = 0.5 * Math.abs(av.offsets.hip_left[0] - av.offsets.hip_right[0]) + av.sole.size[2];
    this.shadow.scale.set(r * 1.5, r * 1.5, 1);
    this.shadowHeight = av.offsets.pelvis[1];
    this.pelvis = skeleton.index.get("pelvis");
    this.group.add(this.shadow);
    if (equipment) this.group.add((this.equipment = new Equipment(skeleton, rig, equipment, palette)).group);
  }

  /** Copy the skeleton's world pose onto the bone nodes and place the equipment (call after each evaluate). */
  update() {
    const sk = this.skeleton, wp = sk.worldP, wq = sk.worldQ;
    for (let i = 0; i < this.nodes.length; i++) {
      const n = this.nodes[i];
      n.position.set(wp[i * 3], wp[i * 3 + 1], wp[i * 3 + 2]);
      n.quaternion.set(wq[i * 4], wq[i * 4 + 1], wq[i * 4 + 2], wq[i * 4 + 3]);
    }
    // the shadow follows the pelvis over the floor and fades as the body rises (a hang)
    const p = this.pelvis * 3;
    this.shadow.position.set(wp[p], 0.002, wp[p + 2]);
    this.shadow.visible = wp[p + 1] < 1.6 * this.shadowHeight;
    this.equipment?.update();
  }
}
