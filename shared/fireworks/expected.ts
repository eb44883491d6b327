/**
 * The expected number of live particles of a closed-form launch, in work proportional to its
 * rise ticks, breaks, splits and ember waves, not to its sparks: exact for shells and splitting
 * sparks; for trail sparks, burst sparks, split children and embers, whose lifetimes are drawn
 * at random, the number born times the chance that a lifetime from their range outlasts their
 * age.
 *
 * @example
 * ```ts
 * import { outlasts } from "./expected.ts";
 * outlasts(5, 10, 20); // 1: every lifetime in 10..20 outlasts 5 ticks
 * ```
 */
import { BREAK_GAP_TICKS } from "../constants.ts";
import { TRAIL_LIFE_MAX, TRAIL_LIFE_MIN, TRAIL_PER_TICK } from "../firework_plan.ts";
import type { FireworkBlock } from "./block.ts";

/**
 * The chance that a lifetime drawn uniformly from the integers [lo, hi] outlasts `age` ticks
 * (a particle `age` ticks after its birth is alive while younger than its lifetime).
 */
export function outlasts(age: number, lo: number, hi: number): number {
  if (age < lo) return 1;
  if (age >= hi) return 0;
  return (hi - age) / (hi - lo + 1);
}

/**
 * `TRAIL_SUMS[j]`: the sum of `outlasts(i, TRAIL_LIFE_MIN, TRAIL_LIFE_MAX)` over i < j, for j up
 * to TRAIL_LIFE_MAX (past it every term is 0), so that a launch's trail sparks are counted in
 * one subtraction instead of a term per rise tick.
 */
const TRAIL_SUMS: Float64Array = (() => {
  const sums = new Float64Array(TRAIL_LIFE_MAX + 1);
  for (let j = 1; j <= TRAIL_LIFE_MAX; j++) {
    sums[j] = sums[j - 1] + outlasts(j - 1, TRAIL_LIFE_MIN, TRAIL_LIFE_MAX);
  }
  return sums;
})();

/**
 * `Fireworks.expectedLive` of one launch at tick `now`. Its trail ticks, splits and ember waves
 * are counted here from its age (as `catchUp` would count them), so the launches need no
 * catching up first.
 */
export function expectedIn(block: FireworkBlock, now: number): number {
  const plan = block.plan, recipe = block.recipe;
  const age = now - block.tick;
  const rise = plan.riseTicks;
  // The shell lives until its first break puts it out.
  let sum = age < rise ? 1 : 0;
  // Trail sparks of rise tick k are born at age k + 1: the ticks counted so far are ages
  // age − trailTicks … age − 1, and only those below TRAIL_LIFE_MAX can be alive.
  const trailTicks = Math.max(block.trailTicks, Math.min(age, rise));
  if (trailTicks > 0) {
    const young = Math.min(age - trailTicks, TRAIL_LIFE_MAX), old = Math.min(age, TRAIL_LIFE_MAX);
    sum += TRAIL_PER_TICK * (TRAIL_SUMS[old] - TRAIL_SUMS[young]);
  }
  const split = recipe.split, trail = recipe.trail;
  const waveSlots = block.waveSlots, every = block.emberEvery;
  for (let b = 0; b < plan.breaks; b++) {
    const since = age - rise - b * BREAK_GAP_TICKS;
    if (since < 0) break;
    const count = plan.sparkCount[b], splits = plan.splitCount[b];
    // The splits made by now (`catchUp`'s count: a split is marked when read).
    let done = block.splitsDone[b];
    if (split && done < splits) {
      const order = block.splitOrder[b], delays = block.delays[b];
      while (done < splits && delays[order[done]] <= since) done++;
    }
    // Splitting sparks live until they split.
    sum += splits - done;
    sum += (count - splits) * outlasts(since, recipe.life[0], recipe.life[1]);
    if (split) {
      const order = block.splitOrder[b], delays = block.delays[b];
      // Latest split first: the older ones' children are older still, and past the longest
      // child life they are all dead.
      for (let d = done - 1; d >= 0; d--) {
        const childAge = since - delays[order[d]];
        if (childAge >= split.life[1]) break;
        sum += split.children * outlasts(childAge, split.life[0], split.life[1]);
      }
    }
    if (trail && every > 0) {
      // The waves dropped by now (`catchUp`'s count), latest first, likewise.
      const waves = Math.max(block.emberWaves[b], Math.min(Math.floor(since / every), waveSlots));
      for (let m = waves - 1; m >= 0; m--) {
        const emberAge = since - (m + 1) * trail.every;
        if (emberAge >= trail.life[1]) break;
        sum += block.emberParents[b * waveSlots + m] *
          outlasts(emberAge, trail.life[0], trail.life[1]);
      }
    }
  }
  return sum;
}
