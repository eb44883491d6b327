/**
 * One launch's block of the fireworks pool: its plan, what the launch resolved (where, which
 * theme and tints, when each splitting spark splits) and how far its simulation has come. A
 * launch owns one dense block sized by its plan, so its budget is exact and the layout depends
 * only on live launches.
 *
 * @example
 * ```ts
 * import { newBlock } from "./block.ts";
 * const block = newBlock(7, 1, 0, { x: 0, z: 0, kind: "willow" }, "auto");
 * block.size; // slots the launch reserves
 * ```
 */
import { GOLD_TINT, RAINBOW_FIRST, THEME_TINTS, TRAIL_YELLOW } from "../firework_colors.ts";
import type { FireworkKind } from "../firework_kinds.ts";
import {
  FireworkPlan,
  type LaunchShape,
  planFirework,
  splitDelays,
  zeros,
} from "../firework_plan.ts";
import type { Recipe } from "../firework_recipes.ts";
import type { Block } from "../particle_pool.ts";
import { type Theme, THEMES, type ThemeSetting } from "../types.ts";

/** One launch's block: its plan plus what the launch resolved (where, which tints). */
export interface FireworkBlock extends Block {
  readonly plan: FireworkPlan;
  readonly kind: FireworkKind;
  readonly recipe: Recipe;
  /** The burst point's x and z (the launch's), and the shell's start on the ground. */
  readonly x: number;
  readonly z: number;
  readonly theme: Theme;
  /** Per break: main and second tint (palette indices); unused for rainbow. */
  readonly primary: number[];
  readonly secondary: number[];
  /** Per break: ticks after the break at which each splitting spark splits. */
  readonly delays: readonly number[][];
  /**
   * Per break: the splitting sparks in the order they split (by delay, then index), and how
   * many of them have split: a step visits only the splits due, not every splitting spark.
   */
  readonly splitOrder: readonly number[][];
  readonly splitsDone: number[];
  /** Palette tint of the rising shell's trail and of every ember trail (red-gold: gold). */
  readonly trailTint: number;
  /**
   * The slots that may be alive, relative to `start`: below `lo` all are dead for good, from
   * `hi` on none has spawned yet. The hot loop visits only [lo, hi).
   */
  lo: number;
  hi: number;
  /**
   * Slots (relative to `start`) spawned since a consumer last took them, as [from, to) pairs in
   * spawn order (a range that continues the last one extends it). Exactly the births, for a
   * consumer that writes what is born from the pool and empties the list (a closed-form launch
   * adds at most one pair a break; the GPU renderer, which derives every spark from its launch,
   * reads none); one range per spawn call, so a launch whose splits go off far apart in one tick
   * does not mark the children between them.
   */
  readonly births: number[];
  /**
   * Per break: ember waves dropped so far (wave m drops at `(m + 1) · every` ticks after the
   * break), and (closed form) how many of them are written into the pool. A closed-form step
   * only marks a wave born (no ember is drawn); the pool's ember slots are written when the sparks
   * are next read (`sync`), and a GPU renderer derives embers from their trailing sparks.
   */
  readonly emberWaves: number[];
  readonly emberWritten: number[];
  /**
   * Breaks burst so far, and (closed form) how many of them have their sparks' and children's
   * birth state written into the pool. Like trails and embers, a closed-form step only marks a
   * break burst (its range, counts and ember table, from the sparks' lifetimes alone); its
   * sparks are placed when first read (`placeBursts`, `sync`, the hash), from the break's keyed
   * stream, so a sky nobody reads between checkpoints places none of them per tick.
   */
  bursts: number;
  burstsWritten: number;
  /**
   * Per break and ember wave (`b · emberWaveSlots + m`), tabulated at the break from its sparks'
   * lifetimes: how many trailing sparks drop an ember in the wave (for `expectedLive`), and the
   * end of the launch's possibly-live range once they have (0: none drops one).
   */
  readonly emberParents: number[];
  readonly emberHi: number[];
  /**
   * Rise ticks whose trail sparks are born so far, and (closed form) how many of them are
   * written into the pool: like embers, a closed-form step only marks a rise tick's trail sparks
   * born; `sync` and the hash write the last TRAIL_RING_TICKS ticks' sparks when read, and
   * a GPU renderer derives them from the shell.
   */
  trailTicks: number;
  trailWritten: number;
  /**
   * The recipe's numbers a step reads, copied from it as plain numbers, so that a launch's visit
   * reads them off the block instead of through its recipe and the recipe's split and trail
   * (which may be null): ticks after a break its last split may come (−1: no splits), ticks
   * between ember waves (0: no trails), the longest spark life, and ember waves per break.
   */
  readonly splitLast: number;
  readonly emberEvery: number;
  readonly longestLife: number;
  readonly waveSlots: number;
  /**
   * The words of the launch's row that never change once it is launched (what its sparks are
   * derived from), made at the first checkpoint that hashes it (launch_hash.ts); null before.
   */
  row: Uint32Array | null;
}

/** What a launch body carries besides its ground point (the LaunchBody fits). */
export interface LaunchSpec extends LaunchShape {
  theme?: Theme;
}

