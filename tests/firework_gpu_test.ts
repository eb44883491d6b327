import assert from "node:assert/strict";
import { FIREWORK_KINDS } from "../shared/firework_kinds.ts";
import { World } from "../shared/world.ts";
import { FireworkSparks } from "../client/render/firework_sparks.ts";
import { fireworkHead } from "../client/render/firework_shader_math.ts";
import { EMBER_T, SHELL_TRAIL_ROW } from "../client/render/firework_ember_packing.ts";
import { DERIVED, INDEX_SPAN } from "../client/render/firework_derived_packing.ts";
import { EMBER_N } from "../client/render/firework_ember_packing.ts";
import { createPointUniforms } from "../client/render/point_uniforms.ts";
import * as THREE from "three";

/** Largest distance (metres) allowed between the shader's float32 head and shared/'s position. */
const TOLERANCE_M = 1e-4;
/**
 * The same for a spark placed on the GPU (a derived record: a sphere's or palm's spark, child or
 * ember): its velocity is built in float32 (cos, sin, the noise blend, a split's parent carried
 * to its delay), not rounded once from shared/'s float64. 1 mm is a hundredth of a pixel at the
 * nearest burst.
 */
const DERIVED_TOLERANCE_M = 1e-3;

/** The tolerance for slot `i` of `gpu`: placed on the GPU from its break, or from a record. */
function tolerance(gpu: FireworkSparks, i: number): number {
  return gpu.shaderRows.refs[i * 2] > 0 ? DERIVED_TOLERANCE_M : TOLERANCE_M;
}

/** Whether slot `i` of `gpu` is an ember placed on the GPU from its break. */
function isEmber(refs: Float32Array, i: number): boolean {
  return refs[i * 2] > 0 && Math.floor(refs[i * 2 + 1] / (EMBER_N * INDEX_SPAN)) === DERIVED.ember;
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

Deno.test("GPU firework sparks: drawn where shared/ has them, within 0.1 mm, from births only", async (t) => {
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
  const head = new Float32Array(3);
  let worst = 0, worstPlaced = 0, compared = 0, placed = 0, births = 0, all = 0, embers = 0;
  for (const sample of [20, 61, 95, 130, 200, 260, 333, 410, 500, 620]) {
    while (world.tick < sample) {
      world.step();
      gpu.update(1);
      births += gpu.written + gpu.referenced;
      all += world.fireworkSystem.live();
    }
    await t.step(`tick ${sample}`, () => {
      const view = world.fireworks;
      const mirror = gpu.mirror;
      const tick = world.tick - gpu.epochTick;
      // Reading the view evaluates shared/'s closed form at this tick, lives included (the pool
      // keeps them from the first read on).
      const life = view.position && world.fireworkSystem.pool.life;
      const rows = gpu.shaderRows;
      for (let i = 0; i < view.count; i++) {
        const alive = life[i] > 0;
        const drawn = fireworkHead(mirror, i, tick, 1, head, rows);
        if (isEmber(rows.refs, i)) embers += drawn ? 1 : 0;
        assert.equal(drawn, alive, `slot ${i}: drawn by the shader iff alive in shared/`);
        if (!drawn) continue;
        // Placed on the GPU (a derived record) or born on the CPU: each kind's worst error.
        const onGpu = rows.refs[i * 2] > 0;
        let error = 0;
        for (let c = 0; c < 3; c++) {
          error = Math.max(error, Math.abs(head[c] - view.position[i * 3 + c]));
        }
        fireworkHead(mirror, i, tick, 0, head, rows);
        for (let c = 0; c < 3; c++) {
          error = Math.max(error, Math.abs(head[c] - view.previous[i * 3 + c]));
        }
        if (onGpu) worstPlaced = Math.max(worstPlaced, error);
        else worst = Math.max(worst, error);
        placed += onGpu ? 1 : 0;
        compared++;
      }
    });
  }
  console.log(
    `${compared} sparks (${embers} embers, ${placed} placed on the GPU) compared, worst ` +
      `${worst} m (placed on the GPU: ${worstPlaced} m); ${births} written`,
  );
  assert.ok(compared > 20_000, `${compared} sparks compared`);
  // Embers are derived on the GPU from their trailing sparks' records (never written per wave).
  assert.ok(embers > 2_000, `${embers} embers compared`);
  // Sphere and palm breaks' sparks, children and embers are placed on the GPU from their break.
  assert.ok(placed > 50_000, `${placed} sparks placed on the GPU compared`);
  assert.ok(worst <= TOLERANCE_M, `worst float32 error ${worst} m`);
  assert.ok(worstPlaced <= DERIVED_TOLERANCE_M, `worst GPU-placed error ${worstPlaced} m`);
  // Slots written follow births (a launch's spawned range per frame, each ember wave, and
  // everything after a compaction), not the live sparks drawn each frame.
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
    world.apply({ seq, tick: seq * 3, by: "t", body });
  }
  const gpu = sparks();
  gpu.bind(world);
  world.step();
  gpu.update(1); // the first update writes every slot
  const system = world.fireworkSystem;
  let frames = 0, expectedAll = 0, bornNow = 0;
  // Breaks this test placed in shared/ (to read their births from the pool).
  const placedHere = new WeakMap<object, number>();
  while (world.tick < 420) {
    world.step();
    gpu.update(1);
    // Written: a new launch's shell with its trail ring (at the update after the step that
    // applied it) and a reference to its break for every other slot; a break, a split or an
    // ember wave writes nothing, however many sparks are born each tick.
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
    assert.equal(gpu.written, expected.records, `tick ${world.tick}: records written`);
    assert.equal(gpu.referenced, expected.refs, `tick ${world.tick}: references written`);
    expectedAll += expected.records + expected.refs;
    frames++;
  }
  assert.ok(expectedAll > 20_000, `${expectedAll} slots written over ${frames} frames`);
  assert.ok(bornNow > 5_000, `${bornNow} sparks and children born`);
  gpu.dispose();
});

