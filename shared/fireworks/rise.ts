/**
 * The rise: a shell climbing from the ground to its apex drops TRAIL_PER_TICK warm sparks each
 * tick, stratified along its last segment so the trail never breaks. Trail sparks reuse a ring
 * of TRAIL_RING_TICKS ticks' slots (all dead by the time a tick reuses them).
 *
 * @example
 * ```ts
 * import { TRAIL_GAP_BOUND } from "./rise.ts";
 * TRAIL_GAP_BOUND < 0.5; // consecutive trail sparks overlap
 * ```
 */
import { DT } from "../constants.ts";
import { MOTION, MOTIONS, styleOf } from "../firework_motion.ts";
import {
  PHASE,
  RISE_MAX,
  SHELL_DRIFT_MAX,
  TRAIL_LIFE_MAX,
  TRAIL_LIFE_MIN,
  TRAIL_PER_TICK,
  TRAIL_RING_TICKS,
  trailSlot,
} from "../firework_plan.ts";
import { STREAM, streamKey } from "../prng.ts";
import { type FireworkBlock, touch } from "./block.ts";
import { paint, place, type Sky, storedPositionAt } from "./sky.ts";

/** Stratified trail sampling: sample n of a tick lies in (n + 0.5 ± TRAIL_JITTER / 2) / N. */
export const TRAIL_JITTER = 0.3;

/**
 * Upper bound on the distance between consecutive trail sparks at spawn, metres: stratified
 * sampling puts them at most (1 + TRAIL_JITTER) / TRAIL_PER_TICK segments apart, and the fastest
 * shell moves at most (its launch speed + 2 · SHELL_DRIFT_MAX) · DT per tick. It is below the
 * trail sprite's size, so the trail reads as one unbroken line.
 */
export const TRAIL_GAP_BOUND = ((1 + TRAIL_JITTER) / TRAIL_PER_TICK) *
  (MOTIONS[MOTION.shell].gravity * (RISE_MAX + 0.5) * DT + 2 * SHELL_DRIFT_MAX) * DT;

/**
 * Trail sparks are born slightly downward (docs/sources.md: vy −50…−20 and vx ±20 px/s under a
 * 400 px/s rise), so the trail falls behind the shell: vy in −TRAIL_SINK, ±TRAIL_SIDE sideways.
 */
export const TRAIL_SINK = [1.2, 3] as const;
export const TRAIL_SIDE = 1;

/**
 * Drops rise tick `k`'s TRAIL_PER_TICK sparks stratified along the shell's segment that tick;
 * with `count`, counts them born (live count, range, births). A windowed pool (window.ts) only
 * counts them: their births are written when the launch is read.
 */
export function spawnTrail(sky: Sky, block: FireworkBlock, k: number, count = true): void {
  if (count && sky.pool.windowed) {
    countTrail(sky, block, k);
    return;
  }
  const rng = sky.rng.reseed(streamKey(sky.seed, STREAM.firework, block.seq, PHASE.trail + k));
  const shell = block.start;
  // The shell's segment this tick: from its position at age k to age k + 1 (as stored).
  const from = storedPositionAt(sky, shell, k);
  const x0 = from[0], y0 = from[1], z0 = from[2];
  const to = storedPositionAt(sky, shell, k + 1);
  const dx = to[0] - x0, dy = to[1] - y0, dz = to[2] - z0;
  const { life, maxLife, style, size, color, born } = sky.pool;
  const trailStyle = styleOf(MOTION.trail, block.trailTint);
  const first = shell + trailSlot(k, 0);
  const closed = sky.closedForm;
  for (let n = 0; n < TRAIL_PER_TICK; n++) {
    const i = first + n;
    const f = (n + 0.5 + TRAIL_JITTER * (rng.next() - 0.5)) / TRAIL_PER_TICK;
    place(
      sky,
      i,
      x0 + dx * f,
      y0 + dy * f,
      z0 + dz * f,
      rng.range(-TRAIL_SIDE, TRAIL_SIDE),
      -rng.range(TRAIL_SINK[0], TRAIL_SINK[1]),
      rng.range(-TRAIL_SIDE, TRAIL_SIDE),
    );
    const lifetime = TRAIL_LIFE_MIN + rng.int(TRAIL_LIFE_MAX - TRAIL_LIFE_MIN + 1);
    maxLife[i] = lifetime;
    if (!closed) life[i] = lifetime;
    style[i] = trailStyle;
    size[i] = MOTIONS[MOTION.trail].size;
    if (!closed) paint(color, i, trailStyle, 0, lifetime);
    born[i] = k + 1;
  }
  if (count) countTrail(sky, block, k);
}

/** Counts rise tick `k`'s trail sparks born: live count, range, births. */
function countTrail(sky: Sky, block: FireworkBlock, k: number): void {
  touch(block, trailSlot(k, 0), trailSlot(k, TRAIL_PER_TICK));
  block.hi = Math.max(block.hi, trailSlot(k, TRAIL_PER_TICK));
  block.trailTicks = k + 1;
  sky.liveCount += TRAIL_PER_TICK;
}

/**
 * Closed form: writes the trail sparks counted since the last write into the pool — only the
 * last TRAIL_RING_TICKS ticks' (older ones are overwritten in the ring) — without counting them
 * again.
 */
export function writeTrail(sky: Sky, block: FireworkBlock): void {
  const ticks = block.trailTicks;
  for (let k = Math.max(block.trailWritten, ticks - TRAIL_RING_TICKS); k < ticks; k++) {
    spawnTrail(sky, block, k, false);
  }
  block.trailWritten = ticks;
}
