/**
 * Scene records in the `snowfire_scenes` KV bucket: what a node needs to serve or own a scene
 * besides its log — seed, epoch, the horizon reserved by the owner, the show cursor and the
 * snapshot kept at or before T − W with the stream sequence its events start after. Writes go
 * by revision, so an owner that lost the scene cannot overwrite its successor's record.
 */
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";
import type { NatsLink } from "./nats_link.ts";
import { isWrongLastSequence } from "./nats_errors.ts";
import { SCENE_BUCKET } from "./subjects.ts";

/** A scene's record. */
export interface SceneRecord {
  seed: number;
  /** Wall ms of tick 0. */
  epoch: number;
  /**
   * Highest tick an owner may have promised (heartbeat or event). An owner writes it ahead of
   * time before promising into it; a new owner stamps only above it.
   */
  reserved: number;
  /** First tick whose show launches have not been emitted (a hint; the log's last tick wins). */
  showCursor: number;
  /** World settings and accumulators at `snapshot.tick`; covers every event with a lower tick. */
  snapshot: WorldSnapshot;
  /** Events with tick ≥ snapshot.tick are all at stream sequences above this. */
  snapshotStreamSeq: number;
  /**
   * The seq of the last event the snapshot covers (the event at `snapshotStreamSeq`): a reader
   * checks that the log it reads follows on from it (`snapshot_start.ts`). Absent in records
   * written before it was (the entry at `snapshotStreamSeq` says, while it is stored).
   */
  snapshotSeq?: number;
  /**
   * Events an owner stamped whose append the log stream has not acknowledged yet, written here
   * while their outcome is in doubt (the stream's leader died under them): from the write on
   * they count as stored, and a node taking the scene over appends them (with the same message
   * ids, so a copy that did land is not stored twice) before anything else. Absent when none.
   */
  pending?: PendingEvents;
}

/** Events in doubt, with the ownership token their message ids carry (see `SceneRecord`). */
export interface PendingEvents {
  token: string;
  events: SceneEvent[];
}

/** A record with the KV revision it was read at. */
export interface VersionedRecord {
  record: SceneRecord;
  revision: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The scene's record, or null when the scene does not exist. */
export async function getRecord(link: NatsLink, scene: string): Promise<VersionedRecord | null> {
  const entry = await link.scenes.get(scene);
  if (entry && entry.operation === "PUT" && entry.length > 0) {
    return { record: entry.json<SceneRecord>(), revision: entry.revision };
  }
  // A bucket read may come from a replica a moment behind (a record just created, or created
  // again after the retention removed the scene): "none" is asked of the stream's leader.
  const last = await lastWrite(link, scene);
  if (!last || last.removed) return null;
  return { record: JSON.parse(decoder.decode(last.data)), revision: last.seq };
}

/**
 * Creates the scene's record; false (changing nothing) when it exists already. A scene the
 * retention removed left a delete marker: the record replaces it, by the marker's revision.
 *
 * A write whose answer was lost (a timeout under load) may have gone through: when the stored
 * record is then byte for byte the one sent (its seed and epoch are this call's), it is ours and
 * the create succeeded. (Failing instead left a scene nobody had created, as far as the nodes
 * knew, which the retention removed later, and the hello's retry created the id again: two
 * removals for one creation counted, in the cluster retention soak under load.)
 */
export async function createRecord(
  link: NatsLink,
  scene: string,
  record: SceneRecord,
): Promise<boolean> {
  const data = encoder.encode(JSON.stringify(record));
  for (let attempt = 0; attempt < 3; attempt++) {
    const last = attempt === 0 ? null : await lastWrite(link, scene);
    if (last && !last.removed) return false;
    try {
      if (last) await link.scenes.update(scene, data, last.seq);
      else await link.scenes.put(scene, data, { previousSeq: 0 });
      return true;
    } catch (e) {
      if (isWrongLastSequence(e)) continue;
      const stored = await lastWrite(link, scene).catch(() => null);
      if (stored && !stored.removed && sameBytes(stored.data, data)) return true;
      throw e;
    }
  }
  return false;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * The revision at which the scene's record is exactly `record` (byte for byte as written), read
 * from the bucket stream's leader; null when the stored record is another. A write whose answer
 * was lost (a timeout: the connection's server died under it) then says whether it landed.
 */
export async function revisionOf(
  link: NatsLink,
  scene: string,
  record: SceneRecord,
): Promise<number | null> {
  const last = await lastWrite(link, scene);
  if (!last || last.removed) return null;
  return sameBytes(last.data, encoder.encode(JSON.stringify(record))) ? last.seq : null;
}

/** The last write of the scene's record, read from the bucket stream's leader. */
async function lastWrite(
  link: NatsLink,
  scene: string,
): Promise<{ seq: number; data: Uint8Array; removed: boolean } | null> {
  const msg = await link.jsm.streams.getMessage(`KV_${SCENE_BUCKET}`, {
    last_by_subj: `$KV.${SCENE_BUCKET}.${scene}`,
  });
  if (!msg) return null;
  const op = msg.header?.get("KV-Operation");
  return {
    seq: msg.seq,
    data: msg.data,
    removed: op === "DEL" || op === "PURGE" || !msg.data.length,
  };
}

/** The write was refused: the record changed since `revision` (another owner wrote it). */
export class StaleRecordError extends Error {
  readonly code = "stale_record";
}

/**
 * Replaces the record if it is still at `revision`; returns the new revision. `timeoutMs`: how
 * long to wait for the answer (default the bucket's, 5 s).
 */
export async function updateRecord(
  link: NatsLink,
  scene: string,
  record: SceneRecord,
  revision: number,
  timeoutMs?: number,
): Promise<number> {
  try {
    const data = encoder.encode(JSON.stringify(record));
    return await link.scenes.update(scene, data, revision, timeoutMs);
  } catch (e) {
    if (isWrongLastSequence(e)) {
      throw new StaleRecordError(`scene ${scene}: record moved past revision ${revision}`);
    }
    throw e;
  }
}
