/**
 * `TrackStore`: where a scene's music tracks live, whichever home the scene has (files under
 * `DATA_DIR` on a single node, `server/local/track_files.ts`; the NATS JetStream object store in
 * cluster mode, `server/cluster/track_objects.ts`). A track is named by the SHA-256 of its bytes,
 * so it never changes once stored: the routes serve it as immutable.
 *
 * @example
 * ```ts
 * import type { TrackStore } from "./track_store.ts";
 * async function size(store: TrackStore): Promise<number | undefined> {
 *   return (await store.stat("quiet-pine", "ab".repeat(32)))?.bytes;
 * }
 * ```
 */
import { TRACK_MAX_BYTES } from "../../shared/protocol.ts";
import type { TRACK_MIMES } from "../../shared/protocol.ts";

/**
 * A recognised track kind: its media type and the file extension it is stored under (told from
 * the bytes by `server/http/track_type.ts`).
 */
export interface TrackType {
  mime: typeof TRACK_MIMES[number];
  ext: "mp3" | "ogg" | "m4a" | "wav";
}

/** Largest track accepted, in bytes (20 MiB: `TRACK_MAX_BYTES` of the protocol). */
export const MAX_TRACK_BYTES = TRACK_MAX_BYTES;

/** A stored track: its id (SHA-256 hex of its bytes), media type and size. */
export interface StoredTrack {
  id: string;
  mime: string;
  bytes: number;
}

/** A track to store: its bytes, their SHA-256 hex `id`, its kind and scene, and who sends it. */
export interface TrackUpload {
  scene: string;
  id: string;
  type: TrackType;
  data: Uint8Array;
  /** The uploader's network, charged its share of the budget. */
  spender: string;
}

/** Bytes `start` to `end` (inclusive) of track `id` of `scene`. */
export interface TrackRange {
  scene: string;
  id: string;
  start: number;
  end: number;
}

/** Where a scene's tracks are stored and read. */
export interface TrackStore {
  /**
   * Stores the upload's bytes for its scene; storing a track the scene already has stores
   * nothing again. The `spender` is charged its share. Throws {@link TrackStorageError} when the
   * budget or the storage cannot take it.
   */
  put(upload: TrackUpload): Promise<StoredTrack>;
  /** The track's facts, or undefined when `scene` holds no track `id`. */
  stat(scene: string, id: string): Promise<StoredTrack | undefined>;
  /** The bytes of a range of a stored track. */
  read(range: TrackRange): Promise<ReadableStream<Uint8Array>>;
}

/** The storage cannot take a track (budget spent, disk full): answered 507 with its reason. */
export class TrackStorageError extends Error {
  readonly code = "storage_unavailable";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TrackStorageError";
  }
}

/** True for a track id: 64 lowercase hex digits. */
export function isTrackId(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text);
}
