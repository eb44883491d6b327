/**
 * Where each number of a break's and of a split's stream comes from. Both are keyed streams
 * (`hashUnit(key, index)`, shared/prng.ts), not sequential ones: spark n's draws are found from
 * its index alone, so a GPU can place one spark, or one child, without drawing for the others.
 *
 * A break (key: `streamKey(seed, STREAM.firework, seq, PHASE.burst + b)`): draws 0 and 1 the
 * direction noise's frequency and strength, word 2 its lattice key (`mixKey(key, 2)`), then five
 * per spark from BURST_SPARKS (`BURST_DRAW`): its placement (sphere and palm: cos φ; ring and
 * heart: the jitter of its angle), its angle (sphere: the azimuth; palm: the jitter of its
 * azimuth), its speed within the spread, its tint pick and its lifetime.
 *
 * A split (key: `streamKey(seed, STREAM.firework, seq, PHASE.child + (b << 12) + j)`): draw 0 the
 * children's speed; a cross then draw 1 its turn, and draws 2… each child's lifetime; otherwise
 * three per child from 1 (cos φ, angle, speed), then each child's lifetime.
 *
 * @example
 * ```ts
 * import { BURST_DRAW, BURST_SPARKS, SPARK_DRAWS } from "./firework_draws.ts";
 * const speedDraw = (n: number) => BURST_SPARKS + SPARK_DRAWS * n + BURST_DRAW.speed;
 * speedDraw(0); // 5
 * ```
 */

/** A break's own draws (indices of its keyed stream). */
export const BURST_STREAM = { frequency: 0, strength: 1, noiseKey: 2 } as const;

/** The index of the break's first spark draw. */
export const BURST_SPARKS = 3;

/** Draws per burst spark. */
export const SPARK_DRAWS = 5;

/** Each burst spark's draws, from `BURST_SPARKS + SPARK_DRAWS · n`. */
export const BURST_DRAW = { placement: 0, angle: 1, speed: 2, tint: 3, life: 4 } as const;

/** Draws per child of a split that is not a cross (cos φ, angle, speed). */
export const CHILD_DRAWS = 3;