/**
 * The tint of each theme's shell trail: the source's warm yellow, except red-gold's gold trail
 * (docs/sources.md, fireworks: trail and themes).
 */
export const THEME_TRAIL_TINT: Readonly<Record<Theme, number>> = {
  "red-gold": GOLD_TINT,
  "blue-silver": TRAIL_YELLOW,
  "green-purple": TRAIL_YELLOW,
  "rainbow": TRAIL_YELLOW,
};

/** Resolves a launch's theme: its own, else the scene's unless `auto`, else the launch's roll. */
export function resolveTheme(
  own: Theme | undefined,
  setting: ThemeSetting,
  roll: number,
): Theme {
  if (own) return own;
  if (setting !== "auto") return setting;
  return THEMES[Math.floor(roll * THEMES.length)];
}

/** The longest a break's spark lives: the recipe's longest life, or its latest split. */
export function longestSparkLife(recipe: Recipe): number {
  const split = recipe.split;
  return split ? Math.max(recipe.life[1], split.delay[1]) : recipe.life[1];
}

/**
 * Ember waves one break of `recipe` drops at most: at spark ages every, 2·every, … below the
 * longest spark life (as `advanceBlock` drops them).
 */
export function emberWaveSlots(recipe: Recipe): number {
  const trail = recipe.trail;
  return trail ? Math.floor((longestSparkLife(recipe) - 1) / trail.every) : 0;
}

/** What a launch without ember trails keeps per wave: nothing (never written). */
const NO_WAVES: number[] = [];

/** orderByDelay's counting-sort buckets, reused (a typed array allocated per launch costs more). */
const delayCounts = new Int32Array(257);

/** The indices of `delays` ordered by delay, then by index (a counting sort: delays < 256). */
function orderByDelay(delays: readonly number[]): number[] {
  const counts = delayCounts.fill(0);
  for (let j = 0; j < delays.length; j++) counts[delays[j] + 1]++;
  for (let d = 1; d < 257; d++) counts[d] += counts[d - 1];
  const order = zeros(delays.length);
  for (let j = 0; j < delays.length; j++) order[counts[delays[j]]++] = j;
  return order;
}

/**
 * The block of launch `seq` of scene `seed` applied at `tick` (not yet in a pool: `start` 0),
 * with nothing simulated: the shell alone is in its range.
 */
export function newBlock(
  seed: number,
  seq: number,
  tick: number,
  spec: LaunchSpec,
  setting: ThemeSetting,
): FireworkBlock {
  const plan = planFirework(seed, seq, spec);
  const theme = resolveTheme(spec.theme, setting, plan.themeRoll);
  const primary = zeros(plan.breaks), secondary = zeros(plan.breaks);
  for (let b = 0; b < plan.breaks; b++) {
    primary[b] = secondary[b] = RAINBOW_FIRST;
    if (theme === "rainbow") continue;
    // The themes (docs/sources.md): red with gold, blue with silver, green and purple. Later
    // breaks rotate the theme's tints, so a multi-break shell changes colour.
    const tints = THEME_TINTS[theme];
    primary[b] = tints[b % tints.length];
    secondary[b] = tints[(b + 1) % tints.length];
  }
  const delays: number[][] = [];
  const splitOrder: number[][] = [];
  for (let b = 0; b < plan.breaks; b++) {
    const d = splitDelays(seed, seq, plan.recipe, b, zeros(plan.splitCount[b]));
    delays.push(d);
    splitOrder.push(orderByDelay(d));
  }
  return {
    seq,
    tick,
    start: 0,
    size: plan.slots,
    endTick: tick + plan.lifeTicks,
    plan,
    kind: plan.kind,
    recipe: plan.recipe,
    x: spec.x,
    z: spec.z,
    theme,
    primary,
    secondary,
    delays,
    splitOrder,
    splitsDone: zeros(plan.breaks),
    trailTint: THEME_TRAIL_TINT[theme],
    lo: 0,
    hi: 1,
    births: [],
    emberWaves: zeros(plan.breaks),
    emberWritten: zeros(plan.breaks),
    bursts: 0,
    burstsWritten: 0,
    emberParents: plan.recipe.trail ? zeros(plan.breaks * emberWaveSlots(plan.recipe)) : NO_WAVES,
    emberHi: plan.recipe.trail ? zeros(plan.breaks * emberWaveSlots(plan.recipe)) : NO_WAVES,
    trailTicks: 0,
    trailWritten: 0,
    splitLast: plan.recipe.split ? plan.recipe.split.delay[1] : -1,
    emberEvery: plan.recipe.trail ? plan.recipe.trail.every : 0,
    longestLife: longestSparkLife(plan.recipe),
    waveSlots: emberWaveSlots(plan.recipe),
    row: null,
  };
}

/** Marks slots [from, to) of `block` (relative) as spawned for consumers of births. */
export function touch(block: FireworkBlock, from: number, to: number): void {
  const births = block.births;
  const n = births.length;
  if (n > 0 && births[n - 1] === from) births[n - 1] = to;
  else births.push(from, to);
}
