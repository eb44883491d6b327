/**
 * Colour over a firework particle's life, the source's law (docs/sources.md, fireworks: colour):
 * with r = 1 − age/maxLife the life left, rgb = √r · (1, 0.3 + 0.7r, 0.1 + 0.9r²) — white →
 * yellow → orange → dark red — and α = min(1, 10r), fading over the last 10 % of life. A theme
 * tints on top of that law: a motion class runs the heat colour over the first `cool` of the
 * particle's life (1: the whole life, exactly the source's law) and mixes its tint in (by the
 * class's `mix`) once the heat colour is orange, so a burst spark is white-hot at first, turns yellow
 * and orange, and then shows its theme's colour (docs/sources.md, fireworks: theme tint). The
 * brightness keeps the source's √r; a flash (`fade` 2) falls as r² instead: a sharp pop.
 * Pure arithmetic only (no Math.pow/exp), so every engine agrees to the bit.
 */
import type { Theme } from "./types.ts";

/** Share of life after which the alpha starts to fade to 0 (docs/sources.md: α = min(1, 10 · life left)). */
export const FADE_START = 0.9;

/**
 * Where in its heat run (a share of `cool`) a particle's tint starts to show: the heat colour
 * is orange there, (1, 0.58, 0.24), and the tint is fully in at the run's end, when the heat
 * colour is the source's red end, (1, 0.3, 0.1).
 */
export const TINT_FROM = 0.6;

/**
 * Writes the source's heat colour (docs/sources.md) at `t` = age / maxLife (clamped to [0, 1]) into out[0..2],
 * before brightness: with r = 1 − t the life left, (1, 0.3 + 0.7r, 0.1 + 0.9r²). Times the
 * brightness √r this is the seed's law exactly: white → yellow → orange → dark red.
 */
export function heatColor(t: number, out: Float64Array | number[]): void {
  const c = t < 0 ? 0 : t > 1 ? 1 : t;
  const r = 1 - c;
  out[0] = 1;
  out[1] = 0.3 + 0.7 * r;
  out[2] = 0.1 + 0.9 * r * r;
}

/** Brightness at `t`: proportional to the square root of the life left. */
export function brightnessAt(t: number): number {
  return Math.sqrt(t >= 1 ? 0 : 1 - t);
}

/**
 * How much of the theme tint shows at `t`, before the particle's own mix factor: 0 while the
 * heat colour runs from white through yellow to orange (t < TINT_FROM · cool), then a smooth step to 1 at
 * t = cool. `cool` 0: the tint shows from birth.
 */
export function tintAt(t: number, cool: number): number {
  if (cool <= 0 || t >= cool) return 1;
  const from = TINT_FROM * cool;
  if (t <= from) return 0;
  const x = (t - from) / (cool - from);
  return x * x * (3 - 2 * x);
}

/** Alpha at `t`: 1, then a linear fade to 0 over the last `1 − FADE_START` of life. */
export function alphaAt(t: number): number {
  if (t <= FADE_START) return 1;
  return t >= 1 ? 0 : (1 - t) / (1 - FADE_START);
}

/** How a motion class's particles shine over their life (firework_motion.ts's `Motion`). */
export interface ColorLaw {
  /** Share of the theme tint mixed into the heat colour, 0–1. */
  readonly mix: number;
  /**
   * Share of the life over which the heat colour runs from white to red (the tint comes in over
   * its second half): 1 is the source's law, less is a faster cooling, 0 the tint from birth,
   * more than 1 a slower cooling (the rising shell stays white-hot).
   */
  readonly cool: number;
  /** Brightness by life left r: 0.5 is the source's √r, 2 is r² (a flash that pops). */
  readonly fade: 0.5 | 2;
}

/** The source's law itself: the heat colour over the whole life, no tint, brightness √r. */
export const HEAT_LAW: ColorLaw = { mix: 0, cool: 1, fade: 0.5 };

/**
 * The exact colour (rgba, before float32 storage) of a particle at `t` with theme tint
 * (`r`,`g`,`b`) under `law`: brightness · (heat + w·(tint − heat)) with the heat colour at
 * t / cool and w = mix · tintAt(t, cool).
 *
 * @example
 * ```ts
 * import { fireworkColor } from "./firework_colors.ts";
 * const rgba = [0, 0, 0, 0];
 * fireworkColor(0.1, 1, 0.06, 0.03, { mix: 0.85, cool: 0.4, fade: 0.5 }, rgba); // still white-hot
 * fireworkColor(0.6, 1, 0.06, 0.03, { mix: 0.85, cool: 0.4, fade: 0.5 }, rgba); // red
 * ```
 */
