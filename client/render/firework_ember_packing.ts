/**
 * The sizes the spark shader's ember packing is built for: an ember's place in a reference
 * (firework_derived_packing.ts) is its ring slot q below EMBER_N, and the shader's ember uniforms
 * hold MAX_TRAILS trail rows (one per recipe with a trail).
 *
 * @example
 * ```ts
 * import { EMBER_N } from "./firework_ember_packing.ts";
 * const place = 3 + EMBER_N * 10; // ring slot 3 of trailing spark 10 (before its kind)
 * ```
 */

/** Ring slots per trailing spark at most (a recipe's `trail.ring`). */
export const EMBER_N = 64;
/** Trail rows (recipes with trails) the shader's ember uniforms hold. */
export const MAX_TRAILS = 16;
