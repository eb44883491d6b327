/**
 * Deterministic elementary functions. `Math.sin`, `cos`, `acos`, `exp`, `log`, `pow` and friends
 * return different bits in different JS engines; these are built from `+ - * /`, `Math.sqrt`,
 * `Math.round`/`floor` and exact IEEE bit access only, so every engine agrees to the last bit.
 * Accuracy is within a few ulps over the ranges the simulation uses (see tests).
 */

/** π to double precision. */
export const PI = 3.141592653589793;
/** 2π. */
export const TAU = 6.283185307179586;
/** π / 2. */
export const HALF_PI = 1.5707963267948966;

const TWO_OVER_PI = 6.36619772367581382433e-01;
// π/2 split in three so k·PIO2_1 and k·PIO2_2 are exact for |k| < 2^20 (Cody–Waite reduction).
const PIO2_1 = 1.57079632673412561417e+00;
const PIO2_2 = 6.07710050630396597660e-11;
const PIO2_3 = 2.02226624871116645580e-21;

// fdlibm's minimax kernels on [-π/4, π/4].
const S1 = -1.66666666666666324348e-01;
const S2 = 8.33333333332248946124e-03;
const S3 = -1.98412698298579493134e-04;
const S4 = 2.75573137070700676789e-06;
const S5 = -2.50507602534068634195e-08;
const S6 = 1.58969099521155010221e-10;
const C1 = 4.16666666666666019037e-02;
const C2 = -1.38888888888741095749e-03;
const C3 = 2.48015872894767294178e-05;
const C4 = -2.75573143513906633035e-07;
const C5 = 2.08757232129817482790e-09;
const C6 = -1.13596475577881948265e-11;

/** sin r for r in [−π/4, π/4], with z = r². */
function kernelSin(r: number, z: number): number {
  return r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
}

/** cos r for r in [−π/4, π/4], from z = r². */
function kernelCos(z: number): number {
  return 1 - 0.5 * z + z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
}

function quadrantOf(k: number): number {
  return ((k % 4) + 4) % 4;
}

function reduce(x: number, k: number): number {
  return ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
}

/** sin(x) where x reduced is `r` in quadrant `q` (0..3); cos(x) is that of quadrant q + 1. */
function sinInQuadrant(r: number, q: number): number {
  switch (q) {
    case 0:
      return kernelSin(r, r * r);
    case 1:
      return kernelCos(r * r);
    case 2:
      return -kernelSin(r, r * r);
    default:
      return -kernelCos(r * r);
  }
}

/** Deterministic sine. Exact reduction for |x| < ~1.6e6; beyond that accuracy degrades. */
export function sin(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  const k = Math.round(x * TWO_OVER_PI);
  return sinInQuadrant(reduce(x, k), quadrantOf(k));
}

/** Deterministic cosine: the sine a quadrant on (the same kernels, the same bits). */
export function cos(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  const k = Math.round(x * TWO_OVER_PI);
  return sinInQuadrant(reduce(x, k), quadrantOf(k + 1));
}

/**
 * `cos` and `sin` of `angles[i]` for i in [0, n), into `cosOut[i]` and `sinOut[i]`: the same bits
 * as `cos(angles[i])` and `sin(angles[i])`, the reduction done once per angle and no call per
 * angle (a hot loop that calls `cos` and `sin` pays for each call and for boxing its result; the
 * small kernels below are inlined).
 *
 * @example
 * ```ts
 * import { cos, cosSinArray, sin } from "./dmath.ts";
 * const angles = Float64Array.of(0.5, 2), c = new Float64Array(2), s = new Float64Array(2);
 * cosSinArray(angles, 2, c, s);
 * c[1] === cos(2) && s[1] === sin(2); // true
 * ```
 */
