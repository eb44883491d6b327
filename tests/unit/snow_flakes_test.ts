import assert from "node:assert/strict";
import { Hasher } from "../../shared/hash.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { Snow, SNOW_HASH_STRIDE } from "../../shared/snow.ts";
import { FIELD_NAMES, FlakeSample, flakeSample, flakeTable } from "../../shared/snow_flakes.ts";

Deno.test("a flake sample holds the same bits as the table's sampled flakes", async (t) => {
  for (
    const [seed, capacity, stride] of [[3, 10_000, 64], [4, 9_999, 7], [5, 20_000, 5000], [
      6,
      63,
      64,
    ]]
  ) {
    await t.step(`seed ${seed}, ${capacity} flakes, stride ${stride}`, () => {
      // Built from the stream (no table of this seed yet), then picked from the table.
      const streamed = flakeSample(seed, capacity, stride).cover(capacity);
      const table = flakeTable(seed, capacity);
      flakeSample(seed + 100, capacity, stride); // another seed's sample: the cache moves on
      const picked = flakeSample(seed, capacity, stride).cover(0); // all there, from the table
      assert.equal(streamed.length, Math.ceil(capacity / stride));
      for (const name of FIELD_NAMES) {
        const every = Float32Array.from(
          { length: streamed.length },
          (_, k) => table[name][k * stride],
        );
        assert.deepEqual(streamed[name], every, name);
        assert.deepEqual(picked[name], every, name);
      }
    });
  }
});

Deno.test("the snow hash from the sample equals the hash of every flake's positions", () => {
  const snow = new Snow(31, 5000);
  const every = (tick: number) => {
    // Positions of all active flakes from the full table, then every 64th, hashed as hashInto does.
    const all = new Float32Array(snow.count * 3);
    snow.fill(tick, all);
    const sampled = new Float32Array(Math.ceil(snow.count / SNOW_HASH_STRIDE) * 3);
    for (let i = 0, o = 0; i < snow.count; i += SNOW_HASH_STRIDE, o += 3) {
      sampled.set(all.subarray(i * 3, i * 3 + 3), o);
    }
    const h = new Hasher().u32(snow.count);
    h.words(new Uint32Array(sampled.buffer), 0, sampled.length);
    return h.digest();
  };
  const digest = (tick: number) => {
    const h = new Hasher();
    snow.hashInto(h, tick);
    return h.digest();
  };
  for (const intensity of [0.5, 1, 0.01, 0]) {
    snow.setClimate(initialSnapshot({ snow: intensity, windSpeed: 4, windDirection: 200 }));
    for (const tick of [0, 601, 1e6 + 3]) assert.equal(digest(tick), every(tick));
  }
  snow.setClimate(initialSnapshot());
  assert.notEqual(digest(5), digest(6));
});

Deno.test("flake tables are shared per seed and capacity", () => {
  assert.equal(flakeTable(8, 1000), flakeTable(8, 1000));
  const other = flakeTable(9, 1000);
  assert.notDeepEqual(other.originX, flakeTable(8, 1000).originX);
  assert.equal(new Snow(8, 1000).originX, new Snow(8, 1000).originX);
  assert.throws(() => flakeSample(1, 10, 0), /snow_stride/);
  assert.equal(flakeSample(8, 1000, 64), flakeSample(8, 1000, 64));
});

Deno.test("a flake sample covered step by step equals one covered at once", () => {
  const whole = new FlakeSample(40, 30_000, 64).cover(30_000);
  const steps = new FlakeSample(40, 30_000, 64);
  for (const upTo of [0, 1, 4095, 4097, 12_000, 12_000, 29_999, 40_000]) steps.cover(upTo);
  const table = steps.cover(30_000);
  for (const name of FIELD_NAMES) assert.deepEqual(table[name], whole[name], name);
  // Covering less derives less: the stream stops at the chunk holding the last flake asked.
  const part = new FlakeSample(41, 30_000, 64).cover(100);
  assert.notEqual(part.originX[63], 0); // flake 4032, in the first chunk of 4096
  assert.equal(part.originX[64], 0); // flake 4096: not derived yet
});
