/**
 * The state every part of the fireworks works on (`Sky`): the pool, the seed, the mode, the
 * live count, the tick, and the scratch the parts reuse so that no hot path allocates; plus the
 * small helpers they share: a spawn (`place`), a colour (`paint`), a position and a velocity by
 * the closed form (`placeAt`, `velocityAt`).
 *
 * Motion is closed form (firework_motion.ts): a particle's position is a function of its spawn
 * point, spawn velocity and age, so stepping and jumping give the same bits.
 *
 * @example
 * ```ts
 * import { ParticlePool } from "../particle_pool.ts";
 * import type { FireworkBlock } from "./block.ts";
 * import { Sky } from "./sky.ts";
 * const sky = new Sky(7, new ParticlePool<FireworkBlock>(10_000, 1, true), true);
 * sky.pool.blocks.length; // 0: no launch yet
 * ```
 */
import { COLOR_STEPS } from "../firework_colors.ts";
import { SPARK_DRAWS } from "../firework_draws.ts";
import {
  AGE_BASE,
  DROP,
  REACH,
  STYLE_COLORS,
  STYLE_STRIDE,
  VELOCITY_FALL,
  VELOCITY_KEPT,
} from "../firework_motion.ts";
import { lanes } from "../lanes.ts";
import { ParticlePool } from "../particle_pool.ts";
import { Rng } from "../prng.ts";
import type { FireworkBlock } from "./block.ts";

/** Options of the fireworks (`Fireworks`, `Sky`). */
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
  /**
   * Closed form: once the pool's buffer holds more than this many slots, it keeps no birth state
   * per slot (44 bytes a slot): a launch's births are written into a one-launch window when it is
   * read and forgotten (window.ts). Below it, births written stay for the next read (a small
   * sky's checkpoint evaluates every launch at every checkpoint). Default
   * `CHECKPOINT_SAMPLE_SLOTS` (262,144: a sky the checkpoint samples); Infinity: always kept.
   * The pool keeps them for good from the first read by slot (`Fireworks.keepBirths`).
   */
  windowBirthsAbove?: number;
}

