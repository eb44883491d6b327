/**
 * Reduced motion draws every other firework spark (`packSparks(…, keepEvery = 2, …)`). The half it
 * draws must be the same sparks from tick to tick — also while other sparks appear and die, and
 * when an earlier launch's block ends and the later blocks slide down — or the sky would flicker.
 */
import assert from "node:assert/strict";
import { packSparks, SPARK_STRIDE } from "../../client/render/spark_packing.ts";
import { Fireworks } from "../../shared/fireworks/mod.ts";

/**
 * `seq:offset-in-block` of every visible spark, and of those `packSparks` drew. Each slot's size
 * (copied into the packed spark, used by nothing else here) is overwritten with its id first.
 */
function drawnSparks(
  fw: Fireworks,
  out: Float32Array,
): { drawn: Set<string>; visible: Set<string> } {
  const view = fw.view;
  const visible = new Set<string>();
  for (const block of fw.pool.blocks) {
    for (let i = block.start; i < block.start + block.size && i < view.count; i++) {
      view.size[i] = block.seq * 100_000 + (i - block.start);
      if (view.color[i * 4 + 3] > 0) visible.add(`${block.seq}:${i - block.start}`);
    }
  }
  const count = packSparks(view, 1, { ticks: 0 }, 2, Number.NaN, out);
  const drawn = new Set<string>();
  for (let n = 0; n < count; n++) {
    const id = out[n * SPARK_STRIDE + 10];
    drawn.add(`${Math.floor(id / 100_000)}:${id % 100_000}`);
  }
  return { drawn, visible };
}

Deno.test("reduced motion keeps drawing the same half of the sparks from tick to tick", () => {
  let fw = new Fireworks(31, 40_000);
  // A first launch whose block has an odd size, so its end shifts the next block by one slot.
  let firstSeq = 1;
  fw.launch(firstSeq, 0, { x: -10, z: 0, y: 30, kind: "peony" }, "auto");
  while (fw.pool.blocks[0].size % 2 === 0) {
    fw = new Fireworks(31, 40_000);
    fw.launch(++firstSeq, 0, { x: -10, z: 0, y: 30, kind: "peony" }, "auto");
  }
  const firstEnd = fw.pool.blocks[0].endTick;
  const secondAt = firstEnd - 150;
  const out = new Float32Array(40_000 * SPARK_STRIDE);
  let previous: { drawn: Set<string>; visible: Set<string> } | null = null;
  let compared = 0, shifted = false;
  for (let tick = 0; tick < firstEnd + 30; tick++) {
    if (tick === secondAt) {
      fw.launch(firstSeq + 1, tick, { x: 10, z: 0, y: 30, kind: "crackle" }, "auto");
    }
    const blocksBefore = fw.pool.blocks.length;
    fw.step(tick);
    if (fw.pool.blocks.length < blocksBefore && blocksBefore === 2) shifted = true;
    const now = drawnSparks(fw, out);
    if (now.visible.size > 100) {
      assert.ok(
        Math.abs(now.drawn.size - now.visible.size / 2) <= 0.05 * now.visible.size + 2,
        `about half drawn at tick ${tick}: ${now.drawn.size} of ${now.visible.size}`,
      );
    }
    if (previous) {
      for (const id of now.visible) {
        if (!previous.visible.has(id)) continue;
        assert.equal(now.drawn.has(id), previous.drawn.has(id), `spark ${id} at tick ${tick}`);
        compared++;
      }
    }
    previous = now;
  }
  assert.ok(shifted, "the first launch's block ended while the second lived");
  assert.ok(compared > 10_000, `${compared} spark-ticks compared`);
});
