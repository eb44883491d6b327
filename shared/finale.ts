/**
 * The countdown's finale: a dense, rising, choreographed barrage, as a pure schedule of launches
 * that every page derives from the stored countdown (shared/derived.ts), so everyone sees the
 * same sky and nothing is stored per launch. Launch `k` of
 * `n` goes up at `start + floor(D·√(k/n))`: the rate rises steadily to twice its mean by the end;
 * bursts climb from low to high, positions sweep across the field in waves, and at the last
 * tick a salvo of `3 + 2·intensity` shells bursts in a line at the top. The length D and the
 * count (`seconds · (1 + intensity)` launches, plus the salvo) are the host's choice.
 *
 * @example
 * ```ts
 * import { finaleLaunches } from "./finale.ts";
 * const finale = { tick: 600, seconds: 20, intensity: 3 };
 * console.log(finaleLaunches(7, finale, 600, 1800, "auto").length); // 80 + the salvo
 * ```
 */
import { BURST_HEIGHT_MAX, BURST_HEIGHT_MIN, TICK_RATE } from "./constants.ts";
import { sin, TAU } from "./dmath.ts";
import type { FireworkKind } from "./firework_kinds.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";
import { THEMES } from "./themes.ts";
import type { Countdown, LaunchBody, ThemeSetting } from "./types.ts";

/** Launch `k` of a finale (the barrage's, then the salvo's), at `tick`. */
export interface FinaleLaunch {
  tick: number;
  k: number;
  body: LaunchBody;
}

/** Finale shells sweep across |x| ≤ this, in rows at |z| ≤ FINALE_DEPTH (metres). */
export const FINALE_HALF_WIDTH = 40;
const FINALE_DEPTH = 24;
/** Kinds that read well in a barrage, early (soft) to late (bright). */
const EARLY: readonly FireworkKind[] = ["peony", "willow", "palm", "ring"];
const LATE: readonly FireworkKind[] = ["chrysanthemum", "crossette", "crackle", "peony"];

const rng = new Rng();

/** Ticks the finale lasts (its last tick is the salvo). */
export function finaleTicks(countdown: Countdown): number {
  return countdown.seconds * TICK_RATE;
}

/** The tick after the finale's salvo: nothing of it is launched from there on. */
export function finaleEnd(countdown: Countdown): number {
  return countdown.tick + finaleTicks(countdown) + 1;
}

/** Launches in the barrage before the salvo. */
export function finaleCount(countdown: Countdown): number {
  return countdown.seconds * (1 + countdown.intensity);
}

function centimetres(v: number): number {
  return Math.round(v * 100) / 100 + 0;
}

/** Launch `k` (barrage when `k < n`, salvo after) of the finale. */
function finaleLaunch(
  seed: number,
  countdown: Countdown,
  k: number,
  n: number,
  theme: ThemeSetting,
): FinaleLaunch {
  const span = finaleTicks(countdown);
  rng.reseed(streamKey(seed, STREAM.finale, countdown.tick >>> 0, k));
  const salvo = k >= n;
  const progress = salvo ? 1 : Math.sqrt(k / n);
  const tick = countdown.tick + (salvo ? span : Math.floor(span * progress));
  let x: number, z: number, y: number;
  if (salvo) {
    const shells = k - n;
    const count = 3 + 2 * countdown.intensity;
    x = -FINALE_HALF_WIDTH + (2 * FINALE_HALF_WIDTH * shells) / (count - 1);
    z = 0;
    y = BURST_HEIGHT_MAX - rng.range(0, 3);
  } else {
    // Waves sweep left and right (three across the finale), rows alternate front and back.
    const phase = TAU * (3 * progress + 0.37 * (k & 1));
    x = FINALE_HALF_WIDTH * sin(phase) + rng.range(-4, 4);
    z = (k % 3 - 1) * (FINALE_DEPTH / 2) + rng.range(-3, 3);
    const low = BURST_HEIGHT_MIN + 4;
    y = low + (BURST_HEIGHT_MAX - 4 - low) * progress + rng.range(-3, 3);
  }
  const kinds = progress < 0.6 ? EARLY : LATE;
  const body: LaunchBody = {
    type: "launch",
    x: centimetres(Math.max(-FINALE_HALF_WIDTH - 5, Math.min(FINALE_HALF_WIDTH + 5, x))),
    z: centimetres(z),
    y: centimetres(Math.max(BURST_HEIGHT_MIN, Math.min(BURST_HEIGHT_MAX, y))),
    kind: salvo ? "chrysanthemum" : kinds[rng.int(kinds.length)],
  };
  // In `auto` the finale's colours change in waves of ten shells; else the scene's theme.
  if (theme === "auto") body.theme = THEMES[Math.floor(k / 10) % THEMES.length];
  if (!salvo && progress > 0.8 && rng.next() < 0.25) body.breaks = 2;
  return { tick, k, body };
}

/**
 * The finale's launches with `fromTick ≤ tick < toTick`, in tick order (launches at one tick in
 * index order). Pure and random access, like the show: any split of a range gives the same.
 */
export function finaleLaunches(
  seed: number,
  countdown: Countdown,
  fromTick: number,
  toTick: number,
  theme: ThemeSetting,
): FinaleLaunch[] {
  const out: FinaleLaunch[] = [];
  const start = Math.max(fromTick, countdown.tick);
  const end = Math.min(toTick, finaleEnd(countdown));
  if (end <= start) return out;
  const n = finaleCount(countdown);
  const span = finaleTicks(countdown);
  const salvo = 3 + 2 * countdown.intensity;
  for (let k = 0; k < n + salvo; k++) {
    const tick = countdown.tick + (k >= n ? span : Math.floor(span * Math.sqrt(k / n)));
    if (tick < start) continue;
    if (tick >= end) break;
    out.push(finaleLaunch(seed, countdown, k, n, theme));
  }
  return out;
}
