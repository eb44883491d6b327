/**
 * How a slot placed on the GPU names what the spark shader derives there: a burst spark, a split
 * child or an ember of a burst spark, each placed from its break's row in the break table
 * (firework_break_table.ts) as shared/fireworks.ts's `#placeBurst` and `#splitBirth` place it.
 * firework_sparks.ts writes the references and rows, firework_spark_shader.ts and
 * firework_shader_math.ts derive them.
 *
 * A slot's reference is two floats: `row + 1` (0: the slot has a record of its own instead),
 * then `q + EMBER_N · (index + INDEX_SPAN · kind)`, kind a `DERIVED` value, index the spark's
 * place in its break (a child: `j · children + k`, split j, child k; an ember: its trailing
 * spark n) and q an ember's ring slot; both stay below 2^24, so float32 holds them exactly.
 *
 * A break's row, BREAK_TEXELS texels of RGBA: its burst point and born tick; the velocity its
 * sparks inherit and its base speed; the plane of a ring or heart (e1, then e2), each with one
 * 16-bit half of the launch's stream prefix; then the recipe's row (its kind), the theme
 * (`THEMES` order), the break and its `aux`: the splitting sparks of a sphere, else the sparks.
 *
 * @example
 * ```ts
 * import { DERIVED, derivedRef } from "./firework_derived_packing.ts";
 * const ref = derivedRef(DERIVED.ember, 12, 3); // ring slot 3 of trailing spark 12
 * ```
 */
import { EMBER_N } from "./firework_ember_packing.ts";

/** What a reference stands for. */
export const DERIVED = { spark: 0, child: 1, ember: 2 } as const;

/** Places within a break (sparks, or a split's children) a reference can name. */
export const INDEX_SPAN = 4096;
/** Recipe rows the shader's recipe uniforms hold (the firework kinds). */
export const MAX_RECIPES = 10;

/** The second float of a reference. */
export function derivedRef(kind: number, index: number, q: number): number {
  if (index >= INDEX_SPAN || q >= EMBER_N) {
    throw new RangeError(`derived_ref: place ${index} or ring slot ${q} too large to pack`);
  }
  return q + EMBER_N * (index + INDEX_SPAN * kind);
}
