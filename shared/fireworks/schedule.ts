/**
 * What a step does to a launch (`advanceBlock`): its trail, bursts, splits and ember waves due.
 * Stepping visits every launch every tick; closed form visits a launch only at the ticks it
 * bursts or splits (`nextDue`, `schedule`: launches wait in lists by that tick) and counts its
 * trail ticks and ember waves when something reads them (`catchUp`).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000, { closedForm: true });
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "peony" }, "auto");
 * for (let t = 0; t < 100; t++) fw.step(t); // visits the launch only when it bursts
 * ```
 */
import { BREAK_GAP_TICKS } from "../constants.ts";
import { TRAIL_PER_TICK, TRAIL_RING_TICKS, trailSlot } from "../firework_plan.ts";
import type { FireworkBlock } from "./block.ts";
import { burst } from "./burst.ts";
import { emberWave } from "./embers.ts";
import { spawnTrail } from "./rise.ts";
import type { Sky } from "./sky.ts";
import { split } from "./split.ts";

/**
 * Spawns what the launch emits after stepping `tick`: trail, bursts, splits, embers. Closed
 * form counts the trail ticks and ember waves since its last visit first (`catchUp`): it is
 * visited only for its bursts and splits.
 */
export function advanceBlock(sky: Sky, block: FireworkBlock, tick: number): void {
  const k = tick - block.tick;
  const plan = block.plan;
  const closed = sky.closedForm;
  if (closed) catchUp(sky, block);
  else if (k < plan.riseTicks) spawnTrail(sky, block, k);
  const sinceApex = k - (plan.riseTicks - 1);
  if (sinceApex < 0) return;
  const splitLast = block.splitLast, every = block.emberEvery, longest = block.longestLife;
  for (let b = 0; b < plan.breaks; b++) {
    const since = sinceApex - b * BREAK_GAP_TICKS;
    if (since < 0) return;
    if (since === 0) {
      burst(sky, block, b);
      continue;
    }
    // (Closed form counts the splits when read, `catchUp`, like the trail and the embers.)
    if (!closed && since <= splitLast) {
      const delays = block.delays[b], order = block.splitOrder[b];
      let done = block.splitsDone[b];
      while (done < order.length && delays[order[done]] === since) {
        split(sky, block, b, order[done++]);
      }
      block.splitsDone[b] = done;
    }
    // Sparks drop embers only while they live: never at or beyond the longest spark life.
    if (!closed && every > 0 && since < longest && since % every === 0) {
      const m = since / every - 1;
      emberWave(sky, block, b, m);
      block.emberWritten[b] = block.emberWaves[b] = m + 1;
    }
  }
}

/**
 * Closed form: the first step tick after `tick` (whose visit `block` just had) at which
 * `advanceBlock` has a burst to make for `block` (trail ticks, splits and ember waves are
 * counted when read, `catchUp`): its next break's burst; Infinity when none. The same
 * condition `advanceBlock` tests, so a launch is never visited later than it acts.
 */
export function nextDue(block: FireworkBlock, tick: number): number {
  const k = tick - block.tick;
  const plan = block.plan;
  for (let b = 0; b < plan.breaks; b++) {
    // k' at which break b bursts (its since is 0).
    const apex = plan.riseTicks - 1 + b * BREAK_GAP_TICKS;
    if (k < apex) return block.tick + apex;
  }
  return Infinity;
}

/** Puts `block` in the list of step tick `tick` (nothing when Infinity: no more to do). */
export function schedule(sky: Sky, block: FireworkBlock, tick: number): void {
  if (tick === Infinity) return;
  let list = sky.due.get(tick);
  if (!list) {
    list = sky.spareDue.pop() ?? [];
    sky.due.set(tick, list);
  }
  list.push(block);
}

/**
 * Closed form: counts `block`'s trail ticks, splits and ember waves up to the current tick, as
 * its visits at every tick since the last count would have (`spawnTrail`'s, `split`'s and
 * `emberWave`'s counts, without writing a spark): the rise ticks' trail sparks born (their ring
 * slots' range) and, per break burst at least a tick ago, the sparks split by now (in delay
 * order) and the ember waves dropped (at `every`, 2·`every`, … ticks after it, below the
 * longest spark life; the range from the break's table). Called
 * before anything reads them (a visit, `sync`, the counts, a hash begun), never by a hash
 * already under way, which evaluates each launch as it was at its own tick.
 */
export function catchUp(sky: Sky, block: FireworkBlock): void {
  const k = sky.now - 1 - block.tick;
  if (k < 0) return;
  const plan = block.plan;
  const ticks = Math.min(k + 1, plan.riseTicks);
  if (ticks > block.trailTicks) {
    // Ring slots of the ticks counted now (the ring holds the last TRAIL_RING_TICKS).
    let hi = block.hi;
    for (let t = Math.max(block.trailTicks, ticks - TRAIL_RING_TICKS); t < ticks; t++) {
      hi = Math.max(hi, trailSlot(t, TRAIL_PER_TICK));
    }
    block.hi = hi;
    block.trailTicks = ticks;
  }
  const splitLast = block.splitLast;
  if (splitLast >= 0) {
    for (let b = 0; b < plan.breaks; b++) {
      const since = k - (plan.riseTicks - 1) - b * BREAK_GAP_TICKS;
      // Burst a tick ago at least: its splits come at delays of 1 tick or more.
      if (since < 1) break;
      const order = block.splitOrder[b], delays = block.delays[b];
      let done = block.splitsDone[b];
      if (done === order.length) continue;
      const upTo = Math.min(since, splitLast);
      while (done < order.length && delays[order[done]] <= upTo) {
        split(sky, block, b, order[done++]);
      }
      block.splitsDone[b] = done;
    }
  }
  const every = block.emberEvery;
  if (every === 0) return;
  const slots = block.waveSlots, his = block.emberHi, waves = block.emberWaves;
  for (let b = 0; b < plan.breaks; b++) {
    const since = k - (plan.riseTicks - 1) - b * BREAK_GAP_TICKS;
    if (since < every) break;
    const dropped = Math.min(Math.floor(since / every), slots);
    for (let m = waves[b]; m < dropped; m++) {
      if (his[b * slots + m] > block.hi) block.hi = his[b * slots + m];
    }
    if (dropped > waves[b]) waves[b] = dropped;
  }
}

/** `catchUp` of every launch. */
export function catchUpAll(sky: Sky): void {
  const blocks = sky.pool.blocks;
  for (let b = 0; b < blocks.length; b++) catchUp(sky, blocks[b]);
}
