/**
 * Where the moon hangs for a screen's default view: on the ray through a fixed point of the
 * screen (right of centre, upper half), on the sphere it has always been on, sized to look the
 * same from any distance. A fixed world position left it beside the view on a tall phone (its
 * narrow horizontal field cut the disc at the right edge).
 */
import * as THREE from "three";

/** Where on screen the moon sits (normalised device coordinates). */
export const MOON_SCREEN = Object.freeze({ x: 0.4, y: 0.47 });
/** The moon stays this far from the scene's centre (inside the 400 m sky dome). */
export const MOON_RADIUS = Math.hypot(150, 150, 280);
/** Sprite size per metre of distance from the camera (46 m at 457 m, as first drawn). */
const MOON_SIZE_PER_METRE = 46 / 457;

/** The moon's position and sprite size. */
export interface MoonPlace {
  position: THREE.Vector3;
  scale: number;
}

const ray = new THREE.Vector3();

/**
 * The moon's place for `camera` (its matrices up to date), written into `out`.
 *
 * @example
 * ```ts
 * const place = moonPlace(camera, { position: new THREE.Vector3(), scale: 0 });
 * moon.position.copy(place.position);
 * moon.scale.setScalar(place.scale);
 * ```
 */
export function moonPlace(camera: THREE.PerspectiveCamera, out: MoonPlace): MoonPlace {
  const origin = camera.position;
  ray.set(MOON_SCREEN.x, MOON_SCREEN.y, 0.5).unproject(camera).sub(origin).normalize();
  // The far crossing of |origin + t·ray| = MOON_RADIUS (the camera is inside that sphere).
  const b = origin.dot(ray);
  const c = origin.lengthSq() - MOON_RADIUS * MOON_RADIUS;
  const t = -b + Math.sqrt(Math.max(0, b * b - c));
  out.position.copy(origin).addScaledVector(ray, t);
  out.scale = MOON_SIZE_PER_METRE * t;
  return out;
}
