import assert from "node:assert/strict";
import { BUCKET_MS, Histogram } from "../../scripts/load/histogram.ts";

Deno.test("load histogram reports quantiles to one bucket", async (t) => {
  await t.step("quantiles of 1..1000 ms land within one bucket of the truth", () => {
    const histogram = new Histogram();
    for (let ms = 1; ms <= 1000; ms++) histogram.record(ms);
    assert.equal(histogram.count, 1000);
    assert.ok(Math.abs(histogram.quantile(0.5) - 500) <= BUCKET_MS + 1e-9);
    assert.ok(Math.abs(histogram.quantile(0.99) - 990) <= BUCKET_MS + 1e-9);
    assert.equal(histogram.quantile(1), 1000);
    assert.equal(histogram.min, 1);
    assert.equal(histogram.max, 1000);
    assert.equal(histogram.mean, 500.5);
  });

  await t.step("an empty histogram answers NaN", () => {
    const histogram = new Histogram();
    assert.ok(Number.isNaN(histogram.quantile(0.5)));
    assert.ok(Number.isNaN(histogram.max));
  });

  await t.step("samples beyond the range count and cap the quantile at the true max", () => {
    const histogram = new Histogram();
    histogram.record(2);
    histogram.record(9000);
    assert.equal(histogram.quantile(0.99), 9000);
    assert.equal(histogram.toData().overflow, 1);
  });

  await t.step("negative samples (clock skew) count as zero", () => {
    const histogram = new Histogram();
    histogram.record(-0.3);
    assert.equal(histogram.min, 0);
  });

  await t.step("merging the wire form equals recording everything in one", () => {
    const left = new Histogram();
    const right = new Histogram();
    const both = new Histogram();
    for (let i = 0; i < 500; i++) {
      const sample = (i * 7.31) % 120;
      (i % 3 === 0 ? left : right).record(sample);
      both.record(sample);
    }
    const merged = new Histogram();
    merged.merge(JSON.parse(JSON.stringify(left.toData())));
    merged.merge(JSON.parse(JSON.stringify(right.toData())));
    for (const q of [0.1, 0.5, 0.9, 0.99]) assert.equal(merged.quantile(q), both.quantile(q));
    assert.equal(merged.count, both.count);
    assert.equal(merged.max, both.max);
    assert.equal(merged.min, both.min);
  });

  await t.step("reset forgets every sample", () => {
    const histogram = new Histogram();
    histogram.record(5);
    histogram.reset();
    assert.equal(histogram.count, 0);
    assert.deepEqual(histogram.toData().buckets, []);
  });
});
