/**
 * Seeded pseudo-random numbers with independent keyed streams. Built from `Math.imul` and
 * 32-bit integer operations only, so every JS engine produces the same bits.
 */

/** Murmur3's 32-bit finaliser: a bijective avalanche of one word. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combines a running key with one more 32-bit word (order-sensitive). */
export function mixKey(key: number, word: number): number {
  return mixKeyed(keyPart(key), word);
}

/**
 * The part of {@link mixKey} that depends on the key alone: a loop that mixes one key with many
 * words computes it once and calls {@link mixKeyed} (the same bits).
 *
 * @example
 * ```ts
 * const keyed = keyPart(7);
 * mixKeyed(keyed, 3) === mixKey(7, 3); // true
 * ```
 */
export function keyPart(key: number): number {
  return Math.imul(key ^ 0x9e3779b9, 0x27d4eb2d);
}

/** {@link mixKey} of the key whose {@link keyPart} is `keyed`, and `word`. */
export function mixKeyed(keyed: number, word: number): number {
  return fmix32((keyed + fmix32(word >>> 0)) >>> 0);
}

/**
 * A stream key from a scene seed, a stream kind and up to two indices, e.g.
 * `streamKey(seed, STREAM.firework, seq)`. Different kinds never share a stream.
 */
export function streamKey(seed: number, kind: number, a = 0, b = 0): number {
  return mixKey(streamPrefix(seed, kind, a), b);
}

/**
 * The key of streams (`kind`, `a`, ·) before their last index: `streamKey(seed, kind, a, b)` is
 * `mixKey(streamPrefix(seed, kind, a), b)`, for code that derives the streams of one launch for
 * many `b` (the shader derives a shell's trail streams from it).
 *
 * @example
 * ```ts
 * import { mixKey, streamKey, streamPrefix } from "./prng.ts";
 * mixKey(streamPrefix(7, 1, 3), 9) === streamKey(7, 1, 3, 9); // true
 * ```
 */
export function streamPrefix(seed: number, kind: number, a = 0): number {
  return mixKey(mixKey(seed >>> 0, kind), a);
}

/** Stream kinds, so no two systems draw from the same stream. */
export const STREAM = {
  firework: 1,
  snow: 2,
  fountain: 3,
  gun: 4,
  show: 5,
  peer: 6,
  finale: 7,
} as const;

/** A stateless uniform number in [0, 1) for (key, index): random access without a stream. */
export function hashUnit(key: number, index: number): number {
  return mixKey(key, index) / 4294967296;
}

/**
 * `out[at + i] = hashUnit(key, from + i)` for i in [0, n): a keyed stream in which every draw
 * stands alone, so one of them (a spark's, on the GPU) is found without the draws before it.
 *
 * @example
 * ```ts
 * import { hashUnit, hashUnits } from "./prng.ts";
 * const out = new Float64Array(4);
 * hashUnits(42, 3, out, 1, 3); // out[1..3] = draws 3, 4 and 5 of key 42
 * out[2] === hashUnit(42, 4); // true
 * ```
 */
export function hashUnits(
  key: number,
  from: number,
  out: Float64Array,
  at: number,
  n: number,
): void {
  const keyed = keyPart(key);
  for (let i = 0; i < n; i++) out[at + i] = mixKeyed(keyed, from + i) / 4294967296;
}

/**
 * Where `skip` and `fill` have `fillU32` draw their words, so the generator's step is written in
 * one loop (and `nextU32`); a module's one scratch serves every generator (draws are synchronous).
 */
const SCRATCH_WORDS = 64;
const scratch = new Uint32Array(SCRATCH_WORDS);

/**
 * sfc32, a small fast counter-based generator. One instance can be re-seeded in place, so hot
 * loops reuse a single object instead of allocating a generator per stream.
 */
export class Rng {
  /**
   * The four words a, b, c, d. An Int32Array, not fields: V8 keeps int32 words that leave the
   * small-integer range boxed in fields, and a draw costs ~3× more (the same bits either way:
   * every step is mod 2^32).
   */
  readonly #s = new Int32Array(4);

  constructor(key = 0) {
    this.reseed(key);
  }

  /** Restarts the generator on the stream named by `key`. */
  reseed(key: number): this {
    const s = this.#s;
    s[0] = fmix32(key ^ 0x243f6a88);
    s[1] = fmix32(key ^ 0x85a308d3);
    s[2] = fmix32(key ^ 0x13198a2e);
    s[3] = 1;
    this.skip(12);
    return this;
  }

  /** Draws and drops `n` numbers (the state `n` draws on, without producing them). */
  skip(n: number): this {
    for (let done = 0; done < n; done += SCRATCH_WORDS) {
      this.fillU32(scratch, 0, Math.min(SCRATCH_WORDS, n - done));
    }
    return this;
  }

  /** The next 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.#s;
    const a = s[0], b = s[1], c = s[2], d = s[3];
    const t = (((a + b) | 0) + d) | 0;
    s[3] = (d + 1) | 0;
    s[0] = b ^ (b >>> 9);
    s[1] = (c + (c << 3)) | 0;
    s[2] = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  /**
   * Writes the next `n` 32-bit unsigned integers into `out` from index `at` (the same numbers as
   * `n` calls of `nextU32`), for a loop that reads many words without a call per word.
   */
  fillU32(out: Uint32Array, at: number, n: number): this {
    const s = this.#s;
    let a = s[0], b = s[1], c = s[2], d = s[3];
    for (let i = at; i < at + n; i++) {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + t) | 0;
      out[i] = t;
    }
    s[0] = a;
    s[1] = b;
    s[2] = c;
    s[3] = d;
    return this;
  }

  /**
   * Writes the next `n` uniforms in [0, 1) into `out` from index `at` (the same numbers as `n`
   * calls of `next`), for a loop that reads many draws without a call per draw.
   */
  fill(out: Float64Array, at: number, n: number): this {
    for (let done = 0; done < n; done += SCRATCH_WORDS) {
      const k = Math.min(SCRATCH_WORDS, n - done);
      this.fillU32(scratch, 0, k);
      for (let j = 0; j < k; j++) out[at + done + j] = scratch[j] / 4294967296;
    }
    return this;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}
