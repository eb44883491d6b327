/** The pacing of refused HTTP reads: a few answers a second per address, whatever its connections. */
import assert from "node:assert/strict";
import {
  REFUSAL_HOLD_MAX_MS,
  REFUSAL_PAUSE_MS,
  RefusalPacer,
} from "../../server/http/refusal_pacer.ts";

Deno.test("refusal pacer answers one address's refusals one after another", async (t) => {
  let now = 0;
  const pacer = new RefusalPacer({ perSecond: 10, now: () => now });

  await t.step("twenty refused at once are answered a tenth of a second apart", () => {
    const delays = Array.from({ length: 20 }, () => pacer.delay("10.0.0.1", 5000));
    assert.deepEqual(delays, Array.from({ length: 20 }, (_, i) => REFUSAL_PAUSE_MS + i * 100));
  });

  await t.step("another address is paced on its own; IPv6 by /64", () => {
    assert.equal(pacer.delay("10.0.0.2", 300), 300);
    assert.equal(pacer.delay("2001:db8:1:2::5", 0), 0);
    assert.equal(pacer.delay("2001:db8:1:2::9", 0), 100);
  });

  await t.step("a refusal alone waits only its pause", () => {
    now = 10_000;
    assert.equal(pacer.delay("10.0.0.1", 250), 250);
    now = 20_000;
    assert.equal(pacer.delay("10.0.0.1", 0), 0);
  });

  await t.step("no refusal is held longer than the longest hold", () => {
    now = 30_000;
    const delays = Array.from({ length: 300 }, () => pacer.delay("10.0.0.3", 1000));
    assert.equal(Math.max(...delays), REFUSAL_HOLD_MAX_MS);
    assert.equal(delays.filter((d) => d < REFUSAL_HOLD_MAX_MS).length, 90);
  });

  await t.step("addresses whose refusals were all answered are forgotten", () => {
    now = 100_000;
    pacer.delay("10.0.0.9", 0);
    assert.equal(pacer.size, 1);
  });
});
