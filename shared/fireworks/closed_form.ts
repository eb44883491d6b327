/**
 * The closed form read back: the state of a launch's slots (position, previous position,
 * colour, life) at any tick, evaluated from each slot's birth state and age, bit for bit what
 * stepping would have left there (`settleRange` is the stepping hot loop's expressions). Also
 * the stepping hot loop itself (`integrateRange`) and a launch's first live slot (`raiseLo*`).
 *
 * The hot loops visit only a launch's slots in [lo, hi): below lo all are dead for good, from
 * hi on none has spawned. lo is the first live slot, so this needs every later spawn to land at
 * or above hi, or above a slot that is still alive:
 * - during the rise the live shell in slot 0 pins lo to 0, so reused trail ring slots are visited;
 * - break k's slots all lie at or above hi when it goes off (breaks are laid out in order);
 * - a spark's split children and ember ring lie above that spark, which lives while it drops
 *   embers and until the very step it splits (children spawn in that step, before lo is raised).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000, { closedForm: true });
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "peony" }, "auto");
 * for (let t = 0; t < 100; t++) fw.step(t);
 * fw.live(); // evaluates every slot's life at tick 100
 * ```
 */
import { COLOR_STEPS } from "../firework_colors.ts";
import { AGE_BASE, DROP, REACH, STYLE_COLORS, STYLE_STRIDE } from "../firework_motion.ts";
import type { FireworkBlock } from "./block.ts";
import { writeBirths } from "./births.ts";
import { paint, placeAt, type Sky, type SlotState } from "./sky.ts";
import { closeWindow, openWindow } from "./window.ts";

/**
 * Closed form: the state of `block`'s possibly-live slots [lo, hi) at tick `now` in scratch
 * arrays, slot `block.start + lo + k` at index k (embers dropped since the last write are
 * written into the pool's birth arrays first; a windowed pool's births are all written into its
 * window, window.ts). Valid until the next call.
 */
export function evaluate(sky: Sky, block: FireworkBlock, now: number): SlotState {
  const scratch = sky.scratchOf(block.hi - block.lo);
  if (sky.pool.windowed) {
    // Its births written into the window (slot 0 on), evaluated there, forgotten.
    const start = openWindow(sky, block, true);
    try {
      evaluateInto(sky, block, now - block.tick, scratch, block.lo);
    } finally {
      closeWindow(block, start);
    }
    return scratch;
  }
  writeBirths(sky, block);
  evaluateInto(sky, block, now - block.tick, scratch, block.start + block.lo);
  return scratch;
}

/**
 * Writes the state of `block`'s slots [lo, hi), `steps` ticks after its launch, into `out`
 * (slot i at index i − shift): the shell as stepped until its apex, then put out by the burst
 * without a paint; every other slot by `settleRange`.
 */
export function evaluateInto(
  sky: Sky,
  block: FireworkBlock,
  steps: number,
  out: SlotState,
  shift: number,
): void {
  const start = block.start;
  let from = block.lo;
  if (from === 0) {
    const rise = block.plan.riseTicks;
    if (steps < rise) settleInto(sky, start, steps, out, shift);
    else putOut(sky, start, rise, out, shift);
    if (out.velocity) {
      const o = (start - shift) * 3, p = start * 3, v = sky.pool.velocity;
      out.velocity[o] = v[p];
      out.velocity[o + 1] = v[p + 1];
      out.velocity[o + 2] = v[p + 2];
    }
    from = 1;
  }
  settleRange(sky, start + from, start + block.hi, steps, out, shift);
}

/** The shell `shell` as its burst at age `rise` left it: at its apex, dark, dead. */
export function putOut(sky: Sky, shell: number, rise: number, out: SlotState, shift: number): void {
  const o = shell - shift;
  placeAt(sky, shell, rise - 1, out.previous, o * 3);
  placeAt(sky, shell, rise, out.position, o * 3);
  out.life[o] = 0;
  paint(out.color, o, sky.pool.style[shell] | 0, rise, sky.pool.maxLife[shell]);
  out.color[o * 4 + 3] = 0;
}

/**
 * `settle` over slots [from, to) of a launch `steps` ticks old into `out` (slot i at index
 * i − shift), inlined like the stepping hot loop (the same expressions, so the same bits):
 * never-spawned slots read as zero, as a new block leaves them.
 */
