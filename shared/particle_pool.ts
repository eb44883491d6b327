/**
 * Particle storage shared by the fireworks and the particle gun: structure-of-arrays
 * Float32Array views into ONE ArrayBuffer, organised as dense per-event blocks.
 *
 * Blocks are added in the order events are applied ((tick, seq) order) and removed whole when
 * their event's last particle is certainly dead. With `slack` 1 later blocks then slide down
 * with `copyWithin` at once, so blocks are dense and ascending. With a larger slack the gap stays
 * (its arena holds up to `slack × capacity` slots): a new block takes the next gap that holds it,
 * searching on from the last block and wrapping around (blocks end roughly in the order they
 * came, so a busy sky reuses the gaps behind its newest blocks without moving anything), and
 * goes at the end, compacting or growing, only when no gap holds it, so a sky of a million
 * sparks does not move megabytes every time a launch ends. `blocks` stays in application order
 * either way. The hash order depends only on the events whose particles are still alive, i.e.
 * only on the window — never on older history or the layout.
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
  born: 1,
} as const;

type ArrayName = keyof typeof LAYOUT;

/** What a slot is born with: written at its spawn, never by evaluating it. */
const BIRTH_NAMES: ArrayName[] = [
  "origin",
  "velocity",
  "size",
  "maxLife",
  "style",
  "flicker",
  "born",
];
/** What a closed-form system evaluates from the birth arrays (kept only when read). */
const STATE_NAMES: ArrayName[] = ["position", "previous", "color", "life"];

/** One array of a pool and its place in the layout. */
interface PoolArray {
  readonly name: ArrayName;
  readonly array: Float32Array;
  readonly stride: number;
  readonly words: Uint32Array;
}

/**
 * How a pool's storage grows: `initialSlots` at its first block, then, when a block needs more,
 * by `factor` (up to its arena). By a quarter, so a busy sky's buffer holds at most ~1.25 × the
 * slots it needs past the arena's slack (doubling left up to half of a million-spark buffer unused;
 * growing copies the used prefix, amortised ≤ 4 times per slot).
 */
