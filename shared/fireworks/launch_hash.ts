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
import { CHECKPOINT_TICKS } from "../constants.ts";
import { FIREWORK_KINDS } from "../firework_kinds.ts";
import type { Hasher } from "../hash.ts";
import { THEMES } from "../types.ts";
import { WordRecorder } from "../word_recorder.ts";
import type { ParticlePool } from "../particle_pool.ts";
import type { FireworkBlock } from "./block.ts";
import { evaluate, raiseLoIn } from "./closed_form.ts";
import { catchUpAll } from "./schedule.ts";
import type { Sky } from "./sky.ts";
import { closeWindow, openWindow } from "./window.ts";

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

/**
 * Reserved firework slots up to which a checkpoint evaluates every launch (its digest is then
 * `World.hash`'s); above, it evaluates one launch in `checkpointRotation` (docs/checkpoint.md).
 */
export const CHECKPOINT_SAMPLE_SLOTS = 1 << 18;

/** The most launches a checkpoint's rotation may skip between two full evaluations of one. */
export const CHECKPOINT_MAX_ROTATION = 16;

/**
 * How many checkpoints a launch waits between two full evaluations in a sky of `used` reserved
 * slots: 1 up to CHECKPOINT_SAMPLE_SLOTS, else the power of two that brings the slots evaluated
 * under it, at most CHECKPOINT_MAX_ROTATION. A function of the live launches alone (the slots
 * they reserve), so every client and the server pick the same.
 *
 * @example
 * ```ts
 * import { checkpointRotation } from "./launch_hash.ts";
 * checkpointRotation(100_000); // 1: every launch, every checkpoint
 * checkpointRotation(3_100_000); // 16
 * ```
 */
export function checkpointRotation(used: number): number {
  let k = 1;
  while (k < CHECKPOINT_MAX_ROTATION && used > CHECKPOINT_SAMPLE_SLOTS * k) k *= 2;
  return k;
}

/**
 * Whether launch `seq` is evaluated in full at the checkpoint at `tick` under rotation `k`: each
 * launch every k-th checkpoint (CHECKPOINT_TICKS apart), a k-th of the launches at each. A
 * launch's turn is its seq scattered (Fibonacci hashing), so that launches made in a pattern
 * (every eighth a willow, say) do not all take the same turn.
 */
export function sampledAt(seq: number, tick: number, k: number): boolean {
  return ((Math.imul(seq, 0x9e3779b1) >>> 16) + Math.floor(tick / CHECKPOINT_TICKS)) % k === 0;
}

/**
 * The words of `block`'s row that never change once it is launched: seq, tick, size, kind,
 * theme and tints, the plan's numbers (rise, drift and shell speed; per break the spark counts,
 * base speed, offset and plane), each splitting spark's delay, and the shell's birth state
 * (origin and velocity, written at its launch, from which every burst point follows).
 */
function rowOf(block: FireworkBlock, pool: ParticlePool<FireworkBlock>): Uint32Array {
  const plan = block.plan;
  let splits = 0;
  for (let b = 0; b < plan.breaks; b++) splits += block.delays[b].length;
  const row = new Uint32Array(ROW_WORDS + plan.breaks * BREAK_ROW_WORDS + splits);
  let at = 0;
  const u32 = (word: number) => {
    row[at++] = word;
  };
  const int = (n: number) => {
    u32(n >>> 0);
    u32(Math.floor(n / 4294967296) >>> 0);
  };
  const f64 = (x: number) => {
    rowF64[0] = x;
    u32(rowF64Words[0]);
    u32(rowF64Words[1]);
  };
  const f32 = (x: number) => {
    rowF32[0] = x;
    u32(rowF32Words[0]);
  };
  int(block.seq);
  int(block.tick);
  int(block.size);
  u32(FIREWORK_KINDS.indexOf(block.kind));
  u32(THEMES.indexOf(block.theme));
  u32(block.trailTint);
  u32(plan.riseTicks);
  u32(plan.breaks);
  f64(plan.shellSpeed);
  f64(plan.driftX);
  f64(plan.driftZ);
  f64(plan.driftReach);
  const p = block.start * 3;
  const { origin, velocity } = pool;
  for (let c = 0; c < 3; c++) f32(origin[p + c]);
  for (let c = 0; c < 3; c++) f32(velocity[p + c]);
  for (let b = 0; b < plan.breaks; b++) {
    u32(plan.sparkCount[b]);
    u32(plan.splitCount[b]);
    u32(plan.trailCount[b]);
    u32(block.primary[b]);
    u32(block.secondary[b]);
    f64(plan.sparkSpeed[b]);
    for (let i = b * 3; i < b * 3 + 3; i++) f64(plan.offset[i]);
    for (let i = b * 6; i < b * 6 + 6; i++) f64(plan.plane[i]);
    const delays = block.delays[b];
    for (let j = 0; j < delays.length; j++) u32(delays[j]);
  }
  return row;
}

/** A row's words before its breaks', and each break's besides its splits' delays. */
const ROW_WORDS = 3 * 2 + 5 + 4 * 2 + 6;
const BREAK_ROW_WORDS = 5 + 10 * 2;
/** The bits of a float64 and of a float32 (`rowOf`). */
const rowF64 = new Float64Array(1);
const rowF64Words = new Uint32Array(rowF64.buffer);
const rowF32 = new Float32Array(1);
const rowF32Words = new Uint32Array(rowF32.buffer);

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
  begin(h: Hasher, sampled = false): number {
    if (this.#pending) throw new Error("fireworks_hash: a hash is already under way");
    const sky = this.#sky;
    let blocks = sky.pool.blocks;
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
    const k = sampled ? checkpointRotation(sky.pool.used) : 1;
    if (k > 1) {
      // A big sky's checkpoint: every launch's row, then a k-th of the launches in full.
      h.u32(k);
      for (let b = 0; b < blocks.length; b++) this.#hashRow(blocks[b], h);
      blocks = blocks.filter((block) => sampledAt(block.seq, sky.now, k));
      h.u32(blocks.length);
    }
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
   * Hashes what every spark of `block` is derived from, without evaluating or placing any: the
   * launch's row (`rowOf`), then how far it has come (its range's end, breaks burst, trail
   * ticks, per break splits done and ember waves, counted as of now).
   */
  #hashRow(block: FireworkBlock, h: Hasher): void {
    const row = block.row ?? (block.row = this.#rowOf(block));
    h.words(row, 0, row.length);
    h.u32(block.hi).u32(block.bursts).u32(block.trailTicks);
    const splitsDone = block.splitsDone, emberWaves = block.emberWaves;
    for (let b = 0; b < splitsDone.length; b++) h.u32(splitsDone[b]).u32(emberWaves[b]);
  }

  /** `rowOf`, the shell's birth written into a windowed pool's window first (window.ts). */
  #rowOf(block: FireworkBlock): Uint32Array {
    const sky = this.#sky;
    if (!sky.pool.windowed) return rowOf(block, sky.pool);
    const start = openWindow(sky, block, false);
    try {
      return rowOf(block, sky.pool);
    } finally {
      closeWindow(block, start);
    }
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
