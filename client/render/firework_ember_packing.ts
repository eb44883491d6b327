/**
 * How an ember ring slot's GPU record names its slot (firework_sparks.ts writes it, the spark
 * shader reads it): the record's 12th float is `−(1 + q + EMBER_N · n + EMBER_T · row)` for ring
 * slot q of trailing spark n of a trail row `row` (the shader's ember uniforms), or
 * `−(1 + s + EMBER_T · SHELL_TRAIL_ROW)` for slot s of a shell's trail ring; both stay below 2^24,
 * so float32 holds them exactly.
 *
 * @example
 * ```ts
 * import { EMBER_N, EMBER_T } from "./firework_ember_packing.ts";
 * const packed = -(1 + 3 + EMBER_N * 10 + EMBER_T * 2); // slot 3 of spark 10, trail row 2
 * ```
 */

/** Ring slots per trailing spark at most (a recipe's `trail.ring`). */
export const EMBER_N = 64;
/** EMBER_N × the most trailing sparks per break (2048). */
export const EMBER_T = 64 * 2048;
/** Trail rows (recipes with trails) the shader's ember uniforms hold. */
export const MAX_TRAILS = 16;
/**
 * The row that names a shell's trail ring instead: slot s of the ring (block slot 1 + s) is
 * packed as `−(1 + s + EMBER_T · SHELL_TRAIL_ROW)`.
 */
export const SHELL_TRAIL_ROW = MAX_TRAILS;
