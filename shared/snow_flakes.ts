/**
 * The snowflakes' per-flake constants (origin, fall speed, drift, wind factor, sway, size, shape,
 * tumble), drawn from the scene seed's snow stream: flake i always takes the stream's words
 * [10i, 10i + 10), so its constants are a function of (seed, i) alone and a prefix of the flakes
 * never changes with the capacity.
 *
 * Two ways to get them, both cached for the last seed asked (a late join, a rebuilt world and the
 * renderer of the same scene share one table; nothing here is ever written after it is built):
 * - `flakeTable`: every flake, for the renderer and `Snow.fill` (100k flakes: a few ms).
 * - `flakeSample`: only flakes 0, stride, 2·stride, …, for the state hash, and only as far as the
 *   active flakes reach. It still runs the stream through every word up to there (sfc32 cannot
 *   jump) but derives 1 flake in `stride`, so a late joiner that only hashes the snow (the
 *   server's hash worker, every join before the first draw) never builds the 100k-flake table.
 */
import { DT, SCENE_HALF_EXTENT } from "./constants.ts";
import { cosSinArray, TAU } from "./dmath.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";
import {
  SNOW_DRIFT,
  SNOW_FALL_SPEED,
  SNOW_HEIGHT,
  SNOW_SIZE,
  SNOW_SPIN,
  SNOW_SWAY_AMPLITUDE,
  SNOW_SWAY_PERIOD,
  SNOW_VARIANTS,
  SNOW_WIND_FACTOR,
} from "./snow_constants.ts";

/** Per-flake constants, one Float32Array per field, all of one length. Never write to them. */
export interface FlakeTable {
  /** Entries in every array. */
  readonly length: number;
  /** x at tick 0 with zero wind integral, metres. */
  readonly originX: Float32Array;
  /** Height at tick 0, metres in [0, SNOW_HEIGHT). */
  readonly originY: Float32Array;
  /** z at tick 0 with zero wind integral, metres. */
  readonly originZ: Float32Array;
  /** Fall speed in metres per tick. */
  readonly fallPerTick: Float32Array;
  /** Multiplier on the wind's integral. */
  readonly windFactor: Float32Array;
  /** Sway amplitude along x in metres (the sway runs along a per-flake direction). */
  readonly swayX: Float32Array;
  /** Sway amplitude along z in metres. */
  readonly swayZ: Float32Array;
  /** Sway frequency in cycles per tick. */
  readonly swayFrequency: Float32Array;
  /** Sway phase in cycles [0, 1). */
  readonly swayPhase: Float32Array;
  /** The side of the flake's square in metres. */
  readonly size: Float32Array;
  /** Sprite variant 0..SNOW_VARIANTS − 1. */
  readonly variant: Float32Array;
  /** Tumbling speed of both angles, radians per second. */
  readonly spin: Float32Array;
  /** The pitch angle (about world x, applied second) at time 0, radians. */
  readonly phase: Float32Array;
  /** The yaw angle (about world y, applied first) at time 0, radians. */
  readonly phaseY: Float32Array;
  /** Windless drift along x, metres per tick. */
  readonly driftX: Float32Array;
  /** Windless drift along z, metres per tick. */
  readonly driftZ: Float32Array;
}

/** Stream words per flake. */
const WORDS = 10;
/** Flakes derived per pass, and the pass's words, headings, cosines and sines. */
const CHUNK = 4096;
const chunkWords = new Uint32Array(CHUNK * WORDS);
const heading = new Float64Array(CHUNK);
const cosines = new Float64Array(CHUNK);
const sines = new Float64Array(CHUNK);
// Bytes between consecutive arrays beyond their length, so equal indices of different arrays do
// not land on the same cache set.
const STAGGER_BYTES = 64;
const FIELDS = 16;
const UNIT16 = 1 / 65536;
const UNIT32 = 1 / 4294967296;
const SPAN = 2 * SCENE_HALF_EXTENT;
// Each range as base + span · u (the same arithmetic as `lo + (hi − lo) · u`).
const FALL_LO = SNOW_FALL_SPEED[0], FALL_SPAN = SNOW_FALL_SPEED[1] - SNOW_FALL_SPEED[0];
const WIND_LO = SNOW_WIND_FACTOR[0], WIND_SPAN = SNOW_WIND_FACTOR[1] - SNOW_WIND_FACTOR[0];
const SWAY_LO = SNOW_SWAY_AMPLITUDE[0];
const SWAY_SPAN = SNOW_SWAY_AMPLITUDE[1] - SNOW_SWAY_AMPLITUDE[0];
const PERIOD_LO = SNOW_SWAY_PERIOD[0], PERIOD_SPAN = SNOW_SWAY_PERIOD[1] - SNOW_SWAY_PERIOD[0];
const SIZE_LO = SNOW_SIZE[0], SIZE_SPAN = SNOW_SIZE[1] - SNOW_SIZE[0];
const SPIN_LO = SNOW_SPIN[0], SPIN_SPAN = SNOW_SPIN[1] - SNOW_SPIN[0];

