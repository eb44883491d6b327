/**
 * The firework spark shader itself (client/render/firework_spark_shader.ts), run in headless
 * Chromium's WebGL2 (testing/spark_shader_probe.ts), draws every spark where shared/ has it: each
 * slot is drawn iff shared/'s spark there is alive, and its head (at the world's tick and the one
 * before) lies within float32 error of shared/'s position. The renderer's writes (a launch's rows
 * and references, once) are checked on the CPU in tests/unit/firework_gpu_test.ts.
 */
import assert from "node:assert/strict";
import * as THREE from "three";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { World } from "../../shared/world.ts";
import { FireworkSparks } from "../../client/render/firework_sparks.ts";
import { DERIVED, INDEX_SPAN } from "../../client/render/firework_derived_packing.ts";
import { EMBER_N } from "../../client/render/firework_ember_packing.ts";
import { createPointUniforms } from "../../client/render/point_uniforms.ts";
import { browserTest, launchBrowser } from "../../testing/browser.ts";
import { type ShaderHeads, SparkShaderProbe } from "../../testing/spark_shader_probe.ts";

/**
 * Largest distance (metres) allowed between the shader's head and shared/'s position for the
 * shell and its trail: their birth state is shared/'s own float32 numbers, copied.
 */
const TOLERANCE_M = 1e-4;
/**
 * The same for a spark the shader places from its break (a burst spark, split child or ember):
 * its velocity is built on the GPU (cos and sin of its angle, the noise blend, a split's parent
 * carried to its delay), not rounded once from shared/'s float64. SwiftShader's sin and cos are
 * good to 1.9e-4 (measured over [0, 2π)), so a spark 75 m from its break point may be 14 mm off
 * (the worst measured here, a heart, whose shape cubes its sin): 25 mm is a quarter of a pixel at
 * the nearest burst. A wrong draw or hash puts a spark metres off.
 */
const DERIVED_TOLERANCE_M = 0.025;

/** What slot `i`'s reference names (a DERIVED value; −1: nothing). */
function kindOf(refs: Float32Array, i: number): number {
  return refs[i * 2] > 0.5 ? Math.floor(refs[i * 2 + 1] / (EMBER_N * INDEX_SPAN)) : -1;
}

