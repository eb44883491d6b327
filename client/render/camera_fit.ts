/**
 * The default view for a screen's shape. Two things decide it:
 *
 * - **The stage**: the show's launch area (±SHOW_HALF_EXTENT) with its bursts at the default
 *   heights and the sparks' rise above them. Its ground corners, burst centres and burst tops
 *   should be on screen.
 * - **Aim anywhere**: every point of the screen must be aimable (`aim.ts`): a sky pixel's ray must
 *   cross the burst volume (the launch field ±LAUNCH_HALF_EXTENT, AIM_HEIGHT_MIN–MAX high), and a
 *   ground pixel's burst must land on its column. The volume is wider and deeper than the stage,
 *   so rays near the screen's edges find burst points on its near side.
 *
 * Over a few camera elevations and target heights, the view takes the shortest distance at which
 * the stage fits; if at that distance some pixel could not be aimed (a tall phone: fitting the
 * stage's width would show far more sky than the volume reaches), it comes closer, to the
 * farthest distance at which every pixel can be aimed, and the stage's sides may leave the
 * screen (they stay aimable).
 */
import * as THREE from "three";
import {
  BURST_HEIGHT_DEFAULT_MAX,
  BURST_REACH_MAX,
  BURST_RISE_MAX,
} from "../../shared/constants.ts";
import { SHOW_HALF_EXTENT } from "../../shared/show.ts";
import { AIM_HEIGHT_MIN, aimLaunch } from "../input/aim.ts";

/** The fitted camera: field of view (degrees), orbit target and position. */
export interface FittedView {
  fov: number;
  target: THREE.Vector3;
  position: THREE.Vector3;
  /** Distance from the camera to the target, metres. */
  distance: number;
  /** The whole stage is on screen (false: a narrow screen shows its middle). */
  wholeStage: boolean;
}

/**
 * Camera elevations above the target tried, degrees: from a little above (the launch area reads
 * as ground) to a little below (a lower eye: the sky the screen shows stays within reach).
 */
const ELEVATIONS = [9, 7, 5, 3, 1, -1, -3];
/**
 * Share of the half-screen each kind of stage point may use: the ground corners may come close
 * to the edge, burst centres stay well inside, the tops of the highest bursts fit (with room
 * for a shell's sideways drift toward the camera).
 */
const GROUND_SHARE = 0.95;
const CENTRE_SHARE = 0.86;
const TOP_SHARE = 0.94;
/**
 * How far from its pixel (sky) or its column (ground) a click may burst when fitting, as a share
 * of the screen's width: well inside the 8 % the browser tests allow.
 */
const AIM_SLACK = 0.04;
/**
 * A view must stay aimable this much farther away than it is placed: where a ray stops crossing
 * the burst volume the aim jumps, so the fitted view keeps clear of that edge (a screen's aspect
 * is rounded before fitting; the corner pixels are a hair past the samples).
 */
const AIM_MARGIN = 1.04;
/** Aim samples per screen axis when checking that every pixel can be aimed. */
const AIM_GRID = 11;

/** Vertical field of view for an aspect ratio: 50° in landscape, up to 76° on a tall phone. */
export function fieldOfViewFor(aspect: number): number {
  return aspect >= 1 ? 50 : THREE.MathUtils.clamp(50 + (1 - aspect) * 48, 50, 76);
}

/** A point every default view should show, and the share of the half-screen it may use. */
interface FitPoint {
  point: THREE.Vector3;
  share: number;
}

/**
 * The stage's corners on the ground, at the highest default burst and at that burst's top (also
 * half its reach nearer the viewer: the default view looks from +z).
 */
function stagePoints(): FitPoint[] {
  const points: FitPoint[] = [];
  const l = SHOW_HALF_EXTENT;
  const levels: [number, number][] = [
    [0, GROUND_SHARE],
    [BURST_HEIGHT_DEFAULT_MAX, CENTRE_SHARE],
    [BURST_HEIGHT_DEFAULT_MAX + BURST_RISE_MAX, TOP_SHARE],
  ];
  for (const x of [-l, l]) {
    for (const z of [-l, l]) {
      for (const [y, share] of levels) points.push({ point: new THREE.Vector3(x, y, z), share });
      // A burst's upper sparks also spread toward the viewer, where they look higher.
      const front = new THREE.Vector3(x, levels[2][0], z + BURST_REACH_MAX / 2);
      points.push({ point: front, share: TOP_SHARE });
    }
  }
  return points;
}

