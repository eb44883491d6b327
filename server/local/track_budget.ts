/**
 * The tracks' storage budget (`TRACKS_MAX_MB`) and its shares: all tracks together hold at most
 * `maxBytes`; one scene at most an eighth of it and one spender (the uploader's network) a
 * quarter, but never less than one largest track (so a small budget still takes one), so one
 * scene or one network cannot fill it for everybody else. A scene's bytes are read from the files
 * at start; a spender's are counted in this process (a restart forgets them).
 *
 * @example
 * ```ts
 * import { TrackBudget } from "./track_budget.ts";
 * const budget = new TrackBudget(64 * 1024 * 1024);
 * console.log(budget.refusal("quiet-pine", "10.0.0", 1000)); // null
 * ```
 */
import { MAX_TRACK_BYTES } from "../scene/track_store.ts";

/** One scene may hold at most this part of the tracks' budget (at least one largest track). */
export const TRACK_SCENE_SHARE = 1 / 8;
/** One spender may hold at most this part of the tracks' budget (at least one largest track). */
export const TRACK_SPENDER_SHARE = 1 / 4;

/** Bytes stored in all, by scene and by spender, against the budget. */
export class TrackBudget {
  readonly maxBytes: number;
  #used = 0;
  readonly #scenes = new Map<string, number>();
  readonly #spenders = new Map<string, number>();

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The most one scene may hold. */
  get sceneShare(): number {
    return Math.min(this.maxBytes, Math.max(MAX_TRACK_BYTES, this.maxBytes * TRACK_SCENE_SHARE));
  }

  /** The most one spender may hold. */
  get spenderShare(): number {
    return Math.min(this.maxBytes, Math.max(MAX_TRACK_BYTES, this.maxBytes * TRACK_SPENDER_SHARE));
  }

  /** Why `bytes` more for `scene` from `spender` do not fit (a human reason), or null. */
  refusal(scene: string, spender: string, bytes: number): string | null {
    const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
    if (this.#used + bytes > this.maxBytes) {
      return `the server's room for tracks (${mb(this.maxBytes)}) is full`;
    }
    if ((this.#scenes.get(scene) ?? 0) + bytes > this.sceneShare) {
      return `this scene holds its share of the server's room for tracks (${mb(this.sceneShare)})`;
    }
    if ((this.#spenders.get(spender) ?? 0) + bytes > this.spenderShare) {
      return `your network has stored its share of the server's room for tracks (${
        mb(this.spenderShare)
      })`;
    }
    return null;
  }

  /** Counts `bytes` (negative: gives them back) for `scene` and, when known, `spender`. */
  add(scene: string, spender: string | undefined, bytes: number): void {
    this.#used += bytes;
    this.#scenes.set(scene, (this.#scenes.get(scene) ?? 0) + bytes);
    if (spender !== undefined) {
      this.#spenders.set(spender, (this.#spenders.get(spender) ?? 0) + bytes);
    }
  }
}
