/**
 * Keeps a node alive through a NATS client's write on a socket that has already ended.
 *
 * Why: @nats-io/transport-node treats write errors as harmless ("the client will fail on a read
 * or when the heartbeat timer detects a stale connection"), but during a reconnect it can write
 * (the CONNECT it sends in `processInfo`) on a socket that the server already ended, after it
 * took the socket's listeners off. A Node stream with no `error` listener throws such an error
 * as uncaught, and Deno ends the process: a node died that way once in five runs of
 * `cluster_nats_kill_test.ts` (a NATS server killed under traffic). The connection itself
 * recovers (its reader sees the close and it dials again), so the error is only logged.
 *
 * Only those two stream errors are held back; any other uncaught error ends the process as
 * before.
 */

/** Node stream errors of a write on a socket that is ending or gone. */
const HARMLESS_WRITE_ERRORS = new Set(["ERR_STREAM_WRITE_AFTER_END", "ERR_STREAM_DESTROYED"]);
/** At most one log line per this many ms (a flapping link must not flood the log). */
const LOG_EVERY_MS = 60_000;

let installed = false;

/**
 * Installs the guard once per process (later calls do nothing).
 *
 * @example
 * ```ts
 * guardSocketWrites(console.log);
 * ```
 */
export function guardSocketWrites(log: (msg: string) => void): void {
  if (installed) return;
  installed = true;
  let loggedMs = -Infinity;
  let held = 0;
  globalThis.addEventListener("error", (e) => {
    const code = (e.error as { code?: unknown } | null)?.code;
    if (typeof code !== "string" || !HARMLESS_WRITE_ERRORS.has(code)) return;
    e.preventDefault();
    held++;
    const now = performance.now();
    if (now - loggedMs < LOG_EVERY_MS) return;
    loggedMs = now;
    log(
      `cluster: a NATS socket refused a write after it closed (${code}; ${held} so far); ignored`,
    );
  });
}