Deno.test("GPU firework sparks: a growing pool's records and references are copied, only new launches written", () => {
  // Launches faster than any ends, so the pool's buffer grows again and again: each growth copies
  // the records (on the GPU; here the mirror's array) and writes only that frame's births, and
  // the records equal what writing everything from scratch gives.
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
    assert.equal(gpu.written, expected.records, `tick ${world.tick}: only new launches written`);
    assert.equal(gpu.referenced, expected.refs, `tick ${world.tick}: only new launches referenced`);
    births += gpu.written + gpu.referenced;
    allSlots += pool.count;
    const fresh = sparks();
    fresh.bind(world);
    fresh.update(1);
    const a = gpu.mirror, b = fresh.mirror;
    assert.equal(a.length, b.length);
    const shift = gpu.epochTick - fresh.epochTick;
    for (let i = 0; i < pool.allocated; i++) {
      const o = i * 12;
      if (b[o + 11] === 0) {
        // Not drawn: a slot not spawned yet, or past the blocks (zero: never written).
        assert.equal(a[o + 11], 0, `slot ${i}: not drawn`);
        if (i >= pool.count) assert.ok(a.subarray(o, o + 12).every((x) => x === 0), `slot ${i}`);
        continue;
      }
      for (let c = 0; c < 11; c++) {
        const x = c === 3 ? a[o + c] + shift : a[o + c];
        assert.equal(x, b[o + c], `tick ${world.tick}, slot ${i}, float ${c}`);
      }
      assert.deepEqual(
        draw(gpu, a[o + 11]),
        draw(fresh, b[o + 11]),
        `tick ${world.tick}, slot ${i}`,
      );
    }
    // References name the same place in rows with the same numbers (the rows themselves are
    // numbered in the order each renderer met the launches).
    const ra = gpu.shaderRows, rb = fresh.shaderRows;
    for (let i = 0; i < pool.count; i++) {
      const rowA = ra.refs[i * 2] - 1, rowB = rb.refs[i * 2] - 1;
      assert.equal(rowA >= 0, rowB >= 0, `slot ${i}: referenced`);
      if (rowA < 0) continue;
      assert.equal(ra.refs[i * 2 + 1], rb.refs[i * 2 + 1], `slot ${i}: place`);
      for (let c = 0; c < 20; c++) {
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
 * What a record's last float tells the shader: how long it is drawn, or for a ring slot its
 * place and its trail's constants (the trail's row is numbered in the order a FireworkSparks
 * first met the trail, so two of them may number the same trail differently).
 */
function draw(gpu: FireworkSparks, code: number): unknown {
  if (code >= 0) return code;
  const t = Math.floor((-code - 1) / EMBER_T), slot = (-code - 1) % EMBER_T;
  if (t === SHELL_TRAIL_ROW) return { shell: slot };
  return { slot, a: gpu.shaderRows.a[t], b: gpu.shaderRows.b[t] };
}

/**
 * Slots an update right after `world`'s step writes: a new launch's shell with its trail ring
 * (at the update after the step that applied it), records of their own, and then a reference
 * to its break for every other slot of the launch, once; a break, a split or an ember wave
 * writes nothing (the shader places what is born from the break).
 */
function writtenAfterStep(world: World): { records: number; refs: number } {
  let records = 0, refs = 0;
  for (const block of world.fireworkSystem.pool.blocks) {
    if (block.tick !== world.tick - 1) continue;
    records += block.plan.trailEnd;
    refs += block.size;
  }
  return { records, refs };
}

Deno.test("GPU firework sparks: launches in ended ones' gaps and after a compaction are drawn where shared/ has them", () => {
  // A tight, always full sky of launches of every size and life: the pool puts new launches in
  // the gaps ended ones left (their stale records must stay dark) and, when no gap holds one,
  // compacts (the records are moved on the GPU, not written again).
  const world = new World({ seed: 0x19, capacity: 60_000 });
  const pool = world.fireworkSystem.pool;
  const gpu = sparks();
  gpu.bind(world);
  const head = new Float32Array(3);
  let seq = 0, checked = 0, writtenAfterMoves = 0, moved = 0, reused = 0;
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
    if (!afterMoves && !(intoGap && reused % 8 === 1)) continue;
    const view = world.fireworks;
    const life = view.position && world.fireworkSystem.pool.life;
    for (let i = 0; i < view.count; i++) {
      const drawn = fireworkHead(
        gpu.mirror,
        i,
        world.tick - gpu.epochTick,
        1,
        head,
        gpu.shaderRows,
      );
      assert.equal(drawn, life[i] > 0, `tick ${world.tick}, slot ${i}: drawn iff alive`);
      for (let c = 0; c < 3; c++) {
        const error = Math.abs(head[c] - view.position[i * 3 + c]);
        if (drawn) assert.ok(error <= tolerance(gpu, i), `slot ${i}: ${error} m off`);
      }
      if (drawn) checked++;
    }
  }
  assert.ok(reused >= 50, `${reused} launches took an ended one's gap`);
  assert.ok(moved >= 1, `${moved} compactions followed by moves`);
  assert.ok(checked > 50_000, `${checked} sparks checked after a gap was taken or a compaction`);
  // A compaction writes no record again: what is written after one is only that frame's births.
  assert.ok(writtenAfterMoves < 10_000 * moved, `${writtenAfterMoves} slots written after moves`);
  gpu.dispose();
});

Deno.test("GPU firework sparks: reduced motion draws every other slot of a launch", () => {
  const world = new World({ seed: 0x18 });
  world.apply({ seq: 1, tick: 0, by: "t", body: { type: "launch", x: 0, z: 0, kind: "peony" } });
  const gpu = sparks(2);
  gpu.bind(world);
  world.advanceTo(120);
  gpu.update(1);
  const head = new Float32Array(3);
  const view = world.fireworks;
  let lit = 0, drawn = 0;
  const life = view.position && world.fireworkSystem.pool.life;
  const block = world.fireworkSystem.pool.blocks[0];
  for (let i = 0; i < view.count; i++) {
    if (life[i] > 0) lit++;
    if (fireworkHead(gpu.mirror, i, world.tick - gpu.epochTick, 1, head, gpu.shaderRows)) {
      drawn++;
      assert.equal((i - block.start) % 2, 0);
    }
  }
  assert.ok(lit > 500);
  assert.ok(Math.abs(drawn - lit / 2) < lit * 0.1, `${drawn} of ${lit}`);
  gpu.dispose();
});
