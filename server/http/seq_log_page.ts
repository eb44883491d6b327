/**
 * Log pages from a host that only reads by seq (cluster mode: the JetStream stream): seq starts
 * only. The first kept seq is the first event found from seq 1 on.
 */
import { HttpError } from "../errors.ts";
import type { PageRequest } from "../local/log_pages.ts";
import type { SceneHost } from "../scene/scene_host.ts";
import type { LogPageResult } from "./log_api.ts";

/**
 * One page through `SceneHost.readLog`.
 *
 * @example
 * ```ts
 * const page = await seqLogPage(scenes, { scene: "quiet-pine", start: { seq: 1 }, limit: 100 });
 * ```
 */
export async function seqLogPage(
  scenes: SceneHost,
  request: PageRequest,
): Promise<LogPageResult> {
  if (!("seq" in request.start)) {
    throw new HttpError(
      400,
      "bad_query",
      "tick= is not offered by this server (cluster mode); page by from= or cursor=",
    );
  }
  const info = await scenes.describe(request.scene);
  const events = await scenes.readLog(request.scene, request.start.seq, request.limit);
  const lastSeq = Math.max(info?.lastSeq ?? 0, events.at(-1)?.seq ?? 0);
  const first = request.start.seq <= 1 ? events[0] : (await scenes.readLog(request.scene, 1, 1))[0];
  return { events, firstSeq: first?.seq ?? lastSeq + 1, lastSeq, startTick: 0 };
}
