/**
 * The snowfall's constants (docs/sources.md, snow): the box, the ranges every flake's constants
 * are drawn from, and the number of shapes. `shared/snow.ts` re-exports them.
 */
/**
 * Height of the snow box, metres: flakes fall from here to the ground (y = 0) and wrap. As tall
 * as the scene is wide (the source's cube, docs/sources.md), so the snowfall reaches above the default cameras
 * (57–90 m up) and every burst height.
 */
export const SNOW_HEIGHT = 120;
/** Slowest and fastest fall speed, metres per second. */
export const SNOW_FALL_SPEED = [0.6, 1.6] as const;
/** Range of the per-flake multiplier on the wind's drift. */
export const SNOW_WIND_FACTOR = [0.6, 1.4] as const;
/** Range of the sway amplitude, metres (a flake wanders this far either side of its drift). */
export const SNOW_SWAY_AMPLITUDE = [0.1, 0.6] as const;
/** Range of the sway period, seconds. */
export const SNOW_SWAY_PERIOD = [2.5, 6] as const;
/**
 * Largest windless drift along x and along z, m/s: each flake's drift is uniform in ±this per
 * axis (the source's random variation per axis, docs/sources.md).
 */
export const SNOW_DRIFT = 0.35;
/**
 * Range of the flake's side, metres: 0.35 m on average, 0.29 % of the snow box, as the source's
 * flakes are 0.3 % of its box (docs/sources.md, snow). At the default 1280×720 view the median
 * visible flake is about 3.8 px and some 700 are 8 px or more, so the shapes and tumble read.
 */
export const SNOW_SIZE = [0.2, 0.5] as const;
/**
 * Range of the tumbling speed, radians per second, added to both tumble angles alike (about
 * world x and world y: docs/sources.md, snow: 5.0–5.9 rad/s).
 */
export const SNOW_SPIN = [5, 5.9] as const;
/** Number of flake sprite variants (docs/sources.md, snow: six textures). */
export const SNOW_VARIANTS = 6;