const GROWTH = { initialSlots: 8192, factor: 1.25 } as const;

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
  /**
   * Ticks after its block's event tick at which the particle had age 0 (fireworks: closed-form
   * systems evaluate age = tick − block.tick − born). Not hashed.
   */
  born!: Float32Array;
  /**
   * Live blocks in application order, each a contiguous slot range. With slack 1 they are also
   * ascending and dense; with a larger slack a block may sit below older ones (in a gap it took).
   */
  readonly blocks: B[] = [];
  /**
   * The end ticks of `blocks`, and the live blocks' first slots, slot ends and end ticks by
   * ascending first slot (address order): `expire` finds the ended blocks and `add` the gaps in
   * these arrays of numbers without visiting, moving or inserting block objects (a 1M sky holds
   * ~1,400, scattered over the heap, each a cache miss per visit).
   */
  readonly #ends: number[] = [];
  readonly #addressStarts: number[] = [];
  readonly #addressStops: number[] = [];
  readonly #addressEnds: number[] = [];
  /** Where the last block added ended: the next gap is searched from here. */
  #cursor = 0;
  /** The end of the last block: slots at and beyond are garbage (gaps below are dead). */
  count = 0;
  /** Slots reserved by live blocks (what admission control counts); `count` with slack 1. */
  used = 0;
  /** Slots the current buffer holds. */
  allocated = 0;
  /** Most slots the arena may span: `ceil(slack × capacity)`. */
  readonly arena: number;
  /** How far past the slots in use the arena may reach before gaps are compacted. */
  readonly slack: number;
  /**
   * Bumped whenever blocks move (a compaction) or the buffer is replaced: a consumer that
   * mirrors the slots (the GPU) copies everything again when it changes.
   */
  layoutVersion = 0;
  /**
   * The blocks the last compaction moved, as (from, to, slots) triples of slot numbers in the
   * order it moved them (each lower than before, ascending), and the `layoutVersion` it made:
   * a mirror whose copy was current just before can apply the same moves instead of copying
   * everything again. The slots from the new `count` up to the old one are garbage after it.
   */
  readonly moves: number[] = [];
  /** `layoutVersion` after the last compaction that moved blocks (−1: none yet). */
  movesVersion = -1;
  /** `count` just before the last compaction that moved blocks. */
  movedFromCount = 0;

  #arrays: readonly PoolArray[] = [];
  /** The arrays the hash covers: position, velocity, colour, life. */
  #hashed: readonly PoolArray[] = [];
  /**
   * The arrays a new block zeroes: what the hash, the closed form's settling (max life) and the
   * views read of a slot that never spawned. Origin, size, style and born are written at every
   * spawn and read only for spawned slots.
   */
  #cleared: readonly PoolArray[] = [];
  /** The arrays an ended block's gap zeroes: colour and life, so views read it as dead. */
  #killed: readonly PoolArray[] = [];
  /**
   * Slots from here on are zero in every array: never written since the storage was allocated
   * (a new block there needs no zeroing: a late join's or a growing sky's frontier).
   */
  #zeroFrom = 0;
  /** Stateless: whether the state arrays exist (`ensureState`). */
  #state: boolean;
  /** Bytes of the buffers the arrays live in. */
  #bytes = 0;
  /**
   * Windowed (`windowBirths`): the pool keeps no birth arrays of its own; its birth arrays are a
   * window of `#windowSlots` slots that one block at a time is written into, at slot 0, by the
   * system that owns it (closed-form fireworks evaluate a launch there and forget it).
   */
  #windowed = false;
  #windowSlots = 0;
  #windowArrays: readonly PoolArray[] = [];
  /**
   * Whether the state (position, previous, colour, life) is kept only once asked for: a
   * closed-form system stores each slot's birth and evaluates the rest when read.
   */
  readonly stateless: boolean;

  /**
   * `capacity`: most slots live blocks may reserve. `slack` ≥ 1: how far past it the arena may
   * reach before gaps left by ended blocks are compacted (1: at once, when they end).
   * `stateless`: position, previous, colour and life are left out (empty arrays) until
   * `ensureState` (a closed-form system that evaluates them from the birth arrays).
   */
  constructor(capacity: number, slack = 1, stateless = false) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`pool_capacity: must be a non-negative integer, got ${capacity}`);
    }
    if (!(slack >= 1)) throw new RangeError(`pool_slack: must be at least 1, got ${slack}`);
    this.capacity = capacity;
    this.arena = Math.ceil(capacity * slack);
    this.slack = slack;
    this.stateless = stateless;
    this.#state = !stateless;
    // Empty until the first block: a world that never fires the gun never pays for its pool.
    this.#allocate(0);
  }

  /** Whether the birth arrays are a one-block window, not a slot for every slot (`windowBirths`). */
  get windowed(): boolean {
    return this.#windowed;
  }

  /**
   * Stateless, without its state kept: keeps no birth arrays per slot from now on (those stored
   * are dropped: the system writes a block's births again whenever it reads it). The birth
   * arrays (origin, velocity, size, max life, style, flicker, born) become a window that holds
   * one block at slot 0 (`window`), which its system fills when it reads that block; the layout
   * (blocks, `count`, `allocated`, moves) is kept as before and costs no bytes per slot.
   * `keepBirths` goes back to a slot for every slot.
   */
  windowBirths(): void {
    if (!this.stateless || this.#state) {
      throw new Error("pool_window: only a stateless pool keeps its births in a window");
    }
    if (this.#windowed) return;
    this.#windowed = true;
    this.#allocate(this.allocated);
  }

  /**
   * Windowed: makes the window hold at least `slots` slots and zeroes, over its first `slots`,
   * what a new block's slots read as zero (velocity, max life, flicker), so slots the caller
   * does not write read as never spawned. Replaces the birth arrays when it grows.
   */
  window(slots: number): void {
    if (slots > this.#windowSlots) {
      const n = Math.max(slots, 2 * this.#windowSlots, 1024);
      const fresh = staggeredArrays(BIRTH_NAMES.map((name) => LAYOUT[name] * n), STAGGER_BYTES);
      this.#windowArrays = BIRTH_NAMES.map((name, i) => ({
        name,
        array: fresh[i],
        stride: LAYOUT[name],
        words: new Uint32Array(fresh[i].buffer, fresh[i].byteOffset, fresh[i].length),
      }));
      this.#windowSlots = n;
      this.#bind();
      return;
    }
    this.velocity.fill(0, 0, slots * 3);
    this.maxLife.fill(0, 0, slots);
    this.flicker.fill(0, 0, slots);
  }

  /**
   * Windowed: back to a birth slot for every slot (zero: the system writes every block's births
   * again), kept from now on. A no-op when not windowed.
   */
  keepBirths(): void {
    if (!this.#windowed) return;
    this.#windowed = false;
    this.#windowArrays = [];
    this.#windowSlots = 0;
    this.#allocate(this.allocated);
  }

  /** Whether position, previous, colour and life are stored (always, unless stateless). */
  get hasState(): boolean {
    return this.#state;
  }

  /** Bytes of the pool's buffers (birth arrays, and the state arrays when kept). */
  get bytes(): number {
    const births = this.#windowArrays[0];
    return this.#bytes + (births ? births.array.buffer.byteLength : 0);
  }

  /**
   * Stateless: allocates the state arrays (zero: the caller evaluates them) and keeps them from
   * now on (moved, grown and zeroed with the others). Replaces the arrays; a no-op once kept.
   */
  ensureState(): void {
    if (this.#state) return;
    if (this.#windowed) throw new Error("pool_windowed: keepBirths before keeping the state");
    this.#state = true;
    this.#allocate(this.allocated);
  }

  /** Moves storage to a fresh buffer of `slots` slots, keeping the used prefix. */
  #allocate(slots: number): void {
    const old = new Map(this.#arrays.map((entry) => [entry.name, entry]));
    const groups: ArrayName[][] = this.#windowed
      ? []
      : this.stateless
      ? [BIRTH_NAMES, ...(this.#state ? [STATE_NAMES] : [])]
      : [Object.keys(LAYOUT) as ArrayName[]];
    const arrays: PoolArray[] = [];
    let bytes = 0;
    for (const names of groups) {
      const fresh = staggeredArrays(names.map((name) => LAYOUT[name] * slots), STAGGER_BYTES);
      bytes += fresh[0].buffer.byteLength;
      names.forEach((name, i) => {
        const array = fresh[i];
        const entry = {
          name,
          array,
          stride: LAYOUT[name],
          words: new Uint32Array(array.buffer, array.byteOffset, array.length),
        };
        const before = old.get(name);
        if (before) array.set(before.array.subarray(0, this.count * entry.stride));
        arrays.push(entry);
      });
    }
    this.#arrays = arrays;
    this.#bind();
    const empty = new Float32Array(0);
    const pick = (names: ArrayName[]) => arrays.filter((entry) => names.includes(entry.name));
    this.#hashed = ["position", "velocity", "color", "life"].map((name) =>
      arrays.find((entry) => entry.name === name) ?? {
        name: name as ArrayName,
        array: empty,
        stride: LAYOUT[name as ArrayName],
        words: new Uint32Array(0),
      }
    );
    this.#cleared = pick([
      "position",
      "previous",
      "velocity",
      "color",
      "life",
      "maxLife",
      "flicker",
    ]);
    this.#killed = pick(["color", "life"]);
    // Fresh buffers hold the used prefix only.
    this.#zeroFrom = this.count;
    this.#bytes = bytes;
    this.allocated = slots;
    this.layoutVersion++;
  }

  /** Points the public arrays at the pool's arrays, or the window's (empty when neither). */
  #bind(): void {
    const empty = new Float32Array(0);
    const get = (name: ArrayName) =>
      (this.#arrays.find((entry) => entry.name === name) ??
        this.#windowArrays.find((entry) => entry.name === name))?.array ?? empty;
    this.position = get("position");
    this.previous = get("previous");
    this.origin = get("origin");
    this.velocity = get("velocity");
    this.color = get("color");
    this.size = get("size");
    this.life = get("life");
    this.maxLife = get("maxLife");
    this.style = get("style");
    this.flicker = get("flicker");
    this.born = get("born");
  }

  /** Grows storage now to hold at least `slots` slots (capped at capacity); never shrinks. */
  reserve(slots: number): void {
    const target = Math.min(this.arena, slots);
    if (target > this.allocated) this.#allocate(target);
  }

  /**
   * Adds a block of `block.size` cleared slots (zeroed where read, so never-spawned slots hash
   * the same wherever the block lives), growing the storage if needed. With slack 1 it goes at
   * the end; with a larger slack into the first gap left by ended blocks that holds it, going on
   * from where the last block went and wrapping around (next fit: blocks end roughly in the
   * order they came, so the gaps behind the newest blocks open in turn and a busy sky reuses them
   * without moving anything), below a soft limit of (used + size) × (1 + slack) / 2 first (so
   * `count`, what a renderer draws, stays near the slots in use), then anywhere in the buffer;
   * only when no gap holds it does it go at the end, compacting or growing. The caller checks
   * capacity first; overflowing throws.
   */
  add(block: B): void {
    const size = block.size;
    if (this.used + size > this.capacity) {
      throw new RangeError(
        `pool_overflow: ${size} slots requested, ${this.used} of ${this.capacity} used`,
      );
    }
    let start = -1;
    if (this.arena !== this.capacity) {
      // Below a soft limit halfway between the slots in use and their slack first, so that the
      // blocks cycle through a range not much wider than they need and `count` (what a renderer
      // draws) stays low (a 1M sky: 3.59 M on average for 3.12 M in use; 4.23 M searching the
      // whole buffer, 3.67 M when it compacted); then anywhere in the buffer.
      const soft = Math.ceil((this.used + size) * (1 + this.slack) / 2);
      if (soft < this.allocated) start = this.#fit(size, soft);
      if (start < 0) start = this.#fit(size, this.allocated);
    }
    if (start < 0) {
      if (this.count + size > this.arena) this.#compact();
      // A full buffer is compacted rather than grown while the live blocks fill at most
      // 1 / slack of it, so memory follows the slots in use (slack × used), not the capacity.
      if (
        this.count + size > this.allocated &&
        (this.used + size) * this.slack <= this.allocated
      ) this.#compact();
      const end = this.count + size;
      if (end > this.allocated) {
        let slots = Math.max(GROWTH.initialSlots, this.allocated);
        while (slots < end) slots = Math.ceil(slots * GROWTH.factor);
        this.#allocate(Math.min(this.arena, slots));
      }
      start = this.count;
    }
    const end = start + size;
    block.start = start;
    if (start < this.#zeroFrom) this.#zero(this.#cleared, start, Math.min(end, this.#zeroFrom));
    if (end > this.#zeroFrom) this.#zeroFrom = end;
    if (end > this.count) this.count = end;
    this.used += size;
    this.blocks.push(block);
    this.#ends.push(block.endTick);
    // Into the address order (usually at the end or near the cursor).
    const at = this.#firstFrom(start);
    if (at === this.#addressStarts.length) {
      this.#addressStarts.push(start);
      this.#addressStops.push(end);
      this.#addressEnds.push(block.endTick);
    } else {
      this.#addressStarts.splice(at, 0, start);
      this.#addressStops.splice(at, 0, end);
      this.#addressEnds.splice(at, 0, block.endTick);
    }
    this.#cursor = end;
  }

  /**
   * The first slot of a gap of at least `size` free slots below `limit`, searched from the cursor
   * up, then from 0 (next fit); −1 when none holds it.
   */
  #fit(size: number, limit: number): number {
    const starts = this.#addressStarts, stops = this.#addressStops, n = starts.length;
    const cursor = Math.min(this.#cursor, limit);
    const lo = this.#firstFrom(cursor);
    let gap = lo > 0 ? Math.max(cursor, stops[lo - 1]) : cursor;
    for (let i = lo; i < n; i++) {
      if (starts[i] - gap >= size) return gap;
      gap = stops[i];
    }
    if (limit - gap >= size) return gap;
    gap = 0;
    for (let i = 0; i < lo; i++) {
      if (starts[i] - gap >= size) return gap;
      gap = stops[i];
    }
    return (lo < n ? starts[lo] : limit) - gap >= size ? gap : -1;
  }

  /** The index in the address order of the first block starting at or above `slot`. */
  #firstFrom(slot: number): number {
    const starts = this.#addressStarts;
    let lo = 0, hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] < slot) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Removes every block whose `endTick <= tick`. With slack 1 later blocks slide down over the
   * gap at once; else the gap stays (its slots are dead) until a later block takes it or a
   * compaction needs it.
   */
  expire(tick: number): void {
    const blocks = this.blocks, ends = this.#ends, n = blocks.length;
    let first = 0;
    while (first < n && ends[first] > tick) first++;
    if (first === n) return;
    let kept = first;
    let used = this.used;
    const gaps = this.arena !== this.capacity;
    for (let i = first; i < n; i++) {
      if (ends[i] <= tick) {
        const block = blocks[i];
        used -= block.size;
        // A gap left in place reads as dead slots (zero), whatever state its sparks were last
        // evaluated in.
        if (gaps) this.#zero(this.#killed, block.start, block.start + block.size);
        continue;
      }
      ends[kept] = ends[i];
      blocks[kept++] = blocks[i];
    }
    blocks.length = ends.length = kept;
    this.used = used;
    const addressEnds = this.#addressEnds;
    const starts = this.#addressStarts, stops = this.#addressStops;
    let left = 0;
    for (let i = 0; i < addressEnds.length; i++) {
      if (addressEnds[i] <= tick) continue;
      addressEnds[left] = addressEnds[i];
      starts[left] = starts[i];
      stops[left++] = stops[i];
    }
    addressEnds.length = starts.length = stops.length = left;
    if (this.arena === this.capacity) this.#compact();
    else this.count = left > 0 ? stops[left - 1] : 0;
  }

  /** Zeroes `arrays` over slots [from, to). */
  #zero(
    arrays: readonly { array: Float32Array; stride: number }[],
    from: number,
    to: number,
  ): void {
    for (const { array, stride } of arrays) array.fill(0, from * stride, to * stride);
  }

  /** Slides every block down over the gaps, in address order. */
  #compact(): void {
    let cursor = 0;
    const moves = this.moves;
    moves.length = 0;
    // In address order (the order of `#addressStarts`, which the moves keep).
    const list = this.blocks.slice().sort((a, b) => a.start - b.start);
    const starts = this.#addressStarts, stops = this.#addressStops;
    for (let i = 0; i < list.length; i++) {
      const block = list[i];
      if (block.start !== cursor) {
        this.#move(block.start, cursor, block.size);
        moves.push(block.start, cursor, block.size);
        block.start = cursor;
      }
      starts[i] = cursor;
      cursor += block.size;
      stops[i] = cursor;
    }
    if (moves.length > 0) {
      this.movedFromCount = this.count;
      this.layoutVersion++;
      this.movesVersion = this.layoutVersion;
    }
    this.count = cursor;
    this.#cursor = cursor;
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
    if (!this.#state) throw new Error("pool_stateless: no state to hash (ensureState first)");
    h.int(block.seq).int(block.tick).int(block.size).int(from).int(to);
    const a = block.start + from, b = block.start + to;
    for (const { words, stride } of this.#hashed) h.words(words, a * stride, b * stride);
  }
}
