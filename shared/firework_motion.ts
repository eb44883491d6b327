/**
 * How firework particles move and shine, per motion class: per-tick drag and gravity
 * (v ← drag·v − g·DT, x ← x + v·DT) unrolled once into tables of age, and the colour of every
 * style (motion class × palette tint) at every sample of the life curve. A particle's position
 * at age a is `origin + velocity·REACH[a] − (0, DROP[a], 0)`: stepping and jumping evaluate the
 * same expression, so a late joiner's state equals a veteran's to the bit.
 *
 * @example
 * ```ts
 * import { AGE_BASE, DROP, MOTION, REACH, styleOf } from "./firework_motion.ts";
 * const s = styleOf(MOTION.willow, 2);
 * const a = AGE_BASE[s] + 60; // one second old
 * const reach = REACH[a], drop = DROP[a]; // metres per m/s of spawn velocity; metres fallen
 * ```
 */
import { BURST_SCALE, DT } from "./constants.ts";
import {
  COLOR_STEPS,
  type ColorLaw,
  fireworkColor,
  PALETTE,
  PALETTE_SIZE,
  WARM_WHITE,
} from "./firework_colors.ts";

/** The rising shell's constant deceleration (m/s²); it reaches its apex after its rise ticks. */
export const SHELL_DECELERATION = 24;

/**
 * One motion class: drag and gravity, its colour law (how much of the tint shows and when, how
 * its light falls; firework_colors.ts), and a brightness gain.
 */
export interface Motion extends ColorLaw {
  readonly name: string;
  /** Velocity kept per tick (docs/sources.md: 0.98–0.995 for burst sparks). */
  readonly drag: number;
  /** Downward acceleration, m/s². */
  readonly gravity: number;
  /** Brightness factor on the whole curve. */
  readonly gain: number;
  /** Sprite diameter in metres. */
  readonly size: number;
}

/** Motion classes by name; the index is a particle's `style / PALETTE_SIZE`. */
export const MOTION = {
  shell: 0,
  trail: 1,
  spark: 2,
  child: 3,
  ember: 4,
  willow: 5,
  willowEmber: 6,
  comet: 7,
  cometEmber: 8,
  star: 9,
  split: 10,
  crackle: 11,
  crackleChild: 12,
} as const;

/**
 * The motion classes, in MOTION order. Burst classes' gravity is scaled with their speeds
 * (firework_recipes.ts) by BURST_SCALE, so a burst is larger without changing its shape.
 */
export const MOTIONS: readonly Motion[] = [
  // The rising shell's head: the heat law run 4× slower over its nominal life (4× its rise), so
  // it stays white-hot and bright to its apex, whiter than its trail (docs/sources.md: trail).
  {
    name: "shell",
    drag: 1,
    gravity: SHELL_DECELERATION,
    mix: 0,
    cool: 4,
    fade: 0.5,
    gain: 1,
    size: 0.7,
  },
  // Trail sparks are their tint from birth (the source's warm yellow; red-gold's gold) and dim.
  { name: "trail", drag: 0.9, gravity: 3, mix: 1, cool: 0, fade: 0.5, gain: 0.8, size: 0.42 },
  // Burst classes: white-hot, yellow, orange over the first 40 % of life, then the theme's tint.
  {
    name: "spark",
    drag: 0.982,
    gravity: 6.5 * BURST_SCALE,
    mix: 0.85,
    cool: 0.4,
    fade: 0.5,
    gain: 0.9,
    size: 0.55,
  },
  // Secondary-burst children are warmer than their parent (docs/sources.md): the source's heat
  // law over their whole life, and less tint.
  {
    name: "child",
    drag: 0.97,
    gravity: 6 * BURST_SCALE,
    mix: 0.4,
    cool: 1,
    fade: 0.5,
    gain: 1,
    size: 0.45,
  },
  {
    name: "ember",
    drag: 0.9,
    gravity: 2.2 * BURST_SCALE,
    mix: 0.6,
    cool: 0.3,
    fade: 0.5,
    gain: 0.5,
    size: 0.35,
  },
  {
    name: "willow",
    drag: 0.985,
    gravity: 9 * BURST_SCALE,
    mix: 1,
    cool: 0.4,
    fade: 0.5,
    gain: 0.85,
    size: 0.5,
  },
  {
    name: "willowEmber",
    drag: 0.92,
    gravity: 3.5 * BURST_SCALE,
    mix: 1,
    cool: 0,
    fade: 0.5,
    gain: 0.45,
    size: 0.35,
  },
  {
    name: "comet",
    drag: 0.982,
    gravity: 7 * BURST_SCALE,
    mix: 0.8,
    cool: 0.4,
    fade: 0.5,
    gain: 1,
    size: 1.3,
  },
  {
    name: "cometEmber",
    drag: 0.88,
    gravity: 3 * BURST_SCALE,
    mix: 0.6,
    cool: 0.3,
    fade: 0.5,
    gain: 0.8,
    size: 0.6,
  },
  {
    name: "star",
    drag: 0.982,
    gravity: 6 * BURST_SCALE,
    mix: 0.85,
    cool: 0.4,
    fade: 0.5,
    gain: 0.95,
    size: 0.7,
  },
  {
    name: "split",
    drag: 0.98,
    gravity: 6 * BURST_SCALE,
    mix: 0.9,
    cool: 0.3,
    fade: 0.5,
    gain: 1,
    size: 0.65,
  },
  {
    name: "crackle",
    drag: 0.982,
    gravity: 6 * BURST_SCALE,
    mix: 0.7,
    cool: 0.4,
    fade: 0.5,
    gain: 0.9,
    size: 0.5,
  },
  // A crackle pop is a flash: brighter than any spark at its start and falling as r² (a sharp
  // pop, not a lingering blob), for a fifth of a second.
  {
    name: "crackleChild",
    drag: 0.9,
    gravity: 3 * BURST_SCALE,
    mix: 0.3,
    cool: 1,
    fade: 2,
    gain: 2.4,
    size: 0.6,
  },
];

