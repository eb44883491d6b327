/**
 * How a slot names what the spark shader derives there: the shell, a slot of the shell's trail
 * ring, a burst spark, a split child or an ember of a burst spark, each placed from a row of its
 * launch's group in the break table (firework_break_table.ts) as shared/fireworks/'s
 * `spawnTrail` (rise.ts), `placeBurst` (burst.ts) and `splitBirth` (split.ts) place it. firework_sparks.ts writes the
 * references and rows, firework_spark_shader.ts derives them.
 *
 * A slot's reference is two floats: `row + 1` (0: nothing is drawn there), then
 * `q + EMBER_N · (index + INDEX_SPAN · kind)`, kind a `DERIVED` value, index the spark's place
 * (a burst spark: n; a child: `j · children + k`, split j, child k; an ember: its trailing spark
 * n; a trail ring slot: its place in the ring) and q an ember's ring slot; both stay below 2^24,
 * so float32 holds them exactly. The shell and its trail name the group's launch row
 * (`LAUNCH_ROW`), the others their break's row.
 *
 * A break's row, BREAK_TEXELS texels of RGBA: its burst point and born tick; the velocity its
 * sparks inherit and its base speed; the plane of a ring or heart (e1, then e2), each with one
 * 16-bit half of the launch's stream prefix; then the recipe's row (its kind), the theme
 * (`THEMES` order), the break and its `aux`: the splitting sparks of a sphere, else the sparks.
 *
 * The launch row: the shell's birth point and born tick; its velocity and life; its style,
 * strobe key, size and rise (the ticks it is drawn); the trail's style and the two halves of the
 * launch's stream prefix; then the launch's first slot and its slot count. A slot outside that
 * range names a row another launch took since (its reference is stale: a gap the pool left when
 * its launch ended) and is not drawn, so ended launches' references need no clearing.
 *
 * @example
 * ```ts
 * import { DERIVED, derivedRef } from "./firework_derived_packing.ts";
 * const ref = derivedRef(DERIVED.ember, 12, 3); // ring slot 3 of trailing spark 12
 * ```
 */
import { EMBER_N } from "./firework_ember_packing.ts";

/** What a reference stands for. */
export const DERIVED = { spark: 0, child: 1, ember: 2, shell: 3, trail: 4 } as const;

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