export function cosSinArray(
  angles: Float64Array,
  n: number,
  cosOut: Float64Array,
  sinOut: Float64Array,
): void {
  for (let i = 0; i < n; i++) {
    const x = angles[i];
    if (!Number.isFinite(x)) {
      cosOut[i] = sinOut[i] = NaN;
      continue;
    }
    const k = Math.round(x * TWO_OVER_PI);
    const r = reduce(x, k);
    const z = r * r;
    const ks = kernelSin(r, z), kc = kernelCos(z);
    switch (quadrantOf(k)) {
      case 0:
        cosOut[i] = kc;
        sinOut[i] = ks;
        break;
      case 1:
        cosOut[i] = -ks;
        sinOut[i] = kc;
        break;
      case 2:
        cosOut[i] = -kc;
        sinOut[i] = -ks;
        break;
      default:
        cosOut[i] = ks;
        sinOut[i] = -kc;
    }
  }
}

const TAN_PI_12 = 0.2679491924311227;
const SQRT3 = 1.7320508075688772;
const PI_6 = 0.5235987755982989;

/** Taylor series of atan on |t| ≤ tan(π/12), Horner form; truncation error < 1e-17. */
function atanSmall(t: number): number {
  const z = t * t;
  let p = -1 / 25;
  p = 1 / 23 + z * p;
  p = -1 / 21 + z * p;
  p = 1 / 19 + z * p;
  p = -1 / 17 + z * p;
  p = 1 / 15 + z * p;
  p = -1 / 13 + z * p;
  p = 1 / 11 + z * p;
  p = -1 / 9 + z * p;
  p = 1 / 7 + z * p;
  p = -1 / 5 + z * p;
  p = 1 / 3 - z * -p;
  return t - t * z * p;
}

/** Deterministic arctangent. */
export function atan(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === 0) return x; // keeps −0
  const negative = x < 0;
  let a = negative ? -x : x;
  let offset = 0;
  let flip = false;
  if (a > 1) {
    a = 1 / a;
    flip = true;
  }
  if (a > TAN_PI_12) {
    a = (a * SQRT3 - 1) / (a + SQRT3);
    offset = PI_6;
  }
  let result = offset + atanSmall(a);
  if (flip) result = HALF_PI - result;
  return negative ? -result : result;
}

/** Whether `v` is negative, counting −0 (which IEEE and Math.atan2 treat as below the x-axis). */
function signBitSet(v: number): boolean {
  return v < 0 || (v === 0 && 1 / v < 0);
}

/** Deterministic two-argument arctangent in [−π, π], with Math.atan2's signed-zero cases. */
export function atan2(y: number, x: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (y === 0) {
    if (signBitSet(x)) return signBitSet(y) ? -PI : PI;
    return y; // ±0 keeps its sign
  }
  if (x === 0) return y > 0 ? HALF_PI : -HALF_PI;
  const base = atan(y / x);
  if (x > 0) return base;
  return y > 0 ? base + PI : base - PI;
}

/** Deterministic arccosine on [−1, 1], in [0, π]. */
export function acos(x: number): number {
  if (!(x >= -1 && x <= 1)) return NaN;
  if (x === -1) return PI;
  return 2 * atan(Math.sqrt((1 - x) / (1 + x)));
}

/** Deterministic arcsine on [−1, 1]. */
export function asin(x: number): number {
  if (!(x >= -1 && x <= 1)) return NaN;
  // π/2 − acos(x) cancels catastrophically near 0; there atan(x / √(1 − x²)) is exact-ish.
  if (x > -0.5 && x < 0.5) return atan(x / Math.sqrt((1 - x) * (1 + x)));
  return x > 0 ? HALF_PI - acos(x) : acos(-x) - HALF_PI;
}

const LN2_HI = 6.93147180369123816490e-01;
const LN2_LO = 1.90821492927058770002e-10;
const INV_LN2 = 1.44269504088896338700e+00;

/** `base`^`n` for a whole `n` ≥ 0 (below 2^32), by repeated squaring. */
function powWhole(base: number, n: number): number {
  let result = 1;
  while (n > 0) {
    if (n & 1) result *= base;
    base *= base;
    n >>>= 1;
  }
  return result;
}

/** 2^k for an integer k, by exact repeated squaring (powers of two multiply without rounding). */
export function pow2i(k: number): number {
  return k < 0 ? powWhole(0.5, -k) : powWhole(2, k);
}

