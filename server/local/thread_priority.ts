/**
 * `lowerThreadPriority`: makes the calling thread (a worker) nicer than it is, so that on a busy
 * machine the server's own thread, which stamps heartbeats, gets the CPU first. Linux applies a
 * nice value per thread (`setpriority` with the thread id); elsewhere, or without permission to
 * read `/proc`, nothing changes.
 */
import os from "node:os";

/**
 * Raises this thread's nice value by `by` (at most to 19); returns the new value, or undefined
 * when the platform does not allow it.
 *
 * @example
 * ```ts ignore
 * // inside a worker
 * lowerThreadPriority(10); // 10 when the process ran at 0
 * ```
 */
export function lowerThreadPriority(by: number): number | undefined {
  if (Deno.build.os !== "linux") return undefined;
  try {
    // "/proc/thread-self" links to "<pid>/task/<tid>".
    const tid = Number(Deno.readLinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return undefined;
    const nice = Math.min(19, os.getPriority(tid) + by);
    os.setPriority(tid, nice);
    return os.getPriority(tid);
  } catch {
    return undefined;
  }
}
