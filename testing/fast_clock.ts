/**
 * Server clocks that run `speed` times faster than real time, so a test waits seconds for what
 * takes a minute of scene time (the window W, snapshot steps, retention).
 */
import { DEFAULT_HELLO_TIMEOUT_MS } from "../server/config.ts";

/** The `now` and `monotonic` server options of a clock `speed` times faster than real time. */
export interface FastClock {
  now: () => number;
  monotonic: () => number;
  /**
   * The default hello deadline in real time: server timeouts run on the monotonic clock, and at
   * 10× a first welcome that waits on a freshly started NATS cluster took more than the 1 s left
   * of the default 10 s (CI, cluster_retention: "1008 no hello in time").
   */
  helloTimeoutMs: number;
}

/**
 * Wall and monotonic clocks for a test server, `speed` times real time.
 *
 * @example
 * ```ts
 * const clock = fastClock(10);
 * clock.monotonic(); // 10 × performance.now()
 * ```
 */
export function fastClock(speed: number): FastClock {
  return {
    now: () => performance.timeOrigin + performance.now() * speed,
    monotonic: () => performance.now() * speed,
    helloTimeoutMs: DEFAULT_HELLO_TIMEOUT_MS * speed,
  };
}
