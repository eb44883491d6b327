/** Moment links: `?at=` parses readable UTC times and `t<tick>`, and round-trips a tick. */
import assert from "node:assert/strict";
import {
  clockText,
  friendlyTime,
  momentLink,
  momentText,
  parseMoment,
  tickTime,
} from "../../client/replay/moment.ts";

Deno.test("moment links parse and format", async (t) => {
  const epoch = Date.parse("2026-12-31T23:00:00Z");
  await t.step("t<tick> is that tick", () => {
    assert.deepEqual(parseMoment("t3600", epoch), { tick: 3600 });
  });
  await t.step("a UTC time is the first tick that begins at or after it", () => {
    assert.deepEqual(parseMoment("2026-12-31T23:59:50Z", epoch), { tick: 3590 * 60 });
    assert.deepEqual(parseMoment("2027-01-01T00:59:50+01:00", epoch), { tick: 3590 * 60 });
  });
  await t.step("a shared moment lands within the second after its tick", () => {
    for (const tick of [0, 1, 59, 60, 12_345, 215_999]) {
      const parsed = parseMoment(momentText(epoch, tick), epoch);
      assert.ok("tick" in parsed);
      assert.ok(parsed.tick >= tick && parsed.tick <= tick + 60, `${tick} → ${parsed.tick}`);
    }
  });
  await t.step("a moment opens at its own second, whatever the scene's epoch", () => {
    // An epoch off the whole second (as every real scene's is): the tick a link names must begin
    // within its second, so the replay's clock shows that second (it showed the one before).
    for (const offset of [0, 1, 123, 499, 987]) {
      const odd = epoch + offset;
      for (const tick of [1, 60, 12_345, 215_999]) {
        const text = momentText(odd, tick);
        const named = Date.parse(text);
        const parsed = parseMoment(text, odd) as { tick: number };
        const start = tickTime(odd, parsed.tick);
        assert.ok(start >= named && start < named + 1000, `${offset}/${tick}: ${start - named}`);
        assert.equal(clockText(odd, parsed.tick), clockText(named, 0), `${offset}/${tick}`);
      }
    }
  });
  await t.step("times are said as a person says them", () => {
    const now = new Date(2026, 11, 3, 15, 0, 0).getTime();
    assert.equal(
      friendlyTime(new Date(2026, 11, 3, 14, 2, 10).getTime(), now),
      "today at 14:02:10",
    );
    assert.equal(
      friendlyTime(new Date(2026, 11, 2, 23, 59, 50).getTime(), now),
      "yesterday at 23:59:50",
    );
    assert.equal(
      friendlyTime(new Date(2026, 10, 28, 9, 15, 0).getTime(), now),
      "on 28 Nov at 09:15:00",
    );
    assert.equal(
      friendlyTime(new Date(2025, 11, 31, 23, 0, 0).getTime(), now),
      "on 31 Dec 2025 at 23:00:00",
    );
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
