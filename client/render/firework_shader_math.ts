/**
 * The position maths of `FireworkSparkShader` (firework_spark_shader.ts) line for line in JS
 * float32 (`Math.fround` after every operation, as a GPU's highp float does it without fused
 * multiply-adds), for tests that compare what the GPU draws with what shared/ computes. Keep the
 * two in step: a change to the shader's `sparkAt` or head lines belongs here too.
 *
 * @example
 * ```ts
 * const head = new Float32Array(3);
 * const drawn = fireworkHead(slot, tick, 1, head, sparks.shaderRows); // false: not drawn
 * ```
 */
import {
  AMBER_TINT,
  GOLD_TINT,
  PALETTE_SIZE,
  RAINBOW_FIRST,
  RAINBOW_HUES,
  SILVER_TINT,
} from "../../shared/firework_colors.ts";
import {
  BURST_DRAW,
  BURST_SPARKS,
  BURST_STREAM,
  CHILD_DRAWS,
  SPARK_DRAWS,
} from "../../shared/firework_draws.ts";
import { NOISE_FREQUENCY, NOISE_STRENGTH } from "../../shared/firework_noise.ts";
import { TAU } from "../../shared/dmath.ts";
import { PALM_COS_PHI } from "../../shared/fireworks/mod.ts";
import { DERIVED, INDEX_SPAN } from "./firework_derived_packing.ts";
import { BREAK_TEXELS, LAUNCH_ROW, MAX_BREAKS_PER_GROUP } from "./firework_break_table.ts";
import { AGE_STRIDE, MOTION } from "../../shared/firework_motion.ts";
import { MOTION_TEXELS } from "./firework_tables.ts";
import { EMBER_N } from "./firework_ember_packing.ts";
import { mixKey, Rng } from "../../shared/prng.ts";
import {
  PHASE,
  TRAIL_LIFE_MAX,
  TRAIL_LIFE_MIN,
  TRAIL_PER_TICK,
  TRAIL_RING_TICKS,
} from "../../shared/firework_plan.ts";
import { TRAIL_JITTER, TRAIL_SIDE, TRAIL_SINK } from "../../shared/fireworks/mod.ts";

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

/** A spark's birth state as the shader holds it. */
interface SparkState {
  origin: ArrayLike<number>;
  velocity: ArrayLike<number>;
  born: number;
  life: number;
}

/**
 * The ember in ring slot `q` of trailing spark `n` (its birth state `spark`), trail row `row`,
 * break ember stream `key`, at `tick` (the shader's `dropEmber`): its birth point, velocity,
 * born tick and life, or null when the slot holds no ember yet.
 */
function dropEmber(
  spark: SparkState,
  row: number,
  n: number,
  q: number,
  key: number,
  tick: number,
  rows: FireworkShaderRows,
): SparkState | null {
  const [every, ring, carry, jitter] = rows.a[row];
  const [lifeMin, lifeSpan, sparkClass] = rows.b[row];
  const sparkAge = Math.trunc(f(tick) - spark.born);
  if (sparkAge < every) return null;
  const sparkLife = Math.round(spark.life);
  const dropped = Math.min(
    Math.trunc(sparkAge / every),
    Math.trunc((sparkLife + every - 1) / every) - 1,
  );
  if (dropped <= q) return null;
  const m = q + ring * Math.trunc((dropped - 1 - q) / ring);
  const at = (m + 1) * every;
  const texel = (sparkClass * AGE_STRIDE + at) * 4;
  const index = (n * 256 + m) * 4;
  const origin = [0, 0, 0], velocity = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    origin[c] = sparkAt(spark.origin, spark.velocity, at, sparkClass, c);
    const kept = f(spark.velocity[c] * MOTION_TEXELS[texel + 2]);
    const v = c === 1 ? f(kept - MOTION_TEXELS[texel + 3]) : kept;
    velocity[c] = f(f(v * carry) + f(jitter * f(f(2 * unit24(key, index + c)) - 1)));
  }
  const life = lifeMin + pick(key, index + 3, lifeSpan);
  return { origin, velocity, born: f(spark.born + at), life };
}

/** The shader's hashUnit: 24 bits of mixKey(key, index), exact in float32. */
function unit24(key: number, index: number): number {
  return f((mixKey(key, index) >>> 8) / 16777216);
}

/** The shader's flickerKey. */
function flickerKey(key: number, n: number): number {
  return 1 + ((key + Math.imul(n, 0x9e3779b1)) >>> 24) % 255;
}

