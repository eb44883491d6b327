/**
 * The load test's one time base: wall-clock milliseconds with sub-millisecond resolution from the
 * monotonic clock. Every process (coordinator and agents) uses it, and the coordinator measures
 * each agent's offset from it (see `agent_handle.ts`), so send and receive times taken in
 * different processes can be subtracted.
 */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
