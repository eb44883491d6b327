import assert from "node:assert/strict";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { World } from "../../shared/world.ts";
import { FireworkSparks } from "../../client/render/firework_sparks.ts";
import {
  BREAK_TEXELS,
  LAUNCH_ROW,
  MAX_BREAKS_PER_GROUP,
} from "../../client/render/firework_break_table.ts";
import { createPointUniforms } from "../../client/render/point_uniforms.ts";
import * as THREE from "three";

/**
 * The row slot `i`'s reference names when the shader draws from it (inside the slot range of
 * its group's launch row), else −1 (none, or a stale reference in an ended launch's gap).
 */
function liveRow(gpu: FireworkSparks, i: number): number {
  const { refs, breaks } = gpu.writtenRows;
  if (refs[i * 2] < 0.5) return -1;
  const row = Math.round(refs[i * 2]) - 1;
  const launch = (row - (row % MAX_BREAKS_PER_GROUP) + LAUNCH_ROW) * BREAK_TEXELS * 4;
  const local = i - breaks[launch + 16];
  return local >= 0 && local < breaks[launch + 17] ? row : -1;
}

/** The first index where `a` and `b` differ (their lengths too), else −1. */
function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

function sparks(keepEvery = 1): FireworkSparks {
  return new FireworkSparks({
    uniforms: createPointUniforms(),
    viewport: { value: new THREE.Vector2(1, 1) },
    glow: 1,
    intensity: 1,
    tailTicks: 5,
    classTicks: [],
    classYouth: [],
    tailLight: 0.2,
    keepEvery,
    renderOrder: 0,
  });
}

/**
 * Where the shader draws each spark (drawn iff alive, at shared/'s position) is checked by running
 * the shader itself: tests/browser/firework_spark_shader_test.ts. These tests check what the
 * renderer writes for it.
 */
Deno.test("GPU firework sparks: written once a launch, not once a live spark", () => {
  const world = new World({ seed: 0x18, capacity: 400_000 });
  let seq = 0;
  for (let tick = 0; tick < 300; tick += 9) {
    const kind = FIREWORK_KINDS[seq % FIREWORK_KINDS.length];
    seq++;
    world.apply({
      seq,
      tick,
      by: "t",
      body: { type: "launch", x: (seq % 7) * 10 - 30, z: 0, kind, breaks: 1 + (seq % 3) },
    });
  }
  const gpu = sparks();
  gpu.bind(world);
  let births = 0, all = 0;
  while (world.tick < 620) {
    world.step();
    gpu.update(1);
    births += gpu.written + gpu.referenced;
    all += world.fireworkSystem.live();
  }
  console.log(`${births} slots written for ${all} spark-frames`);
  assert.ok(all > 1_000_000, `${all} spark-frames`);
  // Slots written follow launches (each launch's rows and references, once), not the live
  // sparks drawn each frame.
  assert.ok(births < all / 10, `${births} slots written for ${all} spark-frames`);
  gpu.dispose();
});

Deno.test("GPU firework sparks: an update writes only new launches, once each", () => {
  // Peonies and crackles split tens of sparks at scattered ticks (their children lie far apart in
  // the block), chrysanthemums trail: each update must write the births and their ember rings
  // only, not the span between a launch's first and last birth of the tick.
  const world = new World({ seed: 0x1a, capacity: 400_000 });
  world.reserveSlots(400_000, 0); // no growth (the next test grows)
  const kinds = ["peony", "crackle", "chrysanthemum"] as const;
  for (let seq = 1; seq <= 60; seq++) {
    const body = { type: "launch" as const, x: (seq % 9) * 8 - 36, z: 0, kind: kinds[seq % 3] };
    // Two launches a tick: their slots lie side by side, one copy of references for both.
    world.apply({ seq, tick: (seq >> 1) * 6, by: "t", body });
  }
  const gpu = sparks();
  gpu.bind(world);
  world.step();
  gpu.update(1); // the first update writes every slot
  const system = world.fireworkSystem;
  let frames = 0, expectedAll = 0, bornNow = 0, fewerUploads = 0;
  // Breaks this test placed in shared/ (to read their births from the pool).
  const placedHere = new WeakMap<object, number>();
  while (world.tick < 420) {
    world.step();
    gpu.update(1);
    // Written: a new launch's launch row and break rows (at the update after the step that
    // applied it) and a reference for every slot; a break, a split or an ember wave writes
    // nothing, however many sparks are born each tick.
    const expected = writtenAfterStep(world);
    // Sparks and children born at this tick (placed by the shader from their break's row; the
    // first test checks that they are drawn where shared/ has them).
    const { maxLife, born } = system.pool;
    for (const block of system.pool.blocks) {
      // The renderer placed none of these spheres' sparks in shared/ (the GPU places them from
      // their break); reading the pool here places them.
      const before = placedHere.get(block) ?? 0;
      assert.equal(block.burstsWritten, before, `launch ${block.seq}: placed on the CPU`);
      system.placeBursts(block);
      placedHere.set(block, block.burstsWritten);
      for (let r = block.plan.trailEnd; r < block.plan.slots; r++) {
        const i = block.start + r;
        if (maxLife[i] > 0 && block.tick + born[i] === world.tick) bornNow++;
      }
    }
    assert.equal(gpu.written, expected.rows, `tick ${world.tick}: rows written`);
    assert.equal(gpu.referenced, expected.refs, `tick ${world.tick}: references written`);
    // One copy per run of adjacent new launches, not one a launch.
    assert.equal(gpu.uploads, expected.runs, `tick ${world.tick}: reference uploads`);
    if (expected.runs < expected.launches) fewerUploads++;
    expectedAll += expected.rows + expected.refs;
    frames++;
  }
  assert.ok(expectedAll > 20_000, `${expectedAll} slots written over ${frames} frames`);
  assert.ok(bornNow > 5_000, `${bornNow} sparks and children born`);
  assert.ok(fewerUploads > 0, `${fewerUploads} updates copied adjacent launches at once`);
  gpu.dispose();
});

