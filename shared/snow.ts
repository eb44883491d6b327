/**
 * Snow: a 120 m cube of flakes over the ground (the source's snow region is a cube:
 * docs/sources.md, snow), each falling at its own constant speed, drifting sideways and in depth
 * at its own constant velocity (v = V0 + a random variation per axis, so windless snow does not
 * fall straight down), carried by the wind (scaled by a per-flake factor) and swaying gently.
 * A flake's position is a closed form of the fractional tick and the wind's integral, so nothing
 * is ever stepped: a late joiner, a renderer between ticks and the state hash all evaluate the
 * same formula.
 *
 * The field is periodic: x and z wrap with the scene's width, y with SNOW_HEIGHT. The renderer
 * draws each flake at its periodic image nearest the camera (client/render/snow_points.ts), so
 * the viewer stands inside the snowfall wherever the camera is (docs/sources.md, snow).
 */
import { DT, MAX_FLAKES, SCENE_HALF_EXTENT } from "./constants.ts";
import { cosSinArray, TAU } from "./dmath.ts";
import type { Hasher } from "./hash.ts";
import { wordsOf } from "./hash.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";
import {
  initialSnapshot,
  windOffsetX,
  windOffsetZ,
  windVelocityX,
  windVelocityZ,
} from "./settings.ts";
import type { WorldSnapshot } from "./types.ts";
import type { SnowView } from "./views.ts";

/**
 * Height of the snow box, metres: flakes fall from here to the ground (y = 0) and wrap. As tall
 * as the scene is wide (the source's cube, docs/sources.md), so the snowfall reaches above the default cameras
 * (57–90 m up) and every burst height.
 */
export const SNOW_HEIGHT = 120;
/** Slowest and fastest fall speed, metres per second. */
export const SNOW_FALL_SPEED = [0.6, 1.6] as const;
/** Range of the per-flake multiplier on the wind's drift. */
export const SNOW_WIND_FACTOR = [0.6, 1.4] as const;
/** Range of the sway amplitude, metres (a flake wanders this far either side of its drift). */
export const SNOW_SWAY_AMPLITUDE = [0.1, 0.6] as const;
/** Range of the sway period, seconds. */
export const SNOW_SWAY_PERIOD = [2.5, 6] as const;
/**
 * Largest windless drift along x and along z, m/s: each flake's drift is uniform in ±this per
 * axis (the source's random variation per axis, docs/sources.md).
 */
export const SNOW_DRIFT = 0.35;
/**
 * Range of the flake's side, metres: 0.35 m on average, 0.29 % of the snow box, as the source's
 * flakes are 0.3 % of its box (docs/sources.md, snow). At the default 1280×720 view the median
 * visible flake is about 3.8 px and some 700 are 8 px or more, so the shapes and tumble read.
 */
export const SNOW_SIZE = [0.2, 0.5] as const;
/**
 * Range of the tumbling speed, radians per second, added to both tumble angles alike (about
 * world x and world y: docs/sources.md, snow: 5.0–5.9 rad/s).
 */
export const SNOW_SPIN = [5, 5.9] as const;
/** Number of flake sprite variants (docs/sources.md, snow: six textures). */
export const SNOW_VARIANTS = 6;
/** `hashInto` hashes every `SNOW_HASH_STRIDE`-th active flake. */
export const SNOW_HASH_STRIDE = 64;

const WIDTH = 2 * SCENE_HALF_EXTENT;
const INV_WIDTH = 1 / WIDTH;
const INV_HEIGHT = 1 / SNOW_HEIGHT;
// Bytes between consecutive per-flake arrays beyond their length, so equal indices of different
// arrays do not land on the same cache set.
const STAGGER_BYTES = 64;
const FIELDS = 16;

const UNIT32 = 1 / 4294967296;

/** Flakes drawn per chunk (`#drawFlakes`), and the chunk's words, headings, cosines and sines. */
const DRAW_CHUNK = 4096;
const drawWords = new Uint32Array(DRAW_CHUNK * 10);
const drawHeading = new Float64Array(DRAW_CHUNK);
const drawCos = new Float64Array(DRAW_CHUNK);
const drawSin = new Float64Array(DRAW_CHUNK);
const UNIT16 = 1 / 65536;

