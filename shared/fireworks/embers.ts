/**
 * Embers: a trailing spark (a recipe with a `trail`) drops one ember every `every` ticks while
 * it lives, into a ring of `ring` slots of its own. Each ember is drawn by random access from
 * its break's ember stream, so a stepped wave, a checkpoint's lazy write and a jump write the
 * same embers through one definition (`dropEmbers`; the GPU derives them the same way).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000);
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "willow" }, "auto"); // a willow's sparks trail
 * for (let t = 0; t < 120; t++) fw.step(t);
 * fw.live(); // the shell's trail, the sparks and their embers
 * ```
 */
import { BREAK_GAP_TICKS } from "../constants.ts";
import { GOLD_TINT, PALETTE_SIZE } from "../firework_colors.ts";
import { BURST_DRAW, BURST_SPARKS, SPARK_DRAWS } from "../firework_draws.ts";
import {
  AGE_BASE,
  DROP,
  MOTIONS,
  REACH,
  STYLE_COLORS,
  STYLE_STRIDE,
  styleOf,
  VELOCITY_FALL,
  VELOCITY_KEPT,
} from "../firework_motion.ts";
import { PHASE } from "../firework_plan.ts";
import { hashUnit, keyPart, mixKeyed, STREAM, streamKey } from "../prng.ts";
import type { FireworkBlock } from "./block.ts";
import { drawnLife, type Sky } from "./sky.ts";

/**
 * At break `b`, from its sparks' lifetimes: per ember wave m, the trailing sparks that drop
 * one (spark n drops in waves m with (m + 1) · every below its life, as `emberWave` checks)
 * and the range end its last ember sets (`block.emberParents`, `block.emberHi`). One pass over
 * the trailing sparks and one over the waves, instead of a pass over the sparks per wave.
 */
export function tabulateEmberWaves(sky: Sky, block: FireworkBlock, b: number): void {
  const trail = block.recipe.trail;
  if (!trail) return;
  const plan = block.plan;
  const slots = block.waveSlots, base = b * slots;
  const parents = block.emberParents, his = block.emberHi;
  parents.fill(0, base, base + slots);
  his.fill(0, base, base + slots);
  const every = trail.every, ring = trail.ring;
  // The trailing sparks' lifetimes from their life draws alone (their birth state may not be
  // written yet), exactly as placeBurst draws them.
  const key = streamKey(sky.seed, STREAM.firework, block.seq, PHASE.burst + b);
  const splits = plan.splitCount[b], delays = block.delays[b], lifeRange = block.recipe.life;
  // First the sparks whose last wave is m (at base + m), and the last of them plus one.
  for (let n = 0, count = plan.trailCount[b]; n < count; n++) {
    const life = n < splits
      ? delays[n]
      : drawnLife(lifeRange, hashUnit(key, BURST_SPARKS + SPARK_DRAWS * n + BURST_DRAW.life));
    const waves = Math.min(slots, Math.ceil(life / every) - 1);
    if (waves <= 0) continue;
    parents[base + waves - 1]++;
    his[base + waves - 1] = n + 1;
  }
  // Then from the last wave down: the sparks still dropping, and the last of them.
  let alive = 0, top = 0;
  for (let m = slots - 1; m >= 0; m--) {
    alive += parents[base + m];
    parents[base + m] = alive;
    top = Math.max(top, his[base + m]);
    his[base + m] = top > 0 ? plan.emberStart[b] + (top - 1) * ring + (m % ring) + 1 : 0;
  }
}

/**
 * Wave `m` of break `b`'s embers: ember `m` of every trailing spark that is still alive (it is
 * `(m + 1) · every` ticks old, alive while younger than its life; one that died or split this
 * step drops none). Stepped mode: with their kept state.
 */
export function emberWave(sky: Sky, block: FireworkBlock, b: number, m: number): void {
  const plan = block.plan;
  const trail = block.recipe.trail!;
  const count = plan.trailCount[b];
  if (count === 0) return;
  const maxLife = sky.pool.maxLife;
  const age = (m + 1) * trail.every;
  const keyed = emberKeyed(sky, block, b);
  const first = block.start + plan.sparkStart[b];
  let spawned = 0, top = -1;
  for (let n = 0; n < count; n++) {
    if (!(age < maxLife[first + n])) continue;
    top = dropEmbers(sky, block, b, n, m, m + 1, keyed);
    spawned++;
  }
  if (top >= 0) block.hi = Math.max(block.hi, top - block.start + 1);
  sky.liveCount += spawned;
}

