/**
 * The one loop that turns a particle view into what the GPU draws: every visible (alpha > 0)
 * particle of the view's dense range, interpolated between ticks, with the vector back to its
 * streak's tail, its colour and its size, interleaved into one preallocated array. Fireworks, gun
 * shots and the fountain all go through it (they used to have near-copies of it).
 */
import { PALETTE_SIZE, STROBE_DIM } from "../../shared/firework_colors.ts";
import type { Block } from "../../shared/particle_pool.ts";
import type { FireworkView, ParticleView, StreakView } from "../../shared/views.ts";
import { youthLight } from "./firework_youth.ts";

/** Floats per packed spark: head xyz, tail offset xyz, rgba, size. */
export const SPARK_STRIDE = 11;

/** Where a streak's tail comes from. */
export interface StreakTail {
  /**
   * Tail = head − (position − previous) · `ticks`: the spark's own motion over the last tick,
   * stretched over that many ticks (0: a round point).
   */
  ticks: number;
  /** When set, the tail is head − velocity · `seconds` instead (views that carry a velocity). */
  velocitySeconds?: number;
  /**
   * Per motion class (a particle's `style / PALETTE_SIZE` in a pool view), a factor on `ticks`:
   * crisp stars get short tails, fast sparks long ones. Missing entries are 1.
   */
  classTicks?: readonly number[];
  /**
   * Per motion class, a radius R in metres (0 or missing: none): a particle closer than R to its
   * birth point shines by min(1, YOUTH_FLOOR + (distance / R)²) (firework_youth.ts), so the sparks of a young burst, all still packed
   * round its centre, add up to no more light per pixel than a burst R wide — sparks, not a
   * saturated disc. Pool views only.
   */
  classYouth?: readonly number[];
}

/**
 * Packs the visible particles of `view` at interpolation `alpha` ∈ [0, 1] between the previous
 * tick and the current one into `out` (SPARK_STRIDE floats each, from 0), keeping the visible
 * particles of every `keepEvery`-th slot (1: all), counted from the start of the particle's
 * event block when the view is a pool of blocks — not by rank among the visible, and not by raw
 * slot (blocks slide down when earlier ones end) — so the same sparks stay drawn while others
 * appear and die; else reduced motion would flicker. Strobing sparks (a firework view's
 * `flicker`) are lit or dark by `strobe(strobeTick, flicker)` (firework_colors.ts, inlined here); a NaN
 * `strobeTick` keeps them steady (reduced motion: no flashing). Returns how many it wrote.
 * Allocates nothing.
 *
 * @example
 * ```ts
 * const out = new Float32Array(view.size.length * SPARK_STRIDE);
 * const drawn = packSparks(view, 0.5, { ticks: 6 }, 1, world.tick, out);
 * ```
 */
export function packSparks(
  view: ParticleView | StreakView | FireworkView,
  alpha: number,
  tail: StreakTail,
  keepEvery: number,
  strobeTick: number,
  out: Float32Array,
): number {
  const { position, previous, color, size, count } = view;
  const velocity = tail.velocitySeconds !== undefined && "velocity" in view ? view.velocity : null;
  const seconds = tail.velocitySeconds ?? 0;
  const ticks = tail.ticks;
  // A pool view knows where each particle was born: a streak never reaches back past its birth
  // point, so a young burst is a star of short rays, not a disc of streaks crossing its centre.
  const origin = "origin" in view ? (view as { origin: Float32Array }).origin : null;
  const style = "style" in view ? (view as { style: Float32Array }).style : null;
  const classTicks = style ? tail.classTicks : undefined;
  const classYouth = style && origin ? tail.classYouth : undefined;
  const flicker = "flicker" in view && !Number.isNaN(strobeTick) ? view.flicker : null;
  const tick = strobeTick | 0;
  // Event blocks of a pool view (fireworks, gun): thinning counts from each block's start.
  const blocks = keepEvery > 1 && "blocks" in view
    ? (view as { blocks: readonly Block[] }).blocks
    : null;
  let block = 0;
  let blockStart = blocks && blocks.length > 0 ? blocks[0].start : 0;
  let blockEnd = blocks && blocks.length > 0 ? blocks[0].start + blocks[0].size : Infinity;
  let n = 0;
  for (let i = 0; i < count; i++) {
    const c = i * 4;
    const a = color[c + 3];
    if (a <= 0) continue;
    if (keepEvery > 1) {
      while (blocks && i >= blockEnd && block + 1 < blocks.length) {
        block++;
        blockStart = blocks[block].start;
        blockEnd = blockStart + blocks[block].size;
      }
      if ((i - blockStart) % keepEvery !== 0) continue;
    }
    const p = i * 3;
    const o = n * SPARK_STRIDE;
    const px = previous[p], py = previous[p + 1], pz = previous[p + 2];
    const dx = position[p] - px, dy = position[p + 1] - py, dz = position[p + 2] - pz;
    out[o] = px + dx * alpha;
    out[o + 1] = py + dy * alpha;
    out[o + 2] = pz + dz * alpha;
    if (velocity) {
      out[o + 3] = -velocity[p] * seconds;
      out[o + 4] = -velocity[p + 1] * seconds;
      out[o + 5] = -velocity[p + 2] * seconds;
    } else {
      const stretch = classTicks
        ? ticks * (classTicks[(style![i] / PALETTE_SIZE) | 0] ?? 1)
        : ticks;
      let tx = -dx * stretch, ty = -dy * stretch, tz = -dz * stretch;
      if (origin) {
        const bx = origin[p] - out[o],
          by = origin[p + 1] - out[o + 1],
          bz = origin[p + 2] - out[o + 2];
        const back = bx * bx + by * by + bz * bz;
        const length = tx * tx + ty * ty + tz * tz;
        if (length > back) {
          const k = Math.sqrt(back / length);
          tx *= k;
          ty *= k;
          tz *= k;
        }
      }
      out[o + 3] = tx;
      out[o + 4] = ty;
      out[o + 5] = tz;
    }
    let light = 1;
    if (classYouth) {
      const radius = classYouth[(style![i] / PALETTE_SIZE) | 0] ?? 0;
      if (radius > 0) {
        const bx = out[o] - origin![p], by = out[o + 1] - origin![p + 1];
        const bz = out[o + 2] - origin![p + 2];
        light = youthLight(bx * bx + by * by + bz * bz, radius);
      }
    }
    if (flicker) {
      // strobe(tick, flicker[i]), inlined: lit about 7 ticks in 16, rhythm and phase per spark.
      const f = flicker[i] | 0;
      if (f !== 0 && ((tick * (3 + (f & 1) * 2) + f * 7) & 15) >= 7) light *= STROBE_DIM;
    }
    out[o + 6] = color[c] * light;
    out[o + 7] = color[c + 1] * light;
    out[o + 8] = color[c + 2] * light;
    out[o + 9] = a;
    out[o + 10] = size[i];
    n++;
  }
  return n;
}
