/**
 * The position maths of `FireworkSparkShader` (firework_spark_shader.ts) line for line in JS
 * float32 (`Math.fround` after every operation, as a GPU's highp float does it without fused
 * multiply-adds), for tests that compare what the GPU draws with what shared/ computes. Keep the
 * two in step: a change to the shader's `sparkAt` or head lines belongs here too.
 *
 * @example
 * ```ts
 * const head = new Float32Array(3);
 * const drawn = fireworkHead(mirror, slot, tick, 1, head); // false: not drawn at that tick
 * ```
 */
import { PALETTE_SIZE } from "../../shared/firework_colors.ts";
import { AGE_STRIDE, MOTION } from "../../shared/firework_motion.ts";
import { FIREWORK_SLOT_STRIDE } from "./firework_sparks.ts";
import { MOTION_TEXELS } from "./firework_tables.ts";
import { EMBER_N, EMBER_T, SHELL_TRAIL_ROW } from "./firework_ember_packing.ts";
import { mixKey, Rng } from "../../shared/prng.ts";
import {
  PHASE,
  TRAIL_LIFE_MAX,
  TRAIL_LIFE_MIN,
  TRAIL_PER_TICK,
  TRAIL_RING_TICKS,
} from "../../shared/firework_plan.ts";
import { TRAIL_JITTER, TRAIL_SIDE, TRAIL_SINK } from "../../shared/fireworks.ts";

const f = Math.fround;

/** Position component `c` at integer `age` from origin (o) and velocity (v) triples, float32. */
function sparkAt(
  origin: ArrayLike<number>,
  velocity: ArrayLike<number>,
  age: number,
  motion: number,
  c: number,
): number {
  const texel = (motion * AGE_STRIDE + age) * 4;
  const reach = MOTION_TEXELS[texel], drop = MOTION_TEXELS[texel + 1];
  const moved = f(origin[c] + f(velocity[c] * reach));
  return c === 1 ? f(moved - drop) : moved;
}

/** The shader's `pick`: floor(hashUnit(key, index) · span), exact. */
function pick(key: number, index: number, span: number): number {
  return Math.floor((mixKey(key, index) / 4294967296) * span);
}

/**
 * The state an ember ring record stands for at `tick` (the shader's ember branch): its birth
 * point, velocity, born tick, life and motion class, or null when the slot holds no ember.
 */
function emberAt(
  data: Float32Array,
  o: number,
  tick: number,
  trails: FireworkTrailRows,
): { origin: number[]; velocity: number[]; born: number; life: number; size: number } | null {
  const packed = Math.round(-data[o + 11]) - 1;
  const q = packed % EMBER_N, n = Math.floor(packed / EMBER_N) % (EMBER_T / EMBER_N);
  const row = Math.floor(packed / EMBER_T);
  const [every, ring, carry, jitter] = trails.a[row];
  const [lifeMin, lifeSpan, sparkClass, size] = trails.b[row];
  const sparkAge = Math.trunc(f(tick) - data[o + 3]);
  if (sparkAge < every) return null;
  const sparkLife = Math.round(data[o + 7]);
  const dropped = Math.min(
    Math.trunc(sparkAge / every),
    Math.trunc((sparkLife + every - 1) / every) - 1,
  );
  if (dropped <= q) return null;
  const m = q + ring * Math.trunc((dropped - 1 - q) / ring);
  const at = (m + 1) * every;
  const texel = (sparkClass * AGE_STRIDE + at) * 4;
  const key = (Math.round(data[o + 9]) | (Math.round(data[o + 10]) << 16)) >>> 0;
  const index = (n * 256 + m) * 4;
  const origin = [0, 0, 0], velocity = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    origin[c] = sparkAt(data.subarray(o), data.subarray(o + 4), at, sparkClass, c);
    const kept = f(data[o + 4 + c] * MOTION_TEXELS[texel + 2]);
    const v = c === 1 ? f(kept - MOTION_TEXELS[texel + 3]) : kept;
    const unit = f((mixKey(key, index + c) >>> 8) / 16777216);
    velocity[c] = f(f(v * carry) + f(jitter * f(f(2 * unit) - 1)));
  }
  const life = lifeMin + pick(key, index + 3, lifeSpan);
  return { origin, velocity, born: f(data[o + 3] + at), life, size };
}

const rng = new Rng();

/**
 * The state a shell trail ring record stands for at `tick` (the shader's trail branch): the
 * trail spark's birth point, velocity, born tick and life, or null when the slot holds none.
 */