/** The shader's latticeUnit. */
function latticeUnit(h: number): number {
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return f(f(f((h ^ (h >>> 15)) >>> 0) / f(2147483647.5)) - 1);
}

/** The shader's smooth step t²(3 − 2t) in float32. */
function fade32(t: number): number {
  return f(f(t * t) * f(3 - f(2 * t)));
}

/** The shader's mix(a, b, w) as directionNoise writes it, in float32. */
function lerp32(a: number, b: number, w: number): number {
  return f(a + f(f(b - a) * w));
}

/** The shader's directionNoise (the lattice exact, the blend in float32). */
function directionNoise(
  dx: number,
  dy: number,
  dz: number,
  frequency: number,
  key: number,
): number {
  const px = f(f(dx * frequency) + 8), py = f(f(dy * frequency) + 8);
  const pz = f(f(dz * frequency) + 8);
  const ix = Math.floor(px), iy = Math.floor(py), iz = Math.floor(pz);
  const tx = fade32(f(px - ix)), ty = fade32(f(py - iy)), tz = fade32(f(pz - iz));
  const hx0 = Math.imul(ix, 0x27d4eb2d), hx1 = Math.imul(ix + 1, 0x27d4eb2d);
  const hy0 = Math.imul(iy, 0x165667b1), hy1 = Math.imul(iy + 1, 0x165667b1);
  const hz0 = Math.imul(iz, 0x61c88647) ^ key, hz1 = Math.imul(iz + 1, 0x61c88647) ^ key;
  const x00 = lerp32(latticeUnit(hx0 ^ hy0 ^ hz0), latticeUnit(hx1 ^ hy0 ^ hz0), tx);
  const x10 = lerp32(latticeUnit(hx0 ^ hy1 ^ hz0), latticeUnit(hx1 ^ hy1 ^ hz0), tx);
  const x01 = lerp32(latticeUnit(hx0 ^ hy0 ^ hz1), latticeUnit(hx1 ^ hy0 ^ hz1), tx);
  const x11 = lerp32(latticeUnit(hx0 ^ hy1 ^ hz1), latticeUnit(hx1 ^ hy1 ^ hz1), tx);
  return lerp32(lerp32(x00, x10, ty), lerp32(x01, x11, ty), tz);
}

/** What the shader's `burstSpark` gives for spark `n` of a derived record's break. */
interface BurstSpark {
  velocity: number[];
  life: number;
  tint: number;
  flicker: number;
}

