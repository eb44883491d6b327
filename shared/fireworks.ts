/**
 * Fireworks: a rising shell that drops a trail of warm sparks along its path every tick, then
 * one to three bursts of its kind (peony, chrysanthemum, willow, palm, ring, heart, crossette,
 * crackle; see firework_recipes.ts): sparks in the kind's shape, some of which split at a delay
 * (secondary bursts, crossette's fours, crackle's pops) and some of which drop embers along their
 * path (trails). Each launch owns one dense block of the pool, sized by its plan, so its budget is
 * exact and the layout depends only on live launches.
 *
 * Motion is closed form (firework_motion.ts): a particle's position is a function of its spawn
 * point, spawn velocity and age. Stepping evaluates it tick by tick; `jumpTo` evaluates it at any
 * tick directly, bit for bit the same, which makes a late join cost O(particles), not O(steps).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000);
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "willow" }, "auto");
 * for (let t = 0; t < 200; t++) fw.step(t);
 * fw.live(); // sparks and embers in the sky
 * ```
 */
import { BREAK_GAP_TICKS, DT } from "./constants.ts";
import { BlockSystem } from "./block_system.ts";
import { cos, cosSinArray, sin, TAU } from "./dmath.ts";
import {
  AMBER_TINT,
  COLOR_STEPS,
  GOLD_TINT,
  PALETTE_SIZE,
  RAINBOW_FIRST,
  RAINBOW_HUES,
  SILVER_TINT,
  THEME_TINTS,
  WARM_WHITE,
} from "./firework_colors.ts";
import type { FireworkKind } from "./firework_kinds.ts";
import {
  AGE_BASE,
  DROP,
  MOTION,
  MOTIONS,
  REACH,
  STYLE_COLORS,
  STYLE_STRIDE,
  styleOf,
  VELOCITY_FALL,
  VELOCITY_KEPT,
} from "./firework_motion.ts";
import {
  FireworkPlan,
  type LaunchShape,
  PHASE,
  planFirework,
  RISE_MAX,
  SHELL_DRIFT_MAX,
  splitDelays,
  TRAIL_LIFE_MAX,
  TRAIL_LIFE_MIN,
  TRAIL_PER_TICK,
  TRAIL_RING_TICKS,
  trailSlot,
  zeros,
} from "./firework_plan.ts";
import { directionNoiseArray, NOISE_FREQUENCY, NOISE_STRENGTH } from "./firework_noise.ts";
import type { Recipe } from "./firework_recipes.ts";
import type { Hasher } from "./hash.ts";
import { WordRecorder } from "./word_recorder.ts";
import type { Block } from "./particle_pool.ts";
import { hashUnit, hashUnits, keyPart, mixKey, mixKeyed, Rng, STREAM, streamKey } from "./prng.ts";
import {
  BURST_DRAW,
  BURST_SPARKS,
  BURST_STREAM,
  CHILD_DRAWS,
  SPARK_DRAWS,
} from "./firework_draws.ts";
import type { FireworkView } from "./views.ts";
import { type Theme, THEMES, type ThemeSetting } from "./types.ts";

// The hot loop visits only a launch's slots in [lo, hi): below lo all are dead for good, from hi
// on none has spawned. lo is the first live slot, so this needs every later spawn to land at or
// above hi, or above a slot that is still alive:
// - during the rise the live shell in slot 0 pins lo to 0, so reused trail ring slots are visited;
// - break k's slots all lie at or above hi when it goes off (breaks are laid out in order);
// - a spark's split children and ember ring lie above that spark, which lives while it drops
//   embers and until the very step it splits (children spawn in that step, before lo is raised).

/** Palm fronds' cos φ (from the vertical) range: a band between ~45° and ~84° from vertical. */
export const PALM_COS_PHI = [0.1, 0.7] as const;

/** Stratified trail sampling: sample n of a tick lies in (n + 0.5 ± TRAIL_JITTER / 2) / N. */
export const TRAIL_JITTER = 0.3;

/**
 * Upper bound on the distance between consecutive trail sparks at spawn, metres: stratified
 * sampling puts them at most (1 + TRAIL_JITTER) / TRAIL_PER_TICK segments apart, and the fastest
 * shell moves at most (its launch speed + 2 · SHELL_DRIFT_MAX) · DT per tick. It is below the
 * trail sprite's size, so the trail reads as one unbroken line.
 */
export const TRAIL_GAP_BOUND = ((1 + TRAIL_JITTER) / TRAIL_PER_TICK) *
  (MOTIONS[MOTION.shell].gravity * (RISE_MAX + 0.5) * DT + 2 * SHELL_DRIFT_MAX) * DT;

// A spherical placement (burst sparks, split children): spark i moves at `speed` along the
// direction (cos φ, θ) on top of the carried velocity (vx, vy, vz), i.e. with
// ring = √(1 − cos² φ) · speed, velocity = (vx + ring · cos θ, vy + speed · cos φ,
// vz + ring · sin θ). With cos φ = 1 − 2u directions are uniform on the sphere (φ = acos(1 − 2u));
// sin φ = √(1 − cos² φ) saves the acos/sin/cos round trip. `#burst` and `#splitBirth` write it
// inline, θ's cosine and sine taken for all sparks at once (cosSinArray).

/**
 * Spawns slot `i` at (x, y, z) with velocity (vx, vy, vz): position = previous = origin (closed
 * form: origin only; `sync` writes the rest when it is read).
 */
function place(
  fw: Fireworks,
  i: number,
  x: number,
  y: number,
  z: number,
  vx: number,
  vy: number,
  vz: number,
): void {
  const { position, previous, origin, velocity } = fw.pool;
  const p = i * 3;
  origin[p] = x;
  origin[p + 1] = y;
  origin[p + 2] = z;
  if (!fw.closedForm) {
    position[p] = previous[p] = x;
    position[p + 1] = previous[p + 1] = y;
    position[p + 2] = previous[p + 2] = z;
  }
  velocity[p] = vx;
  velocity[p + 1] = vy;
  velocity[p + 2] = vz;
}

/**
 * Writes the colour of slot `i` for a particle of `style` that is `age` ticks into `maxLife`:
 * the shared life curve, tinted. Spawns use it; the hot loop inlines the same lookup.
 */
function paint(color: Float32Array, i: number, style: number, age: number, maxLife: number): void {
  const o = style * STYLE_STRIDE + Math.floor((age * COLOR_STEPS) / maxLife + 0.5) * 4;
  const c = i * 4;
  color[c] = STYLE_COLORS[o];
  color[c + 1] = STYLE_COLORS[o + 1];
  color[c + 2] = STYLE_COLORS[o + 2];
  color[c + 3] = STYLE_COLORS[o + 3];
}

/**
 * The tint of each theme's trails: seed 002's red-gold has gold trails, blue-silver silver
 * ones; the others keep the shell's warm white.
 */
export const THEME_TRAIL_TINT: Readonly<Record<Theme, number>> = {
  "red-gold": GOLD_TINT,
  "blue-silver": SILVER_TINT,
  "green-purple": WARM_WHITE,
  "rainbow": WARM_WHITE,
};

/**
 * Trail sparks are born slightly downward (seed 002: vy −50…−20 and vx ±20 px/s under a
 * 400 px/s rise), so the trail falls behind the shell: vy in −TRAIL_SINK, ±TRAIL_SIDE sideways.
 */
export const TRAIL_SINK = [1.2, 3] as const;
export const TRAIL_SIDE = 1;

/** A strobe key in 1..255 for spark `n` of stream `key` (0 means steady). */
function flickerKey(key: number, n: number): number {
  return 1 + ((key + Math.imul(n, 0x9e3779b1)) >>> 24) % 255;
}

/**
 * A burst spark's lifetime in ticks from its life draw `roll` (firework_draws.ts), within the
 * recipe's range `life`; the break's first splitting sparks live until they split instead.
 */
function drawnLife(life: readonly [number, number], roll: number): number {
  return life[0] + Math.floor(roll * (life[1] - life[0] + 1));
}

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
}

/** Options of {@link Fireworks}. */
export interface FireworksOptions {
  /**
   * Closed form only: `step` spawns and ends launches but never moves a spark nor counts a
   * death (`live` evaluates the count, `expectedLive` estimates it);
   * positions, colours and lives are evaluated from each spark's birth state when read
   * (`sync`, the hash, the settled view). Default false: every step moves every live spark.
   */
  closedForm?: boolean;
  /** The pool's arena slack (ParticlePool); default 1. */
  slack?: number;
}

/** A slot's evaluated state: the pool's own arrays, or scratch for one launch. */
/**
 * A hash of the launches begun at `tick` (`Fireworks.beginHash`): the launches then, in order,
 * with what their evaluation reads that changes later (their range, and how far their trail and
 * ember rings had come: `waves[waveAt[k]..waveAt[k + 1])` are launch k's ember waves per break).
 */
interface PendingHash {
  h: Hasher;
  tick: number;
  blocks: FireworkBlock[];
  lo: Int32Array;
  hi: Int32Array;
  trailTicks: Int32Array;
  waveAt: Int32Array;
  waves: Int32Array;
  /** The next launch to hash. */
  next: number;
  /** Launches past `next` hashed before they ended, by index: their words, in order. */
  early: Map<number, WordRecorder>;
}

interface SlotState {
  position: Float32Array;
  previous: Float32Array;
  color: Float32Array;
  life: Float32Array;
  /**
   * Scratch only: the velocity the hash reads, the stored one, or zero for a slot not spawned
   * yet (closed form writes split children's births with their break, ahead of their split).
   */
  velocity?: Float32Array;
}

/** The 32-bit words of a float array (the hash reads the bits). */
function words(array: Float32Array): Uint32Array {
  return new Uint32Array(array.buffer, array.byteOffset, array.length);
}

/** The longest a break's spark lives: the recipe's longest life, or its latest split. */
function longestSparkLife(recipe: Recipe): number {
  const split = recipe.split;
  return split ? Math.max(recipe.life[1], split.delay[1]) : recipe.life[1];
}

/**
 * Ember waves one break of `recipe` drops at most: at spark ages every, 2·every, … below the
 * longest spark life (as `#advanceBlock` drops them).
 */
function emberWaveSlots(recipe: Recipe): number {
  const trail = recipe.trail;
  return trail ? Math.floor((longestSparkLife(recipe) - 1) / trail.every) : 0;
}

