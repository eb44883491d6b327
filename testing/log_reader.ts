/**
 * A hostile log reader as its own process: `deno run -A testing/log_reader.ts PORT SCENE MS N`.
 * For MS ms, N loops each fetch `/api/scenes/SCENE/log?limit=5000` from a random offset, one
 * request after another (no pause). Prints one JSON line: requests, by status, events received.
 */

import { runNicedChild } from "./niced_child.ts";

/** Runs the readers; what they got. */
export async function readLogs(
  port: number,
  scene: string,
  ms: number,
  readers: number,
): Promise<{ requests: number; statuses: Record<string, number>; events: number }> {
  const until = performance.now() + ms;
  const statuses: Record<string, number> = {};
  let requests = 0;
  let events = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const from = 1 + Math.floor(Math.random() * 20_000);
      try {
        const res = await fetch(
          `http://127.0.0.1:${port}/api/scenes/${scene}/log?from=${from}&limit=5000`,
        );
        requests++;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200) {
          events += ((await res.json()) as { events: unknown[] }).events.length;
        } else await res.body?.cancel();
      } catch {
        statuses.failed = (statuses.failed ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: readers }, loop));
  return { requests, statuses, events };
}

/** Runs `readLogs` in a child process at the lowest CPU priority; resolves with its result. */
export async function readLogsInChild(
  port: number,
  scene: string,
  ms: number,
  readers: number,
): Promise<{ requests: number; statuses: Record<string, number>; events: number }> {
  return await runNicedChild(new URL(import.meta.url), [
    String(port),
    scene,
    String(ms),
    String(readers),
  ], "log reader");
}

if (import.meta.main) {
  const [port, scene, ms, readers] = Deno.args;
  console.log(JSON.stringify(await readLogs(Number(port), scene, Number(ms), Number(readers))));
}