const POINTS = stagePoints();
const scratch = new THREE.Vector3();
const burst = new THREE.Vector3();
const ndc = new THREE.Vector2();
const raycaster = new THREE.Raycaster();

/** True when every stage point projects inside its screen share of `camera`. */
function stageFits(camera: THREE.PerspectiveCamera): boolean {
  for (const { point, share } of POINTS) {
    scratch.copy(point).project(camera);
    if (scratch.z > 1 || Math.abs(scratch.x) > share || Math.abs(scratch.y) > share) return false;
  }
  return true;
}

/**
 * How far from where it was aimed a click at NDC (x, y) bursts, as a share of the screen width:
 * from the pixel for a sky click, from the pixel's column (and not below it) for a ground click.
 *
 * @example
 * ```ts
 * aimError(camera, target, 0.9, 0.9) < 0.08; // the top-right corner can be aimed
 * ```
 */
export function aimError(
  camera: THREE.PerspectiveCamera,
  target: THREE.Vector3,
  x: number,
  y: number,
): number {
  ndc.set(x, y);
  raycaster.setFromCamera(ndc, camera);
  const kind = aimLaunch(raycaster.ray, camera, target, burst);
  burst.project(camera);
  const dx = (burst.x - x) / 2;
  const dy = ((burst.y - y) / 2) / camera.aspect;
  if (kind === "ground") return Math.max(Math.abs(dx), dy < 0 ? -dy : 0);
  return Math.hypot(dx, dy);
}

/**
 * Screen samples (NDC) checked for aim: the border, where the volume runs out first (top, sides,
 * the bottom's ground in front of the field), and the middle row and column.
 */
const AIM_SAMPLES: [number, number][] = [];
for (let i = 0; i < AIM_GRID; i++) {
  for (let j = 0; j < AIM_GRID; j++) {
    const edge = i === 0 || j === 0 || i === AIM_GRID - 1 || j === AIM_GRID - 1;
    const middle = 2 * i === AIM_GRID - 1 || 2 * j === AIM_GRID - 1;
    if (!edge && !middle) continue;
    AIM_SAMPLES.push([-1 + (2 * i) / (AIM_GRID - 1), -1 + (2 * j) / (AIM_GRID - 1)]);
  }
}

/** Every point of a 15 × 15 grid over the screen, NDC. */
const DENSE_SAMPLES: [number, number][] = [];
for (let i = 0; i < 15; i++) {
  for (let j = 0; j < 15; j++) DENSE_SAMPLES.push([-1 + i / 7, -1 + j / 7]);
}

/** True when every sample of the screen can be aimed within AIM_SLACK. */
function everyPixelAims(
  camera: THREE.PerspectiveCamera,
  target: THREE.Vector3,
  samples = AIM_SAMPLES,
): boolean {
  // An eye below the lowest burst sees a band of sky just above the horizon that no burst can
  // reach (its rays stay under AIM_HEIGHT_MIN across the volume), thinner than the samples.
  if (camera.position.y < AIM_HEIGHT_MIN + 2) return false;
  for (const [x, y] of samples) if (aimError(camera, target, x, y) > AIM_SLACK) return false;
  return true;
}

/** |top + bottom| of the stage points' NDC heights: 0 when they sit centred on the screen. */
function verticalOffCentre(camera: THREE.PerspectiveCamera): number {
  let top = -Infinity, bottom = Infinity;
  for (const { point } of POINTS) {
    scratch.copy(point).project(camera);
    top = Math.max(top, scratch.y);
    bottom = Math.min(bottom, scratch.y);
  }
  return Math.abs(top + bottom);
}

/** Places `camera` at `distance` from `target`, `elevation` radians above it, from +z. */
function place(
  camera: THREE.PerspectiveCamera,
  target: THREE.Vector3,
  elevation: number,
  distance: number,
): void {
  camera.position.set(
    0,
    target.y + distance * Math.sin(elevation),
    distance * Math.cos(elevation),
  );
  camera.lookAt(target);
  camera.updateMatrixWorld(true);
}

