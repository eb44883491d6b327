/**
 * The mean colour of a peony's sparks on screen along their life, from shared/'s colours and the
 * firework shader's young-burst light (client/render/firework_youth.ts): what the colour law
 * (shared/firework_colors.ts) looks like once drawn. For tests/unit/firework_colour_path_test.ts
 * and `deno run -A scripts/firework_colour_path.ts`, which prints the path.
 *
 * @example
 * ```ts ignore
 * const [first] = peonyColourPath("red-gold", [0.05]);
 * first.rgb; // white-hot: r ≈ g ≈ b
 * ```
 */
import { PALETTE_SIZE } from "../shared/firework_colors.ts";
import { MOTION } from "../shared/firework_motion.ts";
import { RECIPES } from "../shared/firework_recipes.ts";
import { Fireworks } from "../shared/fireworks/mod.ts";
import type { Theme } from "../shared/types.ts";
import { FIREWORK_YOUTH_RADIUS, youthLight } from "../client/render/firework_youth.ts";

/** The shares of a peony spark's mean life the issue asks about. */
export const LIFE_SHARES: readonly number[] = [0.05, 0.15, 0.3, 0.6, 1.0];

/** A peony spark's mean life, ticks (the middle of its recipe's range). */
export const PEONY_MEAN_LIFE = (RECIPES.peony.life[0] + RECIPES.peony.life[1]) / 2;

/** One point of the path: the burst's age, its sparks' mean drawn rgb and mean light. */
export interface PathPoint {
  share: number;
  ticks: number;
  /** Mean over the live burst sparks of colour · α · young-burst light (the drawn light). */
  rgb: [number, number, number];
  /** Mean young-burst light factor (1: not dimmed). */
  light: number;
  sparks: number;
}

/**
 * The mean drawn colour of the burst sparks (motion class `spark`; children with `children`) of
 * `bursts` red-gold (or `theme`) peonies at each share of PEONY_MEAN_LIFE after their burst.
 */
export function peonyColourPath(
  theme: Theme,
  shares: readonly number[] = LIFE_SHARES,
  bursts = 4,
  children = false,
): PathPoint[] {
  return shares.map((share) => {
    const ticks = Math.round(share * PEONY_MEAN_LIFE);
    const sum = [0, 0, 0];
    let light = 0, sparks = 0;
    for (let seq = 1; seq <= bursts; seq++) {
      const fw = new Fireworks(4242 + seq, 60_000);
      fw.launch(seq, 0, { x: 0, z: 0, y: 40, kind: "peony", theme }, "auto");
      const block = fw.pool.blocks[0];
      for (let t = 0; t < block.plan.riseTicks + ticks; t++) fw.step(t);
      const { position, origin, color, life, style } = fw.pool;
      for (let i = block.start; i < block.start + block.hi; i++) {
        if (life[i] <= 0) continue;
        const motion = Math.floor(style[i] / PALETTE_SIZE);
        if (motion !== MOTION.spark && !(children && motion === MOTION.child)) continue;
        const p = i * 3;
        const dx = position[p] - origin[p], dy = position[p + 1] - origin[p + 1];
        const dz = position[p + 2] - origin[p + 2];
        const k = youthLight(dx * dx + dy * dy + dz * dz, FIREWORK_YOUTH_RADIUS[motion]);
        const a = color[i * 4 + 3] * k;
        for (let c = 0; c < 3; c++) sum[c] += color[i * 4 + c] * a;
        light += k;
        sparks++;
      }
    }
    const n = Math.max(1, sparks);
    return {
      share,
      ticks,
      rgb: [sum[0] / n, sum[1] / n, sum[2] / n],
      light: light / n,
      sparks: sparks / bursts,
    };
  });
}