/** The shader's burstSpark: spark n of break b, in float32 (e1, e2: a ring's or heart's plane). */
function burstSpark(
  rows: FireworkShaderRows,
  r: number,
  theme: number,
  b: number,
  prefix: number,
  n: number,
  aux: number,
  inherited: ArrayLike<number>,
  base: number,
  e1: ArrayLike<number>,
  e2: ArrayLike<number>,
): BurstSpark {
  const A = rows.burstA[r], B = rows.burstB[r];
  const shape = A[0];
  const key = mixKey(prefix, PHASE.burst + b);
  const d = BURST_SPARKS + SPARK_DRAWS * n;
  const u1 = unit24(key, d + BURST_DRAW.placement), ua = unit24(key, d + BURST_DRAW.angle);
  let speed = f(base * f(A[1] + f(A[2] * unit24(key, d + BURST_DRAW.speed))));
  const angle = shape === 0 ? f(f(TAU) * ua) : f(f(f(TAU) * f(n + (shape === 1 ? ua : u1))) / aux);
  const c = f(Math.cos(angle)), s = f(Math.sin(angle));
  let velocity: number[];
  if (shape <= 1) {
    const cosPhi = shape === 0
      ? f(1 - f(2 * u1))
      : f(f(PALM_COS_PHI[0]) + f(f(PALM_COS_PHI[1] - PALM_COS_PHI[0]) * u1));
    const ring = f(Math.sqrt(Math.max(0, f(1 - f(cosPhi * cosPhi)))));
    if (shape === 0 && A[3] > 0.5) {
      const frequency = f(
        f(NOISE_FREQUENCY[0]) +
          f(unit24(key, BURST_STREAM.frequency) * f(NOISE_FREQUENCY[1] - NOISE_FREQUENCY[0])),
      );
      const strength = f(
        f(NOISE_STRENGTH[0]) +
          f(unit24(key, BURST_STREAM.strength) * f(NOISE_STRENGTH[1] - NOISE_STRENGTH[0])),
      );
      const noise = directionNoise(
        f(ring * c),
        cosPhi,
        f(ring * s),
        frequency,
        mixKey(key, BURST_STREAM.noiseKey),
      );
      speed = f(speed * f(f(1 + f(noise * strength)) / f(1 + strength)));
    }
    velocity = [
      f(inherited[0] + f(f(ring * speed) * c)),
      f(inherited[1] + f(speed * cosPhi)),
      f(inherited[2] + f(f(ring * speed) * s)),
    ];
  } else {
    // Ring: (cos, sin) in the plane; heart: (sin³t, (13 cos t − 5 cos 2t − 2 cos 3t − cos 4t) / 16).
    let x = c, y = s;
    if (shape === 3) {
      const c2 = f(f(2 * f(c * c)) - 1), c3 = f(c * f(f(4 * f(c * c)) - 3));
      const c4 = f(f(2 * f(c2 * c2)) - 1);
      x = f(f(s * s) * s);
      y = f(f(f(f(f(13 * c) - f(5 * c2)) - f(2 * c3)) - c4) / 16);
    }
    velocity = [0, 1, 2].map((i) => f(inherited[i] + f(f(f(x * e1[i]) + f(y * e2[i])) * speed)));
  }
  const life = shape === 0 && n < aux
    ? rows.splitC[r][0] + pick(mixKey(prefix, PHASE.delay + b), n, rows.splitC[r][1])
    : B[0] + pick(key, d + BURST_DRAW.life, B[1]);
  const h = mixKey(key, d + BURST_DRAW.tint) / 4294967296;
  const [primary, secondary, mode] = rows.themes[theme * 4 + b];
  const palette = B[3];
  const tint = palette === 1
    ? (h < 0.6 ? GOLD_TINT : AMBER_TINT)
    : mode === 1
    ? RAINBOW_FIRST + pick(key, d + BURST_DRAW.tint, RAINBOW_HUES)
    : palette === 2
    ? (h < 0.5 ? GOLD_TINT : primary)
    : mode === 2
    ? (n & 1 ? secondary : primary)
    : (h < 0.7 ? primary : secondary);
  const flicker = rows.burstC[r][0] > 0.5 || (tint === SILVER_TINT && mode === 3)
    ? flickerKey(key, n)
    : 0;
  return { velocity, life, tint, flicker };
}

/** The shader's splitChild: child k of split j, its parent `parent` (velocity at birth). */
function splitChild(
  rows: FireworkShaderRows,
  r: number,
  b: number,
  prefix: number,
  j: number,
  k: number,
  apex: ArrayLike<number>,
  parent: readonly number[],
  delay: number,
): { origin: number[]; velocity: number[]; life: number; key: number } {
  const SA = rows.splitA[r], SB = rows.splitB[r];
  const children = SA[0];
  const motion = rows.burstB[r][2];
  const texel = (motion * AGE_STRIDE + delay) * 4;
  const origin = [0, 1, 2].map((c) => sparkAt(apex, parent, delay, motion, c));
  const pv = [0, 1, 2].map((c) => {
    const kept = f(parent[c] * MOTION_TEXELS[texel + 2]);
    return c === 1 ? f(kept - MOTION_TEXELS[texel + 3]) : kept;
  });
  const carried = pv.map((x) => f(x * SA[2]));
  const key = mixKey(prefix, PHASE.child + (b << 12) + j);
  const base = f(SB[0] + f(unit24(key, 0) * SB[1]));
  let velocity: number[];
  const cross = SA[1] > 0.5;
  if (cross) {
    const vl = f(Math.sqrt(f(f(f(pv[0] * pv[0]) + f(pv[1] * pv[1])) + f(pv[2] * pv[2]))));
    const v = pv.map((x) => f(x / (vl > 0 ? vl : 1)));
    let e1 = Math.abs(v[1]) < 0.9 ? [v[2], 0, -v[0]] : [0, -v[2], v[1]];
    const el = f(Math.sqrt(f(f(f(e1[0] * e1[0]) + f(e1[1] * e1[1])) + f(e1[2] * e1[2]))));
    e1 = e1.map((x) => f(x / el));
    const e2 = [
      f(f(v[1] * e1[2]) - f(v[2] * e1[1])),
      f(f(v[2] * e1[0]) - f(v[0] * e1[2])),
      f(f(v[0] * e1[1]) - f(v[1] * e1[0])),
    ];
    const turn = f(f(TAU) * unit24(key, 1));
    const c = f(Math.cos(turn)), s = f(Math.sin(turn));
    const dir = [0, 1, 2].map((i) =>
      k < 2 ? f(f(c * e1[i]) + f(s * e2[i])) : f(f(c * e2[i]) - f(s * e1[i]))
    );
    const speed = f(base * (k & 1 ? -1 : 1));
    velocity = carried.map((x, i) => f(x + f(dir[i] * speed)));
  } else {
    const d = 1 + CHILD_DRAWS * k;
    const cosPhi = f(1 - f(2 * unit24(key, d)));
    const angle = f(f(TAU) * unit24(key, d + 1));
    const speed = f(base * f(1 + f(0.2 * f(f(2 * unit24(key, d + 2)) - 1))));
    const ring = f(f(Math.sqrt(Math.max(0, f(1 - f(cosPhi * cosPhi))))) * speed);
    velocity = [
      f(carried[0] + f(ring * f(Math.cos(angle)))),
      f(carried[1] + f(speed * cosPhi)),
      f(carried[2] + f(ring * f(Math.sin(angle)))),
    ];
  }
  const lives = cross ? 2 : 1 + CHILD_DRAWS * children;
  const life = SB[2] + pick(key, lives + k, SB[3]);
  return { origin, velocity, life, key };
}