function trailAt(
  data: Float32Array,
  o: number,
  tick: number,
): { origin: number[]; velocity: number[]; born: number; life: number } | null {
  const s = Math.round(-data[o + 11]) - 1 - EMBER_T * SHELL_TRAIL_ROW;
  const j = Math.floor(s / TRAIL_PER_TICK), n = s - j * TRAIL_PER_TICK;
  const last = Math.min(Math.trunc(f(tick) - data[o + 3]) - 1, Math.round(data[o + 7]) - 1);
  if (last < j) return null;
  const k = j + TRAIL_RING_TICKS * Math.trunc((last - j) / TRAIL_RING_TICKS);
  const launchKey = (Math.round(data[o + 9]) | (Math.round(data[o + 10]) << 16)) >>> 0;
  rng.reseed(mixKey(launchKey, PHASE.trail + k));
  for (let i = 0; i < n * 5; i++) rng.nextU32();
  const unit = () => f(f(rng.nextU32()) / 4294967296);
  const jitter = unit(), sx = unit(), sy = unit(), sz = unit();
  const life = TRAIL_LIFE_MIN + pickU32(rng.nextU32(), TRAIL_LIFE_MAX - TRAIL_LIFE_MIN + 1);
  const shell = data.subarray(o), shellVelocity = data.subarray(o + 4);
  const at = f(f(f(n + 0.5) + f(TRAIL_JITTER * f(jitter - 0.5))) / TRAIL_PER_TICK);
  const origin = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    const from = sparkAt(shell, shellVelocity, k, MOTION.shell, c);
    const to = sparkAt(shell, shellVelocity, k + 1, MOTION.shell, c);
    origin[c] = f(from + f(f(to - from) * at));
  }
  const side = (u: number) => f(f(-TRAIL_SIDE) + f(f(2 * TRAIL_SIDE) * u));
  const velocity = [
    side(sx),
    f(-f(f(TRAIL_SINK[0]) + f(f(TRAIL_SINK[1] - TRAIL_SINK[0]) * sy))),
    side(sz),
  ];
  return { origin, velocity, born: f(data[o + 3] + (k + 1)), life };
}

/** floor(h / 2^32 · span) for a 32-bit h, exact (the shader's integer form of it). */
function pickU32(h: number, span: number): number {
  return Math.floor((h / 4294967296) * span);
}

/** The shader's ember uniforms (`uEmberA`, `uEmberB`) as arrays, per trail row. */
export interface FireworkTrailRows {
  a: readonly (readonly number[])[];
  b: readonly (readonly number[])[];
}

/**
 * Writes the head (the drawn point) of the spark in slot `slot` of a FireworkSparks mirror at
 * displayed time `tick − 1 + alpha` (`tick` relative to the mirror's epoch) into `out`; returns
 * whether the shader draws it at all (alive and kept at `tick`). Ember ring slots are derived
 * from their trailing spark with the renderer's trail rows (`FireworkSparks.trailRows`), shell
 * trail ring slots from their shell.
 */
export function fireworkHead(
  data: Float32Array,
  slot: number,
  tick: number,
  alpha: number,
  out: Float32Array,
  trails: FireworkTrailRows = { a: [], b: [] },
): boolean {
  const o = slot * FIREWORK_SLOT_STRIDE;
  let origin: ArrayLike<number> = data.subarray(o, o + 3);
  let velocity: ArrayLike<number> = data.subarray(o + 4, o + 7);
  let born = data[o + 3], visible = data[o + 11];
  if (visible < 0 && Math.floor((Math.round(-visible) - 1) / EMBER_T) === SHELL_TRAIL_ROW) {
    const spark = trailAt(data, o, tick);
    if (!spark) return false;
    ({ origin, velocity, born } = spark);
    visible = spark.life;
  } else if (visible < 0) {
    const ember = emberAt(data, o, tick, trails);
    if (!ember) return false;
    ({ origin, velocity, born } = ember);
    visible = ember.life;
  }
  const age = f(f(tick) - born);
  if (age < 0 || age >= visible) return false;
  const motion = Math.floor(Math.floor(data[o + 8] + 0.5) / PALETTE_SIZE);
  const a = f(alpha);
  for (let c = 0; c < 3; c++) {
    const now = sparkAt(origin, velocity, age, motion, c);
    const before = age >= 1 ? sparkAt(origin, velocity, age - 1, motion, c) : now;
    out[c] = f(before + f(f(now - before) * a));
  }
  return true;
}
