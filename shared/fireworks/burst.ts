/**
 * Bursts: one to three breaks of the shell's kind (peony, chrysanthemum, willow, palm, ring,
 * heart, crossette, crackle; see firework_recipes.ts), each a set of sparks in the kind's shape
 * at the shell's apex (later breaks BREAK_GAP_TICKS apart, near it). A closed-form step only
 * marks a break burst (`burst`: counts, range, ember table); its sparks are placed from the
 * break's keyed stream when first read (`writeBursts`).
 *
 * A spherical placement (burst sparks, split children): spark i moves at `speed` along the
 * direction (cos φ, θ) on top of the carried velocity (vx, vy, vz), i.e. with
 * ring = √(1 − cos² φ) · speed, velocity = (vx + ring · cos θ, vy + speed · cos φ,
 * vz + ring · sin θ). With cos φ = 1 − 2u directions are uniform on the sphere (φ = acos(1 − 2u));
 * sin φ = √(1 − cos² φ) saves the acos/sin/cos round trip. `placeBurst` and `splitBirth` write it
 * inline, θ's cosine and sine taken for all sparks at once (cosSinArray).
 *
 * @example
 * ```ts
 * import { PALM_COS_PHI } from "./burst.ts";
 * PALM_COS_PHI[0] < PALM_COS_PHI[1]; // a band of directions, not the whole sphere
 * ```
 */
import { BREAK_GAP_TICKS } from "../constants.ts";
import { cosSinArray, TAU } from "../dmath.ts";
import {
  AMBER_TINT,
  GOLD_TINT,
  PALETTE_SIZE,
  RAINBOW_FIRST,
  RAINBOW_HUES,
  SILVER_TINT,
} from "../firework_colors.ts";
import { BURST_DRAW, BURST_SPARKS, BURST_STREAM, SPARK_DRAWS } from "../firework_draws.ts";
import { MOTIONS } from "../firework_motion.ts";
import { PHASE } from "../firework_plan.ts";
import { directionNoiseArray, NOISE_FREQUENCY, NOISE_STRENGTH } from "../firework_noise.ts";
import { hashUnit, hashUnits, mixKey, STREAM, streamKey } from "../prng.ts";
import { type FireworkBlock, touch } from "./block.ts";
import { tabulateEmberWaves } from "./embers.ts";
import { drawnLife, flickerKey, paint, type Sky, storedPositionAt, velocityAt } from "./sky.ts";
import { splitBirth } from "./split.ts";

/** Palm fronds' cos φ (from the vertical) range: a band between ~45° and ~84° from vertical. */
export const PALM_COS_PHI = [0.1, 0.7] as const;

/**
 * Break `b` bursts: at the shell's apex (b = 0, which puts the shell out) or BREAK_GAP_TICKS · b
 * later near it. Its sparks (and, closed form, every child of its splits, born at their split)
 * are counted born and their slots marked for consumers of births; stepping writes their birth
 * state now, closed form when they are first read (`writeBursts`). The ember table needs only
 * the trailing sparks' lifetimes, one draw each.
 */
export function burst(sky: Sky, block: FireworkBlock, b: number): void {
  const plan = block.plan;
  if (b === 0) {
    if (!sky.closedForm) {
      const shell = block.start;
      sky.pool.life[shell] = 0;
      sky.pool.color[shell * 4 + 3] = 0;
    }
    sky.liveCount--;
  }
  block.bursts = b + 1;
  if (!sky.closedForm) writeBursts(sky, block);
  const count = plan.sparkCount[b], splits = plan.splitCount[b];
  const split = block.recipe.split;
  // Closed form: the births of sparks and children are one range (the children's birth state
  // is written with their break; the split only counts them).
  const touched = sky.closedForm && split
    ? plan.childStart[b] + splits * split.children
    : plan.sparkStart[b] + count;
  touch(block, plan.sparkStart[b], touched);
  block.hi = Math.max(block.hi, plan.sparkStart[b] + count);
  sky.liveCount += count;
  tabulateEmberWaves(sky, block, b);
}

