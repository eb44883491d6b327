/**
 * A `Hasher` that mixes nothing: it records the words it is given, to be mixed later, in the same
 * order, into a real hasher (`replayInto`). A checkpoint hash evaluated over several frames
 * (`CheckpointHash`) records the small, stepped parts of the world (gun, fountain, snow) at the
 * checkpoint's tick, and mixes them after the launches, as `World.hash` orders them.
 */
import { Hasher } from "./hash.ts";

/**
 * Records words instead of mixing them; `replayInto` gives a hasher exactly what it would have
 * seen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Hasher } from "./hash.ts";
 * import { WordRecorder } from "./word_recorder.ts";
 *
 * const recorder = new WordRecorder();
 * recorder.u32(7).f64(0.5).int(2 ** 40);
 * const direct = new Hasher().u32(1).u32(7).f64(0.5).int(2 ** 40).digest();
 * const replayed = new Hasher().u32(1);
 * recorder.replayInto(replayed);
 * assert.equal(replayed.digest(), direct);
 * ```
 */
export class WordRecorder extends Hasher {
  #words = new Uint32Array(1024);
  #length = 0;

  /** Words recorded. */
  get length(): number {
    return this.#length;
  }

  /** Forgets what was recorded (keeps its storage). */
  override reset(): this {
    this.#length = 0;
    return this;
  }

  /** Records one 32-bit word. */
  override u32(word: number): this {
    this.#room(1);
    this.#words[this.#length++] = word;
    return this;
  }

  /** Records `words[start..end)`. */
  override words(words: Uint32Array, start: number, end: number): this {
    if (end <= start) return this;
    this.#room(end - start);
    this.#words.set(words.subarray(start, end), this.#length);
    this.#length += end - start;
    return this;
  }

  /** A recorder has no digest of its own: replay it into a `Hasher`. */
  override digest(): string {
    throw new Error("word_recorder: replay the words into a Hasher for a digest");
  }

  /** Mixes the recorded words, in order, into `h`. */
  replayInto(h: Hasher): void {
    h.words(this.#words, 0, this.#length);
  }

  #room(more: number): void {
    if (this.#length + more <= this.#words.length) return;
    let size = this.#words.length * 2;
    while (size < this.#length + more) size *= 2;
    const grown = new Uint32Array(size);
    grown.set(this.#words.subarray(0, this.#length));
    this.#words = grown;
  }
}