export function fireworkColor(
  t: number,
  r: number,
  g: number,
  b: number,
  law: ColorLaw,
  out: Float64Array | number[],
): void {
  const cool = law.cool;
  heatColor(cool <= 0 ? 1 : cool === 1 ? t : t / cool, out);
  const w = law.mix * tintAt(t, cool);
  const left = t >= 1 ? 0 : 1 - t;
  const k = law.fade === 2 ? left * left : Math.sqrt(left);
  out[0] = k * (out[0] + w * (r - out[0]));
  out[1] = k * (out[1] + w * (g - out[1]));
  out[2] = k * (out[2] + w * (b - out[2]));
  out[3] = alphaAt(t);
}

/** Entries of the colour table minus one: `t` is sampled at multiples of 1 / COLOR_STEPS. */
export const COLOR_STEPS = 64;

/** The colour table step for a particle of `age` ticks out of `maxLife`: round(t · STEPS). */
export function colorStep(age: number, maxLife: number): number {
  return Math.floor((age * COLOR_STEPS) / maxLife + 0.5);
}

/** Linear rgb of every tint a particle can carry; `style % PALETTE_SIZE` indexes it. */
export const PALETTE: readonly (readonly [number, number, number])[] = [
  [1, 0.72, 0.38], // 0 warm white: shells and trails
  [1, 0.06, 0.03], // 1 red
  [1, 0.62, 0.1], // 2 gold
  [1, 0.32, 0.04], // 3 amber
  [0.08, 0.25, 1], // 4 blue
  [0.78, 0.84, 1], // 5 silver
  [0.25, 0.7, 1], // 6 ice blue
  [0.08, 1, 0.18], // 7 green
  [0.62, 0.08, 1], // 8 purple
  [0.55, 1, 0.08], // 9 lime
  [1, 0.05, 0.05], // 10 rainbow red
  [1, 0.45, 0.02], // 11 rainbow orange
  [1, 0.95, 0.05], // 12 rainbow yellow
  [0.1, 1, 0.1], // 13 rainbow green
  [0.05, 0.9, 1], // 14 rainbow cyan
  [0.1, 0.2, 1], // 15 rainbow blue
  [0.55, 0.1, 1], // 16 rainbow violet
  [1, 0.1, 0.7], // 17 rainbow magenta
  [0.6, 0.95, 1], // 18 gun
  [1, 0.8, 0.3], // 19 trail yellow (docs/sources.md, fireworks: trail)
];

/** Tints per palette row block; a style is `kind * PALETTE_SIZE + tint`. */
export const PALETTE_SIZE = 32;

/** Palette index of the warm white of shells and trails. */
export const WARM_WHITE = 0;

/** Palette index of the shell trail's warm yellow (the source's (1, 0.8, 0.3)). */
export const TRAIL_YELLOW = 19;

/** Palette index of the gun's shots. */
export const GUN_TINT = 18;

/** The first of the eight rainbow hues. */
export const RAINBOW_FIRST = 10;

/** How many rainbow hues there are. */
export const RAINBOW_HUES = 8;

/** Palette indices of gold and amber (willow) and silver (crackle pops). */
export const GOLD_TINT = 2;
export const AMBER_TINT = 3;
export const SILVER_TINT = 5;

/** The three tints of each single-colour theme (rainbow picks a hue per spark). */
export const THEME_TINTS: Readonly<Record<Exclude<Theme, "rainbow">, readonly number[]>> = {
  "red-gold": [1, 2, 3],
  "blue-silver": [4, 5, 6],
  "green-purple": [7, 8, 9],
};

/** Brightness factor of a strobing particle in its dark phase (its lit phase is 1). */
export const STROBE_DIM = 0.08;

/**
 * The strobe of a flickering particle: 1 when lit, STROBE_DIM when dark, at world `tick`, for
 * the particle's `flicker` value (from the fireworks view; 0 = steady, always 1). A pure
 * function of integers, so every client flickers alike; the renderer multiplies the colour by
 * it (a reduced-motion client may skip it). Lit about 7 ticks in 16, phase and rhythm per spark.
 *
 * @example
 * ```ts
 * strobe(100, 0); // 1: steady particles never flicker
 * ```
 */
export function strobe(tick: number, flicker: number): number {
  if (flicker === 0) return 1;
  const f = flicker | 0;
  return ((tick * (3 + (f & 1) * 2) + f * 7) & 15) < 7 ? 1 : STROBE_DIM;
}
