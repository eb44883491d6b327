/**
 * A jump: one launch rebuilt at any tick after it directly from its spawns and the closed
 * forms, bit for bit the state stepping there would leave, so a late join costs O(particles),
 * not O(steps).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000, { closedForm: true });
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "willow" }, "auto");
 * fw.jumpTo(150); // the launch as 150 steps would leave it
 * ```
 */
import { BREAK_GAP_TICKS } from "../constants.ts";
import { TRAIL_PER_TICK, TRAIL_RING_TICKS, trailSlot } from "../firework_plan.ts";
import { emberWaveSlots, type FireworkBlock } from "./block.ts";
import { burst, writeBursts } from "./burst.ts";
import { putOut, settle } from "./closed_form.ts";
import { dropEmbers, emberKeyed } from "./embers.ts";
import { spawnTrail } from "./rise.ts";
import type { Sky } from "./sky.ts";
import { split as splitSpark } from "./split.ts";

/** Rebuilds one launch `steps` ticks after it, by its spawns and the closed forms. */
export function jumpBlock(sky: Sky, block: FireworkBlock, steps: number): void {
  block.trailTicks = block.trailWritten = 0;
  block.bursts = block.burstsWritten = 0;
  block.splitsDone.fill(0);
  block.emberWaves.fill(0);
  block.emberWritten.fill(0);
  if (steps <= 0) {
    settle(sky, block.start, 0);
    return;
  }
  const plan = block.plan;
  const rise = plan.riseTicks;
  const trailTicks = Math.min(steps, rise);
  // Earlier trail ticks' slots were reused by these last TRAIL_RING_TICKS ones.
  const firstTrail = Math.max(0, trailTicks - TRAIL_RING_TICKS);
  for (let k = firstTrail; k < trailTicks; k++) spawnTrail(sky, block, k);
  block.trailTicks = block.trailWritten = trailTicks;
  for (let k = firstTrail; k < trailTicks; k++) {
    for (let n = 0; n < TRAIL_PER_TICK; n++) {
      settle(sky, block.start + trailSlot(k, n), steps - k - 1);
    }
  }
  const shell = block.start;
  if (steps < rise) {
    settle(sky, shell, steps);
    return;
  }
  const recipe = block.recipe;
  const sinceApex = steps - rise;
  for (let b = 0; b < plan.breaks; b++) {
    const since = sinceApex - b * BREAK_GAP_TICKS;
    if (since < 0) break;
    burst(sky, block, b);
    // Kept state is settled from the sparks' births at once; otherwise the next read writes
    // them (raiseLoAt, right after the jump).
    if (sky.pool.hasState) writeBursts(sky, block);
    if (b === 0 && sky.pool.hasState) {
      // The shell stepped to its apex, then the burst put it out without another paint.
      putOut(sky, shell, rise, sky.poolState, 0);
    }
    const first = shell + plan.sparkStart[b];
    for (let n = 0; n < plan.sparkCount[b]; n++) settle(sky, first + n, since);
    const delays = block.delays[b];
    const split = recipe.split;
    if (split) {
      for (let j = 0; j < delays.length; j++) {
        if (since < delays[j]) continue;
        splitSpark(sky, block, b, j);
        const children = shell + plan.childStart[b] + j * split.children;
        for (let n = 0; n < split.children; n++) settle(sky, children + n, since - delays[j]);
      }
      const order = block.splitOrder[b];
      let done = 0;
      while (done < order.length && delays[order[done]] <= since) done++;
      block.splitsDone[b] = done;
    }
    const trail = recipe.trail;
    if (trail && sky.closedForm && !sky.pool.hasState) {
      // Waves so far marked dropped, as steps would have (their range grown by the break's
      // table, catchUp), and none written: the next read writes each spark's last
      // ring of embers (writeBirths), the same embers as below.
      const slots = emberWaveSlots(recipe), base = b * slots;
      const waves = Math.min(Math.floor(since / trail.every), slots);
      const his = block.emberHi;
      for (let m = 0; m < waves; m++) if (his[base + m] > block.hi) block.hi = his[base + m];
      block.emberWaves[b] = waves;
      block.emberWritten[b] = 0;
    } else if (trail) {
      const maxLife = sky.pool.maxLife;
      const keyed = emberKeyed(sky, block, b), ring = trail.ring;
      const ringStart = shell + plan.emberStart[b];
      for (let n = 0; n < plan.trailCount[b]; n++) {
        // Embers drop at spark ages every, 2·every, … while the spark lives (age < its life).
        const last = Math.min(since, maxLife[first + n] - 1);
        const dropped = Math.floor(last / trail.every);
        const from = Math.max(0, dropped - ring);
        if (from >= dropped) continue;
        dropEmbers(sky, block, b, n, from, dropped, keyed);
        for (let m = from; m < dropped; m++) {
          const slot = ringStart + n * ring + (m % ring);
          settle(sky, slot, since - (m + 1) * trail.every);
          block.hi = Math.max(block.hi, slot - shell + 1);
          sky.liveCount++;
        }
      }
      // Waves so far: at ages every, 2·every, … up to `since`, while younger than the longest
      // spark life (as advanceBlock drops them); all written.
      const slots = emberWaveSlots(recipe);
      const waves = Math.min(Math.floor(since / trail.every), slots);
      block.emberWaves[b] = block.emberWritten[b] = waves;
    }
  }
}
