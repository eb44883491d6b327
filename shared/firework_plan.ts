/**
 * A firework's shape decided up front from its launch body and its random stream (seed, seq):
 * burst height and rise time, kind and breaks, spark counts, splits, trails, and therefore its
 * exact slot budget and end tick. The system that simulates the firework and the server's
 * admission control (`eventCost`) both read this one function, so they can never disagree.
 *
 * @example
 * ```ts
 * import { planFirework } from "./firework_plan.ts";
 * const plan = planFirework(7, 1, { x: 0, z: 0, y: 40, kind: "ring" });
 * plan.slots; // the launch's exact particle budget
 * ```
 */
import {
  BREAK_GAP_TICKS,
  BREAK_OFFSET_MAX,
  BURST_HEIGHT_DEFAULT_MAX,
  BURST_HEIGHT_DEFAULT_MIN,
  BURST_HEIGHT_MAX,
  BURST_HEIGHT_MIN,
  TICK_RATE,
  WINDOW_TICKS,
} from "./constants.ts";
import {
  DEFAULT_FIREWORK_KIND,
  FIREWORK_KINDS,
  type FireworkKind,
  MAX_BREAKS,
} from "./firework_kinds.ts";
import {
  AGE_STRIDE,
  DROP,
  MOTION,
  REACH,
  SHELL_DECELERATION,
  VELOCITY_FALL,
} from "./firework_motion.ts";
import { BREAK_SCALE, type Recipe, RECIPES, recipeTail } from "./firework_recipes.ts";
import { hashUnit, Rng, STREAM, streamKey } from "./prng.ts";

/** Trail particles spawned per tick while the shell rises (docs/sources.md: 2–3 per frame). */
export const TRAIL_PER_TICK = 3;
/** Trail lifetimes in ticks (docs/sources.md: 0.3–0.5 s). */
export const TRAIL_LIFE_MIN = 18;
export const TRAIL_LIFE_MAX = 30;
/** Largest sideways drift of a shell along x and along z, m/s (the noise on its path). */
export const SHELL_DRIFT_MAX = 1.2;

/** Ticks a shell rises to burst at height `y` under SHELL_DECELERATION (y = a·t²/2). */
export function riseTicksFor(y: number): number {
  return Math.round(Math.sqrt((2 * y) / SHELL_DECELERATION) * TICK_RATE);
}

/** Longest rise of a shell, in ticks (bursts at BURST_HEIGHT_MAX). */
export const RISE_MAX = riseTicksFor(BURST_HEIGHT_MAX);

/**
 * Trail sparks live at most TRAIL_LIFE_MAX ticks, so a launch needs trail slots for only this
 * many ticks of spawning: tick k reuses the slots of tick k − TRAIL_RING_TICKS, all dead by then.
 */
export const TRAIL_RING_TICKS = TRAIL_LIFE_MAX + 1;

/** Block slot of trail spark `n` spawned on the `k`-th tick of the rise (relative to the block). */
export function trailSlot(k: number, n: number): number {
  return 1 + (k % TRAIL_RING_TICKS) * TRAIL_PER_TICK + n;
}

/** Ticks from the first burst by which every particle of a kind's shell is dead, per kind. */
export const KIND_TAIL: Readonly<Record<FireworkKind, number>> = Object.fromEntries(
  FIREWORK_KINDS.map((kind) => [kind, Math.max(TRAIL_LIFE_MAX, recipeTail(RECIPES[kind]))]),
) as Record<FireworkKind, number>;

/** Every firework is entirely dead this many ticks after its launch tick (≤ WINDOW_TICKS). */
export const FIREWORK_MAX_LIFE = RISE_MAX + (MAX_BREAKS - 1) * BREAK_GAP_TICKS +
  Math.max(...Object.values(KIND_TAIL));

if (FIREWORK_MAX_LIFE > WINDOW_TICKS) {
  throw new Error(
    `firework_life: ${FIREWORK_MAX_LIFE} ticks exceed WINDOW_TICKS = ${WINDOW_TICKS}`,
  );
}
// Ages index the motion tables: the shell's rise and every particle's life must fit in them.
for (const r of Object.values(RECIPES)) {
  const longest = Math.max(
    r.life[1],
    r.split?.delay[1] ?? 0,
    r.split?.life[1] ?? 0,
    r.trail?.life[1] ?? 0,
  );
  if (Math.max(RISE_MAX, TRAIL_LIFE_MAX, longest) >= AGE_STRIDE) {
    throw new Error("firework_ages: a lifetime exceeds the motion tables");
  }
}

/** Sub-stream phases of one firework's stream (keyed by seed and seq). */
export const PHASE = {
  plan: 0,
  /** + the break. */
  burst: 1,
  /** + the break. */
  delay: 8,
  /** + the break. */
  ember: 16,
  /** + (break << 12) + the split's index. */
  child: 1 << 16,
  /** + the rise tick. */
  trail: 2 << 16,
} as const;

/** What of a launch body the plan reads (the body itself fits). */
export interface LaunchShape {
  x: number;
  z: number;
  y?: number;
  kind?: FireworkKind;
  breaks?: number;
}

