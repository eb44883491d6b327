/**
 * Retries a step of a node's start that a NATS cluster which has just started may refuse for a
 * moment (`isSettling`): creating the replicated log stream and KV buckets right after the
 * servers elect a leader can fail with "insufficient resources" or a timeout until every server
 * has reported in. Anything else fails at once, as does a settling failure past the deadline.
 */
import { isSettling } from "./nats_errors.ts";

/** Options of {@link retryWhileSettling}; the clock and the wait are injectable for tests. */
export interface SettlingRetry {
  /** Gives up (throwing the last failure) once this long has passed since the first try. */
  deadlineMs: number;
  /** Waits between tries, in turn; the last one repeats. */
  delaysMs: readonly number[];
  /** Says each failure that will be retried. */
  log: (message: string) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** How long a node's start waits for a settling cluster, and between tries. */
export const START_RETRY: Omit<SettlingRetry, "log"> = {
  deadlineMs: 60_000,
  delaysMs: [100, 250, 500, 1000, 2000],
};

/**
 * Runs `step` until it succeeds, retrying it while its failure says the cluster is settling.
 *
 * @example
 * ```ts
 * const stream = await retryWhileSettling("create the log stream", () => jsm.streams.add(config), {
 *   ...START_RETRY,
 *   log: console.log,
 * });
 * ```
 */
export async function retryWhileSettling<T>(
  what: string,
  step: () => Promise<T>,
  options: SettlingRetry,
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  for (let attempt = 0;; attempt++) {
    try {
      return await step();
    } catch (e) {
      if (!isSettling(e) || now() - started >= options.deadlineMs) throw e;
      const wait = options.delaysMs[Math.min(attempt, options.delaysMs.length - 1)];
      options.log(`cluster: ${what}: ${(e as Error).message}; NATS is settling, retrying`);
      await sleep(wait);
    }
  }
}