/**
 * Where break `b` of `block` bursts and the velocity its sparks inherit, into `out`: the burst
 * point (the shell's stored apex plus the break's offset; stored as float32 with each spark's
 * origin) at [0, 3) and the shell's velocity at its apex at [3, 6). Every spark of the break is
 * born there with this velocity plus its own (a GPU placing the sparks reads these). The
 * shell's birth state must be written (it is, from its launch on).
 */
export function burstFrame(
  sky: Sky,
  block: FireworkBlock,
  b: number,
  out: Float64Array,
): Float64Array {
  const plan = block.plan;
  const apex = storedPositionAt(sky, block.start, plan.riseTicks);
  const o = b * 3;
  out[0] = apex[0] + plan.offset[o];
  out[1] = apex[1] + plan.offset[o + 1];
  out[2] = apex[2] + plan.offset[o + 2];
  const sv = velocityAt(sky, block.start, plan.riseTicks, sky.scratch64);
  out[3] = sv[0];
  out[4] = sv[1];
  out[5] = sv[2];
  return out;
}

/** Writes the sparks (and closed form, the children) of breaks [burstsWritten, bursts). */
export function writeBursts(sky: Sky, block: FireworkBlock): void {
  for (let b = block.burstsWritten; b < block.bursts; b++) placeBurst(sky, block, b);
  block.burstsWritten = block.bursts;
}

/**
 * The birth state of break `b`'s sparks in the kind's shape (and, closed form, of every
 * child of its splits). In passes over typed arrays (the stream's draws, the
 * angles' cosines and sines, the direction noise, then each spark's birth), with no call per
 * spark: the same numbers as placing spark by spark (the spherical placement above,
 * `directionNoise`, `noiseFactor`), a fraction of the cost.
 */
function placeBurst(sky: Sky, block: FireworkBlock, b: number): void {
  const plan = block.plan;
  const recipe = block.recipe;
  const key = streamKey(sky.seed, STREAM.firework, block.seq, PHASE.burst + b);
  const shell = block.start;
  const frame = burstFrame(sky, block, b, sky.frame);
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
  } = sky.pool;
  const closed = sky.closedForm;
  const bornRel = plan.riseTicks + b * BREAK_GAP_TICKS;
  const count = plan.sparkCount[b], splits = plan.splitCount[b];
  const base = plan.sparkSpeed[b];
  const spreadLo = recipe.spread[0], spreadSpan = recipe.spread[1] - recipe.spread[0];
  // The direction noise (docs/sources.md): a frequency, a strength and a lattice key per break, from the
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
  const scratch = sky.scratchFor(count);
  const { draws, angle, cos: cs, sin: sn } = scratch;
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
    const { dx, dy, dz } = scratch;
    for (let n = 0, d = 0; n < count; n++, d += SPARK_DRAWS) {
      const cosPhi = 1 - 2 * draws[d + BURST_DRAW.placement];
      const ring = Math.sqrt(1 - cosPhi * cosPhi);
      dx[n] = ring * cs[n];
      dy[n] = cosPhi;
      dz[n] = ring * sn[n];
    }
    directionNoiseArray(dx, dy, dz, count, frequency, noiseKey, scratch.noise);
  }
  const noise = scratch.noise;
  // Pass 3: each spark's birth. The tint from its pick: willow gold, rainbow a hue per spark,
  // crackle half gold, green-purple alternating spark by spark (docs/sources.md), the other themes
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
      const bumped = noisy ? speed * ((1 + noise[n] * strength) / (1 + strength)) : speed;
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
    // Blue-silver's silver sparks twinkle (docs/sources.md); crackle strobes.
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
    for (let j = 0; j < splits; j++) splitBirth(sky, block, b, j);
  }
}
