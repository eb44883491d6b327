/**
 * A world's checkpoint hash evaluated a part at a time: begun at one tick (`World.beginHash`), it
 * evaluates the launches over later calls while the world steps on, and ends with the digest
 * `World.hash` gives at that tick, bit for bit. At a million live sparks one hash evaluates every
 * spark (~150–200 ms of CPU): all in one frame, that is a visible stall once a second.
 */
import type { Hasher } from "./hash.ts";
import type { WordRecorder } from "./word_recorder.ts";

/** The part of `Fireworks` a checkpoint hash drives. */
export interface HashedLaunches {
  /** Evaluates launches until `slotBudget` slots are in (at least one); true once all are. */
  hashSome(slotBudget: number): boolean;
}

/**
 * A hash begun at `tick`. Call `work` once a frame (or `finish`); its digest equals the hash
 * `World.hash()` returns at `tick`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { World } from "./world.ts";
 *
 * const launch = { seq: 1, tick: 0, by: "ana", body: { type: "launch", x: 0, z: 0 } } as const;
 * const world = new World({ seed: 42 });
 * world.apply(launch);
 * world.advanceTo(60);
 * const job = world.beginHash();
 * let digest = job.work(100);
 * while (digest === null) {
 *   world.step();
 *   digest = job.work(100);
 * }
 * const again = new World({ seed: 42 });
 * again.apply(launch);
 * again.advanceTo(60);
 * assert.equal(digest, again.hash());
 * ```
 */
export class CheckpointHash {
  /** The tick hashed. */
  readonly tick: number;
  /** Firework slots left to evaluate when it began. */
  readonly slots: number;
  readonly #hasher: Hasher;
  readonly #launches: HashedLaunches;
  readonly #tail: WordRecorder;
  #digest: string | null = null;

  /**
   * `hasher` holds everything before the launches (and their count); `launches` has the
   * launches under way; `tail` holds what comes after them (gun, fountain, snow) at `tick`.
   */
  constructor(
    tick: number,
    slots: number,
    hasher: Hasher,
    launches: HashedLaunches,
    tail: WordRecorder,
  ) {
    this.tick = tick;
    this.slots = slots;
    this.#hasher = hasher;
    this.#launches = launches;
    this.#tail = tail;
  }

  /** The digest once done, else null. */
  get digest(): string | null {
    return this.#digest;
  }

  /**
   * Evaluates launches for about `slotBudget` slots; returns the digest once every launch is in,
   * else null.
   */
  work(slotBudget: number): string | null {
    if (this.#digest !== null) return this.#digest;
    if (!this.#launches.hashSome(slotBudget)) return null;
    this.#tail.replayInto(this.#hasher);
    this.#digest = this.#hasher.digest();
    return this.#digest;
  }

  /** Evaluates whatever is left and returns the digest. */
  finish(): string {
    return this.work(Infinity)!;
  }
}
