import assert from "node:assert/strict";
import { busyScenario } from "../../testing/world_scenarios.ts";
import { Hasher } from "../../shared/hash.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { WordRecorder } from "../../shared/word_recorder.ts";
import { World } from "../../shared/world.ts";
import type { SceneEvent } from "../../shared/types.ts";

const SEED = 0xc4ec;
/** Every kind, trails and embers, multi-break and aimed launches, gun volleys, settings. */
const EVENTS: SceneEvent[] = busyScenario({ key: 18, ticks: 1500, launchGap: 6, gunGap: 60 });

/**
 * Just above the scenario's peak of slots in use (~110k): launches take the gaps ended ones
 * left soon after they end, overwriting what the hash under way has not read yet if it did not
 * hash a launch before it ends.
 */
const TIGHT = 112_000;

/** A world with the scenario's events, at `tick`. */
function worldAt(tick: number, capacity = 2_000_000): World {
  const world = new World({ seed: SEED, capacity, snapshot: initialSnapshot({ show: false }) });
  for (const event of EVENTS) world.apply(event);
  world.advanceTo(tick);
  return world;
}

Deno.test("word recorder replays exactly the words a hasher would have mixed", () => {
  const recorder = new WordRecorder();
  const words = new Uint32Array([1, 0xffffffff, 0x80000000, 7]);
  const direct = new Hasher().u32(9);
  const replayed = new Hasher().u32(9);
  for (const h of [direct, recorder]) {
    h.u32(-1).int(2 ** 40 + 3).f32(0.1).f64(-2.5).words(words, 1, 4);
    // More than its first storage holds: it grows.
    for (let i = 0; i < 3000; i++) h.u32(i * 2654435761);
  }
  recorder.replayInto(replayed);
  assert.equal(recorder.length, 1 + 2 + 1 + 2 + 3 + 3000);
  assert.equal(replayed.digest(), direct.digest());
  assert.throws(() => recorder.digest(), /replay the words/);
  recorder.reset();
  assert.equal(recorder.length, 0);
});

Deno.test("checkpoint hash evaluated over later ticks equals the hash at its tick", async (t) => {
  // Checkpoints in a busy sky: launches rising, bursting, trailing embers and ending while the
  // hash is under way.
  for (const tick of [240, 600, 1020]) {
    const expected = worldAt(tick).hash();

    await t.step(`at tick ${tick}, a launch every 10 steps in a full sky`, () => {
      const world = worldAt(tick, TIGHT);
      assert.equal(world.hash(), expected);
      const job = world.beginHash();
      assert.equal(job.tick, tick);
      assert.ok(job.slots > 10_000, `${job.slots} slots to evaluate`);
      let digest: string | null = null;
      let steps = 0;
      // Slower than launches end: most are hashed by the step that drops them, before a new
      // launch takes their slots.
      while ((digest = steps % 10 === 0 ? job.work(1) : null) === null) {
        world.step();
        steps++;
      }
      assert.ok(steps > 100, `${steps} steps while the hash was under way`);
      assert.equal(digest, expected);
      assert.equal(job.finish(), expected);
      assert.equal(world.hash(), worldAt(world.tick, TIGHT).hash(), "the world went on unchanged");
    });

    await t.step(`at tick ${tick}, the world read and hashed while it is under way`, () => {
      const world = worldAt(tick);
      const job = world.beginHash();
      // Later evaluations move the launches' rings and first live slots on: the job hashes them
      // as they were.
      let read = 0;
      for (let i = 0; i < 30; i++) {
        world.step();
        // A view read and the exact count evaluate the launches at the current tick.
        read += world.fireworks.position.length + world.liveParticles();
        job.work(2000);
      }
      assert.ok(read > 0);
      assert.equal(job.finish(), expected);
      // The world itself goes on as if no hash had been under way.
      assert.equal(world.hash(), worldAt(world.tick).hash());
    });
  }

  await t.step("hash() and a second beginHash finish the one under way", () => {
    const world = worldAt(600);
    const first = world.beginHash();
    world.step();
    const second = world.beginHash();
    assert.equal(first.digest, worldAt(600).hash());
    world.step();
    assert.equal(world.hash(), worldAt(602).hash());
    assert.equal(second.digest, worldAt(601).hash());
  });

  await t.step("a world that jumps finishes the hash first", () => {
    const world = worldAt(600);
    const job = world.beginHash();
    world.fastForwardTo(700);
    assert.equal(job.finish(), worldAt(600).hash());
    assert.equal(world.hash(), worldAt(700).hash());
  });
});
