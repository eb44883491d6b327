/**
 * How a client spreads a big sky's checkpoint hash over frames (`World.beginHash`): a sky with few
 * firework slots to evaluate is hashed at once; a bigger one a part per frame, in proportion to the
 * ticks the frame stepped, so that it is done within `SPREAD_TICKS` ticks, before the next
 * checkpoint (`CHECKPOINT_TICKS`, 60) whatever the frame rate.
 *
 * @example
 * ```ts
 * import { spreadBudget } from "./checkpoint_spread.ts";
 *
 * spreadBudget(3_000_000, 1); // 75,000 slots this frame: done in 40 frames of one tick
 * spreadBudget(8_000, 1); // Infinity: a small sky is hashed at once
 * ```
 */

/**
 * Firework slots above which a checkpoint is hashed over the next frames instead of at once. A
 * hash costs ~0.2–0.5 µs a slot in Chromium, with the embers dropped since the last one written
 * first: 10k slots (a few launches) a few ms, a sky of 100k sparks ~95 ms, a million ~0.3 s.
 */
export const SPREAD_ABOVE_SLOTS = 10_000;

/** Ticks over which a big sky's checkpoint hash is spread. */
export const SPREAD_TICKS = 40;

/** Slots of a checkpoint of `slots` to evaluate in a frame that stepped `stepped` ticks. */
export function spreadBudget(slots: number, stepped: number): number {
  if (slots <= SPREAD_ABOVE_SLOTS) return Infinity;
  return Math.ceil((slots * Math.max(1, stepped)) / SPREAD_TICKS);
}
