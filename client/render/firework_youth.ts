/**
 * The young-burst light rule of the firework shader (firework_spark_shader.ts; spark_packing.ts
 * has the same rule for the CPU-packed gun): a burst spark within R of its burst point shines by
 * min(1, YOUTH_FLOOR + (distance / R)²). A burst's ~1000 sparks start packed round its centre,
 * and drawn at full light they would add up to a saturated disc for the first half second; at
 * (distance / R)² they add up to about the light of a burst R wide, and the floor keeps the first
 * moments bright enough that the white-hot start of the colour law (shared/firework_colors.ts)
 * reads as a flash of white sparks, not a dim smudge.
 *
 * @example
 * ```ts
 * import { FIREWORK_YOUTH_RADIUS, youthLight } from "./firework_youth.ts";
 * youthLight(1, FIREWORK_YOUTH_RADIUS[2]); // a spark 1 m from its burst point: dimmed
 * youthLight(100, 0); // 1: a class without the rule
 * ```
 */

/**
 * Per firework motion class (MOTION order: shell, trail, spark, child, ember, willow,
 * willowEmber, comet, cometEmber, star, split, crackle, crackleChild), the radius R in metres
 * of the young-burst rule (0: none): the burst classes only.
 */
export const FIREWORK_YOUTH_RADIUS: readonly number[] = [0, 0, 5, 0, 0, 4, 0, 3.5, 0, 3.5, 0, 5, 0];

/** The least light of a young burst's spark (at its burst point), before its colour. */
export const YOUTH_FLOOR = 0.08;

/**
 * The light factor of a spark `distanceSquared` m² from its burst point for a class of young-burst
 * radius `radius` (0: none, 1), as the shader computes it.
 */
export function youthLight(distanceSquared: number, radius: number): number {
  if (radius <= 0) return 1;
  return Math.min(1, YOUTH_FLOOR + distanceSquared / (radius * radius));
}
