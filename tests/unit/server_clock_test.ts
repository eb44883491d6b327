/** The server clock and each scene's tick clock. */
import assert from "node:assert/strict";
import { TICK_MS } from "../../shared/constants.ts";
import { SceneClock, ServerClock } from "../../server/scene/clock.ts";

function fakeTime(startWall: number) {
  const t = { wall: startWall, mono: 1000 };
  return { t, now: () => t.wall, monotonic: () => t.mono };
}

Deno.test("scene clock counts ticks from the epoch on the monotonic clock", async (t) => {
  await t.step("ticks follow monotonic time, not later wall-clock jumps", () => {
    const { t: time, now, monotonic } = fakeTime(1_000_000);
    const server = new ServerClock(now, monotonic);
    const clock = new SceneClock(server, 1_000_000 - 10.5 * TICK_MS, 0);
    assert.equal(clock.tick(), 10);
    time.mono += 100 * TICK_MS;
    time.wall -= 3_600_000; // the wall clock steps back an hour: ignored while running
    assert.equal(clock.tick(), 110);
  });
  await t.step(
    "never reports a tick below its floor (restart after the wall clock stepped back)",
    () => {
      const { now, monotonic } = fakeTime(1_000_000);
      const server = new ServerClock(now, monotonic);
      const clock = new SceneClock(server, 1_000_000, 500);
      assert.equal(clock.tick(), 500);
      assert.ok(clock.exactTick() >= 500);
    },
  );
});
