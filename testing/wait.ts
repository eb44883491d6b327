/** Waiting in tests: on a condition where possible, for a fixed time only to let time pass. */

/**
 * Sleeps `ms` (for letting time pass in a test; never as a performance assertion).
 *
 * @example
 * ```ts
 * await sleep(10);
 * ```
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `check` every `pollMs` (10 ms; more where each check costs, say a page read) until it
 * returns true; throws with `what` after `timeoutMs`.
 *
 * @example
 * ```ts
 * let done = false;
 * setTimeout(() => done = true, 5);
 * await eventually("the flag is set", () => done);
 * ```
 */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  pollMs = 10,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(pollMs);
  }
}
