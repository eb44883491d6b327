/**
 * Snapping cues to the music's beats, pure. Beats come as seconds into the track (the music
 * module's detector); a show's tick `at` plays at `at / 60` s into the track, so beat `b` is at
 * tick `round(b · 60)`.
 */
import { TICK_RATE } from "../../../shared/constants.ts";
import { lowerBound } from "../../../shared/lower_bound.ts";

/** A snap reaches this far at most, ticks (a quarter second): farther, the tick stays. */
export const SNAP_REACH_TICKS = 15;

/**
 * Beat times (seconds) as show ticks, ascending, without repeats.
 *
 * @example
 * ```ts
 * import { beatTicks } from "./beat_snap.ts";
 *
 * beatTicks([0.5, 1, 1.004]); // [30, 60]
 * ```
 */
export function beatTicks(beatSeconds: readonly number[]): number[] {
  const ticks = beatSeconds.filter(Number.isFinite).map((s) => Math.round(s * TICK_RATE))
    .filter((t) => t >= 0).sort((a, b) => a - b);
  return ticks.filter((t, i) => i === 0 || t !== ticks[i - 1]);
}

/** Index of the first beat at or after `tick` (beats.length when none). */
function firstAtOrAfter(beats: readonly number[], tick: number): number {
  return lowerBound(beats.length, (i) => beats[i] < tick);
}

/**
 * The beat nearest `tick` when one is within `reach` ticks, else `tick` itself.
 *
 * @example
 * ```ts
 * import { snapTick } from "./beat_snap.ts";
 *
 * snapTick(64, [30, 60, 90]); // 60
 * snapTick(75, [30, 60, 90], 10); // 75
 * ```
 */
export function snapTick(tick: number, beats: readonly number[], reach = SNAP_REACH_TICKS): number {
  if (beats.length === 0) return tick;
  const i = firstAtOrAfter(beats, tick);
  let best = tick, gap = Infinity;
  for (const j of [i - 1, i]) {
    if (j < 0 || j >= beats.length) continue;
    const d = Math.abs(beats[j] - tick);
    if (d < gap) gap = d, best = beats[j];
  }
  return gap <= reach ? best : tick;
}

/**
 * The beat after (`step` 1) or before (`step` −1) `tick`, for stepping a cue by beats with the
 * arrow keys; `tick` itself when there is none that way.
 *
 * @example
 * ```ts
 * import { stepBeat } from "./beat_snap.ts";
 *
 * stepBeat(60, [30, 60, 90], 1); // 90
 * stepBeat(61, [30, 60, 90], -1); // 60
 * ```
 */
export function stepBeat(tick: number, beats: readonly number[], step: 1 | -1): number {
  if (step > 0) {
    const i = firstAtOrAfter(beats, tick + 1);
    return i < beats.length ? beats[i] : tick;
  }
  const i = firstAtOrAfter(beats, tick) - 1;
  return i >= 0 ? beats[i] : tick;
}
