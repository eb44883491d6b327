/**
 * Launch keys: the load test identifies each launch by its ground position, so nothing extra has
 * to travel in the protocol. Key `k` maps to a point on a 5 cm grid inside the launch area
 * (1801 × 1801 points, about 3.2 million distinct launches); the receiver rounds the echoed
 * position back to the grid, which tolerates any rounding the server might apply below 2.5 cm.
 */
import { LAUNCH_HALF_EXTENT } from "../../shared/constants.ts";

/** Grid spacing in metres. */
const STEP = 0.05;
/** Grid points per axis. */
const SIDE = Math.floor((2 * LAUNCH_HALF_EXTENT) / STEP) + 1;

/** How many distinct keys exist. */
export const KEY_SPACE = SIDE * SIDE;

/** The launch x coordinate for key `key` (taken modulo {@link KEY_SPACE}). */
export function keyX(key: number): number {
  return -LAUNCH_HALF_EXTENT + ((key % KEY_SPACE) % SIDE) * STEP;
}

/** The launch z coordinate for key `key` (taken modulo {@link KEY_SPACE}). */
export function keyZ(key: number): number {
  return -LAUNCH_HALF_EXTENT + Math.floor((key % KEY_SPACE) / SIDE) * STEP;
}

/** The key of a launch at (x, z), or -1 when the point is not on the grid. */
export function keyOf(x: number, z: number): number {
  const column = Math.round((x + LAUNCH_HALF_EXTENT) / STEP);
  const row = Math.round((z + LAUNCH_HALF_EXTENT) / STEP);
  // Also rejects NaN, which fails every comparison.
  if (!(column >= 0 && column < SIDE && row >= 0 && row < SIDE)) return -1;
  return row * SIDE + column;
}
