/**
 * The fountain's stone and nozzles: the two dishes the water bounces off (docs/sources.md,
 * fountain: the source's two reflections) and the seven jets, with the constants of its water.
 * The dishes are domes of revolution `y = apexY − curve·r²`, so a drop's parabola meets one where
 * a quadratic in time has its root: every bounce is solved exactly (shared/fountain_path.ts).
 *
 * @example
 * ```ts
 * import { FOUNTAIN_SURFACES, surfaceHeight } from "./fountain_layout.ts";
 * const upper = FOUNTAIN_SURFACES[0];
 * surfaceHeight(upper, upper.rMax); // the upper dish's rim height, metres
 * ```
 */
import { FOUNTAIN_BASIN_RADIUS } from "./constants.ts";
import { cos, sin, TAU } from "./dmath.ts";

/** Every fountain particle dies within this many ticks of its spawn (≤ WINDOW_TICKS): the longest FOUNTAIN_LIFE. */
export const FOUNTAIN_MAX_LIFE = 240;
/**
 * Most particles spawned in a tick while the fountain is on (all jets together): a row's slots.
 * Each jet draws its count per tick from the tick's stream, between FOUNTAIN_COUNT_LOW of its
 * share and all of it (the source's random emission count: docs/sources.md, fountain).
 */
export const FOUNTAIN_PER_TICK = 56;
/** The least share of a jet's slots it fills in a tick. */
export const FOUNTAIN_COUNT_LOW = 0.75;
/** Each drop's own life, ticks: drawn per drop from the tick's stream (docs/sources.md, fountain). */
export const FOUNTAIN_LIFE = [200, 240] as const;
/** Gravity, metres per second². */
export const FOUNTAIN_GRAVITY = 9.81;
/** The pool surface (kill plane) inside the basin, metres above the ground. */
export const POOL_LEVEL = 0.3;
/** Ticks over which a particle fades out before its maximum life. */
export const FOUNTAIN_FADE_TICKS = 30;
/** Base opacity of water. */
export const WATER_ALPHA = 0.55;

/**
 * A bounce surface: the dome `y = apexY − curve·r²` over the annulus `rMin ≤ r < rMax`
 * (r = distance from the fountain's axis). Each contact reflects the velocity about the local
 * tangent plane: `v' = (1 − μ)·v_t − ε·v_n`.
 */
export interface BounceSurface {
  readonly name: string;
  readonly apexY: number;
  /** The dome's curvature: it falls `curve·r²` metres below its apex at r metres out. */
  readonly curve: number;
  readonly rMin: number;
  readonly rMax: number;
  /** Friction μ: the share of tangential velocity lost per contact. */
  readonly mu: number;
  /** Restitution ε: the share of normal velocity kept (reversed) per contact. */
  readonly eps: number;
}

/** The height of `surface` at distance `r` from the fountain's axis. */
export function surfaceHeight(surface: BounceSurface, r: number): number {
  return surface.apexY - surface.curve * r * r;
}

/**
 * The fountain's two dishes, highest first (the source's σ1 and σ2); the client draws them from
 * these. The pool (σ0) is the plane POOL_LEVEL inside the basin.
 */
export const FOUNTAIN_SURFACES: readonly BounceSurface[] = Object.freeze([
  { name: "upper-dish", apexY: 2.2, curve: 0.07, rMin: 0, rMax: 1.4, mu: 0.03, eps: 0.35 },
  // Wide enough to catch the water thrown off the upper dish's rim (docs/sources.md, fountain).
  { name: "lower-dish", apexY: 1.2, curve: 0.0474, rMin: 0, rMax: 3.8, mu: 0.025, eps: 0.3 },
]);

/** Inside this radius a drop at POOL_LEVEL is in the pool; outside it falls to the ground. */
export const POOL_RADIUS = FOUNTAIN_BASIN_RADIUS;

/**
 * A nozzle. Spawn velocities lie in a thin vertical cylindrical shell around the jet's axis
 * velocity: horizontal offset of random angle θ and radius in [ringRadius, ringRadius + ringWidth],
 * vertical speed in [vyMin, vyMax].
 */
export interface Jet {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  /** Horizontal axis velocity, metres per second. */
  readonly vx: number;
  readonly vz: number;
  readonly ringRadius: number;
  readonly ringWidth: number;
  readonly vyMin: number;
  readonly vyMax: number;
  /** Share of the per-tick spawns. */
  readonly share: number;
}

/**
 * The arcing ring jets: `count` nozzles `radius` m from the fountain's axis, each aimed inward
 * at `inwardSpeed` m/s, so that its arc lands on the upper dish (two bounces: docs/sources.md).
 */
const RING = { count: 6, radius: 4.6, inwardSpeed: 3.6 } as const;

function ringJets(): Jet[] {
  const jets: Jet[] = [];
  for (let k = 0; k < RING.count; k++) {
    const angle = (k + 0.5) * (TAU / RING.count);
    const c = cos(angle), s = sin(angle);
    jets.push({
      x: RING.radius * c,
      y: 0.4,
      z: RING.radius * s,
      vx: -RING.inwardSpeed * c,
      vz: -RING.inwardSpeed * s,
      ringRadius: 0.05,
      ringWidth: 0.1,
      vyMin: 7.0,
      vyMax: 7.6,
      share: 0.1,
    });
  }
  return jets;
}

/** The central tall jet above the upper dish and the six arcing ring jets. */
export const FOUNTAIN_JETS: readonly Jet[] = Object.freeze([
  {
    x: 0,
    y: 2.35,
    z: 0,
    vx: 0,
    vz: 0,
    ringRadius: 0.3,
    ringWidth: 0.45,
    vyMin: 8.2,
    vyMax: 8.8,
    share: 0.4,
  },
  ...ringJets(),
]);
