/**
 * Seed 002's colours as they show (issue 36): a burst spark is white-hot, then yellow, then
 * orange, then its theme's colour; a peony's sparks on screen (shared/'s colours times the
 * shader's young-burst light) follow that path from a bright start; a fresh trail spark is the
 * seed's warm yellow under a brighter, whiter head, red-gold's trail gold; a crackle pop flashes
 * and falls fast.
 */
import assert from "node:assert/strict";
import {
  fireworkColor,
  GOLD_TINT,
  PALETTE,
  PALETTE_SIZE,
  RAINBOW_FIRST,
  RAINBOW_HUES,
  THEME_TINTS,
} from "../../shared/firework_colors.ts";
import { MOTION, MOTIONS } from "../../shared/firework_motion.ts";
import { trailSlot } from "../../shared/firework_plan.ts";
import { Fireworks } from "../../shared/fireworks/mod.ts";
import type { Theme } from "../../shared/types.ts";
import { peonyColourPath } from "../../testing/firework_colour_path.ts";

/** g/r and b/r of an rgb: the hue of a warm colour, whatever its brightness. */
const ratios = (c: ArrayLike<number>) => [c[1] / c[0], c[2] / c[0]];

/** Every tint a burst spark of a theme can carry. */
const THEME_SPARK_TINTS = [
  ...Object.values(THEME_TINTS).flat(),
  ...Array.from({ length: RAINBOW_HUES }, (_, k) => RAINBOW_FIRST + k),
];

Deno.test("a burst spark passes white-hot, yellow and orange into its theme's colour", () => {
  const rgba = [0, 0, 0, 0];
  for (const motion of [MOTION.spark, MOTION.star, MOTION.crackle, MOTION.comet]) {
    const law = MOTIONS[motion];
    for (const tint of THEME_SPARK_TINTS) {
      const [r, g, b] = PALETTE[tint];
      const at = (t: number) => {
        fireworkColor(t, r, g, b, law, rgba);
        return ratios(rgba);
      };
      const name = `${law.name} tint ${tint}`;
      const [g05, b05] = at(0.05);
      assert.ok(g05 >= 0.85 && b05 >= 0.7, `${name}: white-hot at 0.05 (${g05}, ${b05})`);
      const [g15, b15] = at(0.15);
      assert.ok(g15 >= 0.65 && g15 <= 0.85 && b15 <= 0.55, `${name}: yellow at 0.15`);
      const [g25, b25] = at(0.25);
      assert.ok(g25 >= 0.4 && g25 <= 0.65 && b25 <= 0.3, `${name}: orange at 0.25 (${g25})`);
      // From 0.6 on, its theme's colour: the tint mixed into the heat law's red end.
      fireworkColor(0.6, r, g, b, law, rgba);
      const want = [1, 0.3, 0.1].map((h, c) => h + law.mix * ([r, g, b][c] - h));
      const dot = want.reduce((s, w, c) => s + w * rgba[c], 0);
      const cos = dot / (Math.hypot(...want) * Math.hypot(rgba[0], rgba[1], rgba[2]));
      assert.ok(cos > 0.9999, `${name}: its theme's colour at 0.6`);
      const tintCos = (r * want[0] + g * want[1] + b * want[2]) /
        (Math.hypot(r, g, b) * Math.hypot(...want));
      assert.ok(tintCos > 0.9, `${name}: close to the tint itself (${tintCos})`);
    }
  }
});

