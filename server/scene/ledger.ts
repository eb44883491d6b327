/**
 * Sky admission control. Each admitted launch or gun shot occupies at most a known number of
 * particle slots until a known tick (both from `eventCost` in shared/budget.ts); the ledger
 * refuses whatever would push the total over the cap, so no client ever has to evict.
 *
 * Reservations are kept as particle counts per end tick in a ring indexed by tick: every
 * particle dies within the window W, so end ticks lie less than the ring's length ahead and
 * admitting, releasing and computing a retry-after cost O(1) amortised, O(W) at worst, however
 * many reservations are alive.
 */

/** Outcome of {@link SkyLedger.admit}. */
export type Admission = { ok: true } | { ok: false; retryAfterTicks: number | null };

/** Ring length in ticks; must exceed the longest lifetime (W = 480 ticks). */
const HORIZON_TICKS = 4096;

/** Live particle reservations of one scene. */
export class SkyLedger {
  readonly cap: number;
  /** Particles whose slots free up at tick t, at index t % HORIZON_TICKS. */
  readonly #freeAt = new Float64Array(HORIZON_TICKS);
  #used = 0;
  /** Reservations ending at or before this tick have been released. */
  #releasedThrough = -Infinity;

  constructor(cap: number) {
    this.cap = cap;
  }

  /** Particle slots reserved by reservations still alive at `tick`. */
  used(tick: number): number {
    this.#release(tick);
    return this.#used;
  }

  /**
   * Reserves `particles` slots until `endTick` if they fit under the cap at `tick`. When they do
   * not, says how many ticks until enough reservations end (null when they never will fit).
   * Ticks passed to the ledger must never decrease.
   */
  admit(particles: number, endTick: number, tick: number): Admission {
    if (particles <= 0 || endTick <= tick) return { ok: true };
    this.#release(tick);
    if (this.#used + particles <= this.cap) {
      this.#reserve(particles, endTick, tick);
      return { ok: true };
    }
    if (particles > this.cap) return { ok: false, retryAfterTicks: null };
    return { ok: false, retryAfterTicks: this.#ticksUntilFree(particles, tick) };
  }

  /**
   * Gives back a reservation `admit` made at `tick` (its event was never stored): the slots are
   * free again at once, not when the reservation would have ended. Ticks must not have moved past
   * `endTick` (nothing to give back then).
   */
  release(particles: number, endTick: number, tick: number): void {
    if (particles <= 0 || endTick <= tick || endTick <= this.#releasedThrough) return;
    this.#freeAt[endTick % HORIZON_TICKS] -= particles;
    this.#used -= particles;
  }

  /** Reserves without checking (rebuilding the ledger from stored events after a restart). */
  restore(particles: number, endTick: number, tick: number): void {
    if (particles <= 0 || endTick <= tick) return;
    this.#release(tick);
    this.#reserve(particles, endTick, tick);
  }

  #reserve(particles: number, endTick: number, tick: number): void {
    if (endTick - tick >= HORIZON_TICKS) {
      throw new RangeError(`a reservation ${endTick - tick} ticks long outlives the ledger ring`);
    }
    this.#freeAt[endTick % HORIZON_TICKS] += particles;
    this.#used += particles;
  }

  #release(tick: number): void {
    if (this.#releasedThrough === -Infinity) {
      this.#releasedThrough = tick;
      return;
    }
    // Nothing can end more than a ring ahead, so a long jump only needs one lap.
    const from = Math.max(this.#releasedThrough + 1, tick - HORIZON_TICKS + 1);
    for (let t = from; t <= tick; t++) {
      const i = t % HORIZON_TICKS;
      this.#used -= this.#freeAt[i];
      this.#freeAt[i] = 0;
    }
    if (tick > this.#releasedThrough) this.#releasedThrough = tick;
  }

  #ticksUntilFree(particles: number, tick: number): number {
    let used = this.#used;
    for (let t = tick + 1; t < tick + HORIZON_TICKS; t++) {
      used -= this.#freeAt[t % HORIZON_TICKS];
      if (used + particles <= this.cap) return t - tick;
    }
    return HORIZON_TICKS;
  }
}
