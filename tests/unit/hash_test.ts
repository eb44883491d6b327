import assert from "node:assert/strict";
import { Hasher, wordsOf } from "../../shared/hash.ts";
import { Rng } from "../../shared/prng.ts";

function digestOf(feed: (h: Hasher) => void): string {
  const h = new Hasher();
  feed(h);
  return h.digest();
}

Deno.test("hash digests are 16 lowercase hex chars and reproducible", () => {
  const d = digestOf((h) => h.u32(1).u32(2).f64(Math.PI));
  assert.match(d, /^[0-9a-f]{16}$/);
  assert.equal(digestOf((h) => h.u32(1).u32(2).f64(Math.PI)), d);
  assert.match(digestOf(() => {}), /^[0-9a-f]{16}$/);
});

Deno.test("hash reset starts over and digest does not consume state", () => {
  const h = new Hasher();
  h.u32(99).u32(100);
  const first = h.digest();
  assert.equal(h.digest(), first);
  h.reset().u32(99).u32(100);
  assert.equal(h.digest(), first);
  h.reset();
  assert.equal(h.digest(), digestOf(() => {}));
});

Deno.test("hash is sensitive to order, value and every bit", () => {
  assert.notEqual(digestOf((h) => h.u32(1).u32(2)), digestOf((h) => h.u32(2).u32(1)));
  assert.notEqual(digestOf((h) => h.u32(0)), digestOf(() => {}));
  assert.notEqual(digestOf((h) => h.u32(0)), digestOf((h) => h.u32(0).u32(0)));
  const rng = new Rng(8);
  const seen = new Set<string>();
  const base = Array.from({ length: 16 }, () => rng.nextU32());
  seen.add(digestOf((h) => base.forEach((w) => h.u32(w))));
  for (let word = 0; word < 16; word++) {
    for (let bit = 0; bit < 32; bit++) {
      const changed = base.slice();
      changed[word] = (changed[word] ^ (1 << bit)) >>> 0;
      seen.add(digestOf((h) => changed.forEach((w) => h.u32(w))));
    }
  }
  assert.equal(seen.size, 1 + 16 * 32, "every single-bit change gives a new digest");
});

Deno.test("hash of floats sees exact bits: f32 rounding, f64 detail and signed zero", () => {
  assert.equal(digestOf((h) => h.f32(0.1)), digestOf((h) => h.f32(Math.fround(0.1))));
  assert.notEqual(digestOf((h) => h.f64(0.1)), digestOf((h) => h.f64(Math.fround(0.1))));
  assert.notEqual(digestOf((h) => h.f64(1)), digestOf((h) => h.f64(1 + 2 ** -52)));
  assert.notEqual(digestOf((h) => h.f64(0)), digestOf((h) => h.f64(-0)));
  assert.notEqual(digestOf((h) => h.f32(0)), digestOf((h) => h.f32(-0)));
});

Deno.test("hash int covers 53 bits", () => {
  assert.notEqual(digestOf((h) => h.int(0)), digestOf((h) => h.int(2 ** 32)));
  assert.notEqual(digestOf((h) => h.int(5)), digestOf((h) => h.int(5 + 2 ** 40)));
  assert.equal(digestOf((h) => h.int(2 ** 33 + 7)), digestOf((h) => h.u32(7).u32(2)));
});

Deno.test("hash words over a float view equals hashing each float's bits", () => {
  const rng = new Rng(4);
  const floats = new Float32Array(1001).map(() => rng.range(-100, 100));
  const words = wordsOf(floats);
  assert.equal(words.buffer, floats.buffer);
  const bulk = digestOf((h) => h.words(words, 3, 998));
  const single = digestOf((h) => {
    for (let i = 3; i < 998; i++) h.f32(floats[i]);
  });
  assert.equal(bulk, single);
  // A view at an offset shares bytes with its parent.
  const sub = floats.subarray(10, 20);
  assert.equal(wordsOf(sub)[0], words[10]);
  floats[3] = Math.fround(floats[3] + 1);
  assert.notEqual(digestOf((h) => h.words(words, 3, 998)), bulk);
});

Deno.test("hash words split anywhere, after any number of words, equal the words one by one", () => {
  const rng = new Rng(12);
  const words = Uint32Array.from({ length: 203 }, () => rng.nextU32());
  for (let before = 0; before < 5; before++) {
    const single = digestOf((h) => {
      for (let k = 0; k < before; k++) h.u32(k);
      words.forEach((w) => h.u32(w));
    });
    for (const cuts of [[0], [1, 2, 3], [5, 9, 200], [101], [4, 8, 12, 16]]) {
      const split = digestOf((h) => {
        for (let k = 0; k < before; k++) h.u32(k);
        let from = 0;
        for (const cut of [...cuts, words.length]) {
          h.words(words, from, cut);
          from = cut;
        }
      });
      assert.equal(split, single, `${before} words first, cuts ${cuts}`);
    }
  }
});

Deno.test("hash tells apart words that trade places across lanes, and trailing zeros", () => {
  const rng = new Rng(5);
  const words = Uint32Array.from({ length: 64 }, () => rng.nextU32());
  const base = digestOf((h) => h.words(words, 0, 64));
  for (const [i, j] of [[0, 1], [0, 4], [3, 4], [10, 63]]) {
    const swapped = words.slice();
    [swapped[i], swapped[j]] = [swapped[j], swapped[i]];
    assert.notEqual(digestOf((h) => h.words(swapped, 0, 64)), base, `words ${i} and ${j}`);
  }
  const zeros = new Uint32Array(8);
  const seen = new Set(Array.from({ length: 9 }, (_, n) => digestOf((h) => h.words(zeros, 0, n))));
  assert.equal(seen.size, 9, "0 to 8 zero words: nine digests");
});