/** The low 16 bits of a word as a uniform number in [0, 1). */
function low16(word: number): number {
  return (word & 0xffff) * UNIT16;
}

/** The high 16 bits of a word as a uniform number in [0, 1). */
function high16(word: number): number {
  return (word >>> 16) * UNIT16;
}

/** `range[0] + (range[1] − range[0]) · u`. */
function between(range: readonly [number, number], u: number): number {
  return range[0] + (range[1] - range[0]) * u;
}

/**
 * A cheap smooth periodic wave ≈ sin(2π·u) for u in [0, 1) (max error 0.001): a parabola with
 * one correction term. Only + − * and abs, so it is deterministic and fast in the hot loop.
 */
export function sway(u: number): number {
  const v = 1 - 2 * u; // sin(2πu) = sin(π(1 − 2u)) = sin(πv), v in (−1, 1]
  const p = 4 * v * (1 - Math.abs(v));
  return p + 0.225 * (p * Math.abs(p) - p);
}

/**
 * The snowflakes. Per-flake constants are drawn once, in the constructor, from the seed's snow
 * stream: flake i always takes its 10 words at [10i, 10i + 10), so its constants are a function
 * of (seed, i) and a prefix of the flakes never changes with the count.
 */
export class Snow implements SnowView {
  /** Scene seed. */
  readonly seed: number;
  /** Length of every per-flake array, in flakes. */
  readonly capacity: number;
  /** Per flake, x at tick 0 with zero wind integral, metres. */
  readonly originX: Float32Array;
  /** Per flake, height at tick 0, metres in [0, SNOW_HEIGHT). */
  readonly originY: Float32Array;
  /** Per flake, z at tick 0 with zero wind integral, metres. */
  readonly originZ: Float32Array;
  /** Per flake, fall speed in metres per tick. */
  readonly fallPerTick: Float32Array;
  /** Per flake, multiplier on the wind's integral. */
  readonly windFactor: Float32Array;
  /** Per flake, sway amplitude along x in metres (the sway runs along a per-flake direction). */
  readonly swayX: Float32Array;
  /** Per flake, sway amplitude along z in metres. */
  readonly swayZ: Float32Array;
  /** Per flake, sway frequency in cycles per tick. */
  readonly swayFrequency: Float32Array;
  /** Per flake, sway phase in cycles [0, 1). */
  readonly swayPhase: Float32Array;
  /** Per flake, the side of its square in metres. */
  readonly size: Float32Array;
  /** Per flake, sprite variant 0..SNOW_VARIANTS − 1. */
  readonly variant: Float32Array;
  /** Per flake, tumbling speed of both angles, radians per second. */
  readonly spin: Float32Array;
  /** Per flake, the pitch angle (about world x, applied second) at time 0, radians. */
  readonly phase: Float32Array;
  /** Per flake, the yaw angle (about world y, applied first) at time 0, radians. */
  readonly phaseY: Float32Array;
  /** Per flake, windless drift along x, metres per tick. */
  readonly driftX: Float32Array;
  /** Per flake, windless drift along z, metres per tick. */
  readonly driftZ: Float32Array;

  #count = 0;
  #climate: WorldSnapshot = initialSnapshot();
  #windVelocityX = 0;
  #windVelocityZ = 0;
  readonly #hashScratch: Float32Array;
  readonly #hashWords: Uint32Array;