/** A slot's evaluated state: the pool's own arrays, or scratch for one launch. */
export interface SlotState {
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

/**
 * A burst's or a split's scratch, per spark: its draws (SPARK_DRAWS each), the angle it turns
 * by with its cosine and sine, and a sphere's direction (dx, dy, dz) and noise.
 */
const BURST_LANES = { draws: SPARK_DRAWS, angle: 1, cos: 1, sin: 1, dx: 1, dy: 1, dz: 1, noise: 1 };

/** The lanes of {@link BURST_LANES}. */
export type BurstScratch = Record<keyof typeof BURST_LANES, Float64Array>;

/** A launch's evaluated slots: xyz, xyz, rgba, life and xyz per slot (see SlotState). */
const SLOT_LANES = { position: 3, previous: 3, color: 4, life: 1, velocity: 3 };

/** The 32-bit words of a float array (the hash reads the bits). */
export function words(array: Float32Array): Uint32Array {
  return new Uint32Array(array.buffer, array.byteOffset, array.length);
}

/** The fireworks' state: what every part reads and writes (one per `Fireworks`). */
export class Sky {
  /** The scene seed: every random stream is keyed by it. */
  readonly seed: number;
  /** Every slot's birth state (and, when kept, its state). */
  readonly pool: ParticlePool<FireworkBlock>;
  /** Closed-form mode (see FireworksOptions). */
  readonly closedForm: boolean;
  /** Live particles when stepping (closed form does not keep it up to date). */
  liveCount = 0;
  /** The tick the state is at (after `step(t)`: t + 1). */
  now = 0;
  /** Closed form: the tick the pool's state arrays were last evaluated at (−1: never). */
  settledAt = -1;
  /** A trail tick's stream. */
  readonly rng = new Rng();
  readonly scratch32 = new Float32Array(3);
  readonly scratch64 = new Float64Array(3);
  /** A break's burst point and inherited velocity (`burstFrame`). */
  readonly frame = new Float64Array(6);
  /** Scratch for a burst's or a split's draws and directions (`scratchFor`: never shrunk). */
  burst: BurstScratch = lanes(Float64Array, BURST_LANES, 0);
  /** One launch's evaluated slots (`evaluate`), and their bits for the hash. */
  scratch: SlotState = lanes(Float32Array, SLOT_LANES, 0);
  scratchWords: {
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
  /**
   * Closed form: the launches with a burst or a split due at a step tick, by tick (a launch is
   * in one list at a time: the next tick it acts at), and emptied lists kept for reuse.
   */
  readonly due = new Map<number, FireworkBlock[]>();
  readonly spareDue: FireworkBlock[][] = [];

  constructor(seed: number, pool: ParticlePool<FireworkBlock>, closedForm: boolean) {
    this.seed = seed;
    this.pool = pool;
    this.closedForm = closedForm;
  }

  /** The pool's own state arrays (stepping, or a closed form whose views were read). */
  get poolState(): SlotState {
    const { position, previous, color, life } = this.pool;
    return { position, previous, color, life };
  }

  /** The burst scratch, grown to hold `n` sparks (SPARK_DRAWS draws each). */
  scratchFor(n: number): BurstScratch {
    const held = this.burst.angle.length;
    if (held >= n) return this.burst;
    return this.burst = lanes(Float64Array, BURST_LANES, Math.max(n, 2 * held, 1024));
  }

  /** The evaluation scratch grown to hold `n` slots. */
  scratchOf(n: number): SlotState {
    const held = this.scratch.life.length;
    if (held >= n) return this.scratch;
    const grown = lanes(Float32Array, SLOT_LANES, Math.max(n, held * 2));
    this.scratchWords = {
      position: words(grown.position),
      velocity: words(grown.velocity),
      color: words(grown.color),
      life: words(grown.life),
    };
    return this.scratch = grown;
  }
}

/**
 * Spawns slot `i` at (x, y, z) with velocity (vx, vy, vz): position = previous = origin (closed
 * form: origin only; `sync` writes the rest when it is read).
 */
export function place(
  sky: Sky,
  i: number,
  x: number,
  y: number,
  z: number,
  vx: number,
  vy: number,
  vz: number,
): void {
  const { position, previous, origin, velocity } = sky.pool;
  const p = i * 3;
  origin[p] = x;
  origin[p + 1] = y;
  origin[p + 2] = z;
  if (!sky.closedForm) {
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
 * the shared life curve, tinted. Spawns use it; the hot loops inline the same lookup.
 */
export function paint(
  color: Float32Array,
  i: number,
  style: number,
  age: number,
  maxLife: number,
): void {
  const o = style * STYLE_STRIDE + Math.floor((age * COLOR_STEPS) / maxLife + 0.5) * 4;
  const c = i * 4;
  color[c] = STYLE_COLORS[o];
  color[c + 1] = STYLE_COLORS[o + 1];
  color[c + 2] = STYLE_COLORS[o + 2];
  color[c + 3] = STYLE_COLORS[o + 3];
}

/** A strobe key in 1..255 for spark `n` of stream `key` (0 means steady). */
export function flickerKey(key: number, n: number): number {
  return 1 + ((key + Math.imul(n, 0x9e3779b1)) >>> 24) % 255;
}

/**
 * A burst spark's lifetime in ticks from its life draw `roll` (firework_draws.ts), within the
 * recipe's range `life`; the break's first splitting sparks live until they split instead.
 */
export function drawnLife(life: readonly [number, number], roll: number): number {
  return life[0] + Math.floor(roll * (life[1] - life[0] + 1));
}

/** Writes slot `i`'s position at `age` ticks after its spawn into `out` at `at`. */
export function placeAt(
  sky: Sky,
  i: number,
  age: number,
  out: Float64Array | Float32Array,
  at: number,
): void {
  const { origin, velocity, style } = sky.pool;
  const a = AGE_BASE[style[i] | 0] + age;
  const r = REACH[a], d = DROP[a];
  const p = i * 3;
  out[at] = origin[p] + velocity[p] * r;
  out[at + 1] = origin[p + 1] + velocity[p + 1] * r - d;
  out[at + 2] = origin[p + 2] + velocity[p + 2] * r;
}

/** Slot `i`'s stored (float32) position at `age`, as stepping would have stored it. */
export function storedPositionAt(sky: Sky, i: number, age: number): Float32Array {
  placeAt(sky, i, age, sky.scratch32, 0);
  return sky.scratch32;
}

/**
 * Slot `i`'s velocity in m/s at `age` ticks after its spawn, by the closed form (float64;
 * fireworks store only the spawn velocity). Writes into and returns `out`.
 */
export function velocityAt(sky: Sky, i: number, age: number, out: Float64Array): Float64Array {
  const { velocity, style } = sky.pool;
  const a = AGE_BASE[style[i] | 0] + age;
  const kept = VELOCITY_KEPT[a];
  const p = i * 3;
  out[0] = velocity[p] * kept;
  out[1] = velocity[p + 1] * kept - VELOCITY_FALL[a];
  out[2] = velocity[p + 2] * kept;
  return out;
}