export function settleRange(
  sky: Sky,
  from: number,
  to: number,
  steps: number,
  out: SlotState,
  shift: number,
): void {
  const { origin, velocity, maxLife, style, born } = sky.pool;
  const { position, previous, color, life } = out;
  const colors = STYLE_COLORS, ageBase = AGE_BASE, reach = REACH, drop = DROP;
  const hashed = out.velocity;
  for (let i = from; i < to; i++) {
    const full = maxLife[i];
    const age = steps - born[i];
    const j = i - shift;
    if (hashed) {
      const v = j * 3, q = i * 3, spawned = full > 0 && age >= 0;
      hashed[v] = spawned ? velocity[q] : 0;
      hashed[v + 1] = spawned ? velocity[q + 1] : 0;
      hashed[v + 2] = spawned ? velocity[q + 2] : 0;
    }
    if (full <= 0 || age < 0) {
      // Never spawned (a spawn always sets a life ≥ 1; a slot's birth is never ahead of the
      // launch's tick once it is in [lo, hi)).
      const p = j * 3, c = j * 4;
      position[p] = position[p + 1] = position[p + 2] = 0;
      if (!hashed) previous[p] = previous[p + 1] = previous[p + 2] = 0;
      color[c] =
        color[c + 1] =
        color[c + 2] =
        color[c + 3] =
          0;
      life[j] = 0;
      continue;
    }
    const s = style[i] | 0;
    const q = i * 3;
    if (age === 0) {
      // Born this tick: its birth state (spawning writes only origin and velocity).
      const p = j * 3, c = j * 4, o = s * STYLE_STRIDE;
      position[p] = origin[q];
      position[p + 1] = origin[q + 1];
      position[p + 2] = origin[q + 2];
      if (!hashed) {
        previous[p] = origin[q];
        previous[p + 1] = origin[q + 1];
        previous[p + 2] = origin[q + 2];
      }
      life[j] = full;
      color[c] = colors[o];
      color[c + 1] = colors[o + 1];
      color[c + 2] = colors[o + 2];
      color[c + 3] = colors[o + 3];
      continue;
    }
    const at = age < full ? age : full;
    const a = ageBase[s] + at;
    const r = reach[a], d = drop[a];
    const p = j * 3;
    const ox = origin[q], oy = origin[q + 1], oz = origin[q + 2];
    const vx = velocity[q], vy = velocity[q + 1], vz = velocity[q + 2];
    if (!hashed) {
      const r0 = reach[a - 1], d0 = drop[a - 1];
      previous[p] = ox + vx * r0;
      previous[p + 1] = oy + vy * r0 - d0;
      previous[p + 2] = oz + vz * r0;
    }
    position[p] = ox + vx * r;
    position[p + 1] = oy + vy * r - d;
    position[p + 2] = oz + vz * r;
    // The colour of the last live age: alpha 0 once dead (paint(full − 1), then alpha 0).
    const alive = age < full;
    const shown = alive ? age : full - 1;
    life[j] = alive ? full - age : 0;
    const o = s * STYLE_STRIDE + (((shown * COLOR_STEPS) / full + 0.5) | 0) * 4;
    const c = j * 4;
    color[c] = colors[o];
    color[c + 1] = colors[o + 1];
    color[c + 2] = colors[o + 2];
    color[c + 3] = alive ? colors[o + 3] : 0;
  }
}

/**
 * Sets slot `i` (spawned with its full life) to its state `age` ticks later, as stepping
 * leaves it: alive, or dead since reaching its max life (position frozen there, colour of its
 * last live tick with alpha 0). Closed form without kept state: nothing to set (the state is
 * evaluated when read).
 */
export function settle(sky: Sky, i: number, age: number): void {
  if (!sky.pool.hasState) return;
  settleInto(sky, i, age, sky.poolState, 0);
}

/** `settle` into `out`, slot i at index i − shift. */
function settleInto(sky: Sky, i: number, age: number, out: SlotState, shift: number): void {
  if (age < 0) return;
  const { origin, maxLife, style } = sky.pool;
  const { position, previous, color, life } = out;
  const full = maxLife[i];
  const j = i - shift;
  if (age === 0) {
    // Its birth state (a closed-form spawn writes only origin and velocity).
    const p = j * 3, q = i * 3;
    position[p] = previous[p] = origin[q];
    position[p + 1] = previous[p + 1] = origin[q + 1];
    position[p + 2] = previous[p + 2] = origin[q + 2];
    life[j] = full;
    paint(color, j, style[i] | 0, 0, full);
    return;
  }
  const at = age < full ? age : full;
  placeAt(sky, i, at - 1, previous, j * 3);
  placeAt(sky, i, at, position, j * 3);
  const s = style[i] | 0;
  if (age < full) {
    life[j] = full - age;
    paint(color, j, s, age, full);
  } else {
    life[j] = 0;
    paint(color, j, s, full - 1, full);
    color[j * 4 + 3] = 0;
  }
}

/**
 * Slots below `hi` never spawn later while a slot below them lives (see the top), so dead
 * ones at the bottom of a launch's range are done for good: `lo` is its first live slot
 * (`life` holds slot i at index i − shift).
 */
export function raiseLoIn(block: FireworkBlock, life: Float32Array, shift: number): void {
  let lo = block.lo;
  while (lo < block.hi && life[block.start + lo - shift] <= 0) lo++;
  block.lo = lo;
}

/**
 * The stepping hot loop over slots [from, to): one tick of age, the closed-form position and
 * the colour of live slots. Returns the slots that died.
 */
export function integrateRange(sky: Sky, from: number, to: number): number {
  const { position, previous, origin, velocity, color, life, maxLife, style } = sky.pool;
  // Locals, not module bindings, so the optimiser keeps them in registers.
  const colors = STYLE_COLORS, ageBase = AGE_BASE, reach = REACH, drop = DROP;
  let died = 0;
  for (let i = from; i < to; i++) {
    const left = life[i];
    if (left <= 0) continue;
    const remaining = left - 1;
    life[i] = remaining;
    const full = maxLife[i];
    const age = full - remaining;
    const s = style[i] | 0;
    const a = ageBase[s] + age;
    const r = reach[a], d = drop[a];
    const p = i * 3;
    previous[p] = position[p];
    previous[p + 1] = position[p + 1];
    previous[p + 2] = position[p + 2];
    // placeAt(), inlined: the same expression, so stepping and jumping agree to the bit.
    position[p] = origin[p] + velocity[p] * r;
    position[p + 1] = origin[p + 1] + velocity[p + 1] * r - d;
    position[p + 2] = origin[p + 2] + velocity[p + 2] * r;
    const c = i * 4;
    if (remaining === 0) {
      color[c + 3] = 0;
      died++;
      continue;
    }
    // paint(), inlined: the life curve at this age, tinted.
    const o = s * STYLE_STRIDE + (((age * COLOR_STEPS) / full + 0.5) | 0) * 4;
    color[c] = colors[o];
    color[c + 1] = colors[o + 1];
    color[c + 2] = colors[o + 2];
    color[c + 3] = colors[o + 3];
  }
  return died;
}
