import assert from "node:assert/strict";
import { DEFAULT_SKY_CAP, MAX_FLAKES } from "../../shared/constants.ts";
import { TickInPastError } from "../../shared/errors.ts";
import { DEFAULT_SETTINGS, initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { World } from "../../shared/world.ts";

const launch = (seq: number, tick: number, x = 0): SceneEvent => ({
  seq,
  tick,
  by: "p",
  body: { type: "launch", x, z: 0 },
});

Deno.test("world apply() with an already simulated tick throws a RangeError", () => {
  const world = new World({ seed: 1 });
  world.advanceTo(10);
  assert.throws(
    () => world.apply(launch(1, 9)),
    (e: unknown) => e instanceof RangeError && e instanceof TickInPastError,
  );
  world.apply(launch(2, 10)); // the current tick is still open
  assert.throws(() => world.advanceTo(5), RangeError);
});

Deno.test("world starts from its snapshot and reports state at its tick", () => {
  const fresh = new World({ seed: 1 });
  assert.equal(fresh.tick, 0);
  assert.deepEqual(fresh.settings, DEFAULT_SETTINGS);
  assert.deepEqual(fresh.snapshot(), initialSnapshot());
  assert.equal(fresh.snow.count, Math.round(DEFAULT_SETTINGS.snow * MAX_FLAKES));
  const later = new World({ seed: 1, snapshot: { ...initialSnapshot({ snow: 1 }), tick: 500 } });
  assert.equal(later.tick, 500);
  assert.equal(later.snow.count, MAX_FLAKES);
  later.advanceTo(520);
  assert.equal(later.snapshot().tick, 520);
  assert.match(later.hash(), /^[0-9a-f]{16}$/);
});

Deno.test("world applies same-tick events in seq order whatever order they arrive in", () => {
  const settings = (seq: number, snow: number): SceneEvent => ({
    seq,
    tick: 3,
    by: "p",
    body: { type: "settings", settings: { snow } },
  });
  const a = new World({ seed: 1 }), b = new World({ seed: 1 });
  a.apply(settings(1, 0.2));
  a.apply(settings(2, 0.9));
  b.apply(settings(2, 0.9));
  b.apply(settings(1, 0.2));
  a.advanceTo(4);
  b.advanceTo(4);
  assert.equal(a.settings.snow, 0.9);
  assert.equal(b.settings.snow, 0.9);
  assert.equal(a.hash(), b.hash());
  assert.deepEqual(a.snapshot(), b.snapshot());
});

Deno.test("world settings change only at their event's tick", () => {
  const world = new World({ seed: 1 });
  world.apply({
    seq: 1,
    tick: 5,
    by: "p",
    body: { type: "settings", settings: { fountain: false } },
  });
  world.advanceTo(5);
  assert.equal(world.settings.fountain, true);
  world.step();
  assert.equal(world.settings.fountain, false);
  assert.equal(world.snapshot().settings.fountain, false);
});

Deno.test("world hash depends on seed, tick and every system", () => {
  const base = () => {
    const w = new World({ seed: 7 });
    w.apply(launch(1, 0));
    w.apply({
      seq: 2,
      tick: 0,
      by: "p",
      body: { type: "gun", origin: [0, 1, 0], direction: [0, 1, 0] },
    });
    return w;
  };
  const a = base(), b = base();
  a.advanceTo(60);
  b.advanceTo(60);
  assert.equal(a.hash(), b.hash());
  assert.notEqual(new World({ seed: 7 }).hash(), new World({ seed: 8 }).hash());
  const c = base();
  c.advanceTo(61);
  assert.notEqual(c.hash(), a.hash());
  const d = new World({ seed: 7 });
  d.apply(launch(1, 0, 0.5)); // a different launch point moves the shell and trail
  d.apply({
    seq: 2,
    tick: 0,
    by: "p",
    body: { type: "gun", origin: [0, 1, 0], direction: [0, 1, 0] },
  });
  d.advanceTo(60);
  assert.notEqual(d.hash(), a.hash());
  assert.ok(a.liveParticles() > 0);
});

Deno.test("world views expose live fireworks, gun shots, fountain and snow", () => {
  const world = new World({ seed: 3, capacity: DEFAULT_SKY_CAP });
  world.apply(launch(1, 0));
  world.apply({
    seq: 2,
    tick: 0,
    by: "p",
    body: { type: "gun", origin: [0, 1, 0], direction: [0, 1, 0] },
  });
  world.advanceTo(150);
  assert.ok(world.fireworks.count > 500);
  assert.ok(world.gun.count > 0);
  assert.ok(world.fountain.count > 0);
  const out = new Float32Array(world.snow.count * 3);
  world.snow.fill(150.5, out);
  assert.ok(out.some((v) => v !== 0));
  let visible = 0;
  for (const view of [world.fireworks, world.gun, world.fountain]) {
    for (let i = 0; i < view.count; i++) if (view.color[i * 4 + 3] > 0) visible++;
  }
  assert.equal(visible, world.liveParticles());
});
