/**
 * Keeps an owned scene's log on the JetStream stream within the retention policy
 * (`RETAIN_HOURS`, `RETAIN_EVENTS_PER_SCENE`, meaning what they mean on the single node). The
 * scene's owner runs it: it finds the policy's cut (the tick events older than the age limit
 * end at, or the tick of the oldest event the count limit keeps, whichever is later), takes the
 * last keyframe at or before it, and purges the scene's subject up to that keyframe's stream
 * sequence, then the keyframes before it. The keyframe is the snapshot at the log's new start,
 * so late join and replay stay exact from there on (the log API reads the start from it).
 *
 * Why this is safe, also when owners change while it runs:
 * - A keyframe is a stored record snapshot, and record snapshots only move forward, so every
 *   reader of the scene (an edge opening it, a new owner taking it over) starts above the purge:
 *   they read from the record's `snapshotStreamSeq`, at or past the keyframe's. The newest
 *   keyframe is never purged up to, which leaves a snapshot step (10 s of the scene) for a reader
 *   that read the record just before it moved.
 * - The subject's last entry is never purged (the next append names its sequence).
 * - A purge is idempotent and everything it relies on is stored before it: a deposed owner that
 *   purges late removes nothing its successor needs; one that dies between the two purges
 *   leaves older keyframes behind, which the next pass removes.
 */
import { ageCutTick, countKeepFromSeq, type RetentionPolicy } from "../scene/retention_policy.ts";
import { logStart } from "./cluster_log_pages.ts";
import { lastKeyframe, lastKeyframeWhere, nextKeyframe } from "./keyframes.ts";
import type { NatsLink } from "./nats_link.ts";
import { bySeq, firstEntryAt, lastEntry, nextEntry } from "./stream_log.ts";
import { keysSubject, LOG_STREAM, logSubject } from "./subjects.ts";

/** What one pass did. */
export interface PrunePass {
  /** Log entries (events and markers) purged. */
  purged: number;
  /** The log's start tick after the pass. */
  startTick: number;
  /**
   * While nothing is appended to the scene, the next pass purges nothing until the policy's
   * cut reaches this tick (Infinity: never; a lower bound when not known). The retention sweep
   * leaves an unowned scene alone until then.
   */
  nextCutTick: number;
}

/**
 * One retention pass over `scene`'s log at scene tick `nowTick`.
 *
 * @example
 * ```ts
 * const { purged } = await pruneSceneLog(link, "quiet-pine", { hours: 72, eventsPerScene: 1e6 }, tick);
 * ```
 */
export async function pruneSceneLog(
  link: NatsLink,
  scene: string,
  policy: RetentionPolicy,
  nowTick: number,
): Promise<PrunePass> {
  // (Independent reads, at once: a pass is a chain of round trips, which a loaded NATS makes long.)
  const [start, last, newest] = await Promise.all([
    logStart(link, scene),
    lastEntry(link, scene),
    lastKeyframe(link, scene),
  ]);
  // (Until the cut passes the start, no keyframe after it can be purged up to.)
  const waiting = { purged: 0, startTick: start.tick, nextCutTick: start.tick + 1 };
  if (!last) return { ...waiting, nextCutTick: Infinity };
  let cut = ageCutTick(policy, nowTick);
  const keepFrom = countKeepFromSeq(policy, last.entry.seq);
  if (keepFrom > 1) {
    const at = await firstEntryAt(link, scene, bySeq, keepFrom, last);
    const kept = at === null ? null : await nextEntry(link, scene, at);
    if (kept) cut = Math.max(cut, kept.entry.tick);
  }
  if (cut <= start.tick) return waiting;
  if (!newest) return { ...waiting, nextCutTick: Infinity };
  // Never up to the newest keyframe (a reader may have just read the record before it).
  const newestTick = newest.keyframe.snapshot.tick;
  const key = await lastKeyframeWhere(
    link,
    scene,
    (k) => k.snapshot.tick <= cut && k.snapshot.tick < newestTick && k.streamSeq < last.streamSeq,
  );
  // The keyframe after the one the log starts at (after this pass) is the next one to purge up
  // to, unless it is the newest: until something is appended, nothing more can go.
  const after = key ? await nextKeyframe(link, scene, key.keySeq + 1) : null;
  const nextCutTick = after && after.keySeq < newest.keySeq
    ? after.keyframe.snapshot.tick
    : Infinity;
  if (!key || key.keyframe.snapshot.tick <= start.tick) {
    return { ...waiting, nextCutTick: key ? nextCutTick : waiting.nextCutTick };
  }
  // The log first, then the keyframes: meanwhile the start is still the older keyframe.
  const log = await link.jsm.streams.purge(LOG_STREAM, {
    filter: logSubject(scene),
    seq: key.keyframe.streamSeq + 1,
  });
  await link.jsm.streams.purge(LOG_STREAM, { filter: keysSubject(scene), seq: key.keySeq });
  return { purged: log.purged, startTick: key.keyframe.snapshot.tick, nextCutTick };
}
