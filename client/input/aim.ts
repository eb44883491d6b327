/**
 * Where a click bursts. A click on the ground launches from the clicked ground point and bursts
 * straight above it on the screen; a click in the sky bursts on the clicked ray, at the pixel.
 *
 * The reachable volume is the launch field (±LAUNCH_HALF_EXTENT in x and z) between the lowest
 * and highest burst heights. The default view (`camera_fit.ts`) is framed so that every sky ray of
 * the screen crosses that volume: the volume reaches closer to the camera than the stage the view
 * frames, and a ray near the screen's edge finds its burst point on the volume's near side, where
 * the view is narrower and lower. So:
 *
 * - **Sky**: the point of the ray inside the volume nearest the focus plane (the vertical plane
 *   through the orbit target facing the viewer): at the pixel, at the stage's depth when it can.
 * - **Ground**: the ground point if it is in the launch field (or within GROUND_MARGIN of it,
 *   clamped). A ray to ground beyond the field that passed over it high enough is a sky click.
 *   Other ground outside the field (the strip in front of it at the bottom of a phone, the
 *   meadow beside it) moves along the ground line that runs from the point below the eye through
 *   the clicked point, to the nearest field point on it. Every point of that
 *   line lies in the vertical plane through the eye and the click, which the screen shows as a
 *   line through the click: the burst stays on the clicked column. Its height is the highest
 *   (up to AIM_HEIGHT_PREFERRED) whose burst fits the screen.
 *
 * Pure maths: no DOM, no state.
 */
import * as THREE from "three";
import {
  BURST_HEIGHT_MAX,
  BURST_HEIGHT_MIN,
  BURST_RISE_MAX,
  LAUNCH_HALF_EXTENT,
} from "../../shared/constants.ts";

/** Lowest and highest burst heights a launch asks for, metres (the protocol's limits). */
export const AIM_HEIGHT_MIN = BURST_HEIGHT_MIN;
export const AIM_HEIGHT_MAX = BURST_HEIGHT_MAX;
/**
 * The burst height of a ground click when the view has room for it, metres: high enough that a
 * large burst (BURST_SCALE) mostly clears the ground.
 */
export const AIM_HEIGHT_PREFERRED = 44;
/** A ground click's burst centre stays below this NDC height (room for the sparks above it). */
const SCREEN_TOP = 0.75;
/** …and the top of its burst (BURST_RISE_MAX above the centre) below this one. */
const BURST_TOP = 0.98;
/** Ground this far outside the launch field still counts as in it (clamped), metres. */
const GROUND_MARGIN = 6;

/** What a click is aimed at: the sky (bursts at the pixel) or the ground (bursts above it). */
export type AimKind = "sky" | "ground";

const L = LAUNCH_HALF_EXTENT;
const BOX = new THREE.Box3(
  new THREE.Vector3(-L, AIM_HEIGHT_MIN, -L),
  new THREE.Vector3(L, AIM_HEIGHT_MAX, L),
);
const GROUND = new THREE.Plane(new THREE.Vector3(0, 1, 0), 0);
const scratch = new THREE.Vector3();
const hit = new THREE.Vector3();
const normal = new THREE.Vector3();
const focusPlane = new THREE.Plane();
const origin3 = [0, 0, 0];
const direction3 = [0, 0, 0];
const min3 = [BOX.min.x, BOX.min.y, BOX.min.z];
const max3 = [BOX.max.x, BOX.max.y, BOX.max.z];
const span2: [number, number] = [0, 0];

/** Where a ray crosses the volume of allowed burst points, as ray parameters, or null. */
export function volumeSpan(ray: THREE.Ray): [number, number] | null {
  origin3[0] = ray.origin.x, origin3[1] = ray.origin.y, origin3[2] = ray.origin.z;
  direction3[0] = ray.direction.x, direction3[1] = ray.direction.y;
  direction3[2] = ray.direction.z;
  let near = 0, far = Infinity;
  for (let axis = 0; axis < 3; axis++) {
    const o = origin3[axis], d = direction3[axis];
    if (Math.abs(d) < 1e-12) {
      if (o < min3[axis] || o > max3[axis]) return null;
      continue;
    }
    let t0 = (min3[axis] - o) / d, t1 = (max3[axis] - o) / d;
    if (t0 > t1) [t0, t1] = [t1, t0];
    near = Math.max(near, t0);
    far = Math.min(far, t1);
    if (near > far) return null;
  }
  span2[0] = near, span2[1] = far;
  return span2;
}

/**
 * The launch point for a click on ground point `g` seen from `eye`: `g` itself when it is in the
 * launch field (or within GROUND_MARGIN, clamped), else the field point nearest `g` on the ground
 * line from below the eye through `g`. Written into `out` (y = 0); false when that line misses
 * the field.
 */