/** The smallest distance in [lo, hi] at which `test` holds (it holds from there on), or hi. */
function bisect(lo: number, hi: number, test: (distance: number) => boolean): number {
  for (let k = 0; k < 24; k++) {
    const mid = (lo + hi) / 2;
    if (test(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

interface Candidate {
  elevation: number;
  targetY: number;
  distance: number;
  /** The stage fits whole at this distance. */
  whole: boolean;
  offCentre: number;
}

/**
 * The default view for a screen of `aspect` (width / height): see the module comment.
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
  const key = aspect.toFixed(3);
  const known = fitted.get(key);
  if (known) {
    return { ...known, target: known.target.clone(), position: known.position.clone() };
  }
  const view = fitUncached(Number(key));
  fitted.set(key, view);
  return fitDefaultView(aspect);
}

/** Views already fitted, by aspect to 3 decimals (a window being resized asks again and again). */
const fitted = new Map<string, FittedView>();

function fitUncached(aspect: number): FittedView {
  const fov = fieldOfViewFor(aspect);
  const camera = new THREE.PerspectiveCamera(fov, aspect, 0.5, 5000);
  camera.updateProjectionMatrix();
  const target = new THREE.Vector3();
  const setUp = (c: Candidate, distance: number) => {
    target.set(0, c.targetY, 0);
    place(camera, target, c.elevation, distance);
  };
  const candidates: Candidate[] = [];
  for (const degrees of ELEVATIONS) {
    const elevation = THREE.MathUtils.degToRad(degrees);
    for (let targetY = 10; targetY <= 50; targetY += 2) {
      const c = { elevation, targetY, distance: 0, whole: false, offCentre: 0 };
      c.distance = bisect(20, 1000, (d) => {
        setUp(c, d);
        return stageFits(camera);
      });
      candidates.push(c);
    }
  }
  // Nearest stage first: the first that can be aimed everywhere, and any within 2 % of it.
  candidates.sort((a, b) => a.distance - b.distance);
  const wholes: Candidate[] = [];
  for (const c of candidates) {
    if (wholes.length > 0 && c.distance > wholes[0].distance * 1.02) break;
    setUp(c, c.distance * AIM_MARGIN);
    if (!everyPixelAims(camera, target)) continue;
    setUp(c, c.distance);
    c.whole = true;
    c.offCentre = verticalOffCentre(camera);
    wholes.push(c);
  }
  let best: Candidate;
  if (wholes.length > 0) {
    best = wholes.reduce((a, b) => (b.offCentre < a.offCentre ? b : a));
  } else {
    // No view shows the whole stage and can be aimed everywhere: come closer, to the farthest
    // distance at which it can (bisect on "cannot"), and take the widest such view.
    let farthest = 0;
    for (const c of candidates) {
      // Only a candidate aimable beyond the best so far can beat it.
      setUp(c, farthest);
      if (farthest > 0 && (c.distance <= farthest || everyPixelAims(camera, target) === false)) {
        c.distance = 0;
        continue;
      }
      c.distance = bisect(Math.max(20, farthest), c.distance, (d) => {
        setUp(c, d * AIM_MARGIN);
        return !everyPixelAims(camera, target);
      });
      setUp(c, c.distance);
      c.whole = stageFits(camera);
      c.offCentre = verticalOffCentre(camera);
      farthest = Math.max(farthest, c.distance);
    }
    const far = candidates.filter((c) => c.distance >= farthest * 0.98);
    best = far.reduce((a, b) => (b.offCentre < a.offCentre ? b : a));
  }
  // The samples are the border and the middle; a last check over the whole screen, coming
  // closer while some pixel could not be aimed (aim is not quite monotonic in the distance).
  setUp(best, best.distance);
  while (best.distance > 40 && !everyPixelAims(camera, target, DENSE_SAMPLES)) {
    best.distance *= 0.97;
    setUp(best, best.distance);
  }
  return {
    fov,
    target: target.clone(),
    position: camera.position.clone(),
    distance: best.distance,
    wholeStage: best.whole,
  };
}