Deno.test("GPU firework sparks: a growing pool's references are copied, only new launches written", () => {
  // Launches faster than any ends, so the pool's buffer grows again and again: each growth copies
  // the references (on the GPU; here the mirror's array) and writes only that frame's launches,
  // and what is drawn equals what writing everything from scratch gives.
  const world = new World({ seed: 0x1b, capacity: 400_000 });
  const kinds = ["peony", "chrysanthemum", "crackle", "willow"] as const;
  for (let seq = 1; seq <= 40; seq++) {
    const body = { type: "launch" as const, x: (seq % 9) * 8 - 36, z: 0, kind: kinds[seq % 4] };
    world.apply({ seq, tick: seq * 4, by: "t", body });
  }
  const pool = world.fireworkSystem.pool;
  const gpu = sparks();
  gpu.bind(world);
  world.step();
  gpu.update(1);
  let growths = 0, births = 0, allSlots = 0;
  while (world.tick < 200) {
    const before = pool.allocated;
    world.step();
    gpu.update(1);
    if (pool.allocated === before) continue;
    growths++;
    const expected = writtenAfterStep(world);
    assert.equal(gpu.written, expected.rows, `tick ${world.tick}: only new launches written`);
    assert.equal(gpu.referenced, expected.refs, `tick ${world.tick}: only new launches referenced`);
    births += gpu.written + gpu.referenced;
    allSlots += pool.count;
    const fresh = sparks();
    fresh.bind(world);
    fresh.update(1);
    const ra = gpu.writtenRows, rb = fresh.writtenRows;
    assert.equal(ra.refs.length, rb.refs.length);
    const shift = gpu.epochTick - fresh.epochTick;
    // References name the same place in rows with the same numbers (the rows themselves are
    // numbered in the order each renderer met the launches); nothing is drawn past the blocks.
    for (let i = 0; i < pool.allocated; i++) {
      const rowA = liveRow(gpu, i), rowB = liveRow(fresh, i);
      assert.equal(rowA >= 0, rowB >= 0, `slot ${i}: referenced`);
      if (i >= pool.count) assert.equal(ra.refs[i * 2], 0, `slot ${i}: past the blocks`);
      if (rowA < 0) continue;
      assert.equal(ra.refs[i * 2 + 1], rb.refs[i * 2 + 1], `slot ${i}: place`);
      const launchRow = (rowA % MAX_BREAKS_PER_GROUP) === LAUNCH_ROW;
      for (let c = 0; c < (launchRow ? 18 : 20); c++) {
        const x = ra.breaks[rowA * 32 + c] + (c === 3 ? shift : 0);
        assert.equal(x, rb.breaks[rowB * 32 + c], `slot ${i}: row float ${c}`);
      }
    }
    fresh.dispose();
  }
  console.log(`${growths} growths: ${births} slots written of ${allSlots} in use`);
  assert.equal(gpu.grownUpdates, growths);
  assert.ok(growths >= 5, `${growths} growths`);
  assert.ok(births < allSlots / 4, `${births} slots written at growths of ${allSlots} in use`);
  gpu.dispose();
});

/**
 * What an update right after `world`'s step writes: for each launch the step applied, its launch
 * row and one row per break, and a reference for every slot of the launch, once; a break, a
 * split or an ember wave writes nothing (the shader derives what is born). The references go up
 * in one copy for each run of launches lying side by side in the pool.
 */
