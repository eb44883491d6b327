/**
 * The default view: a camera placed so the whole launch area and every burst height are on
 * screen, in landscape and in portrait. Narrow screens get a wider vertical field of view and a
 * longer distance; the target height is chosen to need the least distance.
 */
import * as THREE from "three";
import { BURST_RISE_MAX, LAUNCH_HALF_EXTENT } from "../../shared/constants.ts";
import { AIM_HEIGHT_MAX } from "../input/aim.ts";

/** The fitted camera: field of view (degrees), orbit target and position. */
export interface FittedView {
  fov: number;
  target: THREE.Vector3;
  position: THREE.Vector3;
  /** Distance from the camera to the target, metres. */
  distance: number;
}

/** Camera elevation above the target, radians: a little above, so the launch area reads as ground. */
const ELEVATION = THREE.MathUtils.degToRad(9);
/**
 * Share of the half-screen each kind of fit point may use. The launch area's ground corners may
 * come close to the edge (nothing bursts on the ground); burst centres at the highest aim stay
 * well inside (a click anywhere bursts visibly on screen, with room for the click marker); the
 * tops of the highest bursts (burst height plus the sparks' rise) just fit.
 */
const GROUND_SHARE = 0.95;
const CENTRE_SHARE = 0.86;
const TOP_SHARE = 0.98;

/** Vertical field of view for an aspect ratio: 50° in landscape, up to 76° on a tall phone. */
export function fieldOfViewFor(aspect: number): number {
  return aspect >= 1 ? 50 : THREE.MathUtils.clamp(50 + (1 - aspect) * 48, 50, 76);
}

/** A point every default view must show, and the share of the half-screen it may use. */
interface FitPoint {
  point: THREE.Vector3;
  share: number;
}

/**
 * The points every default view must show: the launch-area corners on the ground, at the highest
 * burst height, and at the top of a burst there (BURST_RISE_MAX above it). Sideways the bursts at
 * the launch area's edges may spread past the screen's edge; their centres never do.
 */
function fitPoints(): FitPoint[] {
  const points: FitPoint[] = [];
  const l = LAUNCH_HALF_EXTENT;
  const levels: [number, number][] = [
    [0, GROUND_SHARE],
    [AIM_HEIGHT_MAX, CENTRE_SHARE],
    [AIM_HEIGHT_MAX + BURST_RISE_MAX, TOP_SHARE],
  ];
  for (const x of [-l, l]) {
    for (const z of [-l, l]) {
      for (const [y, share] of levels) points.push({ point: new THREE.Vector3(x, y, z), share });
    }
  }
  return points;
}

const POINTS = fitPoints();
const scratch = new THREE.Vector3();

/** True when every fit point projects inside the screen share of `camera`. */
function fits(camera: THREE.PerspectiveCamera): boolean {
  for (const { point, share } of POINTS) {
    scratch.copy(point).project(camera);
    if (scratch.z > 1 || Math.abs(scratch.x) > share || Math.abs(scratch.y) > share) return false;
  }
  return true;
}

/** |top + bottom| of the fit points' NDC heights: 0 when they sit centred on the screen. */
function verticalOffCentre(camera: THREE.PerspectiveCamera): number {
  let top = -Infinity, bottom = Infinity;
  for (const { point } of POINTS) {
    scratch.copy(point).project(camera);
    top = Math.max(top, scratch.y);
    bottom = Math.min(bottom, scratch.y);
  }
  return Math.abs(top + bottom);
}

/** Places `camera` at `distance` from a target at height `targetY`, looking at it from +z. */
function place(camera: THREE.PerspectiveCamera, targetY: number, distance: number): void {
  camera.position.set(
    0,
    targetY + distance * Math.sin(ELEVATION),
    distance * Math.cos(ELEVATION),
  );
  camera.lookAt(0, targetY, 0);
  camera.updateMatrixWorld(true);
}

/**
 * The default view for a screen of `aspect` (width / height): the shortest distance, over a
 * range of target heights, at which the launch area and the burst heights all fit.
 *
 * @example
 * ```ts
 * const view = fitDefaultView(390 / 844);
 * camera.fov = view.fov;
 * camera.position.copy(view.position);
 * controls.target.copy(view.target);
 * ```
 */
export function fitDefaultView(aspect: number): FittedView {
  const fov = fieldOfViewFor(aspect);
  const camera = new THREE.PerspectiveCamera(fov, aspect, 0.5, 5000);
  camera.updateProjectionMatrix();
  const fitted: { distance: number; targetY: number; offCentre: number }[] = [];
  for (let targetY = 10; targetY <= AIM_HEIGHT_MAX; targetY += 2) {
    let lo = 10, hi = 1000;
    for (let k = 0; k < 30; k++) {
      const mid = (lo + hi) / 2;
      place(camera, targetY, mid);
      if (fits(camera)) hi = mid;
      else lo = mid;
    }
    place(camera, targetY, hi);
    fitted.push({ distance: hi, targetY, offCentre: verticalOffCentre(camera) });
  }
  // Within 2 % of the shortest distance, the height that centres the scene on the screen (on a
  // tall screen the width decides the distance and any of several heights would fit).
  const shortest = Math.min(...fitted.map((f) => f.distance));
  let best = fitted[0];
  for (const f of fitted) {
    if (f.distance > shortest * 1.02) continue;
    if (best.distance > shortest * 1.02 || f.offCentre < best.offCentre) best = f;
  }
  place(camera, best.targetY, best.distance);
  return {
    fov,
    target: new THREE.Vector3(0, best.targetY, 0),
    position: camera.position.clone(),
    distance: best.distance,
  };
}
