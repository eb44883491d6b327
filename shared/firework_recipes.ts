/**
 * What each firework kind is made of: its burst shape, how many sparks at what speed and life,
 * which of them split (secondary bursts, crossette splits, crackle) and which leave trails of
 * embers. `planFirework` turns a recipe and a launch's random stream into an exact slot budget;
 * `Fireworks` spawns from the same numbers.
 *
 * @example
 * ```ts
 * import { RECIPES, recipeTail } from "./firework_recipes.ts";
 * RECIPES.crossette.split?.children; // 4
 * recipeTail(RECIPES.willow); // ticks from the burst until its last ember is dead
 * ```
 */
import type { FireworkKind } from "./firework_kinds.ts";
import { BURST_SCALE } from "./constants.ts";
import { MOTION } from "./firework_motion.ts";

/** Burst shapes: directions uniform on the sphere, a tilted planar circle, a heart curve, or palm fronds (the upper cap). */
export type Shape = "sphere" | "ring" | "heart" | "palm";

/** Where split children fly: uniform on the sphere, or a cross of exactly four perpendicular to the parent's flight. */
export type SplitPattern = "sphere" | "cross";

/** How sparks are coloured: the launch's theme, willow gold, or crackle's theme and gold mix. */
export type Palette = "theme" | "gold" | "crackle";

/** An inclusive integer range or a real range, `[min, max]`. */
export type Range = readonly [number, number];

/** Some sparks die at a delay and burst into `children` (secondary bursts, splits, crackle). */
export interface SplitRecipe {
  /** Share of the sparks that split, drawn per break in [min, max]. */
  readonly share: Range;
  /** Ticks after the burst at which a splitting spark splits (its whole life), per spark. */
  readonly delay: Range;
  readonly children: number;
  readonly pattern: SplitPattern;
  /** Children's speed (m/s) relative to the carried share of the parent's velocity. */
  readonly speed: Range;
  /** Share of the parent's velocity the children carry. */
  readonly carry: number;
  readonly life: Range;
  readonly motion: number;
  /**
   * Children's tint: `warm` (docs/sources.md: secondary bursts are warmer: the parent's tint on a
   * warmer motion class, `child`, whose heat curve shows through more), the parent's, or silver.
   */
  readonly tint: "warm" | "same" | "silver";
  /** Whether children strobe (see `strobe` in firework_colors.ts). */
  readonly flicker: boolean;
}

/** Some sparks drop an ember every `every` ticks into a ring of `ring` slots of their own. */
export interface TrailRecipe {
  /** Share of the sparks (the first ones) that leave trails. */
  readonly share: number;
  readonly every: number;
  readonly ring: number;
  /** Ember lifetimes in ticks; the maximum is at most `every * ring` (the ring's reuse period). */
  readonly life: Range;
  readonly motion: number;
  /** Share of the spark's velocity an ember keeps, and its random extra speed (m/s, per axis). */
  readonly carry: number;
  readonly jitter: number;
}

/** One firework kind. */
export interface Recipe {
  readonly shape: Shape;
  /** Sparks per break (scaled down for multi-break shells, see BREAK_SCALE). */
  readonly sparks: Range;
  /** Base burst speed, m/s, drawn per break. */
  readonly speed: Range;
  /**
   * Each spark's speed is base · U(spread[0], spread[1]) (the source, docs/sources.md, draws speeds in 150–400, a
   * 2.67× spread, so a burst is a filled ball, not a thin shell). Shapes that must stay crisp
   * (ring, heart, palm fronds, crossette stars) keep a narrow spread.
   */
  readonly spread: Range;
  /** Whether the source's 3D direction noise (docs/sources.md; firework_noise.ts) shapes the burst. */
  readonly noise: boolean;
  /** Lifetimes of sparks that do not split, ticks. */
  readonly life: Range;
  readonly motion: number;
  readonly palette: Palette;
  /** Whether the sparks strobe. */
  readonly flicker: boolean;
  readonly split: SplitRecipe | null;
  readonly trail: TrailRecipe | null;
}

/** Spark count factor for shells of 1, 2 and 3 breaks (each break is a full burst, smaller). */
export const BREAK_SCALE: readonly number[] = [1, 0.7, 0.55];

