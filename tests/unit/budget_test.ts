import assert from "node:assert/strict";
import { eventCost } from "../../shared/budget.ts";
import { SkyFullError } from "../../shared/errors.ts";
import { FIREWORK_MAX_LIFE, planFirework } from "../../shared/firework_plan.ts";
import { GUN_SHOTS } from "../../shared/gun.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { World } from "../../shared/world.ts";
import { busyScenario } from "../../testing/world_scenarios.ts";

const SEED = 99;

/**
 * Slots reserved in the state at `tick`: events occupy slots while ticks in [event.tick, end)
 * are simulated, so the state at `tick` holds those applied before it and not yet ended.
 */
function budgetAt(events: readonly SceneEvent[], tick: number): number {
  let slots = 0;
  for (const e of events) {
    const { particles, endTick } = eventCost(SEED, e);
    if (e.tick < tick && tick < endTick) slots += particles;
  }
  return slots;
}

Deno.test("eventCost prices launches by their plan, volleys by their shots, settings free", () => {
  const launch: SceneEvent = { seq: 7, tick: 100, by: "a", body: { type: "launch", x: 1, z: 2 } };
  const plan = planFirework(SEED, 7, launch.body as { x: number; z: number });
  assert.deepEqual(eventCost(SEED, launch), {
    particles: plan.slots,
    endTick: 100 + plan.lifeTicks,
  });
  assert.ok(plan.slots > 500 && plan.slots < 4000);
  const gun: SceneEvent = {
    seq: 8,
    tick: 50,
    by: "a",
    body: { type: "gun", origin: [0, 1, 0], direction: [1, 0, 0] },
  };
  assert.equal(eventCost(SEED, gun).particles, GUN_SHOTS);
  assert.ok(eventCost(SEED, gun).endTick > 50);
  const settings: SceneEvent = {
    seq: 9,
    tick: 60,
    by: "a",
    body: { type: "settings", settings: { snow: 1 } },
  };
  assert.deepEqual(eventCost(SEED, settings), { particles: 0, endTick: 60 });
  // Different launches cost different amounts: the price comes from each one's own stream.
  const costs = new Set<number>();
  for (let seq = 1; seq <= 20; seq++) {
    costs.add(eventCost(SEED, { ...launch, seq }).particles);
  }
  assert.ok(costs.size > 10);
});

Deno.test("budgets are never exceeded: live particles ≤ reserved slots = Σ eventCost", () => {
  const events = busyScenario({ key: 5, ticks: 1200, launchGap: 20, gunGap: 40 });
  const world = new World({ seed: SEED, snapshot: initialSnapshot({ show: false }) });
  for (const e of events) world.apply(e);
  let peak = 0;
  // Events end by 1200; their particles are dead FIREWORK_MAX_LIFE ticks later at most.
  for (let tick = 1; tick <= 1200 + FIREWORK_MAX_LIFE; tick++) {
    world.advanceTo(tick);
    const reserved = budgetAt(events, tick);
    assert.equal(world.usedSlots(), reserved, `tick ${tick}`);
    // The firework pool leaves ended launches' slots as dead gaps until it compacts.
    assert.ok(world.fireworks.count + world.gun.count >= reserved);
    let alive = 0;
    for (const view of [world.fireworks, world.gun]) {
      for (let i = 0; i < view.count; i++) if (view.color[i * 4 + 3] > 0) alive++;
    }
    assert.ok(alive <= reserved);
    peak = Math.max(peak, reserved);
  }
  assert.ok(peak > 10_000, `the scenario is busy (peak ${peak} slots)`);
  assert.equal(world.usedSlots(), 0, "everything freed after the last event's end tick");
});

Deno.test("a world over capacity throws sky_full instead of evicting", () => {
  const cost = eventCost(SEED, {
    seq: 1,
    tick: 0,
    by: "a",
    body: { type: "launch", x: 0, z: 0 },
  }).particles;
  const world = new World({
    seed: SEED,
    snapshot: initialSnapshot({ show: false }),
    capacity: cost + 10,
  });
  world.apply({ seq: 1, tick: 0, by: "a", body: { type: "launch", x: 0, z: 0 } });
  world.apply({ seq: 2, tick: 5, by: "a", body: { type: "launch", x: 5, z: 0 } });
  world.advanceTo(5);
  assert.throws(
    () => world.step(),
    (e: unknown) => e instanceof SkyFullError && e.code === "sky_full",
  );
});
