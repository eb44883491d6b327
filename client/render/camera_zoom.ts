/**
 * Zoom toward a point, as maps do: the point under the pointer (or between the fingers) stays
 * under it while the camera and its orbit target close in on it (or back away), both scaled
 * about that point, so the view's direction never changes. The point is where the pointer's ray
 * first meets the ground or the fountain (a simple stand-in of its dishes); a ray into the sky
 * takes the point on it at the orbit target's distance.
 */
import * as THREE from "three";
import { FOUNTAIN_SURFACES } from "../../shared/fountain.ts";
import { SCENE_HALF_EXTENT } from "../../shared/constants.ts";

/** How far the camera may come to a zoom point, and go from its orbit target, metres. */
export interface ZoomLimits {
  /** The camera stops this far from the point it zooms toward. */
  near: number;
  /** The camera stays within this distance of its orbit target. */
  far: number;
}

/** The fountain's dishes as a solid for picking: a drum as wide as the lower dish, as tall as the upper. */
const FOUNTAIN_RADIUS = Math.max(...FOUNTAIN_SURFACES.map((s) => s.rMax));
const FOUNTAIN_TOP = Math.max(...FOUNTAIN_SURFACES.map((s) => s.apexY));

/** Where `ray` first meets the fountain's drum (axis x = z = 0), or Infinity. */
function fountainHit(ray: THREE.Ray): number {
  const o = ray.origin, d = ray.direction;
  let best = Infinity;
  // The drum's side: |o + t·d|² = R² in x and z.
  const a = d.x * d.x + d.z * d.z;
  if (a > 1e-12) {
    const b = 2 * (o.x * d.x + o.z * d.z);
    const c = o.x * o.x + o.z * o.z - FOUNTAIN_RADIUS * FOUNTAIN_RADIUS;
    const disc = b * b - 4 * a * c;
    if (disc >= 0) {
      const t = (-b - Math.sqrt(disc)) / (2 * a);
      const y = o.y + t * d.y;
      if (t > 0 && y >= 0 && y <= FOUNTAIN_TOP) best = t;
    }
  }
  // Its top.
  if (Math.abs(d.y) > 1e-12) {
    const t = (FOUNTAIN_TOP - o.y) / d.y;
    const x = o.x + t * d.x, z = o.z + t * d.z;
    if (t > 0 && x * x + z * z <= FOUNTAIN_RADIUS * FOUNTAIN_RADIUS) best = Math.min(best, t);
  }
  return best;
}

/**
 * The point a zoom along `ray` heads for, written to `out`: the first of the fountain and the
 * ground (within the scene) the ray meets, else the point at `skyDistance` along it.
 *
 * @example
 * ```ts
 * raycaster.setFromCamera(pointer, camera);
 * zoomPoint(raycaster.ray, camera.position.distanceTo(controls.target), point);
 * ```
 */
export function zoomPoint(ray: THREE.Ray, skyDistance: number, out: THREE.Vector3): THREE.Vector3 {
  let t = fountainHit(ray);
  if (ray.direction.y < -1e-9) {
    const ground = -ray.origin.y / ray.direction.y;
    ray.at(ground, out);
    const inside = Math.abs(out.x) <= SCENE_HALF_EXTENT && Math.abs(out.z) <= SCENE_HALF_EXTENT;
    if (ground > 0 && inside) t = Math.min(t, ground);
  }
  return ray.at(Number.isFinite(t) ? t : skyDistance, out);
}

/**
 * Scales `position` (the camera's) and `target` (its orbit target) about `point` by `scale`
 * (below 1 closer, above 1 farther), within `limits`; returns the scale applied (1: none).
 *
 * @example
 * ```ts
 * zoomToward(camera.position, controls.target, point, 0.75, { near: 4, far: 200 });
 * ```
 */
export function zoomToward(
  position: THREE.Vector3,
  target: THREE.Vector3,
  point: THREE.Vector3,
  scale: number,
  limits: ZoomLimits,
): number {
  if (!(scale > 0) || scale === 1) return 1;
  let s = scale;
  if (s < 1) {
    const toPoint = position.distanceTo(point);
    if (toPoint <= limits.near) return 1;
    s = Math.max(s, limits.near / toPoint);
  } else {
    const toTarget = position.distanceTo(target);
    if (toTarget >= limits.far) return 1;
    s = Math.min(s, limits.far / toTarget);
  }
  position.sub(point).multiplyScalar(s).add(point);
  target.sub(point).multiplyScalar(s).add(point);
  return s;
}