  constructor(seed: number, capacity: number = MAX_FLAKES) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(
        `snow_capacity: capacity must be a non-negative integer, got ${capacity}`,
      );
    }
    this.seed = seed;
    this.capacity = capacity;
    const stride = capacity * 4 + STAGGER_BYTES;
    const buffer = new ArrayBuffer(stride * FIELDS);
    const field = (k: number) => new Float32Array(buffer, k * stride, capacity);
    this.originX = field(0);
    this.originY = field(1);
    this.originZ = field(2);
    this.fallPerTick = field(3);
    this.windFactor = field(4);
    this.swayX = field(5);
    this.swayZ = field(6);
    this.swayFrequency = field(7);
    this.swayPhase = field(8);
    this.size = field(9);
    this.variant = field(10);
    this.spin = field(11);
    this.phase = field(12);
    this.phaseY = field(13);
    this.driftX = field(14);
    this.driftZ = field(15);
    this.#hashScratch = new Float32Array(Math.ceil(capacity / SNOW_HASH_STRIDE) * 3);
    this.#hashWords = wordsOf(this.#hashScratch);
    this.#drawFlakes();
    this.setClimate(this.#climate);
  }

  #drawFlakes(): void {
    const { originX, originY, originZ, fallPerTick, windFactor, swayX, swayZ } = this;
    const { swayFrequency, swayPhase, size, variant, spin, phase, phaseY, driftX, driftZ } = this;
    // Exactly 10 words per flake from one stream (reseeding a stream per flake costs 12 warm-up
    // rounds each). Positions take a whole 32-bit word; the other constants need far less
    // resolution and share words as 16-bit halves. Late joiners build 100k flakes, so this loop is
    // on their critical path: the words are drawn a chunk of flakes at a time (`fillU32`) and the
    // sway headings' cosines and sines in one pass (`cosSinArray`), the same bits as one flake
    // after another with `nextU32`, `cos` and `sin`.
    const rng = new Rng(streamKey(this.seed, STREAM.snow));
    const SPAN_X = 2 * SCENE_HALF_EXTENT;
    const words = drawWords, heading = drawHeading, c = drawCos, s = drawSin;
    for (let first = 0; first < this.capacity; first += DRAW_CHUNK) {
      const n = Math.min(DRAW_CHUNK, this.capacity - first);
      rng.fillU32(words, 0, n * 10);
      for (let k = 0; k < n; k++) heading[k] = high16(words[k * 10 + 4]) * TAU;
      cosSinArray(heading, n, c, s);
      for (let k = 0, w = 0; k < n; k++, w += 10) {
        const i = first + k;
        originX[i] = words[w] * UNIT32 * SPAN_X - SCENE_HALF_EXTENT;
        originY[i] = words[w + 1] * UNIT32 * SNOW_HEIGHT;
        originZ[i] = words[w + 2] * UNIT32 * SPAN_X - SCENE_HALF_EXTENT;
        let word = words[w + 3];
        fallPerTick[i] = between(SNOW_FALL_SPEED, low16(word)) * DT;
        windFactor[i] = between(SNOW_WIND_FACTOR, high16(word));
        word = words[w + 4];
        const amplitude = between(SNOW_SWAY_AMPLITUDE, low16(word));
        swayX[i] = amplitude * c[k];
        swayZ[i] = amplitude * s[k];
        word = words[w + 5];
        swayFrequency[i] = DT / between(SNOW_SWAY_PERIOD, low16(word));
        swayPhase[i] = high16(word);
        word = words[w + 6];
        size[i] = between(SNOW_SIZE, low16(word));
        spin[i] = between(SNOW_SPIN, high16(word));
        word = words[w + 7];
        variant[i] = Math.floor(low16(word) * SNOW_VARIANTS);
        phase[i] = high16(word) * TAU;
        word = words[w + 8];
        driftX[i] = (2 * low16(word) - 1) * SNOW_DRIFT * DT;
        driftZ[i] = (2 * high16(word) - 1) * SNOW_DRIFT * DT;
        word = words[w + 9];
        phaseY[i] = low16(word) * TAU;
      }
    }
  }

  /** Active flakes: `round(settings.snow * capacity)`, always a prefix of the flake arrays. */
  get count(): number {
    return this.#count;
  }

  /**
   * Adopts the settings and wind accumulators of a snapshot. Call it whenever the snapshot
   * changes; positions stay continuous across wind changes because the integral does.
   */
  setClimate(snapshot: WorldSnapshot): void {
    const snow = Math.min(1, Math.max(0, snapshot.settings.snow));
    this.#count = Math.round(snow * this.capacity);
    this.#climate = snapshot;
    this.#windVelocityX = windVelocityX(snapshot.settings);
    this.#windVelocityZ = windVelocityZ(snapshot.settings);
  }

  /** The wind's integral along x (metres) at fractional tick `time` under the current climate. */
  windOffsetX(time: number): number {
    return windOffsetX(this.#climate, this.#windVelocityX, time);
  }

  /** The wind's integral along z (metres) at fractional tick `time` under the current climate. */
  windOffsetZ(time: number): number {
    return windOffsetZ(this.#climate, this.#windVelocityZ, time);
  }

  /** Writes xyz of the first `count` flakes at fractional tick `time` into `out`. Never allocates. */
  fill(time: number, out: Float32Array): void {
    if (out.length < this.#count * 3) {
      throw new RangeError(
        `snow_fill_short: out holds ${out.length} floats, ${this.#count * 3} needed`,
      );
    }
    this.#evaluate(time, out, 1);
  }

  /** See {@link SnowView.fillPhases}. Never allocates. */
  fillPhases(time: number, out: Float32Array): void {
    this.fillPhasesOf(time, out, this.#count);
  }

  /**
   * {@link fillPhases} for the first `count` flakes, active or not (up to the capacity): a
   * renderer letting flakes leave after the intensity dropped still needs theirs.
   */
  fillPhasesOf(time: number, out: Float32Array, count: number): void {
    count = Math.min(count, this.capacity);
    if (out.length < count * 4) {
      throw new RangeError(`snow_fill_short: out holds ${out.length} floats, ${count * 4} needed`);
    }
    const windX = this.windOffsetX(time);
    const windZ = this.windOffsetZ(time);
    const originX = this.originX, originY = this.originY, originZ = this.originZ;
    const fall = this.fallPerTick, wind = this.windFactor;
    const frequency = this.swayFrequency, phase = this.swayPhase;
    const driftX = this.driftX, driftZ = this.driftZ;
    for (let i = 0, o = 0; i < count; i++, o += 4) {
      const x = originX[i] + driftX[i] * time + wind[i] * windX;
      const z = originZ[i] + driftZ[i] * time + wind[i] * windZ;
      const widthsX = (x + SCENE_HALF_EXTENT) * INV_WIDTH;
      const heights = (originY[i] - fall[i] * time) * INV_HEIGHT;
      const widthsZ = (z + SCENE_HALF_EXTENT) * INV_WIDTH;
      const cycle = frequency[i] * time + phase[i];
      out[o] = widthsX - Math.floor(widthsX);
      out[o + 1] = heights - Math.floor(heights);
      out[o + 2] = widthsZ - Math.floor(widthsZ);
      out[o + 3] = cycle - Math.floor(cycle);
    }
  }

  /** Hashes the active count and the positions of every 64th active flake at tick `tick`. */
  hashInto(h: Hasher, tick: number): void {
    const sampled = this.#evaluate(tick, this.#hashScratch, SNOW_HASH_STRIDE);
    h.u32(this.#count);
    h.words(this.#hashWords, 0, sampled * 3);
  }

  /** Positions of flakes 0, stride, 2·stride, … below `count`, packed into `out`; returns how many. */
  #evaluate(time: number, out: Float32Array, stride: number): number {
    const windX = this.windOffsetX(time);
    const windZ = this.windOffsetZ(time);
    const originX = this.originX, originY = this.originY, originZ = this.originZ;
    const fall = this.fallPerTick, wind = this.windFactor;
    const swayX = this.swayX, swayZ = this.swayZ;
    const frequency = this.swayFrequency, phase = this.swayPhase;
    const driftX = this.driftX, driftZ = this.driftZ;
    const count = this.#count;
    let o = 0;
    for (let i = 0; i < count; i += stride) {
      // Wrap in units of the box so the fraction is exact and lands in [0, 1].
      const heights = (originY[i] - fall[i] * time) * INV_HEIGHT;
      const y = (heights - Math.floor(heights)) * SNOW_HEIGHT;
      const cycle = frequency[i] * time + phase[i];
      const s = sway(cycle - Math.floor(cycle));
      const drift = wind[i];
      const x = originX[i] + driftX[i] * time + drift * windX + swayX[i] * s;
      const z = originZ[i] + driftZ[i] * time + drift * windZ + swayZ[i] * s;
      const widthsX = (x + SCENE_HALF_EXTENT) * INV_WIDTH;
      const widthsZ = (z + SCENE_HALF_EXTENT) * INV_WIDTH;
      out[o] = (widthsX - Math.floor(widthsX)) * WIDTH - SCENE_HALF_EXTENT;
      out[o + 1] = y;
      out[o + 2] = (widthsZ - Math.floor(widthsZ)) * WIDTH - SCENE_HALF_EXTENT;
      o += 3;
    }
    return o / 3;
  }
}