/** What a launch without ember trails keeps per wave: nothing (never written). */
const NO_WAVES: number[] = [];

/**
 * Word recorders kept for reuse (launches hashed early): a 1M sky hashes ~50 launches early a
 * checkpoint, ~2.5 MB of words, which new recorders would grow again each second.
 */
const MAX_SPARE_RECORDERS = 64;

/**
 * The chance that a lifetime drawn uniformly from the integers [lo, hi] outlasts `age` ticks
 * (a particle `age` ticks after its birth is alive while younger than its lifetime).
 */
function outlasts(age: number, lo: number, hi: number): number {
  if (age < lo) return 1;
  if (age >= hi) return 0;
  return (hi - age) / (hi - lo + 1);
}

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

/** What a launch body carries besides its ground point (the LaunchBody fits). */
export interface LaunchSpec extends LaunchShape {
  theme?: Theme;
}

/** All fireworks of a world. */
export class Fireworks extends BlockSystem<FireworkBlock> {
  readonly #rng = new Rng();
  readonly #scratch32 = new Float32Array(3);
  readonly #scratch64 = new Float64Array(3);
  /** Closed-form mode (see FireworksOptions). */
  readonly closedForm: boolean;
  /** The tick the state is at (after `step(t)`: t + 1). */
  #now = 0;
  /** The hash begun by `beginHash` and not finished yet. */
  #pendingHash: PendingHash | null = null;
  /** Recorders of launches hashed early, replayed and kept for the next ones (no regrowth). */
  readonly #spareRecorders: WordRecorder[] = [];
  /** A launch's ember waves now, while it is hashed as of an earlier tick. */
  readonly #wavesNow: number[] = [];
  /** Closed form: the tick the arrays were last evaluated at (−1: never). */
  #settledAt = -1;
  /** Bumped when `jumpTo` rewrites every launch: a mirror of the slots must copy them again. */
  rebuilds = 0;
  /**
   * A view whose arrays are evaluated at the current tick when read (closed form: each read of
   * an array first brings the pool to the current tick, once per tick).
   */
  readonly settledView: FireworkView & {
    readonly origin: Float32Array;
    readonly style: Float32Array;
    readonly blocks: readonly FireworkBlock[];
  };

  constructor(seed: number, capacity: number, options: FireworksOptions = {}) {
    super(seed, capacity, options.slack ?? 1, options.closedForm ?? false);
    this.closedForm = options.closedForm ?? false;
    const pool = this.pool;
    const sync = () => this.sync();
    this.settledView = {
      get count() {
        return pool.count;
      },
      get position() {
        sync();
        return pool.position;
      },
      get previous() {
        sync();
        return pool.previous;
      },
      get color() {
        sync();
        return pool.color;
      },
      get size() {
        return pool.size;
      },
      get flicker() {
        return pool.flicker;
      },
      get origin() {
        return pool.origin;
      },
      get style() {
        return pool.style;
      },
      get blocks() {
        return pool.blocks;
      },
    };
  }

  /** The tick the state is at. */
  get now(): number {
    return this.#now;
  }

