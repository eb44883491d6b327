/**
 * Prices a host-composed show before it is stamped: every cue at its tick, beside everything the
 * sky already holds or has promised (clicks flying, derived launches planned, the seeded show, a
 * finale and other shows still to come). The show is admitted only when the whole of it fits
 * under the sky cap at every tick; otherwise the answer names the first cue (in launch order)
 * that does not fit. Pure: the sequencer hands it the reservations and the launches to come.
 *
 * @example
 * ```ts
 * import { priceShow } from "./show_admission.ts";
 * const refusal = priceShow({
 *   seed: 7,
 *   cap: 1_000_000,
 *   from: 601,
 *   base: () => 0,
 *   others: [],
 *   seqOf: (i) => -1 - i,
 *   start: 900,
 *   cues: [{ at: 0, x: 0, z: 0 }],
 * });
 * console.log(refusal); // null: one cue fits an empty sky
 * ```
 */
import { eventCost } from "../../shared/budget.ts";
import { TICK_RATE } from "../../shared/constants.ts";
import { cueLaunchBody } from "../../shared/show_cues.ts";
import type { LaunchBody, ShowCue } from "../../shared/types.ts";

/** A launch to come (a derived launch of another source): its tick, seq and body. */
export interface Upcoming {
  tick: number;
  seq: number;
  body: LaunchBody;
}

/** What pricing a show needs. */
export interface ShowPricing {
  seed: number;
  /** The sky cap (particle slots). */
  cap: number;
  /** The first tick the show's launches could occupy (the stamp tick + 1). */
  from: number;
  /**
   * Slots reserved at `tick` (≥ from) by what is not in `others`: clicks and volleys admitted,
   * launches already flying (0 past them).
   */
  base: (tick: number) => number;
  /** Derived launches of every other source at ticks ≥ `from` (as they will be with the show). */
  others: readonly Upcoming[];
  /** The seq cue `i`'s launch is keyed by (a derived launch's seq, from the show's own seq). */
  seqOf: (i: number) => number;
  start: number;
  /** Sorted by `at` (as stored): cue `i` is keyed by `i`. */
  cues: readonly ShowCue[];
  /** For each cue, its index as submitted (default: the same index). */
  order?: readonly number[];
}

/** Why a show does not fit: the first cue that does not (its index as submitted). */
export interface ShowRefusal {
  cue: number;
  tick: number;
  /** Slots the cue needs. */
  needs: number;
  /** Slots free over its life (the least at any of its ticks). */
  free: number;
  message: string;
}

/**
 * Null when the whole show fits beside `base` and `others` under `cap` at every tick; else the
 * first cue (by tick, then stored order) that does not.
 */
export function priceShow(p: ShowPricing): ShowRefusal | null {
  const costs = p.cues.map((cue, i) => {
    const tick = p.start + cue.at;
    const event = {
      seq: p.seqOf(i),
      tick,
      by: "show",
      body: cueLaunchBody(cue),
    };
    return { tick, ...eventCost(p.seed, event) };
  });
  let to = p.from;
  for (const c of costs) if (c.endTick > to) to = c.endTick;
  const span = to - p.from;
  if (span <= 0) return null;
  // Slots in use per tick of [from, to): others as a difference array, then the base.
  const used = new Float64Array(span + 1);
  for (const launch of p.others) {
    if (launch.tick >= to) continue;
    const cost = eventCost(p.seed, {
      seq: launch.seq,
      tick: launch.tick,
      by: "show",
      body: launch.body,
    });
    const a = Math.max(launch.tick, p.from) - p.from;
    const b = Math.min(cost.endTick, to) - p.from;
    if (b <= a) continue;
    used[a] += cost.particles;
    used[b] -= cost.particles;
  }
  let run = 0;
  for (let i = 0; i < span; i++) {
    run += used[i];
    used[i] = run + p.base(p.from + i);
  }
  for (let i = 0; i < costs.length; i++) {
    const c = costs[i];
    const a = c.tick - p.from, b = c.endTick - p.from;
    let peak = 0;
    for (let t = a; t < b; t++) if (used[t] > peak) peak = used[t];
    if (peak + c.particles > p.cap) {
      const cue = p.order?.[i] ?? i;
      const free = Math.max(0, p.cap - peak);
      return {
        cue,
        tick: c.tick,
        needs: c.particles,
        free,
        message:
          `the sky has no room for cue ${cue + 1} (at ${
            seconds(p.cues[i].at)
          } s into the show): it needs ${c.particles} particles and only ${free} of ` +
          `${p.cap} are free then; nothing was stamped`,
      };
    }
    for (let t = a; t < b; t++) used[t] += c.particles;
  }
  return null;
}

function seconds(ticks: number): string {
  return (Math.round((ticks / TICK_RATE) * 100) / 100).toString();
}
