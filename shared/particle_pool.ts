/**
 * Particle storage shared by the fireworks and the particle gun: structure-of-arrays
 * Float32Array views into ONE ArrayBuffer, organised as dense per-event blocks.
 *
 * Blocks are appended in the order events are applied ((tick, seq) order) and removed whole
 * when their event's last particle is certainly dead; later blocks then slide down with
 * `copyWithin`. The layout, and therefore the hash order, depends only on the events whose
 * particles are still alive, i.e. only on the window — never on older history.
 */
import type { Hasher } from "./hash.ts";
import { staggeredArrays } from "./staggered_buffer.ts";
import type { FireworkView } from "./views.ts";

/** One event's contiguous slot range in a pool. */
export interface Block {
  /** The event's sequence number (hashed to tell blocks apart). */
  readonly seq: number;
  /** The tick the event applied at. */
  readonly tick: number;
  /** First slot; changes when earlier blocks are removed. */
  start: number;
  /** Number of slots reserved, fixed for the block's lifetime (its budget). */
  readonly size: number;
  /** The pool drops the block when the world reaches this tick; all its particles are dead by then. */
  readonly endTick: number;
}

// Bytes between the start of consecutive arrays beyond their length, so that the hot loop's
// streams never sit a multiple of 4 KiB apart (4K aliasing stalls loads behind stores on x86).
const STAGGER_BYTES = 64 * 5;

/** Float32 components per particle of each array, in buffer order. */
const LAYOUT = {
  position: 3,
  previous: 3,
  origin: 3,
  velocity: 3,
  color: 4,
  size: 1,
  life: 1,
  maxLife: 1,
  style: 1,
  flicker: 1,
} as const;

type ArrayName = keyof typeof LAYOUT;

/** Slots a pool takes at its first block; it doubles (up to its capacity) when one needs more. */
const INITIAL_SLOTS = 8192;

/**
 * A pool of particle slots, dense in `[0, count)`, that renders as a {@link ParticleView}.
 * Storage grows geometrically up to `capacity` (a new buffer; the arrays are replaced), so a
 * quiet scene or a late joiner does not pay for a full sky up front. Read the arrays anew after
 * `add`; they never change during a step.
 */
export class ParticlePool<B extends Block = Block> implements FireworkView {
  /** Most slots the pool can hold. */
  readonly capacity: number;
  /** xyz at the current tick. */
  position!: Float32Array;
  /** xyz at the previous tick. */
  previous!: Float32Array;
  /** xyz where the particle spawned (systems whose motion is a closed form of age use it). */
  origin!: Float32Array;
  /** xyz in metres per second: at spawn for fireworks (closed-form motion), current for the gun. */
  velocity!: Float32Array;
  /** rgba, linear, brightness applied; alpha 0 for dead or not yet spawned slots. */
  color!: Float32Array;
  /** Sprite diameter in metres. */
  size!: Float32Array;
  /** Ticks left to live; 0 = dead or not yet spawned. */
  life!: Float32Array;
  /** The lifetime the particle was spawned with, in ticks. */
  maxLife!: Float32Array;
  /** Index into the owning system's style tables (drag, gravity, tint). */
  style!: Float32Array;
  /** 0 for steady particles, else the strobe's per-particle key (`strobe` in firework_colors.ts). */
  flicker!: Float32Array;
  /** Live blocks in application order; their slot ranges are contiguous and ascending. */
  readonly blocks: B[] = [];
  /** Slots in use (the end of the last block). */
  count = 0;
  /** Slots the current buffer holds. */
  allocated = 0;

  #arrays: readonly { array: Float32Array; stride: number; words: Uint32Array }[] = [];
  /** The arrays the hash covers: position, velocity, colour, life. */
  #hashed: readonly { stride: number; words: Uint32Array }[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`pool_capacity: must be a non-negative integer, got ${capacity}`);
    }
    this.capacity = capacity;
    // Empty until the first block: a world that never fires the gun never pays for its pool.
    this.#allocate(0);
  }

  /** Moves storage to a fresh buffer of `slots` slots, keeping the used prefix. */
  #allocate(slots: number): void {
    const names = Object.keys(LAYOUT) as ArrayName[];
    const old = this.#arrays;
    const fresh = staggeredArrays(names.map((name) => LAYOUT[name] * slots), STAGGER_BYTES);
    const arrays = fresh.map((array, i) => ({
      array,
      stride: LAYOUT[names[i]],
      words: new Uint32Array(array.buffer, array.byteOffset, array.length),
    }));
    for (let i = 0; i < old.length; i++) {
      arrays[i].array.set(old[i].array.subarray(0, this.count * old[i].stride));
    }
    [
      this.position,
      this.previous,
      this.origin,
      this.velocity,
      this.color,
      this.size,
      this.life,
      this.maxLife,
      this.style,
      this.flicker,
    ] = fresh;
    this.#arrays = arrays;
    const hashedNames: ArrayName[] = ["position", "velocity", "color", "life"];
    this.#hashed = hashedNames.map((name) => arrays[names.indexOf(name)]);
    this.allocated = slots;
  }

  /** Grows storage now to hold at least `slots` slots (capped at capacity); never shrinks. */
  reserve(slots: number): void {
    const target = Math.min(this.capacity, slots);
    if (target > this.allocated) this.#allocate(target);
  }

  /**
   * Appends a block of `block.size` zeroed slots (zeroed so never-spawned slots hash the same
   * wherever the block lives), growing the storage if needed. The caller checks capacity first;
   * overflowing throws.
   */
  add(block: B): void {
    const end = this.count + block.size;
    if (end > this.capacity) {
      throw new RangeError(
        `pool_overflow: ${block.size} slots requested, ${this.count} of ${this.capacity} used`,
      );
    }
    if (end > this.allocated) {
      let slots = Math.max(INITIAL_SLOTS, this.allocated);
      while (slots < end) slots *= 2;
      this.#allocate(Math.min(this.capacity, slots));
    }
    block.start = this.count;
    for (const { array, stride } of this.#arrays) {
      array.fill(0, block.start * stride, end * stride);
    }
    this.count = end;
    this.blocks.push(block);
  }

  /** Removes every block whose `endTick <= tick` and slides later blocks down over the gap. */
  expire(tick: number): void {
    const blocks = this.blocks;
    let kept = 0;
    let cursor = 0;
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[i];
      if (block.endTick <= tick) continue;
      if (block.start !== cursor) this.#move(block.start, cursor, block.size);
      block.start = cursor;
      cursor += block.size;
      blocks[kept++] = block;
    }
    blocks.length = kept;
    this.count = cursor;
  }

  #move(from: number, to: number, slots: number): void {
    for (const { array, stride } of this.#arrays) {
      array.copyWithin(to * stride, from * stride, (from + slots) * stride);
    }
  }

  /**
   * Hashes every block in pool order: its seq, tick and size, then the position, velocity,
   * colour and life of all its slots (never-spawned slots are zero, dead ones frozen, so the
   * bytes depend only on the event and the ticks since it).
   */
  hashInto(h: Hasher): void {
    for (const block of this.blocks) this.hashBlock(h, block, 0, block.size);
  }

  /**
   * Hashes one block's identity and the slots [start + from, start + to). Callers pick a range
   * that is itself a function of the event and the ticks since it (never of pool history).
   */
  hashBlock(h: Hasher, block: B, from: number, to: number): void {
    h.int(block.seq).int(block.tick).int(block.size).int(from).int(to);
    const a = block.start + from, b = block.start + to;
    for (const { words, stride } of this.#hashed) h.words(words, a * stride, b * stride);
  }
}
