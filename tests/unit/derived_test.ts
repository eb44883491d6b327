/** Derived launches: the seeded show, the finale and cue lists, expanded by every world. */
import assert from "node:assert/strict";
import {
  type CueListSource,
  DERIVED_BY,
  derivedLaunches,
  derivedLaunchesOver,
  type DerivedSources,
  sourcesOf,
} from "../../shared/derived.ts";
import { eventCost } from "../../shared/budget.ts";
import { finaleEnd, finaleLaunches } from "../../shared/finale.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import { showLaunches } from "../../shared/show.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { World, worldFromWindow } from "../../shared/world.ts";

const SEED = 0x5eed;
const countdown = { tick: 900, seconds: 10, intensity: 4 };
const cueList: CueListSource = {
  id: 3,
  start: 2000,
  end: Infinity,
  cues: [
    { at: 0, body: { type: "launch", x: 1, z: 2 } },
    { at: 30, body: { type: "launch", x: -5, z: 8, kind: "palm", theme: "rainbow" } },
    { at: 30, body: { type: "launch", x: 6, z: -3, breaks: 2 } },
  ],
};
const all: DerivedSources = { show: true, theme: "auto", countdown, cueLists: [cueList] };

/** A scene with the show on, a countdown, a click and a settings change or two. */
const events: SceneEvent[] = [
  { seq: 1, tick: 50, by: "ana", body: { type: "launch", x: 3, z: -4 } },
  {
    seq: 2,
    tick: 120,
    by: "ana",
    body: { type: "rules", do: "countdown", countdown },
  },
  { seq: 3, tick: 1400, by: "bo", body: { type: "settings", settings: { theme: "blue-silver" } } },
  { seq: 4, tick: 1900, by: "bo", body: { type: "settings", settings: { show: false } } },
];

Deno.test("derived launches are random access and sorted by tick then seq", () => {
  const whole = derivedLaunches(SEED, all, 0, 3000);
  const split = [
    ...derivedLaunches(SEED, all, 0, 917),
    ...derivedLaunches(SEED, all, 917, 2030),
    ...derivedLaunches(SEED, all, 2030, 3000),
  ];
  assert.deepEqual(split, whole);
  for (let i = 1; i < whole.length; i++) {
    const a = whole[i - 1], b = whole[i];
    assert.ok(a.tick < b.tick || (a.tick === b.tick && a.seq < b.seq), `order at ${i}`);
  }
  assert.ok(whole.every((l) => l.seq < 0 && l.seq >= -(2 ** 31)), "seqs are negative");
  assert.equal(new Set(whole.map((l) => l.seq)).size, whole.length, "each has its own stream");
  // The finale is there whole; the show holds while it and the cue list play.
  const finale = finaleLaunches(SEED, countdown, 0, 3000, "auto");
  assert.equal(
    whole.filter((l) => l.tick >= 900 && l.tick < finaleEnd(countdown)).length,
    finale.length,
  );
  assert.equal(whole.filter((l) => l.tick >= 2000 && l.tick <= 2030).length, 3, "the cues alone");
  const show = showLaunches(SEED, 0, 900).length;
  assert.equal(whole.filter((l) => l.tick < 900).length, show);
});

Deno.test("derived launches follow the sources in force at each tick", () => {
  const over = derivedLaunchesOver(SEED, initialSnapshot(), events, 0, 2400);
  assert.ok(over.every((l) => l.tick <= 1900), "show off at 1900: nothing after");
  const themed = over.filter((l) => l.tick > 1400 && l.tick <= 1900);
  assert.ok(themed.length > 0 && themed.every((l) => l.body.theme === undefined));
  const early = over.filter((l) => l.tick <= 120);
  assert.deepEqual(early, derivedLaunches(SEED, sourcesOf(initialSnapshot()), 0, 121));
});

Deno.test("a late joiner derives the show and the finale as a veteran does, hash for hash", () => {
  const veteran = new World({ seed: SEED });
  for (const event of events) veteran.apply(event);
  let heard = 0;
  veteran.onDerived = (event) => {
    assert.equal(event.by, DERIVED_BY);
    heard++;
  };
  // Ticks inside the finale, after it, and after the show went off; the countdown event is older
  // than every late joiner's window (a rules event must reach the joiner's snapshot).
  for (const tick of [700, 1000, 1300, 1600, 2000, 2500]) {
    veteran.advanceTo(tick);
    const snapshot = advanceSnapshot(initialSnapshot(), events, tick - 480);
    const late = worldFromWindow({ seed: SEED, snapshot, events, tick });
    const whole = worldFromWindow({ seed: SEED, snapshot: initialSnapshot(), events, tick });
    assert.equal(late.hash(), veteran.hash(), `late joiner at ${tick}`);
    assert.equal(whole.hash(), veteran.hash(), `window from tick 0 at ${tick}`);
  }
  assert.equal(veteran.derivedSkipped, 0);
  const expected = derivedLaunchesOver(SEED, initialSnapshot(), events, 0, 2500).length;
  assert.equal(heard, expected, "every derived launch is applied once");
});

Deno.test("a derived launch the sky cannot hold is skipped, not thrown or evicted", () => {
  const costs = derivedLaunches(SEED, sourcesOf(initialSnapshot()), 0, 600)
    .map((l) => eventCost(SEED, { ...l, by: DERIVED_BY }).particles);
  const world = new World({ seed: SEED, capacity: Math.min(...costs) - 1 });
  world.advanceTo(600);
  assert.equal(world.derivedSkipped, costs.length);
  assert.equal(world.usedSlots(), 0);
});