/** The `keyPart` of break `b`'s ember stream (hashUnit(key, k) is mixKeyed(it, k) / 2³²). */
export function emberKeyed(sky: Sky, block: FireworkBlock, b: number): number {
  return keyPart(streamKey(sky.seed, STREAM.firework, block.seq, PHASE.ember + b));
}

/**
 * Writes embers m ∈ [from, to) of trailing spark `n` of break `b`, each into slot m mod ring of
 * the spark's ring, and returns the last slot written. Ember m drops where the spark is at
 * age (m + 1) · every (its position rounded to float32 once, as stored), with the spark's
 * velocity there carried and jittered, and a lifetime, from the break's ember stream (`keyed`,
 * `emberKeyed`) at index (n · 256 + m) · 4: random access, so a wave, a checkpoint's lazy
 * write and a jump all write the same embers through this one definition (the shader derives
 * them the same way: client/render/firework_spark_shader.ts). Stepped mode (kept state) also
 * sets position = previous = origin, full life, the colour curve's first sample.
 */
export function dropEmbers(
  sky: Sky,
  block: FireworkBlock,
  b: number,
  n: number,
  from: number,
  to: number,
  keyed: number,
): number {
  const plan = block.plan;
  const trail = block.recipe.trail!;
  const { origin, velocity, maxLife, style, size, flicker, born } = sky.pool;
  // Kept state (stepped mode only).
  const state = !sky.closedForm;
  const { position, previous, life, color } = sky.pool;
  const every = trail.every, ring = trail.ring, jitter = trail.jitter, carry = trail.carry;
  const lifeLo = trail.life[0], lifeSpan = trail.life[1] - trail.life[0] + 1;
  const emberSize = MOTIONS[trail.motion].size;
  const bornBase = plan.riseTicks + b * BREAK_GAP_TICKS;
  const spark = block.start + plan.sparkStart[b] + n;
  const ps = style[spark] | 0, ageBase = AGE_BASE[ps];
  const emberStyle = styleOf(
    trail.motion,
    block.trailTint === GOLD_TINT ? GOLD_TINT : ps % PALETTE_SIZE,
  );
  const p = spark * 3;
  const ox = origin[p], oy = origin[p + 1], oz = origin[p + 2];
  const vx = velocity[p], vy = velocity[p + 1], vz = velocity[p + 2];
  const slots = block.start + plan.emberStart[b] + n * ring;
  let i = -1;
  for (let m = from; m < to; m++) {
    const age = (m + 1) * every;
    const a = ageBase + age;
    const r = REACH[a], d = DROP[a], kept = VELOCITY_KEPT[a];
    const index = (n * 256 + m) * 4;
    i = slots + (m % ring);
    const q = i * 3;
    origin[q] = ox + vx * r;
    origin[q + 1] = oy + vy * r - d;
    origin[q + 2] = oz + vz * r;
    velocity[q] = vx * kept * carry + jitter * (2 * (mixKeyed(keyed, index) / 4294967296) - 1);
    velocity[q + 1] = (vy * kept - VELOCITY_FALL[a]) * carry +
      jitter * (2 * (mixKeyed(keyed, index + 1) / 4294967296) - 1);
    velocity[q + 2] = vz * kept * carry +
      jitter * (2 * (mixKeyed(keyed, index + 2) / 4294967296) - 1);
    const lifetime = lifeLo + Math.floor((mixKeyed(keyed, index + 3) / 4294967296) * lifeSpan);
    maxLife[i] = lifetime;
    style[i] = emberStyle;
    size[i] = emberSize;
    flicker[i] = 0;
    born[i] = bornBase + age;
    if (state) {
      position[q] = previous[q] = origin[q];
      position[q + 1] = previous[q + 1] = origin[q + 1];
      position[q + 2] = previous[q + 2] = origin[q + 2];
      life[i] = lifetime;
      // paint(color, i, emberStyle, 0, lifetime): the curve's first sample.
      const o = emberStyle * STYLE_STRIDE, c = i * 4;
      color[c] = STYLE_COLORS[o];
      color[c + 1] = STYLE_COLORS[o + 1];
      color[c + 2] = STYLE_COLORS[o + 2];
      color[c + 3] = STYLE_COLORS[o + 3];
    }
  }
  return i;
}
