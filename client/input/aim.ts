/**
 * Where a click bursts. A ray that passes through the burst volume (the launch area between the
 * lowest and highest burst heights) bursts on the ray, so the burst is at the clicked pixel; the
 * shell rises from the ground point below. A ray that meets the ground first launches from there
 * and bursts above it, as high as still fits on screen. Pure maths: no DOM, no state.
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
/** Ground this far outside the launch area still counts as a ground click (clamped), metres. */
const GROUND_MARGIN = 6;

const BOX = new THREE.Box3(
  new THREE.Vector3(-LAUNCH_HALF_EXTENT, AIM_HEIGHT_MIN, -LAUNCH_HALF_EXTENT),
  new THREE.Vector3(LAUNCH_HALF_EXTENT, AIM_HEIGHT_MAX, LAUNCH_HALF_EXTENT),
);
const GROUND = new THREE.Plane(new THREE.Vector3(0, 1, 0), 0);
const scratch = new THREE.Vector3();
const normal = new THREE.Vector3();
const focusPlane = new THREE.Plane();

/** Where a ray crosses the volume of allowed burst points, as ray parameters, or null. */
function boxSpan(ray: THREE.Ray): [number, number] | null {
  let near = 0, far = Infinity;
  const origin = [ray.origin.x, ray.origin.y, ray.origin.z];
  const direction = [ray.direction.x, ray.direction.y, ray.direction.z];
  const min = [BOX.min.x, BOX.min.y, BOX.min.z];
  const max = [BOX.max.x, BOX.max.y, BOX.max.z];
  for (let axis = 0; axis < 3; axis++) {
    const o = origin[axis], d = direction[axis];
    if (Math.abs(d) < 1e-12) {
      if (o < min[axis] || o > max[axis]) return null;
      continue;
    }
    let t0 = (min[axis] - o) / d, t1 = (max[axis] - o) / d;
    if (t0 > t1) [t0, t1] = [t1, t0];
    near = Math.max(near, t0);
    far = Math.min(far, t1);
    if (near > far) return null;
  }
  return [near, far];
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

/**
 * The burst point for a click along `ray` seen by `camera` (matrices up to date), orbiting
 * `focus`: written into `out` as (x, burst height, z), inside the launch area and the aim limits.
 *
 * @example
 * ```ts
 * raycaster.setFromCamera(pointer, camera);
 * const burst = aimLaunch(raycaster.ray, camera, controls.target, new THREE.Vector3());
 * net.submit({ type: "launch", x: burst.x, z: burst.z, y: burst.y });
 * ```
 */
export function aimLaunch(
  ray: THREE.Ray,
  camera: THREE.Camera,
  focus: THREE.Vector3,
  out: THREE.Vector3,
): THREE.Vector3 {
  const span = boxSpan(ray);
  // Looking at the focus point horizontally: the vertical plane through it facing the viewer.
  normal.set(ray.origin.x - focus.x, 0, ray.origin.z - focus.z);
  const hasPlane = normal.lengthSq() > 1e-9;
  if (hasPlane) focusPlane.setFromNormalAndCoplanarPoint(normal.normalize(), focus);
  const planeT = hasPlane ? ray.distanceToPlane(focusPlane) : null;
  const groundT = ray.direction.y < 0 ? ray.distanceToPlane(GROUND) : null;
  if (groundT !== null) ray.at(groundT, out);
  // The ground under the launch area wins: a click on it launches from there.
  const onLaunchGround = groundT !== null &&
    Math.max(Math.abs(out.x), Math.abs(out.z)) <= LAUNCH_HALF_EXTENT + GROUND_MARGIN;
  if (span && !onLaunchGround) {
    // Through the burst volume: burst on the ray, as near the focus plane as the volume allows.
    const t = planeT === null ? (span[0] + span[1]) / 2 : THREE.MathUtils.clamp(
      planeT,
      span[0],
      span[1],
    );
    return clampIntoVolume(ray.at(t, out));
  }
  if (groundT !== null) {
    ray.at(groundT, out);
    clampIntoVolume(out);
    out.y = Math.min(AIM_HEIGHT_PREFERRED, visibleBurstTop(camera, out.x, out.z));
    return out;
  }
  // Into the sky past the volume (a camera far away or above it): the nearest allowed point
  // below where the ray crosses the focus plane.
  if (planeT !== null) ray.at(planeT, out);
  else ray.at(100, out);
  return clampIntoVolume(out);
}

function clampIntoVolume(point: THREE.Vector3): THREE.Vector3 {
  return point.clamp(BOX.min, BOX.max);
}