/** Every kind's recipe as authored, at BURST_SCALE 1 (speeds in m/s before scaling). */
const AUTHORED: Readonly<Record<FireworkKind, Recipe>> = {
  peony: {
    shape: "sphere",
    // At BURST_SCALE the sphere is ~50 m across: enough sparks that it still reads as a full one.
    sparks: [700, 1100],
    speed: [12.5, 16],
    spread: [0.42, 1.12],
    noise: true,
    life: [110, 160],
    motion: MOTION.spark,
    palette: "theme",
    flicker: false,
    // Seed 002: 10–20 % of the sparks burst again.
    split: {
      share: [0.1, 0.2],
      delay: [40, 80],
      children: 10,
      pattern: "sphere",
      speed: [5, 8],
      carry: 0.3,
      life: [35, 60],
      motion: MOTION.child,
      tint: "warm",
      flicker: false,
    },
    trail: null,
  },
  chrysanthemum: {
    shape: "sphere",
    sparks: [500, 750],
    speed: [12, 15.5],
    spread: [0.42, 1.1],
    noise: true,
    life: [100, 140],
    motion: MOTION.spark,
    palette: "theme",
    flicker: false,
    split: null,
    trail: {
      share: 1,
      every: 4,
      ring: 4,
      life: [10, 16],
      motion: MOTION.ember,
      carry: 0.12,
      jitter: 0.4,
    },
  },
  willow: {
    shape: "sphere",
    sparks: [300, 420],
    speed: [8.5, 11],
    spread: [0.5, 1.1],
    noise: true,
    life: [150, 195],
    motion: MOTION.willow,
    palette: "gold",
    flicker: false,
    split: null,
    // Long-lived embers that fall slower than their spark: the hanging strands of a willow.
    trail: {
      share: 1,
      every: 8,
      ring: 9,
      life: [50, 72],
      motion: MOTION.willowEmber,
      carry: 0.1,
      jitter: 0.25,
    },
  },
  palm: {
    shape: "palm",
    sparks: [18, 28],
    // Flatter than before (fronds arc out and droop), so a little slower: the reach bound holds.
    speed: [12.5, 15],
    spread: [0.92, 1.08],
    noise: false,
    // Long enough to arc over and droop: a frond rises ~1 s and hangs ~1 s.
    life: [125, 160],
    motion: MOTION.comet,
    palette: "theme",
    flicker: false,
    split: null,
    trail: {
      share: 1,
      every: 1,
      ring: 40,
      life: [30, 40],
      motion: MOTION.cometEmber,
      carry: 0.15,
      jitter: 0.6,
    },
  },
  ring: {
    shape: "ring",
    sparks: [300, 450],
    speed: [13, 16],
    spread: [0.97, 1.03],
    noise: false,
    life: [100, 140],
    motion: MOTION.spark,
    palette: "theme",
    flicker: false,
    split: null,
    trail: null,
  },
  heart: {
    shape: "heart",
    sparks: [400, 550],
    speed: [13, 15],
    spread: [0.98, 1.02],
    noise: false,
    life: [100, 130],
    motion: MOTION.spark,
    palette: "theme",
    flicker: false,
    split: null,
    trail: null,
  },
  crossette: {
    shape: "sphere",
    sparks: [120, 180],
    speed: [11, 14],
    spread: [0.9, 1.1],
    noise: false,
    life: [32, 50],
    motion: MOTION.star,
    palette: "theme",
    flicker: false,
    split: {
      share: [1, 1],
      delay: [32, 50],
      children: 4,
      pattern: "cross",
      speed: [6, 8],
      carry: 0.5,
      life: [45, 70],
      motion: MOTION.split,
      tint: "same",
      flicker: false,
    },
    trail: {
      share: 1,
      every: 3,
      ring: 4,
      life: [8, 12],
      motion: MOTION.ember,
      carry: 0.12,
      jitter: 0.3,
    },
  },
  crackle: {
    shape: "sphere",
    sparks: [500, 700],
    speed: [11, 14],
    spread: [0.42, 1.12],
    noise: true,
    life: [90, 130],
    motion: MOTION.crackle,
    palette: "crackle",
    flicker: true,
    // The crackling second break: a third of the sparks pop into short-lived flickering bits.
    split: {
      share: [0.3, 0.4],
      delay: [35, 60],
      // A pop is a flash: a tight star of bright bits that burn out in a fifth of a second.
      children: 8,
      pattern: "sphere",
      speed: [5, 8],
      carry: 0.4,
      life: [8, 14],
      motion: MOTION.crackleChild,
      tint: "silver",
      flicker: false,
    },
    trail: null,
  },
};

/** A recipe with every speed multiplied by BURST_SCALE (its motions' gravity is scaled too). */
function scaled(r: Recipe): Recipe {
  const times = ([lo, hi]: Range): Range => [lo * BURST_SCALE, hi * BURST_SCALE];
  return {
    ...r,
    speed: times(r.speed),
    split: r.split && { ...r.split, speed: times(r.split.speed) },
    trail: r.trail && { ...r.trail, jitter: r.trail.jitter * BURST_SCALE },
  };
}

/** Every kind's recipe: the authored ones, BURST_SCALE larger. */
export const RECIPES: Readonly<Record<FireworkKind, Recipe>> = Object.fromEntries(
  Object.entries(AUTHORED).map(([kind, recipe]) => [kind, scaled(recipe)]),
) as Record<FireworkKind, Recipe>;

/**
 * Ticks from a burst until every particle it spawned is dead: sparks, split children, embers
 * (the last ember drops at an age below the spark's life and lives at most every · ring).
 */
export function recipeTail(r: Recipe): number {
  let tail = r.life[1];
  const longest = r.split ? Math.max(r.life[1], r.split.delay[1]) : r.life[1];
  if (r.split) tail = Math.max(tail, r.split.delay[1] + r.split.life[1]);
  if (r.trail) tail = Math.max(tail, longest - 1 + r.trail.life[1]);
  return tail;
}

// Recipes are data: check the invariants the simulation relies on once, at load.
for (const [kind, r] of Object.entries(RECIPES)) {
  const fail = (why: string) => {
    throw new Error(`firework_recipe ${kind}: ${why}`);
  };
  if (r.split?.pattern === "cross" && r.split.children !== 4) fail("a cross has four children");
  if (r.trail && r.trail.life[1] > r.trail.every * r.trail.ring) {
    fail("an ember must be dead before its ring slot is reused");
  }
  // Every ring slot is used at least once: the shortest-lived trailing spark drops ≥ ring embers.
  const shortest = r.split && r.split.share[1] >= 1 ? r.split.delay[0] : r.life[0];
  if (r.trail && shortest - 1 < r.trail.every * r.trail.ring) fail("a trail ring would go unused");
}
