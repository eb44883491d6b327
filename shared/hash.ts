/**
 * A streaming 64-bit state hash over 32-bit words: two independent lanes (FNV-1a by word and a
 * multiply-rotate lane) so a checkpoint hash is cheap and identical in every JS engine.
 */

const scratch = new ArrayBuffer(8);
const scratchF32 = new Float32Array(scratch, 0, 1);
const scratchF64 = new Float64Array(scratch);
const scratchU32 = new Uint32Array(scratch);

/** Incremental hasher; reuse one instance and call `reset()` between hashes. */
export class Hasher {
  #a = 0x811c9dc5;
  #b = 0x9747b28c;

  /** Starts a new hash. */
  reset(): this {
    this.#a = 0x811c9dc5;
    this.#b = 0x9747b28c;
    return this;
  }

  /** Adds one 32-bit word. */
  u32(word: number): this {
    this.#a = Math.imul(this.#a ^ word, 0x01000193);
    let b = Math.imul(this.#b ^ word, 0xcc9e2d51);
    b = (b << 15) | (b >>> 17);
    this.#b = (Math.imul(b, 0x1b873593) + 0xe6546b64) | 0;
    return this;
  }

  /** Adds an integer that fits in 53 bits (ticks, seqs, counts). */
  int(n: number): this {
    this.u32(n >>> 0);
    return this.u32(Math.floor(n / 4294967296) >>> 0);
  }

  /** Adds the exact bits of a number rounded to float32 (the precision particles are stored in). */
  f32(x: number): this {
    scratchF32[0] = x;
    return this.u32(scratchU32[0]);
  }

  /** Adds the exact bits of a float64. */
  f64(x: number): this {
    scratchF64[0] = x;
    this.u32(scratchU32[0]);
    return this.u32(scratchU32[1]);
  }

  /** Adds `words[start..end)` of a word view (e.g. a Uint32Array over a Float32Array's bytes). */
  words(words: Uint32Array, start: number, end: number): this {
    let a = this.#a, b = this.#b;
    for (let i = start; i < end; i++) {
      const w = words[i];
      a = Math.imul(a ^ w, 0x01000193);
      let m = Math.imul(b ^ w, 0xcc9e2d51);
      m = (m << 15) | (m >>> 17);
      b = (Math.imul(m, 0x1b873593) + 0xe6546b64) | 0;
    }
    this.#a = a;
    this.#b = b;
    return this;
  }

  /** 16 lowercase hex characters. */
  digest(): string {
    let a = this.#a ^ (this.#b >>> 7);
    a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
    a ^= a >>> 13;
    let b = this.#b ^ (this.#a >>> 11);
    b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
    b ^= b >>> 16;
    return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
  }
}

/** A Uint32Array over the same bytes as a Float32Array, for hashing float bits in bulk. */
export function wordsOf(floats: Float32Array): Uint32Array {
  return new Uint32Array(floats.buffer, floats.byteOffset, floats.length);
}
