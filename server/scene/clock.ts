/**
 * Server time. The wall clock is read once at start to place a monotonic clock on it, so a wall
 * clock that jumps while we run cannot move ticks; per scene, ticks count from the scene's
 * persistent epoch and never fall below a floor that flows on from the last tick stored before a
 * restart.
 */
import { TICK_MS } from "../../shared/constants.ts";

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

/**
 * One scene's clock: tick = floor((wall − epoch) / TICK_MS), but never below a floor that itself
 * flows forward with the monotonic clock from the last tick stored before a restart. So after a
 * restart across a wall clock that stepped back, ticks neither repeat nor stand still.
 */
export class SceneClock {
  readonly epoch: number;
  readonly #server: ServerClock;
  readonly #floor: number;
  readonly #floorMono: number;
  #last: number;

  /**
   * @param epoch wall ms at which the scene's tick 0 began.
   * @param floor smallest tick this clock may report now (e.g. last stored tick plus a margin).
   */
  constructor(server: ServerClock, epoch: number, floor: number) {
    this.#server = server;
    this.epoch = epoch;
    this.#floor = floor;
    this.#floorMono = server.monotonicMs();
    this.#last = floor;
  }

  /** Current integer tick; never less than any tick returned before. */
  tick(): number {
    const tick = Math.floor(this.exactTick());
    if (tick > this.#last) this.#last = tick;
    return this.#last;
  }

  /** Current fractional tick (for `pong`): the later of the epoch's and the flowing floor's. */
  exactTick(): number {
    const fromEpoch = (this.#server.wallMs() - this.epoch) / TICK_MS;
    const fromFloor = this.#floor + (this.#server.monotonicMs() - this.#floorMono) / TICK_MS;
    return Math.max(fromEpoch, fromFloor, this.#last);
  }
}
