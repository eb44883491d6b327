/**
 * Log pages in cluster mode: the scene's events from the JetStream stream, for
 * `/api/scenes/:id/log`.
 */
import type { PageRequest } from "../local/log_pages.ts";
import type { LogPageResult } from "../http/log_api.ts";
import { HttpError } from "../errors.ts";
import type { ClusterScenes } from "./cluster_scenes.ts";

/**
 * One page of a cluster scene's log. Pages start at a seq; a tick start is not offered in cluster
 * mode yet (400).
 *
 * @example
 * ```ts
 * const page = await clusterLogPage(cluster, { scene: "quiet-pine", start: { seq: 1 }, limit: 100 });
 * ```
 */
export async function clusterLogPage(
  cluster: ClusterScenes,
  request: PageRequest,
): Promise<LogPageResult> {
  if (!("seq" in request.start)) {
    throw new HttpError(400, "bad_query", "tick= is not offered in cluster mode; page by from=");
  }
  const events = await cluster.readLog(request.scene, request.start.seq, request.limit);
  const info = await cluster.describe(request.scene);
  const lastSeq = Math.max(info?.lastSeq ?? 0, events.at(-1)?.seq ?? 0);
  return { events, firstSeq: 1, lastSeq, startTick: 0 };
}