/** Whether slot `i` is placed by the shader from its break (not the shell or its trail). */
function fromBreak(refs: Float32Array, i: number): boolean {
  const kind = kindOf(refs, i);
  return kind >= 0 && kind !== DERIVED.shell && kind !== DERIVED.trail;
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

/** The largest distance between the shader's head of slot `i` and shared/'s `at` position. */
function errorAt(heads: ShaderHeads, at: Float32Array | Float64Array, i: number): number {
  let error = 0;
  for (let c = 0; c < 3; c++) {
    error = Math.max(error, Math.abs(heads.head[i * 3 + c] - at[i * 3 + c]));
  }
  return error;
}

browserTest("firework spark shader: draws every spark where shared/ has it", async (t) => {
  const browser = await launchBrowser();
  const probe = await SparkShaderProbe.open(browser);
  try {
    await t.step(
      "every kind, 1–3 breaks: drawn iff alive, within 0.1 mm (25 mm placed from a break)",
      async () => {
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
        let worst = 0, worstPlaced = 0, compared = 0, placed = 0, embers = 0;
        for (const sample of [20, 61, 95, 130, 200, 260, 333, 410, 500, 620]) {
          while (world.tick < sample) {
            world.step();
            gpu.update(1);
          }
          const view = world.fireworks;
          // Reading the view evaluates shared/'s closed form at this tick, lives included.
          const life = view.position && world.fireworkSystem.pool.life;
          const now = await probe.heads(gpu, view.count, 1);
          const before = await probe.heads(gpu, view.count, 0);
          const refs = gpu.refMirror;
          for (let i = 0; i < view.count; i++) {
            const drawn = now.drawn[i] === 1;
            assert.equal(
              drawn,
              life[i] > 0,
              `tick ${sample}, slot ${i}: drawn iff alive in shared/`,
            );
            assert.equal(before.drawn[i], now.drawn[i], `tick ${sample}, slot ${i}: both times`);
            if (!drawn) continue;
            if (kindOf(refs, i) === DERIVED.ember) embers++;
            const error = Math.max(
              errorAt(now, view.position, i),
              errorAt(before, view.previous, i),
            );
            if (fromBreak(refs, i)) {
              worstPlaced = Math.max(worstPlaced, error);
              placed++;
            } else worst = Math.max(worst, error);
            compared++;
          }
        }
        console.log(
          `${compared} sparks (${embers} embers, ${placed} placed from their break) compared, ` +
            `worst ${worst} m (placed from a break: ${worstPlaced} m)`,
        );
        assert.ok(compared > 20_000, `${compared} sparks compared`);
        // Embers are derived on the GPU from their trailing sparks (never written per wave).
        assert.ok(embers > 2_000, `${embers} embers compared`);
        assert.ok(
          compared - placed > 2_000,
          `${compared - placed} shells and trail sparks compared`,
        );
        assert.ok(placed > 50_000, `${placed} sparks placed on the GPU compared`);
        assert.ok(worst <= TOLERANCE_M, `worst error ${worst} m`);
        assert.ok(worstPlaced <= DERIVED_TOLERANCE_M, `worst GPU-placed error ${worstPlaced} m`);
        gpu.dispose();
      },
    );

    await t.step("launches in ended ones' gaps and after a compaction", async () => {
      // A tight, always full sky of launches of every size and life: the pool puts new launches
      // in the gaps ended ones left (the references left there must stay dark) and, when no gap
      // holds one, compacts (the references are moved, not written again).
      // Show off: the sky is this test's launches only, not the seeded show the world derives.
      const world = new World({
        seed: 0x19,
        capacity: 60_000,
        snapshot: initialSnapshot({ show: false }),
      });
      const pool = world.fireworkSystem.pool;
      const gpu = sparks();
      gpu.bind(world);
      let seq = 0, checked = 0, moved = 0, reused = 0, checks = 0;
      for (let tick = 0; tick < 1500; tick++) {
        if (tick % 3 === 0) {
          seq++;
          const kind = FIREWORK_KINDS[(seq * 3) % FIREWORK_KINDS.length];
          const breaks = 1 + ((seq * 7) % 3);
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
        const intoGap = pool.blocks.length > blocks &&
          pool.blocks[pool.blocks.length - 1].start < top;
        if (intoGap) reused++;
        const afterMoves = gpu.movedUpdates > moved;
        moved = gpu.movedUpdates;
        // Every compaction, and every 8th launch into a gap.
        if (!afterMoves && !(intoGap && reused % 8 === 1)) continue;
        checks++;
        const view = world.fireworks;
        const life = view.position && pool.life;
        const now = await probe.heads(gpu, view.count, 1);
        for (let i = 0; i < view.count; i++) {
          const drawn = now.drawn[i] === 1;
          assert.equal(drawn, life[i] > 0, `tick ${world.tick}, slot ${i}: drawn iff alive`);
          if (!drawn) continue;
          const error = errorAt(now, view.position, i);
          const tolerance = fromBreak(gpu.refMirror, i) ? DERIVED_TOLERANCE_M : TOLERANCE_M;
          assert.ok(error <= tolerance, `tick ${world.tick}, slot ${i}: ${error} m off`);
          checked++;
        }
      }
      console.log(`${checks} checks: ${reused} launches into gaps, ${moved} compactions`);
      assert.ok(reused >= 50, `${reused} launches took an ended one's gap`);
      assert.ok(moved >= 1, `${moved} compactions followed by moves`);
      assert.ok(
        checked > 50_000,
        `${checked} sparks checked after a gap was taken or a compaction`,
      );
      gpu.dispose();
    });

    await t.step("reduced motion draws every other slot of a launch", async () => {
      // Show off: the one launch below is the only block (a derived show launch would be a
      // second block whose every other slot starts at its own start, not blocks[0]'s).
      const world = new World({ seed: 0x18, snapshot: initialSnapshot({ show: false }) });
      world.apply({
        seq: 1,
        tick: 0,
        by: "t",
        body: { type: "launch", x: 0, z: 0, kind: "peony" },
      });
      const gpu = sparks(2);
      gpu.bind(world);
      world.advanceTo(120);
      gpu.update(1);
      const view = world.fireworks;
      const life = view.position && world.fireworkSystem.pool.life;
      assert.equal(world.fireworkSystem.pool.blocks.length, 1, "the launch is the only block");
      const block = world.fireworkSystem.pool.blocks[0];
      const { drawn } = await probe.heads(gpu, view.count, 1);
      let lit = 0, shown = 0;
      for (let i = 0; i < view.count; i++) {
        if (life[i] > 0) lit++;
        if (drawn[i] !== 1) continue;
        shown++;
        assert.equal((i - block.start) % 2, 0, `slot ${i} is drawn`);
        assert.ok(life[i] > 0, `slot ${i} is alive`);
      }
      assert.ok(lit > 500, `${lit} sparks alive`);
      assert.ok(Math.abs(shown - lit / 2) < lit * 0.1, `${shown} of ${lit} drawn`);
      gpu.dispose();
    });
  } finally {
    await probe.close();
    await browser.close();
  }
});
