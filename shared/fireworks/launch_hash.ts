/**
 * The launches' part of a world's hash, evaluated a part at a time: begun at one tick, it
 * evaluates and hashes launches over later calls while the world steps on, each as it was at
 * that tick (a launch about to end is hashed before a step drops it). Every live slot of every
 * launch is evaluated and hashed: the full hash that golden fixtures and `World.hash` use.
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * import { Hasher } from "../hash.ts";
 * const fw = new Fireworks(7, 50_000, { closedForm: true });
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "peony" }, "auto");
 * for (let t = 0; t < 100; t++) fw.step(t);
 * const h = new Hasher();
 * fw.hashInto(h);
 * h.digest(); // 16 hex chars
 * ```
 */
import type { Hasher } from "../hash.ts";
import { WordRecorder } from "../word_recorder.ts";
import type { FireworkBlock } from "./block.ts";
import { evaluate, raiseLoIn } from "./closed_form.ts";
import { catchUpAll } from "./schedule.ts";
import type { Sky } from "./sky.ts";

/**
 * A hash of the launches begun at `tick` (`LaunchHash.begin`): the launches then, in order,
 * with what their evaluation reads that changes later (their range, and how far their trail and
 * ember rings had come: `waves[waveAt[k]..waveAt[k + 1])` are launch k's ember waves per break).
 */
interface PendingHash {
  h: Hasher;
  tick: number;
  blocks: FireworkBlock[];
  lo: Int32Array;
  hi: Int32Array;
  trailTicks: Int32Array;
  waveAt: Int32Array;
  waves: Int32Array;
  /** The next launch to hash. */
  next: number;
  /** Launches past `next` hashed before they ended, by index: their words, in order. */
  early: Map<number, WordRecorder>;
}

/**
 * Word recorders kept for reuse (launches hashed early): a 1M sky hashes ~50 launches early a
 * checkpoint, ~2.5 MB of words, which new recorders would grow again each second.
 */
const MAX_SPARE_RECORDERS = 64;

/** The launches' hash under way (at most one) of a sky. */
export class LaunchHash {
  readonly #sky: Sky;
  /** The hash begun by `begin` and not finished yet. */
  #pending: PendingHash | null = null;
  /** Recorders of launches hashed early, replayed and kept for the next ones (no regrowth). */
  readonly #spareRecorders: WordRecorder[] = [];
  /** A launch's ember waves now, while it is hashed as of an earlier tick. */
  readonly #wavesNow: number[] = [];

  constructor(sky: Sky) {
    this.#sky = sky;
  }

  /** Whether a hash is under way. */
  get pending(): boolean {
    return this.#pending !== null;
  }

  /**
   * Begins a hash of the launches at the current tick into `h`, to be finished by `some` over
   * later calls while the world steps on. Stepping mode hashes its pool's state at once.
   * Returns the slots left to evaluate.
   */
  begin(h: Hasher): number {
    if (this.#pending) throw new Error("fireworks_hash: a hash is already under way");
    const sky = this.#sky;
    const blocks = sky.pool.blocks;
    h.u32(blocks.length);
    if (!sky.closedForm) {
      // Only the possibly-live range: below `lo` every slot is dead for good, from `hi` on none
      // has spawned, and lo/hi themselves follow from the launch and the ticks since it.
      for (let b = 0; b < blocks.length; b++) {
        sky.pool.hashBlock(h, blocks[b], blocks[b].lo, blocks[b].hi);
      }
      return 0;
    }
    // What each launch's evaluation reads that changes as it goes on: its range, and how far its
    // shell's trail ring and its breaks' ember rings had come.
    catchUpAll(sky);
    const n = blocks.length;
    const waveAt = new Int32Array(n + 1);
    for (let b = 0; b < n; b++) waveAt[b + 1] = waveAt[b] + blocks[b].emberWaves.length;
    const waves = new Int32Array(waveAt[n]);
    const lo = new Int32Array(n), hi = new Int32Array(n), trailTicks = new Int32Array(n);
    let slots = 0;
    for (let b = 0; b < n; b++) {
      const block = blocks[b];
      lo[b] = block.lo;
      hi[b] = block.hi;
      slots += block.hi - block.lo;
      trailTicks[b] = block.trailTicks;
      waves.set(block.emberWaves, waveAt[b]);
    }
    this.#pending = {
      h,
      tick: sky.now,
      blocks: blocks.slice(),
      lo,
      hi,
      trailTicks,
      waveAt,
      waves,
      next: 0,
      early: new Map(),
    };
    return slots;
  }