/**
 * `n` zeros in a plain array. A launch's small per-break arrays are plain arrays: a busy sky
 * plans hundreds of launches a second, and V8 made a plan's nine small typed arrays ~14 µs against
 * ~0.5 µs as plain arrays.
 *
 * @example
 * ```ts
 * import { zeros } from "./firework_plan.ts";
 * zeros(3); // [0, 0, 0]
 * ```
 */
export function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}

/** `n` zeros per break, MAX_BREAKS breaks. */
function perBreak(n: number): number[] {
  return zeros(n * MAX_BREAKS);
}

/** The up-front shape of one firework. `planFirework(…, out)` refills one in place. */
export class FireworkPlan {
  kind: FireworkKind = DEFAULT_FIREWORK_KIND;
  recipe: Recipe = RECIPES[DEFAULT_FIREWORK_KIND];
  /** Bursts (1–MAX_BREAKS). */
  breaks = 1;
  /** Where the first burst goes off (x, z are the launch's). */
  burstY = 0;
  /** Ticks from launch to the first burst (the shell's apex). */
  riseTicks = 0;
  /** Initial upward speed of the shell, m/s: it reaches burstY after riseTicks. */
  shellSpeed = 0;
  /** Upward speed left at the apex (a rounding remainder, |·| < 0.2 m/s). */
  apexSpeed = 0;
  /** Sideways drift of the shell (the noise on its path), m/s; the shell starts upwind of x, z. */
  driftX = 0;
  driftZ = 0;
  /** Metres the drift carries the shell sideways before the apex, per m/s. */
  driftReach = 0;
  /** Uniform numbers that pick the theme (under `auto`) and the theme's two tints. */
  themeRoll = 0;
  primaryRoll = 0;
  secondaryRoll = 0;
  // The per-break arrays are plain (`zeros`), integers where they count or name slots.
  /** Per break: spark count, base speed, splitting sparks, trailing sparks. */
  readonly sparkCount: number[] = perBreak(1);
  readonly sparkSpeed: number[] = perBreak(1);
  readonly splitCount: number[] = perBreak(1);
  readonly trailCount: number[] = perBreak(1);
  /** Per break: burst point offset from the first (0 for break 0), metres. */
  readonly offset: number[] = perBreak(3);
  /** Per break: two unit vectors spanning the plane of a ring or heart (e1 xyz, e2 xyz). */
  readonly plane: number[] = perBreak(6);
  /** Per break: first slot of its sparks, of its split children, of its ember rings. */
  readonly sparkStart: number[] = perBreak(1);
  readonly childStart: number[] = perBreak(1);
  readonly emberStart: number[] = perBreak(1);
  /** Slot layout: shell 0, the trail ring from 1, then per break its sparks, children, embers. */
  trailEnd = 0;
  /** Total slots: the firework's exact particle budget. */
  slots = 0;
  /** Ticks from launch to the end tick, by which every particle is dead. */
  lifeTicks = 0;
}

const rng = new Rng();

/** `[min, max]` integer range drawn with uniform `u`. */
function pickInt(range: readonly [number, number], u: number): number {
  return range[0] + Math.floor(u * (range[1] - range[0] + 1));
}

/**
 * Fills `out` with the plan of firework `seq` launched with `body` in a scene with `seed`, and
 * returns it. Every launch draws the same numbers from its stream whatever its kind.
 */