/** A table of `length` entries in one buffer. */
function allocate(length: number): FlakeTable {
  const stride = length * 4 + STAGGER_BYTES;
  const buffer = new ArrayBuffer(stride * FIELDS);
  const field = (k: number) => new Float32Array(buffer, k * stride, length);
  return {
    length,
    originX: field(0),
    originY: field(1),
    originZ: field(2),
    fallPerTick: field(3),
    windFactor: field(4),
    swayX: field(5),
    swayZ: field(6),
    swayFrequency: field(7),
    swayPhase: field(8),
    size: field(9),
    variant: field(10),
    spin: field(11),
    phase: field(12),
    phaseY: field(13),
    driftX: field(14),
    driftZ: field(15),
  };
}

/**
 * Derives `n` ≤ CHUNK flakes from their words (flake k's at [10k, 10k + 10) of `words`) into
 * entries [at, at + n) of `table`. Positions take a whole 32-bit word; the other constants need
 * far less resolution and share words as 16-bit halves. The sway headings' cosines and sines are
 * taken in one pass (`cosSinArray`: the same bits as `cos` and `sin` one at a time).
 */
function derive(words: Uint32Array, n: number, table: FlakeTable, at: number): void {
  const { originX, originY, originZ, fallPerTick, windFactor, swayX, swayZ } = table;
  const { swayFrequency, swayPhase, size, variant, spin, phase, phaseY, driftX, driftZ } = table;
  for (let k = 0; k < n; k++) heading[k] = (words[k * WORDS + 4] >>> 16) * UNIT16 * TAU;
  cosSinArray(heading, n, cosines, sines);
  for (let k = 0, w = 0; k < n; k++, w += WORDS) {
    const i = at + k;
    originX[i] = words[w] * UNIT32 * SPAN - SCENE_HALF_EXTENT;
    originY[i] = words[w + 1] * UNIT32 * SNOW_HEIGHT;
    originZ[i] = words[w + 2] * UNIT32 * SPAN - SCENE_HALF_EXTENT;
    let word = words[w + 3];
    fallPerTick[i] = (FALL_LO + FALL_SPAN * ((word & 0xffff) * UNIT16)) * DT;
    windFactor[i] = WIND_LO + WIND_SPAN * ((word >>> 16) * UNIT16);
    word = words[w + 4];
    const amplitude = SWAY_LO + SWAY_SPAN * ((word & 0xffff) * UNIT16);
    swayX[i] = amplitude * cosines[k];
    swayZ[i] = amplitude * sines[k];
    word = words[w + 5];
    swayFrequency[i] = DT / (PERIOD_LO + PERIOD_SPAN * ((word & 0xffff) * UNIT16));
    swayPhase[i] = (word >>> 16) * UNIT16;
    word = words[w + 6];
    size[i] = SIZE_LO + SIZE_SPAN * ((word & 0xffff) * UNIT16);
    spin[i] = SPIN_LO + SPIN_SPAN * ((word >>> 16) * UNIT16);
    word = words[w + 7];
    variant[i] = Math.floor((word & 0xffff) * UNIT16 * SNOW_VARIANTS);
    phase[i] = (word >>> 16) * UNIT16 * TAU;
    word = words[w + 8];
    driftX[i] = (2 * ((word & 0xffff) * UNIT16) - 1) * SNOW_DRIFT * DT;
    driftZ[i] = (2 * ((word >>> 16) * UNIT16) - 1) * SNOW_DRIFT * DT;
    phaseY[i] = (words[w + 9] & 0xffff) * UNIT16 * TAU;
  }
}

/** Chunk of flakes run through at a time when sampling every `stride`-th: a multiple of it. */
function chunkFor(stride: number): number {
  return stride > CHUNK ? stride : Math.floor(CHUNK / stride) * stride;
}

/**
 * Runs the snow stream of `rng` over flakes [first, first + n) (`first` a multiple of `stride`),
 * deriving every `stride`-th flake into consecutive entries of `table` from `at`; returns how many.
 */
function run(
  rng: Rng,
  first: number,
  n: number,
  stride: number,
  table: FlakeTable,
  at: number,
): number {
  const words = chunkWords;
  if (stride === 1) {
    rng.fillU32(words, 0, n * WORDS);
    derive(words, n, table, first);
    return n;
  }
  if (n > CHUNK) {
    // A stride wider than a chunk: one flake's words, then on to the next sampled flake.
    rng.fillU32(words, 0, WORDS);
    rng.skip((n - 1) * WORDS);
    derive(words, 1, table, at);
    return 1;
  }
  rng.fillU32(words, 0, n * WORDS);
  // Gather the sampled flakes' words to the front (flake k·stride → slot k), then derive them.
  let m = 0;
  for (let k = 0; k < n; k += stride, m++) {
    if (m !== k) words.copyWithin(m * WORDS, k * WORDS, k * WORDS + WORDS);
  }
  derive(words, m, table, at);
  return m;
}

