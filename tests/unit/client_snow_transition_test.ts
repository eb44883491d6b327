/**
 * Intensity changes arrive from the top (issue 15, seed 003's `Emit`): the snow renderer shows a
 * flake that joined at an intensity change only once it has wrapped through the top of the
 * snowfall since then. The shader's rule (`enteredFromTop`) checked against the world's closed form.
 */
import assert from "node:assert/strict";
import { enteredFromTop } from "../../client/render/snow_points.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { Snow, SNOW_HEIGHT } from "../../shared/snow.ts";

Deno.test("joining flakes appear at the top and fill the snowfall downwards", () => {
  const snow = new Snow(5, 4000);
  snow.setClimate(initialSnapshot({ snow: 1, windSpeed: 0 }));
  const change = 10_000;
  const at = (tick: number) => {
    const out = new Float32Array(snow.count * 3);
    snow.fill(tick, out);
    return out;
  };
  const start = at(change);
  for (const elapsed of [1, 60, 600, 3000]) {
    const now = at(change + elapsed);
    let shown = 0, lowest = SNOW_HEIGHT;
    for (let i = 0; i < snow.count; i++) {
      const height = now[i * 3 + 1] / SNOW_HEIGHT;
      const fallen = (snow.fallPerTick[i] * elapsed) / SNOW_HEIGHT;
      // Did it wrap? Unwrapped, its height went from start to start − fallen.
      const wrapped = start[i * 3 + 1] / SNOW_HEIGHT - fallen < 0;
      if (Math.abs(height + fallen - 1) > 1e-4) {
        assert.equal(enteredFromTop(height, fallen), wrapped, `flake ${i} at ${elapsed}`);
      }
      if (enteredFromTop(height, fallen)) {
        shown++;
        lowest = Math.min(lowest, now[i * 3 + 1]);
      }
    }
    // Shown flakes are all within the distance the fastest flake fell (1.6 m/s) from the top.
    assert.ok(SNOW_HEIGHT - lowest <= (1.6 * elapsed) / 60 + 0.01, `at ${elapsed}: ${lowest}`);
    if (elapsed === 1) assert.ok(shown < snow.count * 0.01, "almost none at once");
  }
});
