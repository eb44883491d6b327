/**
 * The scheduled show: a pure, random-access schedule of launches. Time is cut into fixed
 * segments of SHOW_SEGMENT_TICKS; each segment holds exactly one launch, at a tick and place
 * drawn from the stream keyed (seed, segment), of a kind, theme and number of breaks drawn from
 * the same stream. Any tick range is computed without the past, so every page derives the very
 * same show from the seed and the settings in force (shared/derived.ts): nothing is stored.
 *
 * @example
 * ```ts
 * import { showLaunchBody, showLaunches } from "./show.ts";
 * for (const launch of showLaunches(7, 0, 600)) showLaunchBody(launch, "auto");
 * ```
 */
import { FOUNTAIN_BASIN_RADIUS } from "./constants.ts";
import { FIREWORK_KINDS, type FireworkKind, MAX_BREAKS } from "./firework_kinds.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";
import type { LaunchBody, Theme, ThemeSetting } from "./types.ts";
import { THEMES } from "./types.ts";

/** One launch of the show. */
export interface ShowLaunch {
  tick: number;
  x: number;
  z: number;
  /** The show's own pick of theme for this launch (used when the scene's theme is `auto`). */
  theme: Theme;
  kind: FireworkKind;
  /** 1, or 2–3 for a multi-break shell (SHOW_MULTI_BREAK_SHARE of launches). */
  breaks: number;
}

/** Share of show launches that are multi-break shells. */
export const SHOW_MULTI_BREAK_SHARE = 0.15;

/** Ticks per segment; one launch per segment. */
export const SHOW_SEGMENT_TICKS = 75;
/** A launch lands in [segment start + SHOW_OFFSET_MIN, + SHOW_OFFSET_MIN + SHOW_OFFSET_SPAN). */
export const SHOW_OFFSET_MIN = 15;
/** Width of the launch tick's range inside its segment. */
export const SHOW_OFFSET_SPAN = 45;
/** Show launches lie in |x|, |z| ≤ this (metres). */
export const SHOW_HALF_EXTENT = 40;
/** Show launches keep at least this distance from the fountain's axis (metres). */
export const SHOW_CLEARANCE = FOUNTAIN_BASIN_RADIUS + 3;

const rng = new Rng();
const TWO_32 = 4294967296;

/**
 * Rounds to centimetres (plenty, and short on the wire). `+ 0` turns −0 into 0: JSON has no −0,
 * so a −0 here would differ from what clients receive.
 */
function centimetres(v: number): number {
  return Math.round(v * 100) / 100 + 0;
}

/** The launch of segment `segment` (any integer). */
function segmentLaunch(seed: number, segment: number): ShowLaunch {
  rng.reseed(streamKey(seed, STREAM.show, segment >>> 0, Math.floor(segment / TWO_32) >>> 0));
  const tick = segment * SHOW_SEGMENT_TICKS + SHOW_OFFSET_MIN + rng.int(SHOW_OFFSET_SPAN);
  let x = 0, z = 0;
  // Rejection sampling keeps the square uniform outside the fountain; the stream is per segment,
  // so the number of draws never affects another launch.
  do {
    x = rng.range(-SHOW_HALF_EXTENT, SHOW_HALF_EXTENT);
    z = rng.range(-SHOW_HALF_EXTENT, SHOW_HALF_EXTENT);
  } while (x * x + z * z < SHOW_CLEARANCE * SHOW_CLEARANCE);
  const theme = THEMES[rng.int(THEMES.length)];
  const kind = FIREWORK_KINDS[rng.int(FIREWORK_KINDS.length)];
  const breaks = rng.next() < SHOW_MULTI_BREAK_SHARE ? 2 + rng.int(MAX_BREAKS - 1) : 1;
  return { tick, x: centimetres(x), z: centimetres(z), theme, kind, breaks };
}

/**
 * The launch body of a show launch (every page derives it, shared/derived.ts): its kind and
 * breaks (breaks only when more than one), and its own theme only while the scene's theme
 * setting is `auto` (else the setting colours it). Its burst height is the launch's seeded
 * default.
 */
export function showLaunchBody(launch: ShowLaunch, setting: ThemeSetting): LaunchBody {
  const body: LaunchBody = { type: "launch", x: launch.x, z: launch.z, kind: launch.kind };
  if (setting === "auto") body.theme = launch.theme;
  if (launch.breaks > 1) body.breaks = launch.breaks;
  return body;
}

/**
 * The show's launches with `fromTick ≤ tick < toTick`, sorted by tick. Pure and random access:
 * `showLaunches(s, a, c)` equals `showLaunches(s, a, b)` followed by `showLaunches(s, b, c)`.
 * Consecutive launches are 31–119 ticks apart (0.5–2 s).
 */
export function showLaunches(seed: number, fromTick: number, toTick: number): ShowLaunch[] {
  if (!Number.isSafeInteger(fromTick) || !Number.isSafeInteger(toTick)) {
    throw new RangeError(
      `show_range: ticks must be safe integers, got [${fromTick}, ${toTick})`,
    );
  }
  const launches: ShowLaunch[] = [];
  if (toTick <= fromTick) return launches;
  const first = Math.floor(fromTick / SHOW_SEGMENT_TICKS);
  const last = Math.floor((toTick - 1) / SHOW_SEGMENT_TICKS);
  for (let segment = first; segment <= last; segment++) {
    const launch = segmentLaunch(seed, segment);
    if (launch.tick >= fromTick && launch.tick < toTick) launches.push(launch);
  }
  return launches;
}
