import assert from "node:assert/strict";
import { fmix32, hashUnit, hashUnits, mixKey, Rng, STREAM, streamKey } from "../../shared/prng.ts";

/** Pearson's χ² of `counts` against a uniform expectation. */
function chiSquared(counts: number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
}

// χ² with 63 degrees of freedom: mean 63, sd ≈ 11.2; 120 is beyond p = 1e-5.
const BUCKETS = 64;
const CHI_LIMIT = 120;

function bucketCounts(draw: () => number, n: number): number[] {
  const counts = new Array(BUCKETS).fill(0);
  for (let k = 0; k < n; k++) counts[Math.floor(draw() * BUCKETS)]++;
  return counts;
}

function correlation(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n, mb = b.reduce((s, v) => s + v, 0) / n;
  let cov = 0, va = 0, vb = 0;
  for (let k = 0; k < n; k++) {
    cov += (a[k] - ma) * (b[k] - mb);
    va += (a[k] - ma) ** 2;
    vb += (b[k] - mb) ** 2;
  }
  return cov / Math.sqrt(va * vb);
}

function draws(key: number, n: number): number[] {
  const rng = new Rng(key);
  return Array.from({ length: n }, () => rng.next());
}

Deno.test("prng streams are reproducible and reseed restarts them", () => {
  const key = streamKey(42, STREAM.firework, 7);
  const a = draws(key, 1000);
  assert.deepEqual(draws(key, 1000), a);
  const rng = new Rng(123);
  for (let k = 0; k < 500; k++) rng.next();
  rng.reseed(key);
  assert.deepEqual(Array.from({ length: 1000 }, () => rng.next()), a);
  assert.notDeepEqual(draws(key + 1, 1000), a);
});

Deno.test("prng fill and skip draw the numbers next would", () => {
  const key = streamKey(42, STREAM.firework, 9);
  const expected = draws(key, 700);
  const out = new Float64Array(710).fill(-1);
  new Rng(key).fill(out, 3, 700);
  assert.deepEqual(Array.from(out.subarray(3, 703)), expected);
  assert.equal(out[2], -1);
  assert.equal(out[703], -1);
  const rng = new Rng(key).skip(500);
  assert.deepEqual(Array.from({ length: 200 }, () => rng.next()), expected.slice(500));
  // A fill continues the stream where next left it, and next continues after a fill.
  const mixed = new Rng(key);
  const got = [mixed.next(), mixed.next()];
  mixed.fill(out, 0, 5);
  got.push(...out.subarray(0, 5), mixed.next());
  assert.deepEqual(got, expected.slice(0, 8));
});

Deno.test("prng fillU32 draws the words nextU32 would, and the stream goes on after it", () => {
  const key = streamKey(7, STREAM.snow);
  const out = new Uint32Array(1005);
  const filled = new Rng(key).fillU32(out, 5, 1000);
  const one = new Rng(key);
  for (let i = 5; i < 1005; i++) assert.equal(out[i], one.nextU32(), `word ${i}`);
  assert.equal(filled.nextU32(), one.nextU32());
  assert.deepEqual([...out.subarray(0, 5)], [0, 0, 0, 0, 0], "nothing before `at`");
});

Deno.test("prng draws are uniform in [0, 1) and ranges stay in bounds", () => {
  const rng = new Rng(streamKey(1, STREAM.snow, 0));
  const counts = bucketCounts(() => rng.next(), 1_000_000);
  const chi = chiSquared(counts);
  assert.ok(chi < CHI_LIMIT, `χ² = ${chi}`);
  let sum = 0;
  for (let k = 0; k < 100_000; k++) {
    const u = rng.next();
    assert.ok(u >= 0 && u < 1);
    sum += u;
    const r = rng.range(-3, 5);
    assert.ok(r >= -3 && r < 5);
    const i = rng.int(7);
    assert.ok(Number.isInteger(i) && i >= 0 && i < 7);
  }
  assert.ok(Math.abs(sum / 100_000 - 0.5) < 0.005);
  // Successive draws are not correlated.
  const seq = draws(99, 100_001);
  assert.ok(Math.abs(correlation(seq.slice(0, -1), seq.slice(1))) < 0.01);
});

