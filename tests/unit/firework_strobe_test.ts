import assert from "node:assert/strict";
import { packSparks, SPARK_STRIDE } from "../../client/render/spark_packing.ts";
import { strobe, STROBE_DIM } from "../../shared/firework_colors.ts";
import { Fireworks } from "../../shared/fireworks/mod.ts";

Deno.test("the client's packed sparks strobe exactly as shared strobe() says", () => {
  const fw = new Fireworks(31, 20_000);
  fw.launch(1, 0, { x: 0, z: 0, y: 30, kind: "crackle" }, "auto");
  const plan = fw.pool.blocks[0].plan;
  for (let t = 0; t < plan.riseTicks + 45; t++) fw.step(t); // sparks strobing, pops under way
  const view = fw.view;
  const out = new Float32Array(view.count * SPARK_STRIDE);
  let strobing = 0, dimmed = 0;
  for (let tick = 1000; tick < 1032; tick++) {
    const drawn = packSparks(view, 1, { ticks: 0 }, 1, tick, out);
    let n = 0;
    for (let i = 0; i < view.count; i++) {
      if (view.color[i * 4 + 3] <= 0) continue;
      const light = strobe(tick, view.flicker[i]);
      if (view.flicker[i] !== 0) strobing++;
      if (light === STROBE_DIM) dimmed++;
      assert.equal(out[n * SPARK_STRIDE + 6], Math.fround(view.color[i * 4] * light), `slot ${i}`);
      n++;
    }
    assert.equal(n, drawn);
  }
  assert.ok(strobing > 1000 && dimmed > strobing / 4, `${dimmed} of ${strobing} strobing dimmed`);
  // Reduced motion (NaN tick): steady.
  packSparks(view, 1, { ticks: 0 }, 1, Number.NaN, out);
  const first = [...Array(view.count).keys()].find((i) => view.color[i * 4 + 3] > 0)!;
  assert.equal(out[6], view.color[first * 4]);
});
