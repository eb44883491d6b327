import assert from "node:assert/strict";
import { FOUNTAIN_BASIN_RADIUS, LAUNCH_HALF_EXTENT, TICK_RATE } from "../../shared/constants.ts";
import { FIREWORK_KINDS, MAX_BREAKS } from "../../shared/firework_kinds.ts";
import { LaunchBodySchema } from "../../shared/protocol.ts";
import { SHOW_HALF_EXTENT, showLaunchBody, showLaunches } from "../../shared/show.ts";
import { THEMES } from "../../shared/types.ts";

const HOUR = 3600 * TICK_RATE;

Deno.test("show launches are 0.5–2 s apart and sorted", () => {
  for (const seed of [0, 1, 0xdeadbeef, 123456789]) {
    const launches = showLaunches(seed, 0, HOUR);
    assert.ok(launches.length > HOUR / 120, `${launches.length} launches in an hour`);
    let shortest = Infinity, longest = 0;
    for (let k = 1; k < launches.length; k++) {
      const gap = launches[k].tick - launches[k - 1].tick;
      shortest = Math.min(shortest, gap);
      longest = Math.max(longest, gap);
    }
    assert.ok(shortest >= 30, `seed ${seed}: gap ${shortest}`);
    assert.ok(longest <= 120, `seed ${seed}: gap ${longest}`);
    // The whole range is used, not a fixed beat.
    assert.ok(shortest < 40 && longest > 110, `seed ${seed}: gaps ${shortest}..${longest}`);
  }
});

Deno.test("show launches lie in the launch area, clear of the fountain, with every theme", () => {
  const launches = showLaunches(77, 0, HOUR);
  const themes = new Map<string, number>();
  let sumX = 0, sumZ = 0;
  for (const launch of launches) {
    assert.ok(Math.abs(launch.x) <= SHOW_HALF_EXTENT && Math.abs(launch.z) <= SHOW_HALF_EXTENT);
    assert.ok(SHOW_HALF_EXTENT <= LAUNCH_HALF_EXTENT);
    assert.ok(
      Math.hypot(launch.x, launch.z) > FOUNTAIN_BASIN_RADIUS + 2,
      `${launch.x},${launch.z}`,
    );
    assert.ok(Number.isInteger(launch.tick));
    assert.ok(!Object.is(launch.x, -0) && !Object.is(launch.z, -0), "no −0: JSON would lose it");
    assert.deepEqual(JSON.parse(JSON.stringify(launch)), launch);
    themes.set(launch.theme, (themes.get(launch.theme) ?? 0) + 1);
    sumX += launch.x;
    sumZ += launch.z;
  }
  assert.deepEqual([...themes.keys()].sort(), [...THEMES].sort());
  for (const [theme, n] of themes) {
    assert.ok(n > launches.length / THEMES.length * 0.8, `${theme} ${n}`);
  }
  // Spread over the square: the mean position is near the centre.
  assert.ok(Math.abs(sumX / launches.length) < 2 && Math.abs(sumZ / launches.length) < 2);
});

Deno.test("show is the same for the same seed and differs between seeds", () => {
  assert.deepEqual(showLaunches(5, 1000, 20000), showLaunches(5, 1000, 20000));
  assert.notDeepEqual(showLaunches(5, 1000, 20000), showLaunches(6, 1000, 20000));
});

Deno.test("show has random access: any split of a range gives the same launches", () => {
  const seed = 31337;
  for (const [a, c] of [[0, 5000], [17, 4444], [1e9, 1e9 + 3000], [2 ** 40, 2 ** 40 + 999]]) {
    const whole = showLaunches(seed, a, c);
    for (const b of [a, a + 1, a + 74, a + 75, Math.floor((a + c) / 2), c - 1, c]) {
      assert.deepEqual([...showLaunches(seed, a, b), ...showLaunches(seed, b, c)], whole);
    }
    // Stepping tick by tick, as a server does, finds the same launches too.
    const byTick = [];
    for (let tick = a; tick < Math.min(c, a + 600); tick++) {
      byTick.push(...showLaunches(seed, tick, tick + 1));
    }
    assert.deepEqual(byTick, showLaunches(seed, a, Math.min(c, a + 600)));
    for (const launch of whole) assert.ok(launch.tick >= a && launch.tick < c);
  }
});

Deno.test("show of an empty or reversed range is empty; bad ticks are refused", () => {
  assert.deepEqual(showLaunches(1, 500, 500), []);
  assert.deepEqual(showLaunches(1, 600, 500), []);
  assert.throws(() => showLaunches(1, 0.5, 100), /show_range/);
  assert.throws(() => showLaunches(1, 0, Infinity), /show_range/);
});

Deno.test("show uses every firework kind, every theme and multi-break shells", () => {
  const launches = showLaunches(77, 0, HOUR);
  const kinds = new Set(launches.map((l) => l.kind));
  assert.deepEqual([...kinds].sort(), [...FIREWORK_KINDS].sort());
  const multi = launches.filter((l) => l.breaks > 1).length;
  assert.ok(multi > launches.length * 0.08 && multi < launches.length * 0.25, `${multi} multi`);
  assert.ok(launches.every((l) => l.breaks >= 1 && l.breaks <= MAX_BREAKS));
  assert.equal(new Set(launches.map((l) => l.theme)).size, THEMES.length);
});

Deno.test("show launch bodies are valid launches; the theme rides along only under auto", () => {
  for (const launch of showLaunches(5, 0, 60 * TICK_RATE)) {
    const auto = showLaunchBody(launch, "auto");
    assert.deepEqual(LaunchBodySchema.parse(auto), auto);
    assert.equal(auto.theme, launch.theme);
    assert.equal(auto.kind, launch.kind);
    assert.equal(auto.breaks, launch.breaks > 1 ? launch.breaks : undefined);
    assert.equal(showLaunchBody(launch, "rainbow").theme, undefined);
  }
});
