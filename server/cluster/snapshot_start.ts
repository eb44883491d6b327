/**
 * Where a reader of a scene starts in its log: the record's snapshot covers every event up to the
 * entry stored at `snapshotStreamSeq`, and the log after that entry holds the rest. Retention
 * purges a scene's subject up to a keyframe older than the newest one (`stream_retention.ts`), so
 * a record read just before a purge can name a start the purge already removed: a reader slow
 * between reading the record and reading the log (two snapshot steps, two seconds of a 10×
 * clock under load) would otherwise start above the purge and miss events, silently (its
 * consumer just begins at the first entry kept). The cluster soak saw it as a late join whose
 * welcome did not rebuild the veteran's world.
 *
 * So readers check: the seq the snapshot covers ({@link coveredSeq}, null when its entry is gone)
 * and that the first entries read follow on from it ({@link followsOn}); otherwise they read the
 * record again (it moved on before the purge: a keyframe is written after its record).
 */
import type { NatsLink } from "./nats_link.ts";
import type { SceneRecord } from "./scene_records.ts";
import { isEvent, type LogEntry } from "./stream_log.ts";
import { LOG_STREAM, logSubject } from "./subjects.ts";

const decoder = new TextDecoder();

/**
 * The seq of the last event `record`'s snapshot covers: the seq of the entry at its
 * `snapshotStreamSeq` (0 for a snapshot before any entry). Null when that entry is no longer
 * stored: the log was pruned past this record, and a newer record is stored.
 *
 * @example
 * ```ts
 * const { record } = (await getRecord(link, "quiet-pine"))!;
 * const covered = await coveredSeq(link, "quiet-pine", record); // null: read the record again
 * ```
 */
export async function coveredSeq(
  link: NatsLink,
  scene: string,
  record: Pick<SceneRecord, "snapshotStreamSeq">,
): Promise<number | null> {
  if (record.snapshotStreamSeq === 0) return 0;
  const msg = await link.jsm.streams.getMessage(LOG_STREAM, { seq: record.snapshotStreamSeq });
  if (!msg || msg.subject !== logSubject(scene)) return null;
  return (JSON.parse(decoder.decode(msg.data)) as LogEntry).seq;
}

/**
 * True when `entry`, read next in a log whose last event read has seq `lastSeq`, leaves no
 * event out: an event at most `lastSeq + 1` (an older one is a duplicate), or an ownership marker
 * naming at most `lastSeq` (a marker carries the seq of the last event stored before it).
 *
 * @example
 * ```ts
 * followsOn(10, { seq: 11, tick: 5, by: "p", body: { type: "launch", x: 0, z: 0 } }); // true
 * followsOn(10, { owner: "node-a", seq: 14, tick: 9 }); // false: events 11–14 are missing
 * ```
 */
export function followsOn(lastSeq: number, entry: LogEntry): boolean {
  return isEvent(entry) ? entry.seq <= lastSeq + 1 : entry.seq <= lastSeq;
}
