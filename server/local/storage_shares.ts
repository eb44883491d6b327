/**
 * Each scene's and each spender's share of the database: one scene, or one network prefix, cannot
 * fill the budget for everybody else. A scene's bytes are what its stored events cost
 * ({@link rowBytes}): read from the database when the scene is first written to, counted up as it
 * appends, down as the retention prunes. A spender's bytes (the key the caller names, a network
 * prefix) are counted as it appends, in hourly buckets that fall off after the retention's age
 * limit, when its events would have been pruned anyway: stored events do not record their spender.
 */
import { PAGE_BYTES, SCENE_SHARE, SPENDER_SHARE } from "./storage_budget.ts";

/** Why a write over a share is refused (see {@link StorageShares.over}). */
export interface ShareRefusal {
  /** `scene` or `spender`. */
  who: "scene" | "spender";
  /** The share, bytes. */
  limit: number;
  /** True for the first refusal since this scene or spender last stored (log it once). */
  first: boolean;
}

const HOUR_MS = 3_600_000;

/**
 * The share accounting of one store.
 *
 * @example
 * ```ts
 * const shares = new StorageShares({ maxPages: 2048, windowHours: 72, now: Date.now });
 * shares.over("quiet-pine", "203.0.113.0/24", 120, () => 0); // null: within both shares
 * shares.spent("quiet-pine", "203.0.113.0/24", 120);
 * ```
 */
export class StorageShares {
  readonly #sceneLimit: number;
  readonly #spenderLimit: number;
  readonly #windowHours: number;
  readonly #now: () => number;
  readonly #scenes = new Map<string, number>();
  /** Per spender: bytes by hour (the hour number since the epoch), oldest first. */
  readonly #spenders = new Map<string, Map<number, number>>();
  /** Scenes (`s:id`) and spenders (`p:key`) refused since they last stored. */
  readonly #full = new Set<string>();

  constructor(options: { maxPages: number; windowHours: number; now: () => number }) {
    const dbBytes = options.maxPages * PAGE_BYTES;
    this.#sceneLimit = Math.floor(dbBytes * SCENE_SHARE);
    this.#spenderLimit = Math.floor(dbBytes * SPENDER_SHARE);
    this.#windowHours = Math.max(1, Math.ceil(options.windowHours));
    this.#now = options.now;
  }

  /**
   * Which share (the scene's first) a write of `bytes` would overfill, or null. `stored` reads
   * the scene's bytes from the database the first time it is needed.
   */
  over(
    scene: string,
    spender: string | undefined,
    bytes: number,
    stored: () => number,
  ): ShareRefusal | null {
    let held = this.#scenes.get(scene);
    if (held === undefined) {
      held = stored();
      this.#scenes.set(scene, held);
    }
    if (held + bytes > this.#sceneLimit) return this.#refuse("scene", `s:${scene}`);
    if (spender !== undefined && this.#spent(spender) + bytes > this.#spenderLimit) {
      return this.#refuse("spender", `p:${spender}`);
    }
    return null;
  }

  #refuse(who: "scene" | "spender", key: string): ShareRefusal {
    const first = !this.#full.has(key);
    this.#full.add(key);
    return { who, limit: who === "scene" ? this.#sceneLimit : this.#spenderLimit, first };
  }

  /** Counts a stored write of `bytes` (after {@link over} allowed it). */
  spent(scene: string, spender: string | undefined, bytes: number): void {
    this.#scenes.set(scene, (this.#scenes.get(scene) ?? 0) + bytes);
    this.#full.delete(`s:${scene}`);
    if (spender === undefined) return;
    this.#full.delete(`p:${spender}`);
    const hour = Math.floor(this.#now() / HOUR_MS);
    let hours = this.#spenders.get(spender);
    if (!hours) this.#spenders.set(spender, hours = new Map());
    hours.set(hour, (hours.get(hour) ?? 0) + bytes);
  }

  /** The retention pruned `bytes` of `scene` (`Infinity`: the scene is gone). */
  freed(scene: string, bytes: number): void {
    const held = this.#scenes.get(scene);
    if (held === undefined) return;
    if (bytes === Infinity || held <= bytes) this.#scenes.delete(scene);
    else this.#scenes.set(scene, held - bytes);
  }

  /** A spender's bytes within the window (dropping hours that fell out of it). */
  #spent(spender: string): number {
    const hours = this.#spenders.get(spender);
    if (!hours) return 0;
    const oldest = Math.floor(this.#now() / HOUR_MS) - this.#windowHours;
    let sum = 0;
    for (const [hour, bytes] of hours) {
      if (hour <= oldest) hours.delete(hour);
      else sum += bytes;
    }
    if (hours.size === 0) this.#spenders.delete(spender);
    return sum;
  }
}
