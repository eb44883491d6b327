/**
 * Sky admission control. Each admitted launch or gun shot occupies at most a known number of
 * particle slots until a known tick (both from `eventCost` in shared/budget.ts); the ledger
 * refuses whatever would push the total over the cap, so no client ever has to evict.
 */

/** Outcome of {@link SkyLedger.admit}. */
export type Admission = { ok: true } | { ok: false; retryAfterTicks: number | null };

/** Live particle reservations of one scene. */
export class SkyLedger {
  readonly cap: number;
  #particles: number[] = [];
  #endTicks: number[] = [];
  #used = 0;

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
   */
  admit(particles: number, endTick: number, tick: number): Admission {
    if (particles <= 0 || endTick <= tick) return { ok: true };
    this.#release(tick);
    if (this.#used + particles <= this.cap) {
      this.#particles.push(particles);
      this.#endTicks.push(endTick);
      this.#used += particles;
      return { ok: true };
    }
    if (particles > this.cap) return { ok: false, retryAfterTicks: null };
    return { ok: false, retryAfterTicks: this.#ticksUntilFree(particles, tick) };
  }

  /** Reserves without checking (rebuilding the ledger from stored events after a restart). */
  restore(particles: number, endTick: number, tick: number): void {
    if (particles <= 0 || endTick <= tick) return;
    this.#particles.push(particles);
    this.#endTicks.push(endTick);
    this.#used += particles;
  }

  #release(tick: number): void {
    let kept = 0;
    for (let i = 0; i < this.#endTicks.length; i++) {
      if (this.#endTicks[i] > tick) {
        this.#particles[kept] = this.#particles[i];
        this.#endTicks[kept] = this.#endTicks[i];
        kept++;
      } else {
        this.#used -= this.#particles[i];
      }
    }
    this.#particles.length = kept;
    this.#endTicks.length = kept;
  }

  #ticksUntilFree(particles: number, tick: number): number {
    const order = this.#endTicks.map((_, i) => i).sort((a, b) =>
      this.#endTicks[a] - this.#endTicks[b]
    );
    let used = this.#used;
    for (const i of order) {
      used -= this.#particles[i];
      if (used + particles <= this.cap) return this.#endTicks[i] - tick;
    }
    return 0;
  }
}
