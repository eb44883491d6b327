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
import { MAX_FLAKES, SCENE_HALF_EXTENT } from "./constants.ts";
import type { Hasher } from "./hash.ts";
import { wordsOf } from "./hash.ts";
import {
  initialSnapshot,
  windOffsetX,
  windOffsetZ,
  windVelocityX,
  windVelocityZ,
} from "./settings.ts";
import { SNOW_HEIGHT } from "./snow_constants.ts";
import { type FlakeSample, flakeSample, type FlakeTable, flakeTable } from "./snow_flakes.ts";
import type { WorldSnapshot } from "./types.ts";
import type { SnowView } from "./views.ts";

export * from "./snow_constants.ts";

/** `hashInto` hashes every `SNOW_HASH_STRIDE`-th active flake. */
export const SNOW_HASH_STRIDE = 64;

const WIDTH = 2 * SCENE_HALF_EXTENT;
const INV_WIDTH = 1 / WIDTH;
const INV_HEIGHT = 1 / SNOW_HEIGHT;

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
 * The snowflakes. Per-flake constants come from the seed's snow stream (`snow_flakes.ts`: flake i
 * always takes the stream's words [10i, 10i + 10), so its constants are a function of (seed, i)
 * and a prefix of the flakes never changes with the count). They are built when first read: the
 * state hash needs only every `SNOW_HASH_STRIDE`-th flake, so a late joiner that has not drawn
 * yet never builds the 100k-flake table (the per-flake arrays below are built on first access).
 */
export class Snow implements SnowView {
  /** Scene seed. */
  readonly seed: number;
  /** Length of every per-flake array, in flakes. */
  readonly capacity: number;

  #count = 0;
  #climate: WorldSnapshot = initialSnapshot();
  #windVelocityX = 0;
  #windVelocityZ = 0;
  #table: FlakeTable | null = null;
  readonly #sample: FlakeSample;
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
    this.#sample = flakeSample(seed, capacity, SNOW_HASH_STRIDE);
    this.#hashScratch = new Float32Array(Math.ceil(capacity / SNOW_HASH_STRIDE) * 3);
    this.#hashWords = wordsOf(this.#hashScratch);
    this.setClimate(this.#climate);
  }

  /** Every flake's constants, built on first use (shared by every Snow of this seed). */
  #flakes(): FlakeTable {
    return this.#table ??= flakeTable(this.seed, this.capacity);
  }

  /** Per flake, x at tick 0 with zero wind integral, metres. */
  get originX(): Float32Array {
    return this.#flakes().originX;
  }
  /** Per flake, height at tick 0, metres in [0, SNOW_HEIGHT). */
  get originY(): Float32Array {
    return this.#flakes().originY;
  }
  /** Per flake, z at tick 0 with zero wind integral, metres. */
  get originZ(): Float32Array {
    return this.#flakes().originZ;
  }
  /** Per flake, fall speed in metres per tick. */
  get fallPerTick(): Float32Array {
    return this.#flakes().fallPerTick;
  }
  /** Per flake, multiplier on the wind's integral. */
  get windFactor(): Float32Array {
    return this.#flakes().windFactor;
  }
  /** Per flake, sway amplitude along x in metres (the sway runs along a per-flake direction). */
  get swayX(): Float32Array {
    return this.#flakes().swayX;
  }
  /** Per flake, sway amplitude along z in metres. */
  get swayZ(): Float32Array {
    return this.#flakes().swayZ;
  }
  /** Per flake, sway frequency in cycles per tick. */
  get swayFrequency(): Float32Array {
    return this.#flakes().swayFrequency;
  }
  /** Per flake, sway phase in cycles [0, 1). */
  get swayPhase(): Float32Array {
    return this.#flakes().swayPhase;
  }
  /** Per flake, the side of its square in metres. */
  get size(): Float32Array {
    return this.#flakes().size;
  }
  /** Per flake, sprite variant 0..SNOW_VARIANTS − 1. */
  get variant(): Float32Array {
    return this.#flakes().variant;
  }
  /** Per flake, tumbling speed of both angles, radians per second. */
  get spin(): Float32Array {
    return this.#flakes().spin;
  }
  /** Per flake, the pitch angle (about world x, applied second) at time 0, radians. */
  get phase(): Float32Array {
    return this.#flakes().phase;
  }
  /** Per flake, the yaw angle (about world y, applied first) at time 0, radians. */
  get phaseY(): Float32Array {
    return this.#flakes().phaseY;
  }
  /** Per flake, windless drift along x, metres per tick. */
  get driftX(): Float32Array {
    return this.#flakes().driftX;
  }
  /** Per flake, windless drift along z, metres per tick. */
  get driftZ(): Float32Array {
    return this.#flakes().driftZ;
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
    this.#evaluate(time, out, this.#flakes(), this.#count);
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
    const { originX, originY, originZ, fallPerTick: fall, windFactor: wind } = this.#flakes();
    const { swayFrequency: frequency, swayPhase: phase, driftX, driftZ } = this.#flakes();
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
    const sampled = Math.ceil(this.#count / SNOW_HASH_STRIDE);
    this.#evaluate(tick, this.#hashScratch, this.#sample.cover(this.#count), sampled);
    h.u32(this.#count);
    h.words(this.#hashWords, 0, sampled * 3);
  }

  /** Positions of the first `n` flakes of `flakes` at `time`, packed into `out`. */
  #evaluate(time: number, out: Float32Array, flakes: FlakeTable, n: number): void {
    const windX = this.windOffsetX(time);
    const windZ = this.windOffsetZ(time);
    const { originX, originY, originZ, fallPerTick: fall, windFactor: wind, swayX, swayZ } = flakes;
    const { swayFrequency: frequency, swayPhase: phase, driftX, driftZ } = flakes;
    for (let i = 0, o = 0; i < n; i++, o += 3) {
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
    }
  }
}
