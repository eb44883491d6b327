/**
 * Server time. The wall clock is read once at start to place a monotonic clock on it, so a wall
 * clock that jumps while we run cannot move ticks; per scene, ticks count from the scene's
 * persistent epoch and never fall below a floor (the last tick stored before a restart).
 */
import { TICK_MS } from "../shared/constants.ts";

/** Wall-clock milliseconds that advance only with the monotonic clock. */
export class ServerClock {
  readonly #wallBase: number;
  readonly #monoBase: number;
  readonly #monotonic: () => number;

  constructor(now: () => number, monotonic: () => number) {
    this.#wallBase = now();
    this.#monoBase = monotonic();
    this.#monotonic = monotonic;
  }

  /** Current monotonic time in ms (for scheduling and timeouts). */
  monotonicMs(): number {
    return this.#monotonic();
  }

  /** Current wall-clock time in ms as of server start plus monotonic elapsed time. */
  wallMs(): number {
    return this.#wallBase + (this.#monotonic() - this.#monoBase);
  }
}

/** One scene's clock: tick = floor((wall − epoch) / TICK_MS), clamped to never go backwards. */
export class SceneClock {
  readonly epoch: number;
  readonly #server: ServerClock;
  #floor: number;

  /**
   * @param epoch wall ms at which the scene's tick 0 began.
   * @param floor smallest tick this clock may report (e.g. last stored tick plus a margin).
   */
  constructor(server: ServerClock, epoch: number, floor: number) {
    this.#server = server;
    this.epoch = epoch;
    this.#floor = floor;
  }

  /** Current integer tick; never less than any tick returned before. */
  tick(): number {
    const tick = Math.floor((this.#server.wallMs() - this.epoch) / TICK_MS);
    if (tick > this.#floor) this.#floor = tick;
    return this.#floor;
  }

  /** Current fractional tick (for `pong`), never below the integer floor. */
  exactTick(): number {
    const exact = (this.#server.wallMs() - this.epoch) / TICK_MS;
    return Math.max(exact, this.tick());
  }
}
