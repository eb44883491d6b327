/**
 * Sky admission control. Each admitted launch or gun shot occupies at most a known number of
 * particle slots from its tick until a known tick (both from `eventCost` in shared/budget.ts); the
 * ledger refuses whatever would push the total over the cap at any tick it is alive, so no
 * client ever has to evict.
 *
 * Reservations may start in the future: the derived launches (the seeded show, the finale, cue
 * lists; shared/derived.ts) are priced ahead, so a click is admitted only if it fits beside them
 * for its whole life (derived launches have priority).
 *
 * Reservations are kept as particle counts per start and per end tick in two rings indexed by
 * tick: every reservation starts and ends less than the ring's length ahead, so admitting costs
 * O(the reservation's length), releasing O(1) and the passing of time O(1) amortised.
 */

/** Outcome of {@link SkyLedger.admit}. */
export type Admission = { ok: true } | { ok: false; retryAfterTicks: number | null };

/** Ring length in ticks; must exceed the planning lead plus the longest lifetime (W = 480). */
const HORIZON_TICKS = 4096;

/**
 * Live and planned particle reservations of one scene.
 *
 * @example
 * ```ts
 * import { SkyLedger } from "./ledger.ts";
 * const ledger = new SkyLedger(1000);
 * ledger.admit(800, 200, 0, 100); // a show launch planned for tick 100
 * ledger.admit(300, 150, 0); // { ok: false, … }: it would crowd the show out at tick 100
 * ```
 */
export class SkyLedger {
  readonly cap: number;
  /** Particles whose reservations start at tick t (t > #at), at index t % HORIZON_TICKS. */
  readonly #startAt = new Float64Array(HORIZON_TICKS);
  /** Particles whose slots free up at tick t (t > #at), at index t % HORIZON_TICKS. */
  readonly #freeAt = new Float64Array(HORIZON_TICKS);
  /** Slots reserved at tick #at. */
  #used = 0;
  /** The tick the ledger stands at: ticks passed to it must never go below it. */
  #at = -Infinity;

  constructor(cap: number) {
    this.cap = cap;
  }

  /** Particle slots reserved by reservations alive at `tick`. */
  used(tick: number): number {
    this.#advance(tick);
    return this.#used;
  }

  /**
   * Most slots reserved at any tick in [`from`, `to`), planned ones included. `from` must not be
   * below the last tick the ledger was given (it does not move the ledger's present).
   */
  peak(from: number, to: number): number {
    if (this.#at === -Infinity) this.#at = from;
    let used = this.#used;
    const last = this.#at + HORIZON_TICKS;
    for (let t = this.#at + 1; t <= from && t <= last; t++) {
      const i = t % HORIZON_TICKS;
      used += this.#startAt[i] - this.#freeAt[i];
    }
    let peak = used;
    for (let t = from + 1; t < to && t <= last; t++) {
      const i = t % HORIZON_TICKS;
      used += this.#startAt[i] - this.#freeAt[i];
      if (used > peak) peak = used;
    }
    return peak;
  }

  /**
   * Slots reserved at each tick of [`from`, `to`) (from ≥ the ledger's tick; planned ones
   * included), index 0 for `from`; ticks past the ring's reach hold 0.
   */
  profile(from: number, to: number): Float64Array {
    this.#advance(from);
    const out = new Float64Array(Math.max(0, to - from));
    let used = this.#used;
    for (let t = from; t < to && t <= this.#at + HORIZON_TICKS; t++) {
      if (t > from) {
        const i = t % HORIZON_TICKS;
        used += this.#startAt[i] - this.#freeAt[i];
      }
      out[t - from] = used;
    }
    return out;
  }

  /**
   * Reserves `particles` slots over [`startTick`, `endTick`) (`startTick` defaults to `tick`,
   * the present) if they fit under the cap at every one of those ticks. When they do not, says
   * how many ticks until enough slots free up at the present (null when they never will fit).
   * Ticks passed to the ledger must never decrease.
   */
  admit(particles: number, endTick: number, tick: number, startTick = tick): Admission {
    this.#advance(tick);
    const start = Math.max(startTick, tick);
    if (particles <= 0 || endTick <= start) return { ok: true };
    if (particles > this.cap) return { ok: false, retryAfterTicks: null };
    if (this.peak(start, endTick) + particles <= this.cap) {
      this.#reserve(particles, start, endTick);
      return { ok: true };
    }
    return { ok: false, retryAfterTicks: this.#ticksUntilFree(particles, tick) };
  }

  /**
   * Gives back a reservation `admit` made (its event was never stored, or a planned launch was
   * called off): the slots are free again at once. `startTick` as given to `admit`.
   */
  release(particles: number, endTick: number, tick: number, startTick = tick): void {
    if (particles <= 0 || endTick <= startTick || endTick <= this.#at) return;
    if (startTick > this.#at) this.#startAt[startTick % HORIZON_TICKS] -= particles;
    else this.#used -= particles;
    this.#freeAt[endTick % HORIZON_TICKS] -= particles;
  }

  /** Reserves without checking (rebuilding the ledger from stored events after a restart). */
  restore(particles: number, endTick: number, tick: number, startTick = tick): void {
    this.#advance(tick);
    const start = Math.max(startTick, tick);
    if (particles <= 0 || endTick <= start) return;
    this.#reserve(particles, start, endTick);
  }

  #reserve(particles: number, start: number, endTick: number): void {
    if (endTick - this.#at >= HORIZON_TICKS) {
      throw new RangeError(
        `a reservation ending ${endTick - this.#at} ticks ahead outlives the ledger ring`,
      );
    }
    if (start > this.#at) this.#startAt[start % HORIZON_TICKS] += particles;
    else this.#used += particles;
    this.#freeAt[endTick % HORIZON_TICKS] += particles;
  }

  #advance(tick: number): void {
    if (this.#at === -Infinity) {
      this.#at = tick;
      return;
    }
    if (tick <= this.#at) return;
    // Nothing starts or ends more than a ring ahead, so a long jump only needs one lap.
    const to = Math.min(tick, this.#at + HORIZON_TICKS);
    for (let t = this.#at + 1; t <= to; t++) {
      const i = t % HORIZON_TICKS;
      this.#used += this.#startAt[i] - this.#freeAt[i];
      this.#startAt[i] = 0;
      this.#freeAt[i] = 0;
    }
    this.#at = tick;
  }

  #ticksUntilFree(particles: number, tick: number): number {
    let used = this.#used;
    for (let t = tick + 1; t < tick + HORIZON_TICKS; t++) {
      const i = t % HORIZON_TICKS;
      used += this.#startAt[i] - this.#freeAt[i];
      if (used + particles <= this.cap) return t - tick;
    }
    return HORIZON_TICKS;
  }
}
