/**
 * `GET /api/scenes/:id/log`: a scene's stored events, paged, for tools and for the page's
 * replay. A page starts at a seq (`from`, or `cursor`: the `next` of the previous page) or at a
 * tick (`tick`, the first event at or after it; with `snapshot=1` also the settings and wind in
 * force at that tick, which with the events from `tick` on is what rebuilds any later moment).
 * Every page says where the kept log starts (`firstSeq`, `startTick`, and `exactFromTick`, the
 * first tick whose world the kept log rebuilds exactly). Asking for what was pruned is a 410,
 * for what cannot exist a 400: never a silently different range.
 */
import type { Env, Hono } from "hono";
import { publicEvent } from "../../shared/rules.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { HttpError } from "../scene/errors.ts";
import { logPageBody } from "./log_page_body.ts";
import type { EncodedEvents, LogPageResult, PageRequest, PageStart } from "../scene/log_page.ts";

export type { LogPageResult } from "../scene/log_page.ts";

/** Events per page when the request names no `limit`. */
export const LOG_PAGE_DEFAULT = 1000;
/** Most events one page returns; a larger `limit` is refused. */
export const LOG_PAGE_MAX = 5000;

/** What the route needs. */
export interface LogApiDeps {
  /** Seed and epoch of a stored scene, or undefined when there is none. */
  describe(id: string): Promise<{ seed: number; epoch: number } | undefined>;
  /** Reads one page. */
  read(request: PageRequest): Promise<LogPageResult>;
  /**
   * True when `read` answers with the scene's facts (`LogPageResult.scene`): the page is read
   * first, and `describe` never asked (the local worker: no database work on the server's
   * thread at all). Otherwise the scene is described first, and the page read after.
   */
  readsScene?: boolean;
}

/**
 * Adds the route to `app`; `sceneId` validates the id (404 for a malformed one).
 *
 * @example
 * ```ts
 * registerLogApi(app, { describe, read }, sceneId);
 * // GET /api/scenes/quiet-pine-4821/log?tick=36000&snapshot=1&limit=500
 * ```
 */
export function registerLogApi<E extends Env>(
  app: Hono<E>,
  deps: LogApiDeps,
  sceneId: (raw: string) => string,
): void {
  app.get("/api/scenes/:id/log", async (c) => {
    const id = sceneId(c.req.param("id"));
    const query = (name: string) => c.req.query(name);
    const limit = intParam(query("limit"), "limit", LOG_PAGE_DEFAULT, 1, LOG_PAGE_MAX);
    const seqText = query("cursor") ?? query("from");
    const tickText = query("tick");
    if (seqText !== undefined && tickText !== undefined) {
      throw new HttpError(400, "bad_query", "give either from/cursor (a seq) or tick, not both");
    }
    const wantSnapshot = query("snapshot") === "1" || query("snapshot") === "true";
    if (wantSnapshot && tickText === undefined) {
      throw new HttpError(400, "bad_query", "snapshot=1 needs a tick to take the snapshot at");
    }
    const start: PageStart = tickText !== undefined
      ? { tick: intParam(tickText, "tick", 0, 0, Number.MAX_SAFE_INTEGER) }
      : { seq: intParam(seqText, "from", 1, 1, Number.MAX_SAFE_INTEGER) };
    // A reader that builds whole bodies compresses them when the client takes gzip.
    const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
    const request = { scene: id, start, limit, snapshot: wantSnapshot, body: { gzip } };
    let info: { seed: number; epoch: number } | null | undefined;
    let page: LogPageResult;
    if (deps.readsScene) {
      page = await deps.read(request);
      info = page.scene;
      if (!info) throw new HttpError(404, "not_found", `no scene ${id}`);
    } else {
      info = await deps.describe(id);
      if (!info) throw new HttpError(404, "not_found", `no scene ${id}`);
      page = await deps.read(request);
    }
    // Without a start the page begins at the first kept seq; a start named explicitly and pruned
    // is refused rather than silently moved.
    if (
      seqText !== undefined && "seq" in start && start.seq < page.firstSeq && page.startTick > 0
    ) {
      throw new HttpError(
        410,
        "pruned",
        `seq ${start.seq} is no longer kept: scene ${id}'s log now starts at seq ` +
          `${page.firstSeq}`,
      );
    }
    if ("seq" in start && start.seq > page.lastSeq + 1) {
      throw new HttpError(
        400,
        "out_of_range",
        `seq ${start.seq} is beyond the log: scene ${id}'s last seq is ${page.lastSeq}`,
      );
    }
    if ("tick" in start && start.tick < page.startTick) {
      throw new HttpError(
        410,
        "pruned",
        `tick ${start.tick} is no longer kept: scene ${id}'s log now starts at tick ` +
          `${page.startTick}`,
      );
    }
    // Built (and compressed) by the worker: only written here.
    if (page.body) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (page.body.gzip) headers["content-encoding"] = "gzip";
      headers["vary"] = "accept-encoding";
      return c.body(page.body.bytes, 200, headers);
    }
    // Host key hashes stay on the server: a grant is listed without its key hash.
    const bytes = logPageBody({
      scene: id,
      seed: info.seed,
      epoch: info.epoch,
      firstSeq: page.firstSeq,
      lastSeq: page.lastSeq,
      startTick: page.startTick,
      start,
      limit,
      events: encodedEvents(page.events),
      snapshot: page.snapshot,
    });
    return c.body(bytes, 200, { "content-type": "application/json" });
  });
}

const encoder = new TextEncoder();

/** Events as public UTF-8 JSON (encoded here, without host key hashes, when given objects). */
function encodedEvents(events: SceneEvent[] | EncodedEvents): EncodedEvents {
  if (!Array.isArray(events)) return events;
  return {
    json: encoder.encode(JSON.stringify(events.map(publicEvent))),
    count: events.length,
    firstSeq: events[0]?.seq,
    lastSeq: events.at(-1)?.seq,
  };
}

function intParam(
  text: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new HttpError(
      400,
      "bad_query",
      max === Number.MAX_SAFE_INTEGER
        ? `${name} must be an integer >= ${min}, got ${text}`
        : `${name} must be an integer from ${min} to ${max}, got ${text}`,
    );
  }
  return value;
}