export function planFirework(
  seed: number,
  seq: number,
  body: LaunchShape,
  out: FireworkPlan = new FireworkPlan(),
): FireworkPlan {
  rng.reseed(streamKey(seed, STREAM.firework, seq, PHASE.plan));
  const kind = body.kind ?? DEFAULT_FIREWORK_KIND;
  const recipe = RECIPES[kind];
  const breaks = Math.max(1, Math.min(MAX_BREAKS, Math.floor(body.breaks ?? 1)));
  out.kind = kind;
  out.recipe = recipe;
  out.breaks = breaks;
  const heightRoll = rng.next();
  const y = body.y ?? BURST_HEIGHT_DEFAULT_MIN +
      heightRoll * (BURST_HEIGHT_DEFAULT_MAX - BURST_HEIGHT_DEFAULT_MIN);
  out.burstY = Math.max(BURST_HEIGHT_MIN, Math.min(BURST_HEIGHT_MAX, y));
  const rise = riseTicksFor(out.burstY);
  out.riseTicks = rise;
  // Closed-form shell: y(rise) = speed·REACH − DROP = burstY exactly (up to rounding).
  const a = MOTION.shell * AGE_STRIDE + rise;
  out.shellSpeed = (out.burstY + DROP[a]) / REACH[a];
  out.apexSpeed = out.shellSpeed - VELOCITY_FALL[a];
  out.driftReach = REACH[a];
  out.driftX = rng.range(-SHELL_DRIFT_MAX, SHELL_DRIFT_MAX);
  out.driftZ = rng.range(-SHELL_DRIFT_MAX, SHELL_DRIFT_MAX);
  out.themeRoll = rng.next();
  out.primaryRoll = rng.next();
  out.secondaryRoll = rng.next();
  const scale = BREAK_SCALE[breaks - 1];
  let next = 1 + Math.min(rise, TRAIL_RING_TICKS) * TRAIL_PER_TICK;
  out.trailEnd = next;
  for (let b = 0; b < MAX_BREAKS; b++) {
    const countRoll = rng.next(), speedRoll = rng.next(), splitRoll = rng.next();
    const ox = rng.range(-1, 1), oy = rng.range(-1, 1), oz = rng.range(-1, 1);
    const tiltA = rng.range(-1, 1), tiltB = rng.range(-1, 1);
    if (b >= breaks) {
      out.sparkCount[b] = out.splitCount[b] = out.trailCount[b] = 0;
      out.sparkStart[b] = out.childStart[b] = out.emberStart[b] = next;
      continue;
    }
    const count = Math.max(1, Math.floor(pickInt(recipe.sparks, countRoll) * scale));
    out.sparkCount[b] = count;
    out.sparkSpeed[b] = recipe.speed[0] + speedRoll * (recipe.speed[1] - recipe.speed[0]);
    const split = recipe.split;
    out.splitCount[b] = split
      ? Math.min(
        count,
        Math.floor(count * (split.share[0] + splitRoll * (split.share[1] - split.share[0]))),
      )
      : 0;
    out.trailCount[b] = recipe.trail ? Math.floor(count * recipe.trail.share) : 0;
    const o = b * 3;
    out.offset[o] = b === 0 ? 0 : ox * BREAK_OFFSET_MAX;
    out.offset[o + 1] = b === 0 ? 0 : oy * BREAK_OFFSET_MAX;
    out.offset[o + 2] = b === 0 ? 0 : oz * BREAK_OFFSET_MAX;
    planePlane(recipe, tiltA, tiltB, out.plane, b * 6);
    out.sparkStart[b] = next;
    next += count;
    out.childStart[b] = next;
    next += out.splitCount[b] * (split ? split.children : 0);
    out.emberStart[b] = next;
    next += out.trailCount[b] * (recipe.trail ? recipe.trail.ring : 0);
  }
  out.slots = next;
  out.lifeTicks = rise + (breaks - 1) * BREAK_GAP_TICKS + KIND_TAIL[kind];
  return out;
}

/**
 * The plane of a ring or heart burst, as two unit vectors e1, e2 written at `out[at..at+6)`.
 * A heart stands upright (e2 = up) turned about the vertical by up to ±0.5 rad; a ring's normal
 * leans from the +z axis (towards the default camera) by up to ±0.7 sideways and ±0.9 vertically.
 */
function planePlane(recipe: Recipe, tiltA: number, tiltB: number, out: number[], at: number) {
  if (recipe.shape === "heart") {
    // Yaw ψ with cos ψ, sin ψ from the half-angle tangent t: cos = (1 − t²)/(1 + t²), sin = 2t/(1 + t²).
    const t = tiltA * 0.25, d = 1 / (1 + t * t);
    out[at] = (1 - t * t) * d;
    out[at + 1] = 0;
    out[at + 2] = 2 * t * d;
    out[at + 3] = 0;
    out[at + 4] = 1;
    out[at + 5] = 0;
    return;
  }
  // Normal n = normalise(0.7·tiltA, 0.9·tiltB, 1); e1 = normalise(x − (x·n)n); e2 = n × e1.
  let nx = 0.7 * tiltA, ny = 0.9 * tiltB, nz = 1;
  const nl = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz);
  nx *= nl;
  ny *= nl;
  nz *= nl;
  let ex = 1 - nx * nx, ey = -nx * ny, ez = -nx * nz;
  const el = 1 / Math.sqrt(ex * ex + ey * ey + ez * ez);
  ex *= el;
  ey *= el;
  ez *= el;
  out[at] = ex;
  out[at + 1] = ey;
  out[at + 2] = ez;
  out[at + 3] = ny * ez - nz * ey;
  out[at + 4] = nz * ex - nx * ez;
  out[at + 5] = nx * ey - ny * ex;
}

/** Ticks after its break at which split `j` of break `b` of firework `seq` goes off. */
export function splitDelay(
  seed: number,
  seq: number,
  recipe: Recipe,
  b: number,
  j: number,
): number {
  const range = recipe.split?.delay ?? [0, 0];
  return pickInt(range, hashUnit(streamKey(seed, STREAM.firework, seq, PHASE.delay + b), j));
}

/** Fills `out[j]` with splitDelay(seed, seq, recipe, b, j) for every j < out.length. */
export function splitDelays(
  seed: number,
  seq: number,
  recipe: Recipe,
  b: number,
  out: number[],
): number[] {
  const key = streamKey(seed, STREAM.firework, seq, PHASE.delay + b);
  const range = recipe.split?.delay ?? [0, 0];
  for (let j = 0; j < out.length; j++) out[j] = pickInt(range, hashUnit(key, j));
  return out;
}