/** Styles: `motion * PALETTE_SIZE + tint`. */
export const STYLE_COUNT = MOTIONS.length * PALETTE_SIZE;

/** The style of a particle of `motion` (MOTION) with palette `tint`. */
export function styleOf(motion: number, tint: number): number {
  return motion * PALETTE_SIZE + tint;
}

/** Ages (ticks) each motion class's tables cover; every particle dies or splits younger. */
export const AGE_STRIDE = 256;

// The per-tick recursion unrolled, per motion class and age a (index AGE_BASE[style] + a):
//   v(a) = v0 · VELOCITY_KEPT[a] − (0, VELOCITY_FALL[a], 0)
//   x(a) = x0 + v0 · REACH[a] − (0, DROP[a], 0)
// Built with + and * only, in the same order on every engine.
/** Share of the spawn velocity left after `a` ticks of drag. */
export const VELOCITY_KEPT: Float64Array = new Float64Array(MOTIONS.length * AGE_STRIDE);
/** Downward velocity gained from gravity after `a` ticks (m/s). */
export const VELOCITY_FALL: Float64Array = new Float64Array(MOTIONS.length * AGE_STRIDE);
/** Metres travelled per m/s of spawn velocity after `a` ticks. */
export const REACH: Float64Array = new Float64Array(MOTIONS.length * AGE_STRIDE);
/** Metres fallen from gravity after `a` ticks. */
export const DROP: Float64Array = new Float64Array(MOTIONS.length * AGE_STRIDE);
for (let m = 0; m < MOTIONS.length; m++) {
  const drag = MOTIONS[m].drag, gravityDt = MOTIONS[m].gravity * DT;
  let kept = 1, fall = 0, reach = 0, drop = 0;
  for (let a = 0; a < AGE_STRIDE; a++) {
    const e = m * AGE_STRIDE + a;
    VELOCITY_KEPT[e] = kept;
    VELOCITY_FALL[e] = fall;
    REACH[e] = reach;
    DROP[e] = drop;
    kept = kept * drag;
    fall = fall * drag + gravityDt;
    reach = reach + kept * DT;
    drop = drop + fall * DT;
  }
}

/** Per style: where its motion class's rows start in the motion tables. */
export const AGE_BASE: Int32Array = new Int32Array(STYLE_COUNT);
for (let s = 0; s < STYLE_COUNT; s++) AGE_BASE[s] = Math.floor(s / PALETTE_SIZE) * AGE_STRIDE;

/** Floats per style in STYLE_COLORS: rgba at each of the COLOR_STEPS + 1 curve samples. */
export const STYLE_STRIDE = (COLOR_STEPS + 1) * 4;

/**
 * Every style's colour at every curve sample, already rounded to float32 as stored: the curve
 * tinted by the style's tint and its motion's mix, times its gain. Copying four floats is the
 * hot loop's whole colour cost.
 */
export const STYLE_COLORS: Float32Array = (() => {
  const out = new Float32Array(STYLE_COUNT * STYLE_STRIDE);
  const rgba = [0, 0, 0, 0];
  for (let s = 0; s < STYLE_COUNT; s++) {
    const motion = MOTIONS[Math.floor(s / PALETTE_SIZE)];
    const tint = PALETTE[s % PALETTE_SIZE] ?? PALETTE[WARM_WHITE];
    for (let j = 0; j <= COLOR_STEPS; j++) {
      fireworkColor(j / COLOR_STEPS, tint[0], tint[1], tint[2], motion, rgba);
      const o = s * STYLE_STRIDE + j * 4;
      out[o] = rgba[0] * motion.gain;
      out[o + 1] = rgba[1] * motion.gain;
      out[o + 2] = rgba[2] * motion.gain;
      out[o + 3] = rgba[3];
    }
  }
  return out;
})();
