/**
 * A single node's tracks: files under `DATA_DIR/tracks/<scene>/`, each named by its SHA-256 and
 * the extension its bytes showed (`<sha256>.mp3`), written to a temporary file, synced and renamed
 * into place (a reader never sees half a track; a crash leaves at most a `.tmp` that the next
 * start removes). They count against their own budget (`TRACKS_MAX_MB`) with the shares
 * `track_budget.ts` sets, beside the database's `DB_MAX_MB`.
 *
 * @example
 * ```ts
 * import { TrackFiles } from "./track_files.ts";
 * const tracks = new TrackFiles("./data", { maxBytes: 512 * 1024 * 1024 });
 * console.log(await tracks.stat("quiet-pine", "ab".repeat(32))); // undefined
 * ```
 */
import { join } from "node:path";
import type { StoredTrack, TrackRange, TrackStore, TrackUpload } from "../scene/track_store.ts";
import { TrackStorageError } from "../scene/track_store.ts";
import { TRACK_TYPES, type TrackType } from "../http/track_type.ts";
import { TrackBudget } from "./track_budget.ts";

/** Options of {@link TrackFiles}. */
export interface TrackFilesOptions {
  /** Most bytes all tracks together may hold. */
  maxBytes: number;
}

const NAME = /^([0-9a-f]{64})\.(mp3|ogg|m4a|wav)$/;

/** Tracks as files under `dataDir/tracks`. */
export class TrackFiles implements TrackStore {
  readonly #root: string;
  /** Every stored track, by scene and id (read from the directory at start). */
  readonly #tracks = new Map<string, Map<string, StoredTrack & { ext: string }>>();
  readonly #budget: TrackBudget;
  /** Writes under way, by `scene/id`: a second upload of the same track waits for the first. */
  readonly #writing = new Map<string, Promise<StoredTrack>>();

  constructor(dataDir: string, options: TrackFilesOptions) {
    this.#root = join(dataDir, "tracks");
    this.#budget = new TrackBudget(options.maxBytes);
    this.#scan();
  }

  stat(scene: string, id: string): Promise<StoredTrack | undefined> {
    const track = this.#tracks.get(scene)?.get(id);
    return Promise.resolve(track && { id, mime: track.mime, bytes: track.bytes });
  }

  put(upload: TrackUpload): Promise<StoredTrack> {
    const { scene, id } = upload;
    const known = this.#tracks.get(scene)?.get(id);
    if (known) return Promise.resolve({ id, mime: known.mime, bytes: known.bytes });
    const key = `${scene}/${id}`;
    let writing = this.#writing.get(key);
    if (!writing) {
      writing = this.#write(upload).finally(() => this.#writing.delete(key));
      this.#writing.set(key, writing);
    }
    return writing;
  }

  async read({ scene, id, start, end }: TrackRange): Promise<ReadableStream<Uint8Array>> {
    const track = this.#tracks.get(scene)?.get(id);
    if (!track) throw new Error(`no track ${id} in scene ${scene}`);
    const file = await Deno.open(join(this.#root, scene, `${id}.${track.ext}`), { read: true });
    try {
      await file.seek(start, Deno.SeekMode.Start);
    } catch (e) {
      file.close();
      throw e;
    }
    return limited(file, end - start + 1);
  }

  async #write({ scene, id, type, data, spender }: TrackUpload): Promise<StoredTrack> {
    const refusal = this.#budget.refusal(scene, spender, data.length);
    if (refusal) throw new TrackStorageError(refusal);
    // Reserved before the write, so two different uploads cannot both fit the last room.
    this.#budget.add(scene, spender, data.length);
    const dir = join(this.#root, scene);
    const final = join(dir, `${id}.${type.ext}`);
    const tmp = join(dir, `.${id}.${crypto.randomUUID()}.tmp`);
    try {
      await Deno.mkdir(dir, { recursive: true });
      const file = await Deno.open(tmp, { write: true, createNew: true });
      try {
        let written = 0;
        while (written < data.length) written += await file.write(data.subarray(written));
        await file.syncData();
      } finally {
        file.close();
      }
      await Deno.rename(tmp, final);
    } catch (e) {
      this.#budget.add(scene, spender, -data.length);
      await Deno.remove(tmp).catch(() => {});
      throw new TrackStorageError(
        `the track could not be stored: ${(e as Error).message}`,
        { cause: e },
      );
    }
    const track = { id, mime: type.mime, bytes: data.length, ext: type.ext };
    this.#sceneTracks(scene).set(id, track);
    return { id, mime: type.mime, bytes: data.length };
  }

  #sceneTracks(scene: string): Map<string, StoredTrack & { ext: string }> {
    let tracks = this.#tracks.get(scene);
    if (!tracks) this.#tracks.set(scene, tracks = new Map());
    return tracks;
  }

  /** Reads what is stored (and removes temporary files a crash left behind). */
  #scan(): void {
    let scenes: Iterable<Deno.DirEntry>;
    try {
      scenes = Deno.readDirSync(this.#root);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return;
      throw e;
    }
    for (const scene of scenes) {
      if (!scene.isDirectory) continue;
      const dir = join(this.#root, scene.name);
      for (const entry of Deno.readDirSync(dir)) {
        const path = join(dir, entry.name);
        if (entry.name.endsWith(".tmp")) {
          Deno.removeSync(path);
          continue;
        }
        const match = NAME.exec(entry.name);
        if (!match || !entry.isFile) continue;
        const type = TRACK_TYPES[match[2] as TrackType["ext"]];
        const bytes = Deno.statSync(path).size;
        this.#sceneTracks(scene.name).set(match[1], {
          id: match[1],
          mime: type.mime,
          bytes,
          ext: type.ext,
        });
        this.#budget.add(scene.name, undefined, bytes);
      }
    }
  }
}

/** A stream of the next `length` bytes of `file`, closing it at the end or on cancel. */
function limited(file: Deno.FsFile, length: number): ReadableStream<Uint8Array> {
  let left = length;
  return new ReadableStream<Uint8Array>({
    type: "bytes",
    async pull(controller) {
      const chunk = new Uint8Array(Math.min(64 * 1024, left));
      const n = await file.read(chunk);
      if (n === null || n === 0) {
        file.close();
        controller.close();
        return;
      }
      left -= n;
      controller.enqueue(chunk.subarray(0, n));
      if (left === 0) {
        file.close();
        controller.close();
      }
    },
    cancel() {
      file.close();
    },
  });
}