export function groundLaunchPoint(eye: THREE.Vector3, g: THREE.Vector3, out: THREE.Vector3) {
  if (Math.max(Math.abs(g.x), Math.abs(g.z)) <= L + GROUND_MARGIN) {
    out.set(THREE.MathUtils.clamp(g.x, -L, L), 0, THREE.MathUtils.clamp(g.z, -L, L));
    return true;
  }
  // p(s) = foot + s·(g − foot); g is at s = 1. Clip s to the square [-L, L]².
  const fx = eye.x, fz = eye.z, dx = g.x - fx, dz = g.z - fz;
  let lo = 0, hi = Infinity;
  for (const [o, d] of [[fx, dx], [fz, dz]]) {
    if (Math.abs(d) < 1e-12) {
      if (o < -L || o > L) return false;
      continue;
    }
    let s0 = (-L - o) / d, s1 = (L - o) / d;
    if (s0 > s1) [s0, s1] = [s1, s0];
    lo = Math.max(lo, s0);
    hi = Math.min(hi, s1);
    if (lo > hi) return false;
  }
  const s = THREE.MathUtils.clamp(1, lo, hi);
  out.set(
    THREE.MathUtils.clamp(fx + s * dx, -L, L),
    0,
    THREE.MathUtils.clamp(fz + s * dz, -L, L),
  );
  return true;
}

/**
 * The highest burst height (between the aim limits) above ground point (x, z) whose centre
 * `camera` shows below {@link SCREEN_TOP} and whose top (its sparks' rise above the centre) is
 * on screen; the lowest limit when none is.
 */
export function visibleBurstTop(camera: THREE.Camera, x: number, z: number): number {
  const steps = 32;
  for (let k = 0; k <= steps; k++) {
    const y = AIM_HEIGHT_MAX - ((AIM_HEIGHT_MAX - AIM_HEIGHT_MIN) * k) / steps;
    scratch.set(x, y, z).project(camera);
    if (scratch.z >= 1 || Math.abs(scratch.y) > SCREEN_TOP || Math.abs(scratch.x) > 1) continue;
    scratch.set(x, y + BURST_RISE_MAX, z).project(camera);
    if (scratch.z < 1 && scratch.y <= BURST_TOP) return y;
  }
  return AIM_HEIGHT_MIN;
}

/** Sets the burst height above launch point `out` for a ground click. */
function aimAbove(camera: THREE.Camera, out: THREE.Vector3 | false): AimKind {
  if (!out) throw new Error("aim: a ground point in the field has a launch point");
  out.y = Math.min(AIM_HEIGHT_PREFERRED, visibleBurstTop(camera, out.x, out.z));
  return "ground";
}

/**
 * The burst point for a click along `ray` seen by `camera` (matrices up to date), orbiting
 * `focus`: written into `out` as (x, burst height, z), inside the launch field and the aim
 * limits. Returns whether the click was aimed at the sky or the ground.
 *
 * @example
 * ```ts
 * raycaster.setFromCamera(pointer, camera);
 * const burst = new THREE.Vector3();
 * aimLaunch(raycaster.ray, camera, controls.target, burst);
 * net.submit({ type: "launch", x: burst.x, z: burst.z, y: burst.y });
 * ```
 */
export function aimLaunch(
  ray: THREE.Ray,
  camera: THREE.Camera,
  focus: THREE.Vector3,
  out: THREE.Vector3,
): AimKind {
  const groundT = ray.direction.y < 0 ? ray.distanceToPlane(GROUND) : null;
  const ground = groundT === null ? null : ray.at(groundT, hit);
  if (ground && Math.max(Math.abs(ground.x), Math.abs(ground.z)) <= L + GROUND_MARGIN) {
    return aimAbove(camera, groundLaunchPoint(ray.origin, ground, out) && out);
  }
  // Looking at the focus point horizontally: the vertical plane through it facing the viewer.
  normal.set(ray.origin.x - focus.x, 0, ray.origin.z - focus.z);
  const hasPlane = normal.lengthSq() > 1e-9;
  if (hasPlane) focusPlane.setFromNormalAndCoplanarPoint(normal.normalize(), focus);
  const planeT = hasPlane ? ray.distanceToPlane(focusPlane) : null;
  const span = volumeSpan(ray);
  if (span) {
    // Through the burst volume: burst on the ray, as near the focus plane as the volume allows.
    const t = planeT === null
      ? (span[0] + span[1]) / 2
      : THREE.MathUtils.clamp(planeT, span[0], span[1]);
    ray.at(t, out).clamp(BOX.min, BOX.max);
    return "sky";
  }
  // Ground outside the field that the ray did not pass over above the lowest burst (in front of
  // the field, or beside it): launch from the field point on the clicked column.
  if (ground && groundLaunchPoint(ray.origin, ground, out)) return aimAbove(camera, out);
  // Into the sky past the volume (a camera far away or above it): the nearest allowed point
  // below where the ray crosses the focus plane.
  if (planeT !== null) ray.at(planeT, out);
  else ray.at(100, out);
  out.clamp(BOX.min, BOX.max);
  return "sky";
}