/**
 * The spark slot `slot`'s reference stands for at `tick` (the shader's derived branch), from its
 * break's row: its birth state and style, or null when the slot holds none yet (an ember slot).
 */
function derivedAt(
  slot: number,
  tick: number,
  rows: FireworkShaderRows,
): (SparkState & { style: number }) | null {
  const row = Math.round(rows.refs[slot * 2]) - 1;
  const place = Math.round(rows.refs[slot * 2 + 1]);
  const q = place % EMBER_N, index = Math.floor(place / EMBER_N) % INDEX_SPAN;
  const kind = Math.floor(place / (EMBER_N * INDEX_SPAN));
  const t = rows.breaks.subarray(row * BREAK_TEXELS * 4, (row + 1) * BREAK_TEXELS * 4);
  const r = Math.round(t[16]), theme = Math.round(t[17]), b = Math.round(t[18]);
  const aux = Math.round(t[19]);
  const prefix = (Math.round(t[11]) | (Math.round(t[15]) << 16)) >>> 0;
  const children = Math.max(1, rows.splitA[r][0]);
  const n = kind === DERIVED.child ? Math.floor(index / children) : index;
  const apex = t.subarray(0, 3);
  const spark = burstSpark(
    rows,
    r,
    theme,
    b,
    prefix,
    n,
    aux,
    t.subarray(4, 7),
    t[7],
    t.subarray(8, 11),
    t.subarray(12, 15),
  );
  const motion = rows.burstB[r][2];
  const born = t[3];
  if (kind === DERIVED.child) {
    const k = index - n * children;
    const child = splitChild(rows, r, b, prefix, n, k, apex, spark.velocity, spark.life);
    const tint = rows.splitC[r][2] > 0.5 ? SILVER_TINT : spark.tint;
    return {
      origin: child.origin,
      velocity: child.velocity,
      born: f(born + spark.life),
      life: child.life,
      style: rows.splitA[r][3] * PALETTE_SIZE + tint,
    };
  }
  const state = { origin: apex, velocity: spark.velocity, born, life: spark.life };
  if (kind === DERIVED.spark) return { ...state, style: motion * PALETTE_SIZE + spark.tint };
  const C = rows.burstC[r];
  const ember = dropEmber(state, C[1], n, q, mixKey(prefix, PHASE.ember + b), tick, rows);
  if (!ember) return null;
  const tint = rows.themes[theme * 4 + b][3] > 0.5 ? GOLD_TINT : spark.tint;
  return { ...ember, style: C[2] * PALETTE_SIZE + tint };
}

const rng = new Rng();

/**
 * The trail spark that slot `s` of a shell's trail ring holds at `tick` (the shader's trail
 * branch), from the launch row `launch` (firework_derived_packing.ts): its birth point, velocity,
 * born tick and life, or null when the slot holds none yet.
 */