/** Every flake of `seed` below `capacity`, a chunk at a time. */
function build(seed: number, capacity: number): FlakeTable {
  const table = allocate(capacity);
  const rng = new Rng(streamKey(seed, STREAM.snow));
  for (let first = 0; first < capacity; first += CHUNK) {
    run(rng, first, Math.min(CHUNK, capacity - first), 1, table, 0);
  }
  return table;
}

/**
 * The constants of flakes 0, stride, 2·stride, … below a capacity (entry k is flake k·stride),
 * derived only as far as asked: `cover(n)` runs the stream on to flake n (a whole chunk at a
 * time) and derives the sampled flakes on the way. The same bits as those flakes' entries in
 * {@link flakeTable}.
 *
 * @example
 * ```ts
 * import { flakeSample, flakeTable } from "./snow_flakes.ts";
 * const sample = flakeSample(7, 1000, 64).cover(500); // flakes 0, 64, …, 448 at least
 * sample.originX[2] === flakeTable(7, 1000).originX[128]; // true
 * ```
 */
export class FlakeSample {
  /** Scene seed. */
  readonly seed: number;
  /** Flakes the sample is taken from. */
  readonly capacity: number;
  /** Every `stride`-th flake is sampled. */
  readonly stride: number;
  readonly #table: FlakeTable;
  readonly #rng: Rng;
  /** Flakes the stream has run through (a multiple of the chunk, or the capacity). */
  #streamed = 0;
  /** Entries of the table derived. */
  #derived = 0;

  constructor(seed: number, capacity: number, stride: number, from: FlakeTable | null = null) {
    if (!Number.isInteger(stride) || stride < 1) {
      throw new RangeError(`snow_stride: stride must be a positive integer, got ${stride}`);
    }
    this.seed = seed;
    this.capacity = capacity;
    this.stride = stride;
    this.#rng = new Rng(streamKey(seed, STREAM.snow));
    if (from) {
      this.#table = pick(from, stride);
      this.#streamed = capacity;
      this.#derived = this.#table.length;
    } else {
      this.#table = allocate(Math.ceil(capacity / stride));
    }
  }

  /** The table, with every sampled flake below `flakes` (at most the capacity) derived. */
  cover(flakes: number): FlakeTable {
    const upTo = Math.min(flakes, this.capacity);
    const chunk = chunkFor(this.stride);
    while (this.#streamed < upTo) {
      const n = Math.min(chunk, this.capacity - this.#streamed);
      this.#derived += run(this.#rng, this.#streamed, n, this.stride, this.#table, this.#derived);
      this.#streamed += n;
    }
    return this.#table;
  }
}

let tableSeed = NaN, tableCapacity = -1;
let tableCache: FlakeTable | null = null;
let sampleCache: FlakeSample | null = null;

/**
 * Every flake's constants for `seed` and `capacity` (built once per seed and capacity; the last
 * one is kept and shared). Never write to the arrays.
 *
 * @example
 * ```ts
 * import { flakeTable } from "./snow_flakes.ts";
 * const table = flakeTable(7, 1000);
 * table.size.length; // 1000
 * flakeTable(7, 1000) === table; // true: cached
 * ```
 */
export function flakeTable(seed: number, capacity: number): FlakeTable {
  if (tableCache && tableSeed === seed && tableCapacity === capacity) return tableCache;
  const table = build(seed, capacity);
  tableSeed = seed;
  tableCapacity = capacity;
  tableCache = table;
  return table;
}

/**
 * The {@link FlakeSample} of `seed`, `capacity` and `stride`; the last one is kept and shared
 * (what one caller covered, the next finds derived). Taken from the full table when it is built.
 */
export function flakeSample(seed: number, capacity: number, stride: number): FlakeSample {
  const cached = sampleCache;
  if (
    cached && cached.seed === seed && cached.capacity === capacity && cached.stride === stride
  ) {
    return cached;
  }
  const table = tableCache && tableSeed === seed && tableCapacity === capacity ? tableCache : null;
  sampleCache = new FlakeSample(seed, capacity, stride, table);
  return sampleCache;
}

/** Entries 0, stride, 2·stride, … of `table`, copied into a new table. */
function pick(table: FlakeTable, stride: number): FlakeTable {
  const out = allocate(Math.ceil(table.length / stride));
  for (const name of FIELD_NAMES) {
    const from = table[name], to = out[name];
    for (let k = 0, i = 0; i < table.length; k++, i += stride) to[k] = from[i];
  }
  return out;
}

/** The names of a {@link FlakeTable}'s arrays. */
export const FIELD_NAMES = [
  "originX",
  "originY",
  "originZ",
  "fallPerTick",
  "windFactor",
  "swayX",
  "swayZ",
  "swayFrequency",
  "swayPhase",
  "size",
  "variant",
  "spin",
  "phase",
  "phaseY",
  "driftX",
  "driftZ",
] as const;
