/**
 * The one scheduler loop shared by all rooms. Deadlines advance on the monotonic clock by a fixed
 * period, so lateness in one pass does not accumulate into drift (a bare `setInterval(50)` ran
 * at 19.66 Hz here); a pass that falls a whole period behind runs immediately.
 */

/** Calls `run(nowMs, lagMs)` every `periodMs` of monotonic time until stopped. */
export class PassScheduler {
  readonly #periodMs: number;
  readonly #monotonic: () => number;
  readonly #run: (nowMs: number, lagMs: number) => void;
  #deadline = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;

  constructor(
    periodMs: number,
    monotonic: () => number,
    run: (nowMs: number, lagMs: number) => void,
  ) {
    this.#periodMs = periodMs;
    this.#monotonic = monotonic;
    this.#run = run;
  }

  /** Starts the loop; the first pass runs one period from now. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#deadline = this.#monotonic() + this.#periodMs;
    this.#arm();
  }

  /** Stops the loop; no pass runs after this returns. */
  stop(): void {
    this.#running = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    const delay = Math.max(0, this.#deadline - this.#monotonic());
    this.#timer = setTimeout(this.#fire, delay);
  }

  #fire = (): void => {
    this.#timer = undefined;
    if (!this.#running) return;
    const now = this.#monotonic();
    try {
      this.#run(now, Math.max(0, now - this.#deadline));
    } finally {
      this.#deadline += this.#periodMs;
      const after = this.#monotonic();
      if (this.#deadline < after) this.#deadline = after;
      if (this.#running) this.#arm();
    }
  };
}
