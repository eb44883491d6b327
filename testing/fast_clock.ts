/**
 * Server clocks that run `speed` times faster than real time, so a test waits seconds for what
 * takes a minute of scene time (the window W, snapshot steps, retention).
 */

/** The `now` and `monotonic` server options of a clock `speed` times faster than real time. */
export interface FastClock {
  now: () => number;
  monotonic: () => number;
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
  };
}
