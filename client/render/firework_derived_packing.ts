/**
 * How a derived record names what the spark shader derives in its slot: a sphere's or palm's
 * burst spark, a split child, or an ember of a burst spark, each placed on the GPU from its
 * break (firework_sparks.ts writes the record, firework_spark_shader.ts and
 * firework_shader_math.ts derive it, as shared/fireworks.ts's `#placeBurst` and `#splitBirth`
 * place it). The record holds the break's burst point, born tick, inherited velocity and base
 * speed, the launch's stream prefix in two 16-bit halves, then:
 * - float 10: `index + INDEX_SPAN · (b + 4 · (recipe row + RECIPE_SPAN · theme))`: the spark's
 *   index in its break (a child: `j · children + k`, split j, child k), the break, the recipe's
 *   row in the shader's recipe uniforms and the theme (`THEMES` order);
 * - float 11: `−(1 + DERIVED_BASE + kind · DERIVED_KIND + aux · EMBER_N + q)`, kind a
 *   `DERIVED` value, `aux` the break's splitting sparks (sphere) or its spark count (palm), `q`
 *   an ember's ring slot. Every value stays below 2^24, so float32 holds it exactly, and above
 *   every ember and shell trail code (firework_ember_packing.ts).
 *
 * @example
 * ```ts
 * import { DERIVED, derivedCode } from "./firework_derived_packing.ts";
 * const code = derivedCode(DERIVED.ember, 120, 3); // ring slot 3 of a break with 120 splitting sparks
 * ```
 */
import { EMBER_N, EMBER_T, MAX_TRAILS } from "./firework_ember_packing.ts";

/** What a derived record stands for. */
export const DERIVED = { spark: 0, child: 1, ember: 2 } as const;

/** The first derived code: above every ember row and the shell trail row. */
export const DERIVED_BASE = 1 << 22;
/** Codes per derived kind. */
export const DERIVED_KIND = 1 << 20;
/** Indices within a break (sparks, or a split's children) a record can name. */
export const INDEX_SPAN = 4096;
/** Recipe rows the shader's recipe uniforms hold. */
export const RECIPE_SPAN = 16;
/** Recipe rows in use at most (the firework kinds). */
export const MAX_RECIPES = 10;

if ((MAX_TRAILS + 1) * EMBER_T > DERIVED_BASE) throw new Error("derived codes overlap embers");

/** Float 11 of a derived record. */
export function derivedCode(kind: number, aux: number, q: number): number {
  if (aux * EMBER_N >= DERIVED_KIND || q >= EMBER_N) {
    throw new RangeError(`derived_code: ${aux} sparks or slot ${q} too many for the packing`);
  }
  return -(1 + DERIVED_BASE + kind * DERIVED_KIND + aux * EMBER_N + q);
}

/** Float 10 of a derived record. */
export function derivedIndex(index: number, b: number, recipe: number, theme: number): number {
  if (index >= INDEX_SPAN) throw new RangeError(`derived_index: ${index} too many for the packing`);
  return index + INDEX_SPAN * (b + 4 * (recipe + RECIPE_SPAN * theme));
}
