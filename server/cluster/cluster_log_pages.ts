/**
 * Log API pages in cluster mode, read from the JetStream stream: a page starts at a seq or at a
 * tick, found by binary search with direct gets over the scene's subject (seq and tick never
 * decrease along it); its events are then read in one batch by an ordered consumer from there
 * (`readRange`), not one direct get each (nats-server 2.9 has no batched direct get; 2.11's
 * `batch` would need it). The snapshot at a tick is the last keyframe at or before it plus the
 * settings events stored between (at most one snapshot step of events, about 10 s of the scene;
 * about a minute past the newest keyframe), read the same way. Where the kept log starts is
 * {@link logStart}: the keyframe the retention purged up to.
 */
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";
import type { PageRequest } from "../local/log_pages.ts";
import type { LogPageResult } from "../http/log_api.ts";
import { lastKeyframeWhere, nextKeyframe } from "./keyframes.ts";
import type { NatsLink } from "./nats_link.ts";
import {
  eventsFrom,
  firstEntryAt,
  isEvent,
  lastEntry,
  type LogEntry,
  nextEntry,
  readEntries,
  readEvents,
  type StoredEntry,
} from "./stream_log.ts";

/** Where a scene's kept log starts. */
export interface LogStart {
  /** Events before this tick were pruned (0 when nothing was). */
  tick: number;
  /** Settings and wind at `tick`. */
  snapshot: WorldSnapshot;
}

const byTick = (entry: LogEntry) => entry.tick;

/**
 * Where the scene's kept log starts. A log never pruned begins with its first owner's marker
 * (seq 0) or event 1: tick 0, the initial snapshot. A pruned one begins after the keyframe the
 * retention purged up to: the last keyframe stored before the first entry left.
 *
 * @example
 * ```ts
 * const start = await logStart(link, "quiet-pine"); // { tick: 0, snapshot } until pruned
 * ```
 */
export async function logStart(link: NatsLink, scene: string): Promise<LogStart> {
  const first = await nextEntry(link, scene, 1);
  const untouched = !first ||
    (isEvent(first.entry) ? first.entry.seq <= 1 : first.entry.seq === 0);
  if (untouched) return { tick: 0, snapshot: initialSnapshot() };
  const kept = await lastKeyframeWhere(link, scene, (k) => k.streamSeq < first.streamSeq) ??
    // (Entries lost some other way, e.g. the stream's own age limit: the first keyframe kept.)
    await nextKeyframe(link, scene, 1);
  if (!kept) return { tick: 0, snapshot: initialSnapshot() };
  return { tick: kept.keyframe.snapshot.tick, snapshot: kept.keyframe.snapshot };
}

/**
 * One page of the log API (see `server/http/log_api.ts`).
 *
 * @example
 * ```ts
 * const page = await clusterLogPage(link, {
 *   scene: "quiet-pine",
 *   start: { tick: 36_000 },
 *   limit: 600,
 *   snapshot: true,
 * });
 * ```
 */
export async function clusterLogPage(
  link: NatsLink,
  request: PageRequest,
): Promise<LogPageResult> {
  const { scene, start, limit } = request;
  const last = await lastEntry(link, scene);
  const lastSeq = last ? last.entry.seq : 0;
  const kept = await logStart(link, scene);
  const firstAt = last ? await firstEntryAt(link, scene, byTick, kept.tick, last) : null;
  const first = firstAt === null ? [] : await eventsFrom(link, scene, firstAt, last!, 1);
  const firstSeq = first[0]?.seq ?? lastSeq + 1;
  const page: LogPageResult = { events: [], firstSeq, lastSeq, startTick: kept.tick };
  if (!last) return page;
  if ("seq" in start) {
    const fromSeq = Math.max(start.seq, firstSeq);
    page.events = await readEvents(link, scene, fromSeq, limit, last);
    return page;
  }
  // A tick before the start is refused by the route (410); nothing to read.
  if (start.tick < kept.tick) return page;
  const at = await firstEntryAt(link, scene, byTick, start.tick, last);
  if (at !== null) page.events = await eventsFrom(link, scene, at, last, limit);
  if (request.snapshot) page.snapshot = await snapshotAt(link, scene, kept, start.tick, last);
  return page;
}

/**
 * The settings, wind and host rules in force at `tick` (every settings and rules event with a
 * lower tick applied).
 */
async function snapshotAt(
  link: NatsLink,
  scene: string,
  kept: LogStart,
  tick: number,
  last: StoredEntry,
): Promise<WorldSnapshot> {
  const key = await lastKeyframeWhere(link, scene, (k) => k.snapshot.tick <= tick);
  const base = key && key.keyframe.snapshot.tick >= kept.tick
    ? key.keyframe.snapshot
    : kept.snapshot;
  const from = key && base === key.keyframe.snapshot ? key.keyframe.streamSeq + 1 : 1;
  // The entries between, up to the first at or past the tick, in one read.
  const between = await readEntries(link, scene, from, last, () => (s) => s.entry.tick >= tick);
  const settings: SceneEvent[] = [];
  for (const { entry } of between) {
    if (entry.tick >= tick) break;
    if (isEvent(entry) && (entry.body.type === "settings" || entry.body.type === "rules")) {
      settings.push(entry);
    }
  }
  return advanceSnapshot(base, settings, tick);
}