/** Deterministic e^x. */
export function exp(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x > 709.782712893384) return Infinity;
  if (x < -745.1332191019412) return 0;
  const k = Math.round(x * INV_LN2);
  const r = (x - k * LN2_HI) - k * LN2_LO;
  // Taylor series of e^r on |r| ≤ ln2/2; 14 terms leave < 1e-17 relative error.
  let p = 1 / 87178291200;
  p = 1 / 6227020800 + r * p;
  p = 1 / 479001600 + r * p;
  p = 1 / 39916800 + r * p;
  p = 1 / 3628800 + r * p;
  p = 1 / 362880 + r * p;
  p = 1 / 40320 + r * p;
  p = 1 / 5040 + r * p;
  p = 1 / 720 + r * p;
  p = 1 / 120 + r * p;
  p = 1 / 24 + r * p;
  p = 1 / 6 + r * p;
  p = 0.5 + r * p;
  const er = 1 + r + r * r * p;
  // Split the scale so subnormal results and 2^1024 do not overflow the intermediate.
  if (k > 1000 || k < -1000) {
    const half = k >> 1;
    return er * pow2i(half) * pow2i(k - half);
  }
  return er * pow2i(k);
}

const bits = new DataView(new ArrayBuffer(8));
const SQRT_HALF = 0.7071067811865476;

/** Deterministic natural logarithm. */
export function log(x: number): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0) return -Infinity;
  if (x === Infinity) return Infinity;
  let scaledExponent = 0;
  if (x < 2.2250738585072014e-308) {
    x *= 18014398509481984; // 2^54 lifts subnormals into the normal range
    scaledExponent = -54;
  }
  bits.setFloat64(0, x);
  const high = bits.getUint32(0);
  let e = ((high >>> 20) & 0x7ff) - 1023 + scaledExponent;
  bits.setUint32(0, (high & 0x800fffff) | 0x3ff00000);
  let m = bits.getFloat64(0); // in [1, 2)
  if (m > 1.4142135623730951) {
    m *= 0.5;
    e += 1;
  } else if (m < SQRT_HALF) {
    m *= 2;
    e -= 1;
  }
  // log(m) = 2 atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.1716.
  const s = (m - 1) / (m + 1);
  const z = s * s;
  let p = 1 / 23;
  p = 1 / 21 + z * p;
  p = 1 / 19 + z * p;
  p = 1 / 17 + z * p;
  p = 1 / 15 + z * p;
  p = 1 / 13 + z * p;
  p = 1 / 11 + z * p;
  p = 1 / 9 + z * p;
  p = 1 / 7 + z * p;
  p = 1 / 5 + z * p;
  p = 1 / 3 + z * p;
  const logM = 2 * s + 2 * s * z * p;
  return (e * LN2_HI + logM) + e * LN2_LO;
}

/** Largest integer exponent evaluated by repeated squaring (few roundings, exact when exact). */
const SMALL_INTEGER_EXPONENT = 64;

/**
 * Deterministic x^y for x > 0 (and the integer-exponent cases of x ≤ 0). Small integer
 * exponents multiply exactly where Math.pow would (2³ = 8); otherwise exp(y·log x), whose relative
 * error grows like |y·log x|·2⁻⁵³.
 */
export function pow(x: number, y: number): number {
  if (y === 0) return 1;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === 0) return y > 0 ? 0 : Infinity;
  if (Number.isInteger(y) && y >= -SMALL_INTEGER_EXPONENT && y <= SMALL_INTEGER_EXPONENT) {
    return y < 0 ? 1 / powWhole(x, -y) : powWhole(x, y);
  }
  if (x < 0) {
    if (!Number.isInteger(y)) return NaN;
    const magnitude = exp(y * log(-x));
    return (y % 2 === 0) ? magnitude : -magnitude;
  }
  return exp(y * log(x));
}

/** Degrees to radians. */
export function radians(degrees: number): number {
  return degrees * (PI / 180);
}