Deno.test("prng streams keyed by neighbouring indices are independent", () => {
  // Streams 0..N-1 of one kind: their k-th draws, across streams, are uniform and uncorrelated.
  const streams = 20_000;
  const first: number[] = [], second: number[] = [], tenth: number[] = [];
  const rng = new Rng();
  for (let s = 0; s < streams; s++) {
    rng.reseed(streamKey(7, STREAM.fountain, s));
    first.push(rng.next());
    second.push(rng.next());
    for (let k = 0; k < 7; k++) rng.next();
    tenth.push(rng.next());
  }
  for (const [name, column] of [["first", first], ["second", second], ["tenth", tenth]] as const) {
    let i = 0;
    const chi = chiSquared(bucketCounts(() => column[i++], streams));
    assert.ok(chi < CHI_LIMIT, `${name} draws across streams: χ² = ${chi}`);
  }
  assert.ok(Math.abs(correlation(first.slice(0, -1), first.slice(1))) < 0.03, "stream s vs s+1");
  assert.ok(Math.abs(correlation(first, second)) < 0.03, "first vs second draw");
  // Different kinds with the same indices are different streams.
  const kinds = Object.values(STREAM).map((kind) => streamKey(7, kind, 3, 0));
  assert.equal(new Set(kinds).size, kinds.length);
  const a = draws(streamKey(7, STREAM.firework, 3), 5000);
  const b = draws(streamKey(7, STREAM.gun, 3), 5000);
  assert.ok(Math.abs(correlation(a, b)) < 0.05);
  // Both indices and the seed matter, and their order too.
  assert.notEqual(streamKey(7, STREAM.show, 1, 2), streamKey(7, STREAM.show, 2, 1));
  assert.notEqual(streamKey(7, STREAM.show, 1, 0), streamKey(8, STREAM.show, 1, 0));
  assert.notEqual(streamKey(7, STREAM.show, 0, 1), streamKey(7, STREAM.show, 0, 0));
});

Deno.test("prng hashUnit is a uniform random-access function of (key, index)", () => {
  const key = streamKey(5, STREAM.snow, 0);
  assert.equal(hashUnit(key, 12345), hashUnit(key, 12345));
  let i = 0;
  const chi = chiSquared(bucketCounts(() => hashUnit(key, i++), 200_000));
  assert.ok(chi < CHI_LIMIT, `χ² = ${chi}`);
  for (let k = 0; k < 10_000; k++) {
    const u = hashUnit(key, k);
    assert.ok(u >= 0 && u < 1);
  }
  assert.notEqual(hashUnit(key, 1), hashUnit(key + 1, 1));
});

Deno.test("prng mixing avalanches: one flipped input bit flips about half the output", () => {
  const rng = new Rng(11);
  let flipped = 0, trials = 0;
  for (let k = 0; k < 2000; k++) {
    const word = rng.nextU32();
    const bit = 1 << rng.int(32);
    for (const f of [fmix32, (w: number) => mixKey(0x1234, w)]) {
      let d = (f(word) ^ f((word ^ bit) >>> 0)) >>> 0;
      while (d) {
        flipped += d & 1;
        d >>>= 1;
      }
      trials++;
    }
  }
  const mean = flipped / trials;
  assert.ok(mean > 15 && mean < 17, `mean flipped bits ${mean}`);
  assert.equal(fmix32(0), 0); // the finaliser is a bijection fixing 0; mixKey must not be
  assert.notEqual(mixKey(0, 0), 0);
});

Deno.test("prng outputs 32-bit unsigned words with no short cycle", () => {
  const rng = new Rng(3);
  const seen = new Set<number>();
  let malformed = 0;
  for (let k = 0; k < 200_000; k++) {
    const w = rng.nextU32();
    if (!(Number.isInteger(w) && w >= 0 && w < 2 ** 32)) malformed++;
    seen.add(w);
  }
  assert.equal(malformed, 0);
  // 200k draws from 2³² values: about 4.7 birthday collisions expected, not thousands.
  assert.ok(seen.size > 200_000 - 40, `${200_000 - seen.size} repeats`);
});

Deno.test("prng hashUnits writes a keyed stream's draws from any index, each as hashUnit", () => {
  const key = streamKey(11, STREAM.firework, 3, 7);
  const out = new Float64Array(40).fill(-1);
  hashUnits(key, 1000, out, 5, 30);
  for (let i = 0; i < 40; i++) {
    // Only [5, 35) written, each draw the one its index names, found without the ones before it.
    assert.equal(out[i], i >= 5 && i < 35 ? hashUnit(key, 1000 + i - 5) : -1, `slot ${i}`);
  }
  // A later start continues the same stream.
  const tail = new Float64Array(10);
  hashUnits(key, 1020, tail, 0, 10);
  assert.deepEqual([...tail], [...out.subarray(25, 35)]);
});
