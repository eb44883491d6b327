/** Sky admission control. */
import assert from "node:assert/strict";
import { SkyLedger } from "../../server/scene/ledger.ts";

Deno.test("sky ledger admits up to its cap and says when room frees up", () => {
  const ledger = new SkyLedger(1000);
  assert.deepEqual(ledger.admit(600, 100, 0), { ok: true });
  assert.deepEqual(ledger.admit(300, 50, 0), { ok: true });
  assert.deepEqual(ledger.admit(400, 200, 10), { ok: false, retryAfterTicks: 40 });
  assert.equal(ledger.used(10), 900);
  assert.deepEqual(ledger.admit(400, 200, 50), { ok: true }, "the 300 expired at tick 50");
  assert.deepEqual(ledger.admit(2000, 300, 60), { ok: false, retryAfterTicks: null });
  assert.deepEqual(ledger.admit(0, 60, 60), { ok: true }, "settings cost nothing");
  assert.equal(ledger.used(60), 1000);
  assert.equal(ledger.used(100), 400);
  assert.equal(ledger.used(100_000), 0, "a long idle gap releases everything");
  for (let i = 0; i < 10_000; i++) ledger.restore(1, 100_001 + (i % 400), 100_000);
  assert.equal(ledger.used(100_000), 10_000);
  assert.equal(ledger.used(100_200), 5_000, "reservations end at their own ticks");
  assert.throws(() => ledger.restore(1, 200_000, 100_200), RangeError);
});