Deno.test("a peony's sparks on screen: a bright white-hot start, yellow, orange, then the theme", async (t) => {
  for (const theme of ["red-gold", "blue-silver"] as Theme[]) {
    await t.step(theme, () => {
      const [p05, p15, p30, p60, p100] = peonyColourPath(theme);
      const hue = (p: typeof p05) => ratios(p.rgb).map((v) => v.toFixed(2)).join("/");
      // Not held dark while packed round the burst point (the old (d/10 m)² rule: 0.06).
      assert.ok(p05.light >= 0.25, `lit at 0.05 of life: ${p05.light}`);
      assert.ok(p05.rgb[0] >= 0.25, `bright at 0.05 of life: ${p05.rgb[0]}`);
      const [g05, b05] = ratios(p05.rgb);
      assert.ok(g05 >= 0.85 && b05 >= 0.65, `white-hot at 0.05: ${hue(p05)}`);
      const [g15, b15] = ratios(p15.rgb);
      assert.ok(g15 >= 0.6 && g15 <= 0.85 && b15 <= 0.55, `yellow at 0.15: ${hue(p15)}`);
      assert.ok(p15.rgb[0] > p05.rgb[0], "brighter once spread");
      if (theme === "red-gold") {
        const [g30, b30] = ratios(p30.rgb);
        assert.ok(g30 <= 0.5 && b30 <= 0.2, `orange-red at 0.3: ${hue(p30)}`);
        const [g60] = ratios(p60.rgb);
        assert.ok(g60 <= 0.3, `red and gold at 0.6: ${hue(p60)}`);
      } else {
        assert.ok(p30.rgb[0] > p30.rgb[2] * 0.9, `still warm at 0.3: ${hue(p30)}`);
        assert.ok(p60.rgb[2] > 1.5 * p60.rgb[0], `blue and silver at 0.6: ${hue(p60)}`);
      }
      assert.ok(p100.rgb[0] + p100.rgb[2] < 0.5 * (p60.rgb[0] + p60.rgb[2]), "dimming at the end");
    });
  }
});

Deno.test("trails: a fresh trail spark is warm yellow, the head brighter and whiter, red-gold's gold", async (t) => {
  /** A shell's fresh trail spark and the shell's own colour late in its rise. */
  const rise = (theme: Theme) => {
    const fw = new Fireworks(9001, 60_000);
    fw.launch(1, 0, { x: 0, z: 0, y: 45, kind: "peony", theme }, "auto");
    const block = fw.pool.blocks[0];
    const late = Math.floor(block.plan.riseTicks * 0.95);
    for (let tick = 0; tick <= late; tick++) fw.step(tick);
    const { color, style } = fw.pool;
    const trail = block.start + trailSlot(late, 0);
    assert.equal(Math.floor(style[trail] / PALETTE_SIZE), MOTION.trail);
    const of = (i: number) => Array.from(color.subarray(i * 4, i * 4 + 3));
    return { trail: of(trail), head: of(block.start), tint: (style[trail] | 0) % PALETTE_SIZE };
  };
  await t.step("warm yellow (1, 0.8, 0.3) under a brighter, whiter head", () => {
    for (const theme of ["green-purple", "blue-silver", "rainbow"] as Theme[]) {
      const { trail, head } = rise(theme);
      const [g, b] = ratios(trail);
      assert.ok(Math.abs(g - 0.8) < 0.02 && Math.abs(b - 0.3) < 0.02, `${theme}: ${trail}`);
      const sum = (c: number[]) => c[0] + c[1] + c[2];
      assert.ok(sum(head) > 1.3 * sum(trail), `${theme}: the head is brighter (${head})`);
      assert.ok(ratios(head)[1] > b + 0.3, `${theme}: the head is whiter (${head})`);
    }
  });
  await t.step("red-gold's trail is gold, apart from the warm yellow", () => {
    const gold = rise("red-gold"), yellow = rise("green-purple");
    assert.equal(gold.tint, GOLD_TINT);
    const [gg, gb] = ratios(gold.trail), [yg, yb] = ratios(yellow.trail);
    assert.ok(yg - gg >= 0.15 && yb - gb >= 0.15, `gold ${gold.trail} vs ${yellow.trail}`);
  });
});

Deno.test("a crackle pop is a flash that falls fast, not a lingering blob", () => {
  const pop = MOTIONS[MOTION.crackleChild], spark = MOTIONS[MOTION.crackle];
  const [r, g, b] = PALETTE[GOLD_TINT];
  const light = (t: number, law = pop) => {
    const rgba = [0, 0, 0, 0];
    fireworkColor(t, r, g, b, law, rgba);
    return (rgba[0] + rgba[1] + rgba[2]) * law.gain * rgba[3];
  };
  assert.ok(light(0) > 2 * light(0, spark), "brighter than a spark at its start");
  assert.ok(light(0.3) < 0.5 * light(0), `half gone by 0.3 of its life: ${light(0.3) / light(0)}`);
});