  /**
   * Live particles. Stepping counts them as they spawn and die (`liveCount`; closed form does
   * not read it). Closed form counts no death (that took one lifetime draw per spark born): this
   * evaluates every launch at the current tick, O(slots) like a hash, for tests, checks and
   * tools; a display reads `expectedLive`.
   */
  override live(): number {
    if (!this.closedForm) return this.liveCount;
    this.#catchUpAll();
    const now = this.#now, blocks = this.pool.blocks;
    let live = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      const life = this.#evaluate(block, now).life;
      for (let k = 0, n = block.hi - block.lo; k < n; k++) if (life[k] > 0) live++;
    }
    return live;
  }

  /**
   * The expected number of live particles, in work proportional to the launches (their rise
   * ticks, breaks, splits and ember waves), not to the sparks: what a display shows each frame.
   * Exact for shells and splitting sparks; for trail sparks, burst sparks, split children and
   * embers, whose lifetimes are drawn at random, the number born times the chance that a
   * lifetime from their range outlasts their age. Stepping: the exact count.
   */
  expectedLive(): number {
    if (!this.closedForm) return this.liveCount;
    this.#catchUpAll();
    const now = this.#now, blocks = this.pool.blocks;
    let sum = 0;
    for (let b = 0; b < blocks.length; b++) sum += this.#expectedIn(blocks[b], now);
    return Math.round(sum);
  }

  /** `expectedLive` of one launch at tick `now`. */
  #expectedIn(block: FireworkBlock, now: number): number {
    const plan = block.plan, recipe = block.recipe;
    const age = now - block.tick;
    const rise = plan.riseTicks;
    // The shell lives until its first break puts it out.
    let sum = age < rise ? 1 : 0;
    // Trail sparks of rise tick k are born at age k + 1.
    for (let k = Math.max(0, age - 1 - TRAIL_LIFE_MAX); k < block.trailTicks; k++) {
      sum += TRAIL_PER_TICK * outlasts(age - k - 1, TRAIL_LIFE_MIN, TRAIL_LIFE_MAX);
    }
    const split = recipe.split, trail = recipe.trail;
    const waveSlots = emberWaveSlots(recipe);
    for (let b = 0; b < plan.breaks; b++) {
      const since = age - rise - b * BREAK_GAP_TICKS;
      if (since < 0) break;
      const count = plan.sparkCount[b], splits = plan.splitCount[b];
      const done = block.splitsDone[b];
      // Splitting sparks live until they split.
      sum += splits - done;
      sum += (count - splits) * outlasts(since, recipe.life[0], recipe.life[1]);
      if (split) {
        const order = block.splitOrder[b], delays = block.delays[b];
        // Latest split first: the older ones' children are older still, and past the longest
        // child life they are all dead.
        for (let d = done - 1; d >= 0; d--) {
          const childAge = since - delays[order[d]];
          if (childAge >= split.life[1]) break;
          sum += split.children * outlasts(childAge, split.life[0], split.life[1]);
        }
      }
      if (trail) {
        // Latest wave first, likewise.
        for (let m = block.emberWaves[b] - 1; m >= 0; m--) {
          const emberAge = since - (m + 1) * trail.every;
          if (emberAge >= trail.life[1]) break;
          sum += block.emberParents[b * waveSlots + m] *
            outlasts(emberAge, trail.life[0], trail.life[1]);
        }
      }
    }
    return sum;
  }

  /** Marks slots [from, to) of `block` (relative) as spawned for consumers of births. */
  #touch(block: FireworkBlock, from: number, to: number): void {
    const births = block.births;
    const n = births.length;
    if (n > 0 && births[n - 1] === from) births[n - 1] = to;
    else births.push(from, to);
  }

  /**
   * Adds launch `seq` applied at `tick`: reserves its block and places the shell on the ground,
   * upwind of (x, z) by its drift so that it bursts above (x, z). The caller checks the sky's
   * capacity first.
   */
  launch(seq: number, tick: number, spec: LaunchSpec, setting: ThemeSetting): void {
    const plan = planFirework(this.seed, seq, spec);
    const theme = resolveTheme(spec.theme, setting, plan.themeRoll);
    const primary = zeros(plan.breaks), secondary = zeros(plan.breaks);
    for (let b = 0; b < plan.breaks; b++) {
      primary[b] = secondary[b] = RAINBOW_FIRST;
      if (theme === "rainbow") continue;
      // Seed 002's themes: red with gold, blue with silver, green and purple. Later breaks
      // rotate the theme's tints, so a multi-break shell changes colour.
      const tints = THEME_TINTS[theme];
      primary[b] = tints[b % tints.length];
      secondary[b] = tints[(b + 1) % tints.length];
    }
    const delays: number[][] = [];
    const splitOrder: number[][] = [];
    for (let b = 0; b < plan.breaks; b++) {
      const d = splitDelays(this.seed, seq, plan.recipe, b, zeros(plan.splitCount[b]));
      delays.push(d);
      splitOrder.push(orderByDelay(d));
    }
    const block: FireworkBlock = {
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
    };
    this.pool.add(block);
    // Visited first at the step of its own tick (or the next, applied late).
    if (this.closedForm) this.#schedule(block, Math.max(tick, this.#now));
    const { life, maxLife, style, size, color } = this.pool;
    const i = block.start;
    place(
      this,
      i,
      spec.x - plan.driftX * plan.driftReach,
      0,
      spec.z - plan.driftZ * plan.driftReach,
      plan.driftX,
      plan.shellSpeed,
      plan.driftZ,
    );
    // The block, not the life counter, ends the shell at its apex; a long nominal life keeps its
    // colour near the hot start of the curve while it rises.
    maxLife[i] = plan.riseTicks * 4;
    if (!this.closedForm) life[i] = maxLife[i];
    const shellStyle = styleOf(MOTION.shell, WARM_WHITE);
    style[i] = shellStyle;
    size[i] = MOTIONS[MOTION.shell].size;
    if (!this.closedForm) paint(color, i, shellStyle, 0, maxLife[i]);
    this.pool.born[i] = 0;
    this.#touch(block, 0, 1);
    this.liveCount++;
  }

  /** Simulates `tick` → `tick + 1`: moves every live particle, then spawns and bursts. */
  step(tick: number): void {
    const blocks = this.pool.blocks;
    this.#now = tick + 1;
    if (this.closedForm) {
      // No spark moves and no death is counted: bursts and splits are marked (their sparks
      // placed when read, trails and embers counted when read) and launches ended. Only the
      // launches with a burst or a split due are visited.
      const due = this.#due.get(tick);
      if (due) {
        this.#due.delete(tick);
        for (let d = 0; d < due.length; d++) {
          const block = due[d];
          if (block.endTick <= tick) continue;
          this.#advanceBlock(block, tick);
          this.#schedule(block, this.#nextDue(block, tick));
        }
        due.length = 0;
        this.#spareDue.push(due);
      }
      this.#hashEndingBy(tick + 1);
      this.pool.expire(tick + 1);
      return;
    }
    let died = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      died += this.#integrateRange(block.start + block.lo, block.start + block.hi);
    }
    this.liveCount -= died;
    for (let b = 0; b < blocks.length; b++) this.#advanceBlock(blocks[b], tick);
    for (let b = 0; b < blocks.length; b++) this.#raiseLo(blocks[b]);
    this.pool.expire(tick + 1);
  }

  /**
   * Drops launches that have ended by `tick` without simulating anything: for a caller that
   * will `jumpTo` a later tick and never looks at the states in between.
   */
  skip(tick: number): void {
    this.#now = tick + 1;
    this.#hashEndingBy(tick + 1);
    this.pool.expire(tick + 1);
  }

  /**
   * Sets every launch to its state at `tick` (≥ each launch's tick) directly from the closed
   * forms: identical, bit for bit, to stepping there. Launches that ended by `tick` are dropped.
   */
  jumpTo(tick: number): void {
    // A hash under way is finished first: a jump rewrites every launch.
    this.hashSome(Infinity);
    this.pool.expire(tick);
    const blocks = this.pool.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      this.#jumpBlock(block, tick - block.tick);
      block.births.length = 0;
      block.births.push(0, block.size);
    }
    // Each launch visited at the next step, which finds what is due after it.
    this.#due.clear();
    if (this.closedForm) {
      for (let b = 0; b < blocks.length; b++) {
        this.#schedule(blocks[b], tick);
      }
    }
    // Each launch's first live slot raised; stepping counts the living afresh (the spawns above
    // counted every birth). Closed form keeps no count: `live` evaluates it when asked.
    let live = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      if (this.closedForm) {
        // From the births alone (the pool keeps no state unless read).
        this.#raiseLoAt(block, tick - block.tick);
        continue;
      }
      const life = this.#poolState.life;
      this.#raiseLoIn(block, life, 0);
      for (let i = block.start + block.lo; i < block.start + block.hi; i++) {
        if (life[i] > 0) live++;
      }
    }
    this.liveCount = live;
    this.#now = tick;
    // Closed form: the pool's state (kept only once read) is evaluated again when read.
    this.#settledAt = this.closedForm ? -1 : tick;
    this.rebuilds++;
  }

  /** The pool's own state arrays (stepping, or a closed form whose views were read). */
  get #poolState(): SlotState {
    const { position, previous, color, life } = this.pool;
    return { position, previous, color, life };
  }

  /**
   * Closed form: evaluates the views' arrays (position, previous, colour, life) at the current
   * tick from each slot's birth state, exactly what stepping would have left there, and raises
   * each launch's `lo`. The pool keeps these arrays only from the first read on (a client that
   * only draws and hashes never stores them). Once per tick; a no-op when stepping moves them.
   */
  sync(): void {
    if (!this.closedForm || this.#settledAt === this.#now) return;
    this.#catchUpAll();
    this.pool.ensureState();
    const now = this.#now;
    const blocks = this.pool.blocks;
    const state = this.#poolState;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      this.#writeBirths(block);
      this.#evaluateInto(block, now - block.tick, state, 0);
      this.#raiseLoIn(block, state.life, 0);
    }
    this.#settledAt = now;
  }

  /**
   * Closed form: the state of `block`'s possibly-live slots [lo, hi) at tick `now` in scratch
   * arrays, slot `block.start + lo + k` at index k (embers dropped since the last write are
   * written into the pool's birth arrays first). Valid until the next call.
   */
  #evaluate(block: FireworkBlock, now: number): SlotState {
    this.#writeBirths(block);
    const n = block.hi - block.lo;
    let scratch = this.#scratch;
    if (scratch.life.length < n) {
      const slots = Math.max(n, scratch.life.length * 2);
      scratch = this.#scratch = {
        position: new Float32Array(slots * 3),
        previous: new Float32Array(slots * 3),
        color: new Float32Array(slots * 4),
        life: new Float32Array(slots),
        velocity: new Float32Array(slots * 3),
      };
      this.#scratchWords = {
        position: words(scratch.position),
        velocity: words(scratch.velocity!),
        color: words(scratch.color),
        life: words(scratch.life),
      };
    }
    this.#evaluateInto(block, now - block.tick, scratch, block.start + block.lo);
    return scratch;
  }

  /** The scratch arrays' bits, for the hash. */
  #scratchWords: {
    position: Uint32Array;
    velocity: Uint32Array;
    color: Uint32Array;
    life: Uint32Array;
  } = {
    position: new Uint32Array(0),
    velocity: new Uint32Array(0),
    color: new Uint32Array(0),
    life: new Uint32Array(0),
  };

  #scratch: SlotState = {
    position: new Float32Array(0),
    previous: new Float32Array(0),
    color: new Float32Array(0),
    life: new Float32Array(0),
    velocity: new Float32Array(0),
  };

  /**
   * Writes the state of `block`'s slots [lo, hi), `steps` ticks after its launch, into `out`
   * (slot i at index i − shift): the shell as stepped until its apex, then put out by the burst
   * without a paint; every other slot by `#settleRange`.
   */
  #evaluateInto(block: FireworkBlock, steps: number, out: SlotState, shift: number): void {
    const start = block.start;
    let from = block.lo;
    if (from === 0) {
      const rise = block.plan.riseTicks;
      if (steps < rise) this.#settleInto(start, steps, out, shift);
      else this.#putOut(start, rise, out, shift);
      if (out.velocity) {
        const o = (start - shift) * 3, p = start * 3, v = this.pool.velocity;
        out.velocity[o] = v[p];
        out.velocity[o + 1] = v[p + 1];
        out.velocity[o + 2] = v[p + 2];
      }
      from = 1;
    }
    this.#settleRange(start + from, start + block.hi, steps, out, shift);
  }

  /** The shell `shell` as its burst at age `rise` left it: at its apex, dark, dead. */
  #putOut(shell: number, rise: number, out: SlotState, shift: number): void {
    const o = shell - shift;
    this.#placeAt(shell, rise - 1, out.previous, o * 3);
    this.#placeAt(shell, rise, out.position, o * 3);
    out.life[o] = 0;
    paint(out.color, o, this.pool.style[shell] | 0, rise, this.pool.maxLife[shell]);
    out.color[o * 4 + 3] = 0;
  }

  /**
   * `#settle` over slots [from, to) of a launch `steps` ticks old into `out` (slot i at index
   * i − shift), inlined like the stepping hot loop (the same expressions, so the same bits):
   * never-spawned slots read as zero, as a new block leaves them.
   */
  #settleRange(from: number, to: number, steps: number, out: SlotState, shift: number): void {
    const { origin, velocity, maxLife, style, born } = this.pool;
    const { position, previous, color, life } = out;
    const colors = STYLE_COLORS, ageBase = AGE_BASE, reach = REACH, drop = DROP;
    const hashed = out.velocity;
    for (let i = from; i < to; i++) {
      const full = maxLife[i];
      const age = steps - born[i];
      const j = i - shift;
      if (hashed) {
        const v = j * 3, q = i * 3, spawned = full > 0 && age >= 0;
        hashed[v] = spawned ? velocity[q] : 0;
        hashed[v + 1] = spawned ? velocity[q + 1] : 0;
        hashed[v + 2] = spawned ? velocity[q + 2] : 0;
      }
      if (full <= 0 || age < 0) {
        // Never spawned (a spawn always sets a life ≥ 1; a slot's birth is never ahead of the
        // launch's tick once it is in [lo, hi)).
        const p = j * 3, c = j * 4;
        position[p] = position[p + 1] = position[p + 2] = 0;
        if (!hashed) previous[p] = previous[p + 1] = previous[p + 2] = 0;
        color[c] =
          color[c + 1] =
          color[c + 2] =
          color[c + 3] =
            0;
        life[j] = 0;
        continue;
      }
      const s = style[i] | 0;
      const q = i * 3;
      if (age === 0) {
        // Born this tick: its birth state (spawning writes only origin and velocity).
        const p = j * 3, c = j * 4, o = s * STYLE_STRIDE;
        position[p] = origin[q];
        position[p + 1] = origin[q + 1];
        position[p + 2] = origin[q + 2];
        if (!hashed) {
          previous[p] = origin[q];
          previous[p + 1] = origin[q + 1];
          previous[p + 2] = origin[q + 2];
        }
        life[j] = full;
        color[c] = colors[o];
        color[c + 1] = colors[o + 1];
        color[c + 2] = colors[o + 2];
        color[c + 3] = colors[o + 3];
        continue;
      }
      const at = age < full ? age : full;
      const a = ageBase[s] + at;
      const r = reach[a], d = drop[a];
      const p = j * 3;
      const ox = origin[q], oy = origin[q + 1], oz = origin[q + 2];
      const vx = velocity[q], vy = velocity[q + 1], vz = velocity[q + 2];
      if (!hashed) {
        const r0 = reach[a - 1], d0 = drop[a - 1];
        previous[p] = ox + vx * r0;
        previous[p + 1] = oy + vy * r0 - d0;
        previous[p + 2] = oz + vz * r0;
      }
      position[p] = ox + vx * r;
      position[p + 1] = oy + vy * r - d;
      position[p + 2] = oz + vz * r;
      // The colour of the last live age: alpha 0 once dead (paint(full − 1), then alpha 0).
      const alive = age < full;
      const shown = alive ? age : full - 1;
      life[j] = alive ? full - age : 0;
      const o = s * STYLE_STRIDE + (((shown * COLOR_STEPS) / full + 0.5) | 0) * 4;
      const c = j * 4;
      color[c] = colors[o];
      color[c + 1] = colors[o + 1];
      color[c + 2] = colors[o + 2];
      color[c + 3] = alive ? colors[o + 3] : 0;
    }
  }

  /** Hashes each live launch's block in application order. */
  hashInto(h: Hasher): void {
    this.beginHash(h);
    this.hashSome(Infinity);
  }

  /**
   * Begins a hash of the launches at the current tick into `h`, to be finished by `hashSome`
   * over later calls while the world steps on (one hash at a time): a checkpoint in a big sky
   * evaluated a few launches per frame instead of all in one. Each launch is hashed as it was at
   * this tick, whatever happened since; a launch about to end is hashed before `step` drops it.
   * Stepping mode hashes its pool's state at once. Returns the slots left to evaluate.
   */
  beginHash(h: Hasher): number {
    if (this.#pendingHash) throw new Error("fireworks_hash: a hash is already under way");
    const blocks = this.pool.blocks;
    h.u32(blocks.length);
    if (!this.closedForm) {
      // Only the possibly-live range: below `lo` every slot is dead for good, from `hi` on none
      // has spawned, and lo/hi themselves follow from the launch and the ticks since it.
      for (let b = 0; b < blocks.length; b++) {
        this.pool.hashBlock(h, blocks[b], blocks[b].lo, blocks[b].hi);
      }
      return 0;
    }
    // What each launch's evaluation reads that changes as it goes on: its range, and how far its
    // shell's trail ring and its breaks' ember rings had come.
    this.#catchUpAll();
    const n = blocks.length;
    const waveAt = new Int32Array(n + 1);
    for (let b = 0; b < n; b++) waveAt[b + 1] = waveAt[b] + blocks[b].emberWaves.length;
    const waves = new Int32Array(waveAt[n]);
    const lo = new Int32Array(n), hi = new Int32Array(n), trailTicks = new Int32Array(n);
    let slots = 0;
    for (let b = 0; b < n; b++) {
      const block = blocks[b];
      lo[b] = block.lo;
      hi[b] = block.hi;
      slots += block.hi - block.lo;
      trailTicks[b] = block.trailTicks;
      waves.set(block.emberWaves, waveAt[b]);
    }
    this.#pendingHash = {
      h,
      tick: this.#now,
      blocks: blocks.slice(),
      lo,
      hi,
      trailTicks,
      waveAt,
      waves,
      next: 0,
      early: new Map(),
    };
    return slots;
  }

  /**
   * Evaluates and hashes launches of the hash under way, in order, until `slotBudget` slots have
   * been evaluated (at least one launch); returns true once every launch is in (or none was
   * under way). First, with a finite budget, those the next step will drop: they are the hash's
   * work, so they are done here rather than inside that step (which still hashes any it finds
   * unhashed, when several steps run between calls).
   */
  hashSome(slotBudget: number): boolean {
    const pending = this.#pendingHash;
    if (!pending) return true;
    let spent = slotBudget === Infinity ? 0 : this.#hashEndingBy(this.#now + 1);
    let first = true;
    while (pending.next < pending.blocks.length && (first || spent < slotBudget)) {
      first = false;
      const k = pending.next++;
      const early = pending.early.get(k);
      if (early) {
        // Hashed before it ended: its words go in now, in their place.
        early.replayInto(pending.h);
        pending.early.delete(k);
        if (this.#spareRecorders.length < MAX_SPARE_RECORDERS) {
          this.#spareRecorders.push(early.reset());
        }
        continue;
      }
      spent += pending.hi[k] - pending.lo[k];
      this.#hashPendingBlock(pending, k, pending.h);
    }
    if (pending.next < pending.blocks.length) return false;
    this.#pendingHash = null;
    return true;
  }

  /**
   * Before launches ending by `tick` are dropped (and a new launch may take their slots): each
   * that the hash has not reached yet is hashed now into words of its own, mixed in when the
   * hash reaches it (launches end out of their order: a short one after a long one). Returns
   * the slots evaluated.
   */
  #hashEndingBy(tick: number): number {
    const pending = this.#pendingHash;
    if (!pending) return 0;
    let slots = 0;
    for (let k = pending.next; k < pending.blocks.length; k++) {
      if (pending.blocks[k].endTick > tick || pending.early.has(k)) continue;
      const words = this.#spareRecorders.pop() ?? new WordRecorder();
      this.#hashPendingBlock(pending, k, words);
      pending.early.set(k, words);
      slots += pending.hi[k] - pending.lo[k];
    }
    return slots;
  }

  /**
   * Hashes launch `k` of the hash under way into `h` as it was at the hash's tick: its range
   * then, its trail and ember rings written as of then (rewritten if a later evaluation moved
   * them on; the next one writes them forward again), evaluated into scratch and hashed as the
   * pool would hash the same slots (its seq, tick, size and range, then position, velocity,
   * colour and life; a slot whose birth is after that tick as never spawned).
   */
  #hashPendingBlock(pending: PendingHash, k: number, h: Hasher): void {
    const block = pending.blocks[k];
    const lo = block.lo, hi = block.hi, trailTicks = block.trailTicks;
    const waves = block.emberWaves, written = block.emberWritten;
    const at = pending.waveAt[k];
    // Rings as of the hash's tick.
    block.trailTicks = pending.trailTicks[k];
    if (block.trailWritten > block.trailTicks) block.trailWritten = 0;
    const now = this.#wavesNow;
    now.length = 0;
    for (let b = 0; b < waves.length; b++) {
      now.push(waves[b]);
      waves[b] = pending.waves[at + b];
      if (written[b] > waves[b]) written[b] = 0;
    }
    block.lo = pending.lo[k];
    block.hi = pending.hi[k];
    const state = this.#evaluate(block, pending.tick);
    const shift = block.start + block.lo;
    this.#raiseLoIn(block, state.life, shift);
    const from = block.lo, to = block.hi;
    h.int(block.seq).int(block.tick).int(block.size).int(from).int(to);
    const a = block.start + from - shift, z = block.start + to - shift;
    const bits = this.#scratchWords;
    h.words(bits.position, a * 3, z * 3);
    h.words(bits.velocity, a * 3, z * 3);
    h.words(bits.color, a * 4, z * 4);
    h.words(bits.life, a, z);
    // Back to the launch as it is now (a first live slot then is at or below the first now).
    block.lo = Math.max(lo, from);
    block.hi = hi;
    block.trailTicks = trailTicks;
    for (let b = 0; b < waves.length; b++) waves[b] = now[b];
  }

  /**
   * Slots below `hi` never spawn later while a slot below them lives (see the top), so dead
   * ones at the bottom of a launch's range are done for good: `lo` is its first live slot
   * (`life` holds slot i at index i − shift).
   */
  #raiseLoIn(block: FireworkBlock, life: Float32Array, shift: number): void {
    let lo = block.lo;
    while (lo < block.hi && life[block.start + lo - shift] <= 0) lo++;
    block.lo = lo;
  }

  /**
   * Closed form: `lo` raised to the launch's first live slot `steps` ticks after it, read from
   * the births (its embers and trail written first): alive is what `#evaluate`'s life says —
   * the shell until its apex, any other slot born, not yet `maxLife` old — without evaluating
   * the slots' positions and colours.
   */
  #raiseLoAt(block: FireworkBlock, steps: number): void {
    this.#writeBirths(block);
    const { maxLife, born } = this.pool;
    const start = block.start, hi = block.hi;
    let lo = block.lo;
    if (lo === 0 && lo < hi) {
      if (steps < block.plan.riseTicks) return;
      lo = 1;
    }
    for (; lo < hi; lo++) {
      const full = maxLife[start + lo], age = steps - born[start + lo];
      if (full > 0 && age >= 0 && age < full) break;
    }
    block.lo = lo;
  }

  #raiseLo(block: FireworkBlock): void {
    this.#raiseLoIn(block, this.pool.life, 0);
  }

  /** The hot loop: one tick of age, the closed-form position and the colour of live slots. */
  #integrateRange(from: number, to: number): number {
    const { position, previous, origin, velocity, color, life, maxLife, style } = this.pool;
    // Locals, not module bindings, so the optimiser keeps them in registers.
    const colors = STYLE_COLORS, ageBase = AGE_BASE, reach = REACH, drop = DROP;
    let died = 0;
    for (let i = from; i < to; i++) {
      const left = life[i];
      if (left <= 0) continue;
      const remaining = left - 1;
      life[i] = remaining;
      const full = maxLife[i];
      const age = full - remaining;
      const s = style[i] | 0;
      const a = ageBase[s] + age;
      const r = reach[a], d = drop[a];
      const p = i * 3;
      previous[p] = position[p];
      previous[p + 1] = position[p + 1];
      previous[p + 2] = position[p + 2];
      // placeAt(), inlined: the same expression, so stepping and jumping agree to the bit.
      position[p] = origin[p] + velocity[p] * r;
      position[p + 1] = origin[p + 1] + velocity[p + 1] * r - d;
      position[p + 2] = origin[p + 2] + velocity[p + 2] * r;
      const c = i * 4;
      if (remaining === 0) {
        color[c + 3] = 0;
        died++;
        continue;
      }
      // paint(), inlined: the life curve at this age, tinted.
      const o = s * STYLE_STRIDE + (((age * COLOR_STEPS) / full + 0.5) | 0) * 4;
      color[c] = colors[o];
      color[c + 1] = colors[o + 1];
      color[c + 2] = colors[o + 2];
      color[c + 3] = colors[o + 3];
    }
    return died;
  }

  /** Writes slot `i`'s position at `age` ticks after its spawn into `out` (float64 array). */
  #placeAt(i: number, age: number, out: Float64Array | Float32Array, at: number): void {
    const { origin, velocity, style } = this.pool;
    const a = AGE_BASE[style[i] | 0] + age;
    const r = REACH[a], d = DROP[a];
    const p = i * 3;
    out[at] = origin[p] + velocity[p] * r;
    out[at + 1] = origin[p + 1] + velocity[p + 1] * r - d;
    out[at + 2] = origin[p + 2] + velocity[p + 2] * r;
  }

  /** Slot `i`'s stored (float32) position at `age`, as stepping would have stored it. */
  #storedPositionAt(i: number, age: number): Float32Array {
    this.#placeAt(i, age, this.#scratch32, 0);
    return this.#scratch32;
  }

  /**
   * Slot `i`'s velocity in m/s at `age` ticks after its spawn, by the closed form (float64;
   * fireworks store only the spawn velocity). Writes into and returns `out`.
   */
  velocityAt(i: number, age: number, out: Float64Array): Float64Array {
    const { velocity, style } = this.pool;
    const a = AGE_BASE[style[i] | 0] + age;
    const kept = VELOCITY_KEPT[a];
    const p = i * 3;
    out[0] = velocity[p] * kept;
    out[1] = velocity[p + 1] * kept - VELOCITY_FALL[a];
    out[2] = velocity[p + 2] * kept;
    return out;
  }

  /**
   * Sets slot `i` (spawned with its full life) to its state `age` ticks later, as stepping
   * leaves it: alive, or dead since reaching its max life (position frozen there, colour of its
   * last live tick with alpha 0). Closed form without kept state: nothing to set (the state is
   * evaluated when read).
   */
  #settle(i: number, age: number): void {
    if (!this.pool.hasState) return;
    this.#settleInto(i, age, this.#poolState, 0);
  }

  /** `#settle` into `out`, slot i at index i − shift. */
  #settleInto(i: number, age: number, out: SlotState, shift: number): void {
    if (age < 0) return;
    const { origin, maxLife, style } = this.pool;
    const { position, previous, color, life } = out;
    const full = maxLife[i];
    const j = i - shift;
    if (age === 0) {
      // Its birth state (a closed-form spawn writes only origin and velocity).
      const p = j * 3, q = i * 3;
      position[p] = previous[p] = origin[q];
      position[p + 1] = previous[p + 1] = origin[q + 1];
      position[p + 2] = previous[p + 2] = origin[q + 2];
      life[j] = full;
      paint(color, j, style[i] | 0, 0, full);
      return;
    }
    const at = age < full ? age : full;
    this.#placeAt(i, at - 1, previous, j * 3);
    this.#placeAt(i, at, position, j * 3);
    const s = style[i] | 0;
    if (age < full) {
      life[j] = full - age;
      paint(color, j, s, age, full);
    } else {
      life[j] = 0;
      paint(color, j, s, full - 1, full);
      color[j * 4 + 3] = 0;
    }
  }

  /** Rebuilds one launch `steps` ticks after it, by its spawns and the closed forms. */
  #jumpBlock(block: FireworkBlock, steps: number): void {
    block.trailTicks = block.trailWritten = 0;
    block.bursts = block.burstsWritten = 0;
    block.splitsDone.fill(0);
    block.emberWaves.fill(0);
    block.emberWritten.fill(0);
    if (steps <= 0) {
      this.#settle(block.start, 0);
      return;
    }
    const plan = block.plan;
    const rise = plan.riseTicks;
    const trailTicks = Math.min(steps, rise);
    // Earlier trail ticks' slots were reused by these last TRAIL_RING_TICKS ones.
    const firstTrail = Math.max(0, trailTicks - TRAIL_RING_TICKS);
    for (let k = firstTrail; k < trailTicks; k++) this.#spawnTrail(block, k);
    block.trailTicks = block.trailWritten = trailTicks;
    for (let k = firstTrail; k < trailTicks; k++) {
      for (let n = 0; n < TRAIL_PER_TICK; n++) {
        this.#settle(block.start + trailSlot(k, n), steps - k - 1);
      }
    }
    const shell = block.start;
    if (steps < rise) {
      this.#settle(shell, steps);
      return;
    }
    const recipe = block.recipe;
    const sinceApex = steps - rise;
    for (let b = 0; b < plan.breaks; b++) {
      const since = sinceApex - b * BREAK_GAP_TICKS;
      if (since < 0) break;
      this.#burst(block, b);
      // Kept state is settled from the sparks' births at once; otherwise the next read writes
      // them (#raiseLoAt, right after the jump).
      if (this.pool.hasState) this.#writeBursts(block);
      if (b === 0 && this.pool.hasState) {
        // The shell stepped to its apex, then the burst put it out without another paint.
        this.#putOut(shell, rise, this.#poolState, 0);
      }
      const first = shell + plan.sparkStart[b];
      for (let n = 0; n < plan.sparkCount[b]; n++) this.#settle(first + n, since);
      const delays = block.delays[b];
      const split = recipe.split;
      if (split) {
        for (let j = 0; j < delays.length; j++) {
          if (since < delays[j]) continue;
          this.#split(block, b, j);
          const children = shell + plan.childStart[b] + j * split.children;
          for (let n = 0; n < split.children; n++) this.#settle(children + n, since - delays[j]);
        }
        const order = block.splitOrder[b];
        let done = 0;
        while (done < order.length && delays[order[done]] <= since) done++;
        block.splitsDone[b] = done;
      }
      const trail = recipe.trail;
      if (trail && this.closedForm && !this.pool.hasState) {
        // Waves so far marked dropped, as steps would have (their range grown by the break's
        // table, #catchUp), and none written: the next read writes each spark's last
        // ring of embers (#writeBirths), the same embers as below.
        const slots = emberWaveSlots(recipe), base = b * slots;
        const waves = Math.min(Math.floor(since / trail.every), slots);
        const his = block.emberHi;
        for (let m = 0; m < waves; m++) if (his[base + m] > block.hi) block.hi = his[base + m];
        block.emberWaves[b] = waves;
        block.emberWritten[b] = 0;
      } else if (trail) {
        const maxLife = this.pool.maxLife;
        const keyed = this.#emberKeyed(block, b), ring = trail.ring;
        const ringStart = shell + plan.emberStart[b];
        for (let n = 0; n < plan.trailCount[b]; n++) {
          // Embers drop at spark ages every, 2·every, … while the spark lives (age < its life).
          const last = Math.min(since, maxLife[first + n] - 1);
          const dropped = Math.floor(last / trail.every);
          const from = Math.max(0, dropped - ring);
          if (from >= dropped) continue;
          this.#dropEmbers(block, b, n, from, dropped, keyed);
          for (let m = from; m < dropped; m++) {
            const slot = ringStart + n * ring + (m % ring);
            this.#settle(slot, since - (m + 1) * trail.every);
            block.hi = Math.max(block.hi, slot - shell + 1);
            this.liveCount++;
          }
        }
        // Waves so far: at ages every, 2·every, … up to `since`, while younger than the longest
        // spark life (as #advanceBlock drops them); all written.
        const slots = emberWaveSlots(recipe);
        const waves = Math.min(Math.floor(since / trail.every), slots);
        block.emberWaves[b] = block.emberWritten[b] = waves;
      }
    }
  }

  /**
   * Spawns what the launch emits after stepping `tick`: trail, bursts, splits, embers. Closed
   * form counts the trail ticks and ember waves since its last visit first (`#catchUp`): it is
   * visited only for its bursts and splits.
   */
  #advanceBlock(block: FireworkBlock, tick: number): void {
    const k = tick - block.tick;
    const plan = block.plan;
    const closed = this.closedForm;
    if (closed) this.#catchUp(block);
    else if (k < plan.riseTicks) this.#spawnTrail(block, k);
    const sinceApex = k - (plan.riseTicks - 1);
    if (sinceApex < 0) return;
    const splitLast = block.splitLast, every = block.emberEvery, longest = block.longestLife;
    for (let b = 0; b < plan.breaks; b++) {
      const since = sinceApex - b * BREAK_GAP_TICKS;
      if (since < 0) return;
      if (since === 0) {
        this.#burst(block, b);
        continue;
      }
      if (since <= splitLast) {
        const delays = block.delays[b], order = block.splitOrder[b];
        let done = block.splitsDone[b];
        while (done < order.length && delays[order[done]] === since) {
          this.#split(block, b, order[done++]);
        }
        block.splitsDone[b] = done;
      }
      // Sparks drop embers only while they live: never at or beyond the longest spark life.
      if (!closed && every > 0 && since < longest && since % every === 0) {
        const m = since / every - 1;
        this.#emberWave(block, b, m);
        block.emberWritten[b] = block.emberWaves[b] = m + 1;
      }
    }
  }

  /**
   * Closed form: the first step tick after `tick` (whose visit `block` just had) at which
   * `#advanceBlock` has a burst or a split to make for `block` (trail ticks and ember waves are
   * counted when read, `#catchUp`): over its breaks, the next burst or the next split due
   * (`splitsDone` counts those done, in delay order); Infinity when none. The same conditions
   * `#advanceBlock` tests, so a launch is never visited later than it acts.
   */
  #nextDue(block: FireworkBlock, tick: number): number {
    const k = tick - block.tick;
    const plan = block.plan;
    let next = Infinity;
    for (let b = 0; b < plan.breaks; b++) {
      // k' at which break b bursts (its since is 0).
      const apex = plan.riseTicks - 1 + b * BREAK_GAP_TICKS;
      const since = k - apex;
      if (since < 0) {
        // Not burst yet: its burst comes first (later breaks' events come after theirs).
        next = Math.min(next, apex);
        break;
      }
      const done = block.splitsDone[b], order = block.splitOrder[b];
      if (block.splitLast >= 0 && done < order.length) {
        const delay = block.delays[b][order[done]];
        if (delay > since && delay <= block.splitLast) next = Math.min(next, apex + delay);
      }
    }
    return next === Infinity ? Infinity : block.tick + next;
  }

  /**
   * Closed form: the launches with a burst or a split due at a step tick, by tick (a launch is
   * in one list at a time: the next tick it acts at), and emptied lists kept for reuse.
   */
  readonly #due = new Map<number, FireworkBlock[]>();
  readonly #spareDue: FireworkBlock[][] = [];

  /** Puts `block` in the list of step tick `tick` (nothing when Infinity: no more to do). */
  #schedule(block: FireworkBlock, tick: number): void {
    if (tick === Infinity) return;
    let list = this.#due.get(tick);
    if (!list) {
      list = this.#spareDue.pop() ?? [];
      this.#due.set(tick, list);
    }
    list.push(block);
  }

  /**
   * Closed form: counts `block`'s trail ticks and ember waves up to the current tick, as its
   * visits at every tick since the last count would have (`#spawnTrail`'s and `#emberWave`'s
   * counts, without writing a spark): the rise ticks' trail sparks born (their ring slots' range)
   * and, per break burst at least a tick ago, the ember waves dropped (at `every`, 2·`every`, …
   * ticks after it, below the longest spark life; the range from the break's table). Called
   * before anything reads them (a visit, `sync`, the counts, a hash begun), never by a hash
   * already under way, which evaluates each launch as it was at its own tick.
   */
  #catchUp(block: FireworkBlock): void {
    const k = this.#now - 1 - block.tick;
    if (k < 0) return;
    const plan = block.plan;
    const ticks = Math.min(k + 1, plan.riseTicks);
    if (ticks > block.trailTicks) {
      // Ring slots of the ticks counted now (the ring holds the last TRAIL_RING_TICKS).
      let hi = block.hi;
      for (let t = Math.max(block.trailTicks, ticks - TRAIL_RING_TICKS); t < ticks; t++) {
        hi = Math.max(hi, trailSlot(t, TRAIL_PER_TICK));
      }
      block.hi = hi;
      block.trailTicks = ticks;
    }
    const every = block.emberEvery;
    if (every === 0) return;
    const slots = block.waveSlots, his = block.emberHi, waves = block.emberWaves;
    for (let b = 0; b < plan.breaks; b++) {
      const since = k - (plan.riseTicks - 1) - b * BREAK_GAP_TICKS;
      if (since < every) break;
      const dropped = Math.min(Math.floor(since / every), slots);
      for (let m = waves[b]; m < dropped; m++) {
        if (his[b * slots + m] > block.hi) block.hi = his[b * slots + m];
      }
      if (dropped > waves[b]) waves[b] = dropped;
    }
  }

  /** `#catchUp` of every launch. */
  #catchUpAll(): void {
    const blocks = this.pool.blocks;
    for (let b = 0; b < blocks.length; b++) this.#catchUp(blocks[b]);
  }

  /**
   * Closed form: writes the trail sparks counted since the last write into the pool — only the
   * last TRAIL_RING_TICKS ticks' (older ones are overwritten in the ring) — without counting them
   * again.
   */
  #writeTrail(block: FireworkBlock): void {
    const ticks = block.trailTicks;
    for (let k = Math.max(block.trailWritten, ticks - TRAIL_RING_TICKS); k < ticks; k++) {
      this.#spawnTrail(block, k, false);
    }
    block.trailWritten = ticks;
  }

  /** Drops TRAIL_PER_TICK sparks stratified along the shell's last segment, so it never breaks. */
  #spawnTrail(block: FireworkBlock, k: number, count = true): void {
    const rng = this.#rng.reseed(streamKey(this.seed, STREAM.firework, block.seq, PHASE.trail + k));
    const shell = block.start;
    // The shell's segment this tick: from its position at age k to age k + 1 (as stored).
    const from = this.#storedPositionAt(shell, k);
    const x0 = from[0], y0 = from[1], z0 = from[2];
    const to = this.#storedPositionAt(shell, k + 1);
    const dx = to[0] - x0, dy = to[1] - y0, dz = to[2] - z0;
    const { life, maxLife, style, size, color, born } = this.pool;
    const trailStyle = styleOf(MOTION.trail, block.trailTint);
    const first = shell + trailSlot(k, 0);
    for (let n = 0; n < TRAIL_PER_TICK; n++) {
      const i = first + n;
      const f = (n + 0.5 + TRAIL_JITTER * (rng.next() - 0.5)) / TRAIL_PER_TICK;
      place(
        this,
        i,
        x0 + dx * f,
        y0 + dy * f,
        z0 + dz * f,
        rng.range(-TRAIL_SIDE, TRAIL_SIDE),
        -rng.range(TRAIL_SINK[0], TRAIL_SINK[1]),
        rng.range(-TRAIL_SIDE, TRAIL_SIDE),
      );
      const lifetime = TRAIL_LIFE_MIN + rng.int(TRAIL_LIFE_MAX - TRAIL_LIFE_MIN + 1);
      maxLife[i] = lifetime;
      if (!this.closedForm) life[i] = lifetime;
      style[i] = trailStyle;
      size[i] = MOTIONS[MOTION.trail].size;
      if (!this.closedForm) paint(color, i, trailStyle, 0, lifetime);
      born[i] = k + 1;
    }
    if (!count) return;
    this.#touch(block, trailSlot(k, 0), trailSlot(k, TRAIL_PER_TICK));
    block.hi = Math.max(block.hi, trailSlot(k, TRAIL_PER_TICK));
    block.trailTicks = k + 1;
    this.liveCount += TRAIL_PER_TICK;
  }

  /** Scratch for a burst's or a split's draws and directions (grown, never shrunk). */
  #draws = new Float64Array(0);
  #angle = new Float64Array(0);
  #cos = new Float64Array(0);
  #sin = new Float64Array(0);
  #dx = new Float64Array(0);
  #dy = new Float64Array(0);
  #dz = new Float64Array(0);
  #noise = new Float64Array(0);

  /** Makes the scratch arrays hold `n` sparks (SPARK_DRAWS draws each). */
  #scratchFor(n: number): void {
    if (this.#angle.length >= n) return;
    const size = Math.max(n, 2 * this.#angle.length, 1024);
    this.#draws = new Float64Array(size * SPARK_DRAWS);
    this.#angle = new Float64Array(size);
    this.#cos = new Float64Array(size);
    this.#sin = new Float64Array(size);
    this.#dx = new Float64Array(size);
    this.#dy = new Float64Array(size);
    this.#dz = new Float64Array(size);
    this.#noise = new Float64Array(size);
  }

  /**
   * Break `b` bursts: at the shell's apex (b = 0, which puts the shell out) or BREAK_GAP_TICKS · b
   * later near it. Its sparks (and, closed form, every child of its splits, born at their split)
   * are counted born and their slots marked for consumers of births; stepping writes their birth
   * state now, closed form when they are first read (`#writeBursts`). The ember table needs only
   * the trailing sparks' lifetimes, one draw each.
   */
  #burst(block: FireworkBlock, b: number): void {
    const plan = block.plan;
    if (b === 0) {
      if (!this.closedForm) {
        const shell = block.start;
        this.pool.life[shell] = 0;
        this.pool.color[shell * 4 + 3] = 0;
      }
      this.liveCount--;
    }
    block.bursts = b + 1;
    if (!this.closedForm) this.#writeBursts(block);
    const count = plan.sparkCount[b], splits = plan.splitCount[b];
    const split = block.recipe.split;
    // Closed form: the births of sparks and children are one range (the children's birth state
    // is written with their break; the split only counts them).
    const touched = this.closedForm && split
      ? plan.childStart[b] + splits * split.children
      : plan.sparkStart[b] + count;
    this.#touch(block, plan.sparkStart[b], touched);
    block.hi = Math.max(block.hi, plan.sparkStart[b] + count);
    this.liveCount += count;
    this.#tabulateEmberWaves(block, b);
  }

  /**
   * Closed form: writes the birth state of the breaks burst since the last write (their sparks
   * and every split child's) into the pool, for a consumer that reads the pool's births directly
   * (a renderer writing the births it draws). `sync`, the hash and a jump write them themselves.
   */
  placeBursts(block: FireworkBlock): void {
    if (block.burstsWritten !== block.bursts) this.#writeBursts(block);
  }

  #frame = new Float64Array(6);

  /**
   * Where break `b` of `block` bursts and the velocity its sparks inherit, into `out`: the burst
   * point (the shell's stored apex plus the break's offset; stored as float32 with each spark's
   * origin) at [0, 3) and the shell's velocity at its apex at [3, 6). Every spark of the break is
   * born there with this velocity plus its own (a GPU placing the sparks reads these). The
   * shell's birth state must be written (it is, from its launch on).
   */
  burstFrame(block: FireworkBlock, b: number, out: Float64Array): Float64Array {
    const plan = block.plan;
    const shell = block.start;
    const apex = this.#storedPositionAt(shell, plan.riseTicks);
    const o = b * 3;
    out[0] = apex[0] + plan.offset[o];
    out[1] = apex[1] + plan.offset[o + 1];
    out[2] = apex[2] + plan.offset[o + 2];
    const sv = this.velocityAt(shell, plan.riseTicks, this.#scratch64);
    out[3] = sv[0];
    out[4] = sv[1];
    out[5] = sv[2];
    return out;
  }

  /** Writes the sparks (and closed form, the children) of breaks [burstsWritten, bursts). */
  #writeBursts(block: FireworkBlock): void {
    for (let b = block.burstsWritten; b < block.bursts; b++) this.#placeBurst(block, b);
    block.burstsWritten = block.bursts;
  }

  /**
   * The birth state of break `b`'s sparks in the kind's shape (and, closed form, of every
   * child of its splits). In passes over typed arrays (the stream's draws, the
   * angles' cosines and sines, the direction noise, then each spark's birth), with no call per
   * spark: the same numbers as placing spark by spark (the spherical placement above,
   * `directionNoise`, `noiseFactor`), a fraction of the cost.
   */
  #placeBurst(block: FireworkBlock, b: number): void {
    const plan = block.plan;
    const recipe = block.recipe;
    const key = streamKey(this.seed, STREAM.firework, block.seq, PHASE.burst + b);
    const shell = block.start;
    const frame = this.burstFrame(block, b, this.#frame);
    const ax = frame[0], ay = frame[1], az = frame[2];
    const svx = frame[3], svy = frame[4], svz = frame[5];
    const {
      position,
      previous,
      origin,
      velocity,
      life,
      maxLife,
      style,
      size,
      color,
      flicker,
      born,
    } = this.pool;
    const closed = this.closedForm;
    const bornRel = plan.riseTicks + b * BREAK_GAP_TICKS;
    const count = plan.sparkCount[b], splits = plan.splitCount[b];
    const base = plan.sparkSpeed[b];
    const spreadLo = recipe.spread[0], spreadSpan = recipe.spread[1] - recipe.spread[0];
    // Seed 002's direction noise: a frequency, a strength and a lattice key per break, from the
    // break's keyed stream (firework_draws.ts).
    const frequency = NOISE_FREQUENCY[0] +
      hashUnit(key, BURST_STREAM.frequency) * (NOISE_FREQUENCY[1] - NOISE_FREQUENCY[0]);
    const strengthRoll = hashUnit(key, BURST_STREAM.strength);
    const strength = recipe.noise
      ? NOISE_STRENGTH[0] + strengthRoll * (NOISE_STRENGTH[1] - NOISE_STRENGTH[0])
      : 0;
    const noiseKey = mixKey(key, BURST_STREAM.noiseKey) | 0;
    const pl = b * 6;
    const e1x = plan.plane[pl], e1y = plan.plane[pl + 1], e1z = plan.plane[pl + 2];
    const e2x = plan.plane[pl + 3], e2y = plan.plane[pl + 4], e2z = plan.plane[pl + 5];
    const sparkSize = MOTIONS[recipe.motion].size;
    const first = shell + plan.sparkStart[b];
    // Pass 1: each spark's five draws (u1, u2, speed, tint pick, life; firework_draws.ts).
    this.#scratchFor(count);
    const draws = this.#draws, angle = this.#angle, cs = this.#cos, sn = this.#sin;
    hashUnits(key, BURST_SPARKS, draws, 0, count * SPARK_DRAWS);
    // Pass 2: the angle each shape turns by, and its cosine and sine.
    const shape = recipe.shape;
    for (let n = 0, d = 0; n < count; n++, d += SPARK_DRAWS) {
      angle[n] = shape === "sphere"
        ? TAU * draws[d + BURST_DRAW.angle]
        : shape === "palm"
        ? (TAU * (n + draws[d + BURST_DRAW.angle])) / count
        : (TAU * (n + draws[d + BURST_DRAW.placement])) / count;
    }
    cosSinArray(angle, count, cs, sn);
    // Sphere with noise: the noise over each spark's direction, once per spark.
    const noisy = shape === "sphere" && strength > 0;
    if (noisy) {
      const dx = this.#dx, dy = this.#dy, dz = this.#dz;
      for (let n = 0, d = 0; n < count; n++, d += SPARK_DRAWS) {
        const cosPhi = 1 - 2 * draws[d + BURST_DRAW.placement];
        const ring = Math.sqrt(1 - cosPhi * cosPhi);
        dx[n] = ring * cs[n];
        dy[n] = cosPhi;
        dz[n] = ring * sn[n];
      }
      directionNoiseArray(dx, dy, dz, count, frequency, noiseKey, this.#noise);
    }
    const noise = this.#noise;
    // Pass 3: each spark's birth. The tint from its pick: willow gold, rainbow a hue per spark,
    // crackle half gold, green-purple alternating spark by spark (seed 002), the other themes
    // 70 % their main tint (red, blue) and 30 % their second (gold, silver).
    const gold = recipe.palette === "gold", crackle = recipe.palette === "crackle";
    const rainbow = block.theme === "rainbow", alternate = block.theme === "green-purple";
    const primary = block.primary[b], secondary = block.secondary[b];
    const twinkle = block.theme === "blue-silver";
    const motion = recipe.motion, flickers = recipe.flicker;
    const lifeRange = recipe.life;
    const delays = block.delays[b];
    for (let n = 0, d = 0; n < count; n++, d += SPARK_DRAWS) {
      const i = first + n;
      const u1 = draws[d + BURST_DRAW.placement];
      const speed = base * (spreadLo + spreadSpan * draws[d + BURST_DRAW.speed]);
      const pick = draws[d + BURST_DRAW.tint];
      const lifeRoll = draws[d + BURST_DRAW.life];
      let vx: number, vy: number, vz: number;
      if (shape === "sphere" || shape === "palm") {
        // The spherical placement (sphere: cos φ = 1 − 2u; palm: a band of cos φ).
        const cosPhi = shape === "sphere"
          ? 1 - 2 * u1
          : PALM_COS_PHI[0] + (PALM_COS_PHI[1] - PALM_COS_PHI[0]) * u1;
        // noiseFactor(n, strength), inlined.
        const bumped = noisy ? speed * (1 - strength * (1 - noise[n]) * 0.5) : speed;
        const ring = Math.sqrt(1 - cosPhi * cosPhi) * bumped;
        vx = svx + ring * cs[n];
        vy = svy + bumped * cosPhi;
        vz = svz + ring * sn[n];
      } else if (shape === "ring") {
        const c = cs[n] * speed, s = sn[n] * speed;
        vx = svx + c * e1x + s * e2x;
        vy = svy + c * e1y + s * e2y;
        vz = svz + c * e1z + s * e2z;
      } else {
        // Heart: x = sin³t, y = (13 cos t − 5 cos 2t − 2 cos 3t − cos 4t) / 16 (the classic / 16).
        const st = sn[n], ct = cs[n];
        const c2 = 2 * ct * ct - 1, c3 = ct * (4 * ct * ct - 3), c4 = 2 * c2 * c2 - 1;
        const hx = st * st * st * speed;
        const hy = ((13 * ct - 5 * c2 - 2 * c3 - c4) / 16) * speed;
        vx = svx + hx * e1x + hy * e2x;
        vy = svy + hx * e1y + hy * e2y;
        vz = svz + hx * e1z + hy * e2z;
      }
      const p = i * 3;
      origin[p] = ax;
      origin[p + 1] = ay;
      origin[p + 2] = az;
      velocity[p] = vx;
      velocity[p + 1] = vy;
      velocity[p + 2] = vz;
      // The first `splits` sparks split: they die exactly when they split.
      const lifetime = n < splits ? delays[n] : drawnLife(lifeRange, lifeRoll);
      const tint = gold
        ? (pick < 0.6 ? GOLD_TINT : AMBER_TINT)
        : rainbow
        ? RAINBOW_FIRST + Math.floor(pick * RAINBOW_HUES)
        : crackle
        ? (pick < 0.5 ? GOLD_TINT : primary)
        : alternate
        ? (n & 1 ? secondary : primary)
        : (pick < 0.7 ? primary : secondary);
      const s = motion * PALETTE_SIZE + tint; // styleOf(motion, tint)
      maxLife[i] = lifetime;
      style[i] = s;
      size[i] = sparkSize;
      // Blue-silver's silver sparks twinkle (seed 002); crackle strobes.
      flicker[i] = flickers || (tint === SILVER_TINT && twinkle) ? flickerKey(key, n) : 0;
      born[i] = bornRel;
      if (!closed) {
        position[p] = previous[p] = ax;
        position[p + 1] = previous[p + 1] = ay;
        position[p + 2] = previous[p + 2] = az;
        life[i] = lifetime;
        paint(color, i, s, 0, lifetime);
      }
    }
    const split = recipe.split;
    if (closed && split) {
      // Every child of the break, born at its split (the split only counts them).
      for (let j = 0; j < splits; j++) this.#splitBirth(block, b, j);
    }
  }

  /** Split `j` of break `b`: its spark just died; its children fly from where it was. */
  #split(block: FireworkBlock, b: number, j: number): void {
    // Closed form: the children's birth state was written with their break (#burst).
    if (!this.closedForm) this.#splitBirth(block, b, j);
    this.#splitCount(block, b, j);
  }

  /**
   * The birth state of split `j`'s children (where its spark is at its delay, the split's own
   * stream), written into their slots. Closed form writes them with the break, born in the
   * future: a slot whose birth is ahead reads as never spawned (`#settleRange`, the hash), and
   * a GPU renderer writes a break's sparks and every child in one run.
   */
  #splitBirth(block: FireworkBlock, b: number, j: number): void {
    const plan = block.plan;
    const split = block.recipe.split!;
    const key = streamKey(this.seed, STREAM.firework, block.seq, PHASE.child + (b << 12) + j);
    const parent = block.start + plan.sparkStart[b] + j;
    const delay = block.delays[b][j];
    // The parent dies as it splits, at an age equal to its delay.
    const at = this.#storedPositionAt(parent, delay);
    const ax = at[0], ay = at[1], az = at[2];
    const pv = this.velocityAt(parent, delay, this.#scratch64);
    const pvx = pv[0], pvy = pv[1], pvz = pv[2];
    const cx = pvx * split.carry, cy = pvy * split.carry, cz = pvz * split.carry;
    const { life, maxLife, style, size, color, flicker, born } = this.pool;
    const bornRel = plan.riseTicks + b * BREAK_GAP_TICKS + delay;
    const parentTint = (style[parent] | 0) % PALETTE_SIZE;
    // "warm" children keep the parent's tint; their motion class mixes in less of it.
    const tint = split.tint === "silver" ? SILVER_TINT : parentTint;
    const s = styleOf(split.motion, tint);
    const childSize = MOTIONS[split.motion].size;
    const first = block.start + plan.childStart[b] + j * split.children;
    const children = split.children;
    const cross = split.pattern === "cross";
    // The split's keyed stream: the speed, then each child's direction and speed (cross: one
    // turn), then each child's lifetime (firework_draws.ts); drawn at once into scratch.
    const drawn = cross ? 2 + children : 1 + (CHILD_DRAWS + 1) * children;
    this.#scratchFor(drawn);
    const draws = this.#draws;
    hashUnits(key, 0, draws, 0, drawn);
    const base = split.speed[0] + draws[0] * (split.speed[1] - split.speed[0]);
    const { position, previous, origin, velocity } = this.pool;
    const closed = this.closedForm;
    if (cross) {
      // Two unit vectors across the parent's flight, turned by a random angle: ±f1, ±f2.
      const vl = Math.sqrt(pvx * pvx + pvy * pvy + pvz * pvz) || 1;
      const vx = pvx / vl, vy = pvy / vl, vz = pvz / vl;
      // a = up unless the flight is near vertical, then x; e1 = normalise(a × v̂), e2 = v̂ × e1.
      let e1x = 0, e1y = 0, e1z = 0;
      if (Math.abs(vy) < 0.9) {
        e1x = vz;
        e1z = -vx;
      } else {
        e1y = -vz;
        e1z = vy;
      }
      const el = 1 / Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
      e1x *= el;
      e1y *= el;
      e1z *= el;
      const e2x = vy * e1z - vz * e1y, e2y = vz * e1x - vx * e1z, e2z = vx * e1y - vy * e1x;
      const turn = TAU * draws[1];
      const c = cos(turn), sn = sin(turn);
      const f1x = c * e1x + sn * e2x, f1y = c * e1y + sn * e2y, f1z = c * e1z + sn * e2z;
      const f2x = c * e2x - sn * e1x, f2y = c * e2y - sn * e1y, f2z = c * e2z - sn * e1z;
      for (let n = 0; n < 4; n++) {
        const sign = n & 1 ? -1 : 1;
        const fx = n < 2 ? f1x : f2x, fy = n < 2 ? f1y : f2y, fz = n < 2 ? f1z : f2z;
        const speed = base * sign;
        place(this, first + n, ax, ay, az, cx + fx * speed, cy + fy * speed, cz + fz * speed);
      }
    } else {
      // The spherical placement per child, the angles' cosines and sines in one pass.
      const angle = this.#angle, cs = this.#cos, sn = this.#sin;
      for (let n = 0; n < children; n++) angle[n] = TAU * draws[2 + CHILD_DRAWS * n];
      cosSinArray(angle, children, cs, sn);
      for (let n = 0; n < children; n++) {
        const d = 1 + CHILD_DRAWS * n;
        const cosPhi = 1 - 2 * draws[d];
        const speed = base * (1 + 0.2 * (2 * draws[d + 2] - 1));
        const ring = Math.sqrt(1 - cosPhi * cosPhi) * speed;
        const p = (first + n) * 3;
        origin[p] = ax;
        origin[p + 1] = ay;
        origin[p + 2] = az;
        if (!closed) {
          position[p] = previous[p] = ax;
          position[p + 1] = previous[p + 1] = ay;
          position[p + 2] = previous[p + 2] = az;
        }
        velocity[p] = cx + ring * cs[n];
        velocity[p + 1] = cy + speed * cosPhi;
        velocity[p + 2] = cz + ring * sn[n];
      }
    }
    const lifeLo = split.life[0], lifeSpan = split.life[1] - split.life[0] + 1;
    const lives = cross ? 2 : 1 + CHILD_DRAWS * children;
    const childFlicker = split.flicker;
    for (let n = 0; n < children; n++) {
      const i = first + n;
      const lifetime = lifeLo + Math.floor(draws[lives + n] * lifeSpan);
      maxLife[i] = lifetime;
      style[i] = s;
      size[i] = childSize;
      flicker[i] = childFlicker ? flickerKey(key, n) : 0;
      born[i] = bornRel;
      if (!closed) {
        life[i] = lifetime;
        paint(color, i, s, 0, lifetime);
      }
    }
  }

  /** Split `j`'s children are born: counted live (stepping), the range grown. */
  #splitCount(block: FireworkBlock, b: number, j: number): void {
    const plan = block.plan;
    const split = block.recipe.split!;
    const rel = plan.childStart[b] + j * split.children;
    if (!this.closedForm) this.#touch(block, rel, rel + split.children);
    block.hi = Math.max(block.hi, rel + split.children);
    this.liveCount += split.children;
  }

  /**
   * At break `b`, from its sparks' lifetimes: per ember wave m, the trailing sparks that drop
   * one (spark n drops in waves m with (m + 1) · every below its life, as `#emberWave` checks)
   * and the range end its last ember sets (`block.emberParents`, `block.emberHi`). One pass over
   * the trailing sparks and one over the waves, instead of a pass over the sparks per wave.
   */
  #tabulateEmberWaves(block: FireworkBlock, b: number): void {
    const trail = block.recipe.trail;
    if (!trail) return;
    const plan = block.plan;
    const slots = emberWaveSlots(block.recipe), base = b * slots;
    const parents = block.emberParents, his = block.emberHi;
    parents.fill(0, base, base + slots);
    his.fill(0, base, base + slots);
    const every = trail.every, ring = trail.ring;
    // The trailing sparks' lifetimes from their life draws alone (their birth state may not be
    // written yet), exactly as #placeBurst draws them.
    const key = streamKey(this.seed, STREAM.firework, block.seq, PHASE.burst + b);
    const splits = plan.splitCount[b], delays = block.delays[b], lifeRange = block.recipe.life;
    // First the sparks whose last wave is m (at base + m), and the last of them plus one.
    for (let n = 0, count = plan.trailCount[b]; n < count; n++) {
      const life = n < splits
        ? delays[n]
        : drawnLife(lifeRange, hashUnit(key, BURST_SPARKS + SPARK_DRAWS * n + BURST_DRAW.life));
      const waves = Math.min(slots, Math.ceil(life / every) - 1);
      if (waves <= 0) continue;
      parents[base + waves - 1]++;
      his[base + waves - 1] = n + 1;
    }
    // Then from the last wave down: the sparks still dropping, and the last of them.
    let alive = 0, top = 0;
    for (let m = slots - 1; m >= 0; m--) {
      alive += parents[base + m];
      parents[base + m] = alive;
      top = Math.max(top, his[base + m]);
      his[base + m] = top > 0 ? plan.emberStart[b] + (top - 1) * ring + (m % ring) + 1 : 0;
    }
  }

  /**
   * Closed form: writes what was marked born since the last write into the pool, before anything
   * reads it: the breaks' sparks and children (`#writeBursts`), the shell's trail, and the
   * embers — per trailing spark, only the last `ring` it dropped (older ones are overwritten in
   * its ring) — without counting any of them again.
   */
  #writeBirths(block: FireworkBlock): void {
    if (block.burstsWritten !== block.bursts) this.#writeBursts(block);
    if (block.trailWritten !== block.trailTicks) this.#writeTrail(block);
    const trail = block.recipe.trail;
    if (!trail) return;
    const plan = block.plan;
    const maxLife = this.pool.maxLife;
    const every = trail.every, ring = trail.ring;
    for (let b = 0; b < plan.breaks; b++) {
      const waves = block.emberWaves[b], written = block.emberWritten[b];
      if (waves === written) continue;
      const first = block.start + plan.sparkStart[b];
      const keyed = this.#emberKeyed(block, b);
      for (let n = 0, count = plan.trailCount[b]; n < count; n++) {
        // Waves this spark dropped: m with (m + 1) · every below its life.
        const dropped = Math.max(0, Math.min(waves, Math.ceil(maxLife[first + n] / every) - 1));
        const from = Math.max(Math.min(written, dropped), dropped - ring);
        if (from < dropped) this.#dropEmbers(block, b, n, from, dropped, keyed);
      }
      block.emberWritten[b] = waves;
    }
  }

  /**
   * Wave `m` of break `b`'s embers: ember `m` of every trailing spark that is still alive (it is
   * `(m + 1) · every` ticks old, alive while younger than its life; one that died or split this
   * step drops none). Stepped mode: with their kept state.
   */
  #emberWave(block: FireworkBlock, b: number, m: number): void {
    const plan = block.plan;
    const trail = block.recipe.trail!;
    const count = plan.trailCount[b];
    if (count === 0) return;
    const maxLife = this.pool.maxLife;
    const age = (m + 1) * trail.every;
    const keyed = this.#emberKeyed(block, b);
    const first = block.start + plan.sparkStart[b];
    let spawned = 0, top = -1;
    for (let n = 0; n < count; n++) {
      if (!(age < maxLife[first + n])) continue;
      top = this.#dropEmbers(block, b, n, m, m + 1, keyed);
      spawned++;
    }
    if (top >= 0) block.hi = Math.max(block.hi, top - block.start + 1);
    this.liveCount += spawned;
  }

  /** The `keyPart` of break `b`'s ember stream (hashUnit(key, k) is mixKeyed(it, k) / 2³²). */
  #emberKeyed(block: FireworkBlock, b: number): number {
    return keyPart(streamKey(this.seed, STREAM.firework, block.seq, PHASE.ember + b));
  }

  /**
   * Writes embers m ∈ [from, to) of trailing spark `n` of break `b`, each into slot m mod ring of
   * the spark's ring, and returns the last slot written. Ember m drops where the spark is at
   * age (m + 1) · every (its position rounded to float32 once, as stored), with the spark's
   * velocity there carried and jittered, and a lifetime, from the break's ember stream (`keyed`,
   * `#emberKeyed`) at index (n · 256 + m) · 4: random access, so a wave, a checkpoint's lazy
   * write and a jump all write the same embers through this one definition (the shader derives
   * them the same way: client/render/firework_shader_math.ts). Stepped mode (kept state) also
   * sets position = previous = origin, full life, the colour curve's first sample.
   */
  #dropEmbers(
    block: FireworkBlock,
    b: number,
    n: number,
    from: number,
    to: number,
    keyed: number,
  ): number {
    const plan = block.plan;
    const trail = block.recipe.trail!;
    const { origin, velocity, maxLife, style, size, flicker, born } = this.pool;
    // Kept state (stepped mode only).
    const state = !this.closedForm;
    const { position, previous, life, color } = this.pool;
    const every = trail.every, ring = trail.ring, jitter = trail.jitter, carry = trail.carry;
    const lifeLo = trail.life[0], lifeSpan = trail.life[1] - trail.life[0] + 1;
    const emberSize = MOTIONS[trail.motion].size;
    const bornBase = plan.riseTicks + b * BREAK_GAP_TICKS;
    const spark = block.start + plan.sparkStart[b] + n;
    const ps = style[spark] | 0, ageBase = AGE_BASE[ps];
    const emberStyle = styleOf(
      trail.motion,
      block.trailTint === GOLD_TINT ? GOLD_TINT : ps % PALETTE_SIZE,
    );
    const p = spark * 3;
    const ox = origin[p], oy = origin[p + 1], oz = origin[p + 2];
    const vx = velocity[p], vy = velocity[p + 1], vz = velocity[p + 2];
    const slots = block.start + plan.emberStart[b] + n * ring;
    let i = -1;
    for (let m = from; m < to; m++) {
      const age = (m + 1) * every;
      const a = ageBase + age;
      const r = REACH[a], d = DROP[a], kept = VELOCITY_KEPT[a];
      const index = (n * 256 + m) * 4;
      i = slots + (m % ring);
      const q = i * 3;
      origin[q] = ox + vx * r;
      origin[q + 1] = oy + vy * r - d;
      origin[q + 2] = oz + vz * r;
      velocity[q] = vx * kept * carry + jitter * (2 * (mixKeyed(keyed, index) / 4294967296) - 1);
      velocity[q + 1] = (vy * kept - VELOCITY_FALL[a]) * carry +
        jitter * (2 * (mixKeyed(keyed, index + 1) / 4294967296) - 1);
      velocity[q + 2] = vz * kept * carry +
        jitter * (2 * (mixKeyed(keyed, index + 2) / 4294967296) - 1);
      const lifetime = lifeLo + Math.floor((mixKeyed(keyed, index + 3) / 4294967296) * lifeSpan);
      maxLife[i] = lifetime;
      style[i] = emberStyle;
      size[i] = emberSize;
      flicker[i] = 0;
      born[i] = bornBase + age;
      if (state) {
        position[q] = previous[q] = origin[q];
        position[q + 1] = previous[q + 1] = origin[q + 1];
        position[q + 2] = previous[q + 2] = origin[q + 2];
        life[i] = lifetime;
        // paint(color, i, emberStyle, 0, lifetime): the curve's first sample.
        const o = emberStyle * STYLE_STRIDE, c = i * 4;
        color[c] = STYLE_COLORS[o];
        color[c + 1] = STYLE_COLORS[o + 1];
        color[c + 2] = STYLE_COLORS[o + 2];
        color[c + 3] = STYLE_COLORS[o + 3];
      }
    }
    return i;
  }
}
