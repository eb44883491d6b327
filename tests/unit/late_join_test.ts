import assert from "node:assert/strict";
import { WINDOW_TICKS } from "../../shared/constants.ts";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import { World, worldFromWindow } from "../../shared/world.ts";
import { busyScenario } from "../../testing/world_scenarios.ts";

const SEED = 0xc0ffee;
const events = busyScenario({ key: 7, ticks: 2400, launchGap: 25, gunGap: 60, settingsGap: 120 });

/** A late joiner at T: the true snapshot at T − W plus only the events in [T − W, T). */
function lateJoiner(T: number): World {
  const from = Math.max(0, T - WINDOW_TICKS);
  return worldFromWindow({
    seed: SEED,
    snapshot: advanceSnapshot(initialSnapshot(), events, from),
    events: events.filter((e) => e.tick >= from && e.tick < T),
    tick: T,
  });
}

Deno.test("late joiner equals the veteran at many ticks", async (t) => {
  const checkpoints = [200, 479, 480, 481, 733, 960, 1111, 1440, 1500, 1777, 2048, 2399];
  const veteran = new World({ seed: SEED });
  for (const e of events) veteran.apply(e);
  await t.step("the scenario is busy: overlapping fireworks, gun, settings, fountain", () => {
    const kinds = new Set(events.map((e) => e.body.type));
    assert.deepEqual(kinds, new Set(["launch", "gun", "settings"]));
  });
  await t.step("launches of every firework kind, aimed and multi-break ones among them", () => {
    const launches = events.flatMap((e) => e.body.type === "launch" ? [e.body] : []);
    assert.deepEqual(new Set(launches.map((l) => l.kind)), new Set(FIREWORK_KINDS));
    assert.equal(launches.some((l) => l.y !== undefined), true);
    assert.equal(launches.some((l) => (l.breaks ?? 1) > 1), true);
  });
  for (const T of checkpoints) {
    await t.step(`at tick ${T}`, () => {
      veteran.advanceTo(T);
      const joiner = lateJoiner(T);
      assert.equal(joiner.tick, T);
      assert.deepEqual(joiner.snapshot(), veteran.snapshot());
      assert.deepEqual(joiner.liveParticles(), veteran.liveParticles());
      // Reserved slots agree; where they lie does not (the veteran's arena keeps ended
      // launches' gaps until it compacts), and the hash does not depend on it.
      assert.deepEqual(joiner.usedSlots(), veteran.usedSlots());
      assert.equal(joiner.hash(), veteran.hash());
      if (T >= 480) assert.equal(veteran.usedSlots() > 2000, true, "fireworks overlap");
    });
  }
});

Deno.test("late joiner stepping every event and tick of the window also equals the veteran", () => {
  const T = 1300;
  const veteran = new World({ seed: SEED });
  for (const e of events) veteran.apply(e);
  veteran.advanceTo(T);
  const snapshot = advanceSnapshot(initialSnapshot(), events, T - WINDOW_TICKS);
  const plain = new World({ seed: SEED, snapshot });
  for (const e of events) if (e.tick >= T - WINDOW_TICKS && e.tick < T) plain.apply(e);
  plain.advanceTo(T);
  assert.equal(plain.hash(), veteran.hash());
});

Deno.test("late joiner keeps agreeing as both step on with later and already-queued events", () => {
  const T = 1000;
  const veteran = new World({ seed: SEED });
  for (const e of events) veteran.apply(e);
  veteran.advanceTo(T);
  const from = T - WINDOW_TICKS;
  // Like a welcome: the window plus events already stamped at or after the horizon.
  const joiner = worldFromWindow({
    seed: SEED,
    snapshot: advanceSnapshot(initialSnapshot(), events, from),
    events: events.filter((e) => e.tick >= from && e.tick < T + 30),
    tick: T,
  });
  for (const e of events) if (e.tick >= T + 30) joiner.apply(e);
  for (let tick = T + 1; tick <= T + 600; tick++) {
    veteran.step();
    joiner.step();
    if (tick % 60 === 0) assert.equal(joiner.hash(), veteran.hash(), `tick ${tick}`);
  }
});

Deno.test("late joiner with too short a window differs from the veteran", () => {
  const T = 1500;
  const veteran = new World({ seed: SEED });
  for (const e of events) veteran.apply(e);
  veteran.advanceTo(T);
  const from = T - 100;
  const short = worldFromWindow({
    seed: SEED,
    snapshot: advanceSnapshot(initialSnapshot(), events, from),
    events: events.filter((e) => e.tick >= from && e.tick < T),
    tick: T,
  });
  assert.notEqual(short.hash(), veteran.hash());
});
