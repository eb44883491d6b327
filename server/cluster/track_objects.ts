/**
 * A cluster's tracks: the NATS JetStream object store bucket `snowfire_tracks`, one object per
 * scene and track (`<scene>/<sha256>`, its media type as the object's description), so every node
 * serves every track. An object appears whole or not at all (its chunks are written before its
 * meta entry). The bucket holds at most `TRACKS_MAX_MB` (new writes are refused past it, never old
 * ones dropped); one scene and one network hold their shares of it as on a single node
 * (`track_budget.ts`: a scene's bytes read from the bucket's list, a network's counted here).
 *
 * @example
 * ```ts
 * import { TrackObjects } from "./track_objects.ts";
 * const tracks = await TrackObjects.open(link, { maxBytes: 512 * 1024 * 1024, replicas: 3 });
 * console.log(await tracks.stat("quiet-pine", "ab".repeat(32))); // undefined
 * ```
 */
import { type ObjectStore, Objm } from "@nats-io/obj";
import { StorageType } from "@nats-io/jetstream";
import type { StoredTrack, TrackRange, TrackStore, TrackUpload } from "../scene/track_store.ts";
import { TrackStorageError } from "../scene/track_store.ts";
import { TrackBudget } from "../local/track_budget.ts";
import type { NatsLink } from "./nats_link.ts";
import { retryWhileSettling, START_RETRY } from "./retry_while_settling.ts";
import { TRACK_BUCKET } from "./subjects.ts";

export { TRACK_BUCKET } from "./subjects.ts";

/** Options of {@link TrackObjects.open}. */
export interface TrackObjectsOptions {
  /** The bucket's most bytes (`max_bytes`). */
  maxBytes: number;
  /** Replicas of the bucket's stream. */
  replicas: number;
}

/** Tracks in the object store. */
export class TrackObjects implements TrackStore {
  readonly #store: ObjectStore;
  readonly #budget: TrackBudget;

  private constructor(store: ObjectStore, maxBytes: number) {
    this.#store = store;
    this.#budget = new TrackBudget(maxBytes);
  }

  /** Opens the bucket, creating it when missing. */
  static async open(
    link: NatsLink,
    options: TrackObjectsOptions,
    log: (msg: string) => void = () => {},
  ): Promise<TrackObjects> {
    const store = await retryWhileSettling(
      "create the tracks bucket",
      async () =>
        await new Objm(link.js).create(TRACK_BUCKET, {
          storage: StorageType.File,
          replicas: options.replicas,
          max_bytes: options.maxBytes,
        }),
      { ...START_RETRY, log },
    );
    return new TrackObjects(store, options.maxBytes);
  }

  async stat(scene: string, id: string): Promise<StoredTrack | undefined> {
    const info = await this.#store.info(objectName(scene, id));
    if (!info || info.deleted) return undefined;
    return { id, mime: info.description ?? "application/octet-stream", bytes: info.size };
  }

  async put({ scene, id, type, data, spender }: TrackUpload): Promise<StoredTrack> {
    const known = await this.stat(scene, id);
    if (known) return known;
    // The scene's and the bucket's bytes as the bucket holds them now (other nodes store too).
    const objects = await this.#store.list();
    const budget = new TrackBudget(this.#budget.maxBytes);
    for (const info of objects) {
      if (info.deleted) continue;
      budget.add(info.name.slice(0, info.name.indexOf("/")), undefined, info.size);
    }
    const refusal = budget.refusal(scene, "", data.length) ??
      this.#budget.refusal("", spender, data.length);
    if (refusal) throw new TrackStorageError(refusal);
    this.#budget.add("", spender, data.length);
    try {
      await this.#store.putBlob({ name: objectName(scene, id), description: type.mime }, data);
    } catch (e) {
      this.#budget.add("", spender, -data.length);
      throw new TrackStorageError(
        `the track could not be stored: ${(e as Error).message}`,
        { cause: e },
      );
    }
    return { id, mime: type.mime, bytes: data.length };
  }

  async read({ scene, id, start, end }: TrackRange): Promise<ReadableStream<Uint8Array>> {
    const result = await this.#store.get(objectName(scene, id));
    if (!result) throw new Error(`no track ${id} in scene ${scene}`);
    return sliced(result.data, start, end);
  }
}

/** The object of track `id` in `scene`. */
function objectName(scene: string, id: string): string {
  return `${scene}/${id}`;
}

/** Bytes `start`–`end` (inclusive) of `source`, which is read from its beginning. */
function sliced(
  source: ReadableStream<Uint8Array>,
  start: number,
  end: number,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let at = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        const from = at;
        at += value.length;
        if (at <= start) continue;
        const piece = value.subarray(
          Math.max(0, start - from),
          Math.min(value.length, end + 1 - from),
        );
        if (piece.length > 0) controller.enqueue(piece);
        if (at > end) {
          await reader.cancel().catch(() => {});
          controller.close();
        }
        return;
      }
    },
    async cancel() {
      await reader.cancel().catch(() => {});
    },
  });
}
