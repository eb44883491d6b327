/**
 * The position maths of `FireworkSparkShader` (firework_spark_shader.ts) line for line in JS
 * float32 (`Math.fround` after every operation, as a GPU's highp float does it without fused
 * multiply-adds), for tests that compare what the GPU draws with what shared/ computes. Keep the
 * two in step: a change to the shader's `sparkAt` or head lines belongs here too.
 *
 * @example
 * ```ts
 * const head = new Float32Array(3);
 * const drawn = fireworkHead(mirror, slot, tick, 1, head); // false: not drawn at that tick
 * ```
 */
import { PALETTE_SIZE } from "../../shared/firework_colors.ts";
import { AGE_STRIDE } from "../../shared/firework_motion.ts";
import { FIREWORK_SLOT_STRIDE } from "./firework_sparks.ts";
import { MOTION_TEXELS } from "./firework_tables.ts";

const f = Math.fround;

/** `sparkAt(age, motion)`: component `c` of the spark's position at integer `age`. */
function sparkAt(data: Float32Array, o: number, age: number, motion: number, c: number): number {
  const texel = (motion * AGE_STRIDE + age) * 4;
  const reach = MOTION_TEXELS[texel], drop = MOTION_TEXELS[texel + 1];
  const moved = f(data[o + c] + f(data[o + 4 + c] * reach));
  return c === 1 ? f(moved - drop) : moved;
}

/**
 * Writes the head (the drawn point) of the spark in slot `slot` of a FireworkSparks mirror at
 * displayed time `tick − 1 + alpha` (`tick` relative to the mirror's epoch) into `out`; returns
 * whether the shader draws it at all (alive and kept at `tick`).
 */
export function fireworkHead(
  data: Float32Array,
  slot: number,
  tick: number,
  alpha: number,
  out: Float32Array,
): boolean {
  const o = slot * FIREWORK_SLOT_STRIDE;
  const age = f(f(tick) - data[o + 3]);
  if (age < 0 || age >= data[o + 11]) return false;
  const motion = Math.floor(Math.floor(data[o + 8] + 0.5) / PALETTE_SIZE);
  const a = f(alpha);
  for (let c = 0; c < 3; c++) {
    const now = sparkAt(data, o, age, motion, c);
    const before = age >= 1 ? sparkAt(data, o, age - 1, motion, c) : now;
    out[c] = f(before + f(f(now - before) * a));
  }
  return true;
}