  /**
   * Evaluates and hashes launches of the hash under way, in order, until `slotBudget` slots have
   * been evaluated (at least one launch); returns true once every launch is in (or none was
   * under way). First, with a finite budget, those the next step will drop: they are the hash's
   * work, so they are done here rather than inside that step (which still hashes any it finds
   * unhashed, when several steps run between calls).
   */
  some(slotBudget: number): boolean {
    const pending = this.#pending;
    if (!pending) return true;
    let spent = slotBudget === Infinity ? 0 : this.endingBy(this.#sky.now + 1);
    let first = true;
    while (pending.next < pending.blocks.length && (first || spent < slotBudget)) {
      first = false;
      const k = pending.next++;
      const early = pending.early.get(k);
      if (early) {
        // Hashed before it ended: its words go in now, in their place.
        early.replayInto(pending.h);
        pending.early.delete(k);
        if (this.#spareRecorders.length < MAX_SPARE_RECORDERS) {
          this.#spareRecorders.push(early.reset());
        }
        continue;
      }
      spent += pending.hi[k] - pending.lo[k];
      this.#hashPendingBlock(pending, k, pending.h);
    }
    if (pending.next < pending.blocks.length) return false;
    this.#pending = null;
    return true;
  }

  /**
   * Before launches ending by `tick` are dropped (and a new launch may take their slots): each
   * that the hash has not reached yet is hashed now into words of its own, mixed in when the
   * hash reaches it (launches end out of their order: a short one after a long one). Returns
   * the slots evaluated.
   */
  endingBy(tick: number): number {
    const pending = this.#pending;
    if (!pending) return 0;
    let slots = 0;
    for (let k = pending.next; k < pending.blocks.length; k++) {
      if (pending.blocks[k].endTick > tick || pending.early.has(k)) continue;
      const words = this.#spareRecorders.pop() ?? new WordRecorder();
      this.#hashPendingBlock(pending, k, words);
      pending.early.set(k, words);
      slots += pending.hi[k] - pending.lo[k];
    }
    return slots;
  }

  /**
   * Hashes launch `k` of the hash under way into `h` as it was at the hash's tick: its range
   * then, its trail and ember rings written as of then (rewritten if a later evaluation moved
   * them on; the next one writes them forward again), evaluated into scratch and hashed as the
   * pool would hash the same slots (its seq, tick, size and range, then position, velocity,
   * colour and life; a slot whose birth is after that tick as never spawned).
   */
  #hashPendingBlock(pending: PendingHash, k: number, h: Hasher): void {
    const sky = this.#sky;
    const block = pending.blocks[k];
    const lo = block.lo, hi = block.hi, trailTicks = block.trailTicks;
    const waves = block.emberWaves, written = block.emberWritten;
    const at = pending.waveAt[k];
    // Rings as of the hash's tick.
    block.trailTicks = pending.trailTicks[k];
    if (block.trailWritten > block.trailTicks) block.trailWritten = 0;
    const now = this.#wavesNow;
    now.length = 0;
    for (let b = 0; b < waves.length; b++) {
      now.push(waves[b]);
      waves[b] = pending.waves[at + b];
      if (written[b] > waves[b]) written[b] = 0;
    }
    block.lo = pending.lo[k];
    block.hi = pending.hi[k];
    const state = evaluate(sky, block, pending.tick);
    const shift = block.start + block.lo;
    raiseLoIn(block, state.life, shift);
    const from = block.lo, to = block.hi;
    h.int(block.seq).int(block.tick).int(block.size).int(from).int(to);
    const a = block.start + from - shift, z = block.start + to - shift;
    const bits = sky.scratchWords;
    h.words(bits.position, a * 3, z * 3);
    h.words(bits.velocity, a * 3, z * 3);
    h.words(bits.color, a * 4, z * 4);
    h.words(bits.life, a, z);
    // Back to the launch as it is now (a first live slot then is at or below the first now).
    block.lo = Math.max(lo, from);
    block.hi = hi;
    block.trailTicks = trailTicks;
    for (let b = 0; b < waves.length; b++) waves[b] = now[b];
  }
}
