/** Moment links: `?at=` parses readable UTC times and `t<tick>`, and round-trips a tick. */
import assert from "node:assert/strict";
import { momentLink, momentText, parseMoment } from "../../client/replay/moment.ts";

Deno.test("moment links parse and format", async (t) => {
  const epoch = Date.parse("2026-12-31T23:00:00Z");
  await t.step("t<tick> is that tick", () => {
    assert.deepEqual(parseMoment("t3600", epoch), { tick: 3600 });
  });
  await t.step("a UTC time is the tick that began at or before it", () => {
    assert.deepEqual(parseMoment("2026-12-31T23:59:50Z", epoch), { tick: 3590 * 60 });
    assert.deepEqual(parseMoment("2027-01-01T00:59:50+01:00", epoch), { tick: 3590 * 60 });
  });
  await t.step("a shared moment lands within the second after its tick", () => {
    for (const tick of [0, 1, 59, 60, 12_345, 215_999]) {
      const parsed = parseMoment(momentText(epoch, tick), epoch);
      assert.ok("tick" in parsed);
      assert.ok(parsed.tick >= tick && parsed.tick < tick + 60, `${tick} → ${parsed.tick}`);
    }
  });
  await t.step("links are readable, or exact for tools", () => {
    assert.equal(
      momentLink("https://x.example", "quiet-pine", epoch, 3590 * 60),
      "https://x.example/s/quiet-pine?at=2026-12-31T23:59:50Z",
    );
    assert.equal(momentLink("", "a", epoch, 77, true), "/s/a?at=t77");
  });
  await t.step("nonsense and moments before the scene are refused with a reason", () => {
    assert.ok("error" in parseMoment("yesterday", epoch));
    assert.ok("error" in parseMoment("2026-12-31", epoch));
    assert.match((parseMoment("2026-12-30T00:00:00Z", epoch) as { error: string }).error, /before/);
  });
});
