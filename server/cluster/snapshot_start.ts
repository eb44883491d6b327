/**
 * Where a reader of a scene starts in its log: the record's snapshot covers every event up to the
 * entry stored at `snapshotStreamSeq`, and the log after that entry holds the rest. Retention
 * purges a scene's subject up to a keyframe older than the newest one (`stream_retention.ts`), so
 * a record read just before a purge can name a start the purge already removed: a reader slow
 * between reading the record and reading the log (two snapshot steps, two seconds of a 10×
 * clock under load) would otherwise start above the purge and miss events, silently (its
 * consumer just begins at the first entry kept): a suspect for the late join in the cluster
 * retention soak whose welcome did not rebuild the veteran's world (`cluster_prune_race_test.ts`
 * sets the race up).
 *
 * So readers check that the first entries they read follow on ({@link followsOn}) from the seq the
 * snapshot covers ({@link coveredSeq}); otherwise they read the record again (it moved on before
 * the purge: a keyframe is written after its record). The entry at `snapshotStreamSeq` itself
 * may be gone legitimately: when no event came between two snapshots, the keyframe purged up to
 * and the record's snapshot share that stream sequence (so the record names the seq, too).
 */
import type { NatsLink } from "./nats_link.ts";
import type { SceneRecord } from "./scene_records.ts";
import { isEvent, type LogEntry } from "./stream_log.ts";
import { LOG_STREAM, logSubject } from "./subjects.ts";

const decoder = new TextDecoder();

/**
 * The seq of the last event `record`'s snapshot covers: the record's `snapshotSeq`, or for a
 * record written before it was, the seq of the entry at its `snapshotStreamSeq` (0 for a snapshot
 * before any entry); null when neither says (that entry is no longer stored).
 *
 * @example
 * ```ts
 * const { record } = (await getRecord(link, "quiet-pine"))!;
 * const covered = await coveredSeq(link, "quiet-pine", record);
 * ```
 */
export async function coveredSeq(
  link: NatsLink,
  scene: string,
  record: Pick<SceneRecord, "snapshotStreamSeq" | "snapshotSeq">,
): Promise<number | null> {
  if (record.snapshotSeq !== undefined) return record.snapshotSeq;
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