function writtenAfterStep(
  world: World,
): { rows: number; refs: number; launches: number; runs: number } {
  let rows = 0, refs = 0, launches = 0, runs = 0, end = -1;
  for (const block of world.fireworkSystem.pool.blocks) {
    if (block.tick !== world.tick - 1) continue;
    rows += 1 + block.plan.breaks;
    refs += block.size;
    launches++;
    if (block.start !== end) runs++;
    end = block.start + block.size;
  }
  return { rows, refs, launches, runs };
}

Deno.test("GPU firework sparks: launches in ended ones' gaps and after a compaction are written once", () => {
  // A tight, always full sky of launches of every size and life: the pool puts new launches in
  // the gaps ended ones left (the references left there must stay dark) and, when no gap holds
  // one, compacts (the references are moved on the GPU, not written again). The browser test
  // runs the shader on this sky (tests/browser/firework_spark_shader_test.ts).
  // Show off: the sky is this test's launches only, not the seeded show the world derives.
  const world = new World({
    seed: 0x19,
    capacity: 60_000,
    snapshot: initialSnapshot({ show: false }),
  });
  const pool = world.fireworkSystem.pool;
  const gpu = sparks();
  gpu.bind(world);
  let seq = 0, writtenAfterMoves = 0, moved = 0, reused = 0;
  for (let tick = 0; tick < 1500; tick++) {
    if (tick % 3 === 0) {
      seq++;
      const kind = FIREWORK_KINDS[(seq * 3) % FIREWORK_KINDS.length], breaks = 1 + ((seq * 7) % 3);
      try {
        world.apply({
          seq,
          tick,
          by: "t",
          body: { type: "launch", x: (seq % 5) * 8, z: 0, kind, breaks },
        });
      } catch {
        // sky_full: the world refuses it, as the server's admission would
      }
    }
    const top = pool.count, blocks = pool.blocks.length;
    try {
      world.step();
    } catch {
      seq++;
      continue;
    }
    gpu.update(1);
    const intoGap = pool.blocks.length > blocks && pool.blocks[pool.blocks.length - 1].start < top;
    if (intoGap) reused++;
    const afterMoves = gpu.movedUpdates > moved;
    if (afterMoves) {
      moved = gpu.movedUpdates;
      writtenAfterMoves += gpu.written + gpu.referenced;
    }
  }
  assert.ok(reused >= 50, `${reused} launches took an ended one's gap`);
  assert.ok(moved >= 1, `${moved} compactions followed by moves`);
  console.log(`${reused} reused, ${moved} moves, ${writtenAfterMoves} written after moves`);
  // A compaction writes no reference again: what is written after one is that frame's launches.
  assert.ok(writtenAfterMoves < 10_000 * moved, `${writtenAfterMoves} slots written after moves`);
  gpu.dispose();
});

Deno.test("GPU firework sparks: a sky that keeps no births per slot writes the rows a kept one does", () => {
  // A big sky's pool keeps no births per slot (shared/fireworks/window.ts): the renderer reads
  // each new launch's shell and burst frames from a one-launch window instead. Same events, same
  // layout (both reserve the same buffer); one keeps its births per slot.
  const worlds = [0, 1].map(() => new World({ seed: 0x2b, capacity: 400_000 }));
  for (const world of worlds) world.reserveSlots(400_000, 0);
  worlds[1].fireworkSystem.keepBirths();
  const gpus = worlds.map((world) => {
    const gpu = sparks();
    gpu.bind(world);
    return gpu;
  });
  let seq = 0, compared = 0;
  for (let tick = 0; tick < 360; tick++) {
    for (const world of worlds) {
      if (tick % 5 === 0 && tick < 300) {
        world.apply({
          seq: seq + 1,
          tick,
          by: "t",
          body: {
            type: "launch",
            x: (seq % 7) * 10 - 30,
            z: 0,
            kind: FIREWORK_KINDS[seq % FIREWORK_KINDS.length],
            breaks: 1 + (seq % 3),
          },
        });
      }
      world.step();
    }
    if (tick % 5 === 0 && tick < 300) seq++;
    gpus.forEach((gpu) => gpu.update(1));
    if (tick % 10 !== 0) continue;
    const [a, b] = gpus.map((gpu) => gpu.writtenRows);
    assert.equal(firstDifference(a.breaks, b.breaks), -1, `rows at tick ${tick}`);
    assert.equal(firstDifference(a.refs, b.refs), -1, `references at tick ${tick}`);
    compared++;
  }
  assert.equal(worlds[0].fireworkSystem.pool.windowed, true);
  assert.equal(worlds[1].fireworkSystem.pool.windowed, false);
  assert.ok(seq >= 60 && compared === 36);
  gpus.forEach((gpu) => gpu.dispose());
});