function trailAt(
  launch: Float32Array,
  s: number,
  tick: number,
): { origin: number[]; velocity: number[]; born: number; life: number } | null {
  const j = Math.floor(s / TRAIL_PER_TICK), n = s - j * TRAIL_PER_TICK;
  const last = Math.min(Math.trunc(f(tick) - launch[3]) - 1, Math.round(launch[11]) - 1);
  if (last < j) return null;
  const k = j + TRAIL_RING_TICKS * Math.trunc((last - j) / TRAIL_RING_TICKS);
  const launchKey = (Math.round(launch[13]) | (Math.round(launch[14]) << 16)) >>> 0;
  rng.reseed(mixKey(launchKey, PHASE.trail + k));
  for (let i = 0; i < n * 5; i++) rng.nextU32();
  const unit = () => f(f(rng.nextU32()) / 4294967296);
  const jitter = unit(), sx = unit(), sy = unit(), sz = unit();
  const life = TRAIL_LIFE_MIN + pickU32(rng.nextU32(), TRAIL_LIFE_MAX - TRAIL_LIFE_MIN + 1);
  const shell = launch.subarray(0, 3), shellVelocity = launch.subarray(4, 7);
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
  return { origin, velocity, born: f(launch[3] + (k + 1)), life };
}

/** floor(h / 2^32 · span) for a 32-bit h, exact (the shader's integer form of it). */
function pickU32(h: number, span: number): number {
  return Math.floor((h / 4294967296) * span);
}

/** Rows of four numbers (a uniform array of vec4). */
type Rows = readonly (readonly number[])[];

/**
 * The shader's uniform tables as arrays: the ember uniforms per trail row (`uEmberA`,
 * `uEmberB`), and for derived records the recipe rows (`uBurstA`…`uSplitC`) and theme rows
 * (`uThemes`).
 */
export interface FireworkShaderRows {
  a: Rows;
  b: Rows;
  burstA: Rows;
  burstB: Rows;
  burstC: Rows;
  splitA: Rows;
  splitB: Rows;
  splitC: Rows;
  themes: Rows;
  /** Each slot's reference (two floats a slot; firework_derived_packing.ts). */
  refs: Float32Array;
  /** The break table's rows (firework_break_table.ts). */
  breaks: Float32Array;
}

/**
 * Writes the head (the drawn point) of the spark in slot `slot` of a FireworkSparks at displayed
 * time `tick − 1 + alpha` (`tick` relative to its epoch) into `out`; returns whether the shader
 * draws it at all (referenced, inside its launch's range, alive and kept at `tick`). Every slot is
 * derived from the row its reference names, with the renderer's uniform tables
 * (`FireworkSparks.shaderRows`): the shell and its trail ring from the launch row, burst sparks,
 * children and embers from their break's row.
 */
export function fireworkHead(
  slot: number,
  tick: number,
  alpha: number,
  out: Float32Array,
  rows: FireworkShaderRows,
): boolean {
  const tag = rows.refs[slot * 2];
  if (tag < 0.5) return false;
  const row = Math.round(tag) - 1;
  const launchRow = row - (row % MAX_BREAKS_PER_GROUP) + LAUNCH_ROW;
  const launch = rows.breaks.subarray(
    launchRow * BREAK_TEXELS * 4,
    (launchRow + 1) * BREAK_TEXELS * 4,
  );
  const local = slot - Math.round(launch[16]);
  if (local < 0 || local >= Math.round(launch[17])) return false;
  const place = Math.round(rows.refs[slot * 2 + 1]);
  const kind = Math.floor(place / (EMBER_N * INDEX_SPAN));
  let origin: ArrayLike<number>, velocity: ArrayLike<number>;
  let born: number, visible: number, style: number;
  if (kind === DERIVED.shell) {
    origin = launch.subarray(0, 3);
    velocity = launch.subarray(4, 7);
    born = launch[3];
    visible = launch[11];
    style = Math.floor(launch[8] + 0.5);
  } else if (kind === DERIVED.trail) {
    const spark = trailAt(launch, Math.floor(place / EMBER_N) % INDEX_SPAN, tick);
    if (!spark) return false;
    ({ origin, velocity, born } = spark);
    visible = spark.life;
    style = Math.floor(launch[12] + 0.5);
  } else {
    const spark = derivedAt(slot, tick, rows);
    if (!spark) return false;
    ({ origin, velocity, born, style } = spark);
    visible = spark.life;
  }
  const age = f(f(tick) - born);
  if (age < 0 || age >= visible) return false;
  const motion = Math.floor(style / PALETTE_SIZE);
  const a = f(alpha);
  for (let c = 0; c < 3; c++) {
    const now = sparkAt(origin, velocity, age, motion, c);
    const before = age >= 1 ? sparkAt(origin, velocity, age - 1, motion, c) : now;
    out[c] = f(before + f(f(now - before) * a));
  }
  return true;
}
