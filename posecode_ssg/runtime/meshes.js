/**
 * The page's shared three.js geometries and materials: made once, used by every figure's
 * mannequin (mannequin.js) and equipment (equipment.js) — one cache, so no mesh is built twice
 * and neither module imports the other.
 * @module meshes
 */

import { BoxGeometry, CylinderGeometry, MeshStandardMaterial, SphereGeometry } from "three";

const geometryCache = new Map();

/** The cached value of `key`, made by `make()` the first time. */
export function shared(key, make) {
  let g = geometryCache.get(key);
  if (!g) { g = make(); geometryCache.set(key, g); }
  return g;
}

/** The page's shared unit sphere (radius 1), box (1 m edges) and cylinder (radius 1, 1 m along Y). */
export const unitSphere = () => shared("sphere", () => new SphereGeometry(1, 18, 12));
export const unitBox = () => shared("box", () => new BoxGeometry(1, 1, 1));
export const unitCylinder = () => shared("cyl", () => new CylinderGeometry(1, 1, 1, 18));

/** One shared MeshStandardMaterial per colour string. */
export const material = (color) => shared(`m${color}`, () => new MeshStandardMaterial({ color, roughness: 0.65, metalness: 0.0 }));
