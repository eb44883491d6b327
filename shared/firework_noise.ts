/**
 * Smooth 3D value noise over burst directions (docs/sources.md, fireworks: "3D noise over the direction,
 * speed × (1 + noise · strength)", frequency 2–4, strength 0.2–0.4), so a burst has bumps and
 * hollows instead of a perfect shell. Integer hashing and + − * only: every engine agrees to the
 * bit.
 *
 * @example
 * ```ts
 * import { directionNoise } from "./firework_noise.ts";
 * const n = directionNoise(0.3, 0.8, -0.52, 3, 12345); // in [−1, 1]
 * ```
 */

/** Burst noise frequency range (lattice cells per unit of direction), docs/sources.md: 2–4. */
export const NOISE_FREQUENCY = [2, 4] as const;
/** Burst noise strength range, docs/sources.md: 0.2–0.4. */
export const NOISE_STRENGTH = [0.2, 0.4] as const;

/** A lattice point's value in [−1, 1] from its integer coordinates and the burst's key. */
function lattice(x: number, y: number, z: number, key: number): number {
  return mixToUnit(
    Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(z, 0x61c88647) ^ key,
  );
}

/** A lattice point's combined coordinate hash `h`, mixed to a value in [−1, 1]. */
function mixToUnit(h: number): number {
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return ((h ^ (h >>> 15)) >>> 0) / 2147483647.5 - 1;
}

/** t²(3 − 2t): a smooth step between lattice points. */
function fade(t: number): number {
  return t * t * (3 - 2 * t);
}

/**
 * Value noise at `frequency` · (dx, dy, dz) (a unit direction) for a burst keyed by `key`:
 * smooth, in [−1, 1], the same number on every engine.
 */
export function directionNoise(
  dx: number,
  dy: number,
  dz: number,
  frequency: number,
  key: number,
): number {
  // Shift by 8 cells so the lattice coordinates stay positive (directions are in [−1, 1]).
  const x = dx * frequency + 8, y = dy * frequency + 8, z = dz * frequency + 8;
  const ix = Math.floor(x), iy = Math.floor(y), iz = Math.floor(z);
  const fx = fade(x - ix), fy = fade(y - iy), fz = fade(z - iz);
  const c000 = lattice(ix, iy, iz, key), c100 = lattice(ix + 1, iy, iz, key);
  const c010 = lattice(ix, iy + 1, iz, key), c110 = lattice(ix + 1, iy + 1, iz, key);
  const c001 = lattice(ix, iy, iz + 1, key), c101 = lattice(ix + 1, iy, iz + 1, key);
  const c011 = lattice(ix, iy + 1, iz + 1, key), c111 = lattice(ix + 1, iy + 1, iz + 1, key);
  const x00 = c000 + (c100 - c000) * fx, x10 = c010 + (c110 - c010) * fx;
  const x01 = c001 + (c101 - c001) * fx, x11 = c011 + (c111 - c011) * fx;
  const y0 = x00 + (x10 - x00) * fy, y1 = x01 + (x11 - x01) * fy;
  return y0 + (y1 - y0) * fz;
}

/**
 * {@link directionNoise} of n directions (`dx[i]`, `dy[i]`, `dz[i]`) into `out[i]`: the same bits,
 * without a call (and its boxed numbers) per direction, for a burst's hot loop.
 *
 * @example
 * ```ts
 * import { directionNoise, directionNoiseArray } from "./firework_noise.ts";
 * const out = new Float64Array(1);
 * directionNoiseArray(Float64Array.of(0.3), Float64Array.of(0.8), Float64Array.of(-0.52), 1, 3, 7, out);
 * out[0] === directionNoise(0.3, 0.8, -0.52, 3, 7); // true
 * ```
 */
export function directionNoiseArray(
  dx: Float64Array,
  dy: Float64Array,
  dz: Float64Array,
  n: number,
  frequency: number,
  key: number,
  out: Float64Array,
): void {
  for (let i = 0; i < n; i++) {
    const x = dx[i] * frequency + 8, y = dy[i] * frequency + 8, z = dz[i] * frequency + 8;
    const ix = Math.floor(x), iy = Math.floor(y), iz = Math.floor(z);
    const fx = fade(x - ix), fy = fade(y - iy), fz = fade(z - iz);
    // lattice() with the corner hashes sharing their per-axis products.
    const hx0 = Math.imul(ix, 0x27d4eb2d), hx1 = Math.imul(ix + 1, 0x27d4eb2d);
    const hy0 = Math.imul(iy, 0x165667b1), hy1 = Math.imul(iy + 1, 0x165667b1);
    const hz0 = Math.imul(iz, 0x61c88647) ^ key, hz1 = Math.imul(iz + 1, 0x61c88647) ^ key;
    const c000 = mixToUnit(hx0 ^ hy0 ^ hz0), c100 = mixToUnit(hx1 ^ hy0 ^ hz0);
    const c010 = mixToUnit(hx0 ^ hy1 ^ hz0), c110 = mixToUnit(hx1 ^ hy1 ^ hz0);
    const c001 = mixToUnit(hx0 ^ hy0 ^ hz1), c101 = mixToUnit(hx1 ^ hy0 ^ hz1);
    const c011 = mixToUnit(hx0 ^ hy1 ^ hz1), c111 = mixToUnit(hx1 ^ hy1 ^ hz1);
    const x00 = c000 + (c100 - c000) * fx, x10 = c010 + (c110 - c010) * fx;
    const x01 = c001 + (c101 - c001) * fx, x11 = c011 + (c111 - c011) * fx;
    const y0 = x00 + (x10 - x00) * fy, y1 = x01 + (x11 - x01) * fy;
    out[i] = y0 + (y1 - y0) * fz;
  }
}

/**
 * The speed factor noise `n` ∈ [−1, 1] gives at `strength` s: (1 + n·s) / (1 + s), in
 * [(1 − s)/(1 + s), 1]. Seed 002's law 1 + n·s (docs/sources.md, fireworks: noise), divided by
 * its largest value 1 + s: the same bumps and hollows, as deep (the spread p95/p5 over
 * directions is the seed's: ≈ 1.44 at s = 0.3), and the fastest spark no faster than without
 * noise, so the camera framing's reach bound (`BURST_REACH_MAX`) still holds.
 *
 * @example
 * ```ts
 * import { noiseFactor } from "./firework_noise.ts";
 * noiseFactor(1, 0.3); // 1: a bump's peak keeps the spark's drawn speed
 * noiseFactor(-1, 0.3); // 0.7 / 1.3: a hollow's floor
 * ```
 */
export function noiseFactor(n: number, strength: number): number {
  return (1 + n * strength) / (1 + strength);
}
