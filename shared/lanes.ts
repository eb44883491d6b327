/**
 * The lanes of a structure-of-arrays scratch, allocated in one call from a table of lane names
 * and strides (elements per entry), so that a scratch grown anew states its layout once.
 *
 * @example
 * ```ts
 * import { lanes } from "./lanes.ts";
 * const { xyz, life } = lanes(Float32Array, { xyz: 3, life: 1 }, 100);
 * console.log(xyz.length, life.length); // 300 100
 * ```
 */

/**
 * One array of `type` per lane of `strides`, each `entries` × its stride long (zeroed).
 *
 * @example
 * ```ts
 * import { lanes } from "./lanes.ts";
 * lanes(Float64Array, { angle: 1, draws: 5 }, 4).draws.length; // 20
 * ```
 */
export function lanes<K extends string, T>(
  type: new (length: number) => T,
  strides: Readonly<Record<K, number>>,
  entries: number,
): Record<K, T> {
  const out = {} as Record<K, T>;
  for (const name in strides) out[name] = new type(strides[name] * entries);
  return out;
}
