/**
 * Each fountain drop's path in closed form: a chain of parabolas, one per flight, each starting
 * where the last met a dish or the pool. A flight is its start time (seconds after the drop's
 * birth), start point and start velocity; where it ends is solved exactly when it starts (a dome
 * `y = apexY − curve·r²` against a parabola is a quadratic in time), so a drop's state at any
 * tick is a pure function of its birth draws and the time: a late joiner evaluates it once
 * instead of stepping 240 ticks, and a tick's step is the same evaluation.
 *
 * @example
 * ```ts
 * import { DropPaths } from "./fountain_path.ts";
 * const paths = new DropPaths(7, 1);
 * paths.start(0, 0, [0, 3, 0], [0, 0, 0]); // a drop at rest 3 m up, born at tick 0
 * paths.settle(0, 60); // it falls onto the upper dish and bounces: flights advance to 60 ticks
 * ```
 */
import { FOUNTAIN_GRAVITY, FOUNTAIN_SURFACES, POOL_LEVEL, POOL_RADIUS } from "./fountain_layout.ts";
import { DT } from "./constants.ts";
import { hashUnits, STREAM, streamKey } from "./prng.ts";

/** What ends a flight: a dish (its index), the pool, the ground, or nothing within a life. */
export const END_POOL = FOUNTAIN_SURFACES.length;
export const END_GROUND = END_POOL + 1;
export const END_NONE = END_POOL + 2;
/** `end` of a drop spawned whose first flight is not solved yet (solved when first placed). */
export const END_UNPLANNED = END_POOL + 3;
/** `from` of a flight that starts at the nozzle (on no surface). */
export const FROM_NOZZLE = -1;

/** Bit of `touched` set when a drop reaches the pool (k-th surface: bit k). */
export const TOUCHED_POOL = 0x40;
/** Bit of `touched` set when a slot is spawned into. */
export const TOUCHED_SPAWNED = 0x80;

/**
 * A drop hitting the pool faster than this (m/s, downward) splashes: it jumps back up with
 * SPLASH_LIFT of its speed, keeps SPLASH_CARRY of its horizontal velocity and scatters by up
 * to SPLASH_SCATTER m/s sideways. A slower one, or a droplet coming down again, just dies.
 */
export const SPLASH_MIN_SPEED = 1.5;
const SPLASH_LIFT = [0.18, 0.38] as const;
const SPLASH_CARRY = 0.25;
const SPLASH_SCATTER = 0.9;
/** Second key word of the splashes' random numbers (keyed by the drop's birth tick). */
const SPLASH_STREAM = 0x53504c41;
/**
 * A bounce leaves a dish at least this fast along its normal (m/s): a drop whose rebound would
 * be slower hops at this speed instead of coming to rest, so it slides off the dome in hops
 * (sliding on a curved dome has no closed form; a hop of ≥ 0.1 s is one more parabola).
 */
export const MIN_REBOUND = 1.0;

const G = FOUNTAIN_GRAVITY;
const G2 = FOUNTAIN_GRAVITY / 2;
const POOL_R2 = POOL_RADIUS * POOL_RADIUS;
/** Flight fields per slot: start time, start point, start velocity, end time. */
export const FLIGHT_FIELDS = 8;
const F = FLIGHT_FIELDS;

// The dishes packed for the planner: apexY, curve, rMin², rMax², μ, ε.
const DISH_FIELDS = 6;
const DISHES = new Float64Array(FOUNTAIN_SURFACES.length * DISH_FIELDS);
FOUNTAIN_SURFACES.forEach((s, k) => {
  DISHES.set([s.apexY, s.curve, s.rMin * s.rMin, s.rMax * s.rMax, s.mu, s.eps], k * DISH_FIELDS);
});

/**
 * The first time u > 0 at which `a·u² + b·u + c`, positive at u = 0 (c > 0), reaches 0;
 * Infinity if it never does. Roots by the stable form q = −(b + sign(b)·√disc)/2.
 */
export function firstDown(a: number, b: number, c: number): number {
  solver[A] = a;
  solver[B] = b;
  solver[C] = c;
  solveDown(solver);
  return solver[U];
}

/**
 * `firstDown` of `q[A]`, `q[B]`, `q[C]` into `q[U]`: the planner calls it without passing numbers
 * (a call that is not inlined boxes each one, and a late join makes ~75k of these), and it
 * stores its answer on each path rather than merging them into one variable (boxed too).
 */
function solveDown(q: Float64Array): void {
  const a = q[A], b = q[B], c = q[C];
  if (a === 0) {
    if (b < 0) q[U] = -c / b;
    else q[U] = Infinity;
    return;
  }
  const disc = b * b - 4 * a * c;
  if (disc < 0) {
    q[U] = Infinity; // only when a > 0: the curve stays above
    return;
  }
  const s = Math.sqrt(disc);
  if (a < 0) {
    // One root each side of 0: the positive one.
    if (b >= 0) q[U] = (-(b + s) / 2) / a;
    else q[U] = c / ((s - b) / 2);
    return;
  }
  // a > 0 and c > 0: both roots share b's sign; positive (and real) only when b < 0.
  if (b >= 0) q[U] = Infinity;
  else q[U] = c / ((s - b) / 2);
}

/** The solver's scratch: a, b, c of `solveDown`, its answer, and the planner's earliest time. */
const solver = new Float64Array(5);
const A = 0, B = 1, C = 2, U = 3, BEST = 4;

/**
 * Reflects velocity `(vx, vy, vz)` off a surface with unit normal `(nx, ny, nz)`:
 * `v' = (1 − μ)·v_t − ε·v_n`, written into `out[0..3)`. Velocities already leaving the surface
 * (v·n ≥ 0) are returned unchanged.
 *
 * @example
 * ```ts
 * const out = new Float64Array(3);
 * bounceVelocity(0, -2, 0, 0, 1, 0, 0, 0.5, out); // out = [0, 1, 0]
 * ```
 */
export function bounceVelocity(
  vx: number,
  vy: number,
  vz: number,
  nx: number,
  ny: number,
  nz: number,
  mu: number,
  eps: number,
  out: Float64Array | Float32Array,
): void {
  // A fresh array, not the settling scratch: this is the readable entry (tests, tools), outside
  // any hot loop; settling fills `bounce` itself so that no call passes numbers.
  const io = Float64Array.of(vx, vy, vz, nx, ny, nz, mu, eps);
  reflect(io);
  out.set(io.subarray(0, 3));
}

/**
 * `bounceVelocity` on `io` = [vx, vy, vz, nx, ny, nz, μ, ε], the result into `io[0..3)`: settling
 * calls it without passing numbers (a call that is not inlined would box each one).
 */
function reflect(io: Float64Array): void {
  const vx = io[0], vy = io[1], vz = io[2], nx = io[3], ny = io[4], nz = io[5];
  const vn = vx * nx + vy * ny + vz * nz;
  if (vn >= 0) return;
  const keep = 1 - io[6], eps = io[7];
  io[0] = keep * (vx - vn * nx) - eps * vn * nx;
  io[1] = keep * (vy - vn * ny) - eps * vn * ny;
  io[2] = keep * (vz - vn * nz) - eps * vn * nz;
}

/** A bounce's velocity, normal, μ and ε, then the bounced velocity; settling never allocates. */
const bounce = new Float64Array(8);
/** A splash's three draws. */
const scatter = new Float64Array(3);

/** Every drop's flights: the state a fountain keeps per slot besides what it draws. */
export class DropPaths {
  /** Per slot: start time (s after birth), start x, y, z, start vx, vy, vz, end time. */
  readonly flight: Float64Array;
  /** Per slot: the tick its drop was born (its time 0). */
  readonly born: Float64Array;
  /** Per slot: how its current flight ends (a dish index, END_POOL, END_GROUND, END_NONE). */
  readonly end: Uint8Array;
  /** Per slot: the surface its current flight left (a dish, END_POOL, or FROM_NOZZLE). */
  readonly from: Int8Array;
  /** Per slot: 1 once it is a splash droplet. */
  readonly splash: Uint8Array;
  /** Per slot, the surfaces its drop touched (bit k: dish k), TOUCHED_POOL, TOUCHED_SPAWNED. */
  readonly touched: Uint8Array;
  readonly #seed: number;
  /** The birth tick whose splash key was last made, and the key (-1: none yet). */
  readonly #splashKey = new Float64Array([-1, 0]);

  constructor(seed: number, capacity: number) {
    this.#seed = seed;
    this.flight = new Float64Array(capacity * F);
    this.born = new Float64Array(capacity);
    this.end = new Uint8Array(capacity);
    this.from = new Int8Array(capacity);
    this.splash = new Uint8Array(capacity);
    this.touched = new Uint8Array(capacity);
  }

  /** Starts slot `i`'s drop at `born` (a tick) from point `p` with velocity `v`. */
  start(i: number, born: number, p: readonly number[], v: readonly number[]): void {
    this.born[i] = born;
    this.splash[i] = 0;
    this.flight.set([0, p[0], p[1], p[2], v[0], v[1], v[2]], i * F);
    this.plan(i, FROM_NOZZLE);
  }

  /**
   * Solves where slot `i`'s flight ends, its start (time, point, velocity: `flight[i·8 …+7]`)
   * written, `from` the surface it leaves. Takes no doubles as arguments: a call that is not
   * inlined would box each one, and a late join makes ~50k of these calls.
   */
  plan(i: number, from: number): void {
    const f = i * F;
    const flight = this.flight, q = solver;
    const t0 = flight[f];
    const x = flight[f + 1], y = flight[f + 2], z = flight[f + 3];
    const vx = flight[f + 4], vy = flight[f + 5], vz = flight[f + 6];
    this.from[i] = from;
    // r²(u) = r0² + 2·d·u + h·u² along the flight.
    const r0 = x * x + z * z, d = x * vx + z * vz, h = vx * vx + vz * vz;
    // Each candidate time goes to q[U] and the earliest to q[BEST]: not to variables assigned
    // on several paths, which optimised code that does not untag them boxes at every merge.
    q[BEST] = Infinity;
    let end = END_NONE;
    for (let k = 0, s = 0; s < DISHES.length; k++, s += DISH_FIELDS) {
      const apex = DISHES[s], curve = DISHES[s + 1];
      // Height above the dome: (curve·h − g/2)·u² + (vy + 2·curve·d)·u + (y − apex + curve·r0²).
      const a = curve * h - G2, b = vy + 2 * curve * d;
      if (k === from) {
        // Leaving this dome: it comes back down at the other root (if it ever does).
        if (!(a < 0 && b > 0)) continue;
        q[U] = -b / a;
      } else {
        const c = y - apex + curve * r0;
        if (c > 0) {
          q[A] = a;
          q[B] = b;
          q[C] = c;
          solveDown(q);
        } else if (r0 >= DISHES[s + 3] && a < 0) {
          // Beyond the rim, under the dome's extension (a ring jet's nozzle): the drop may rise
          // through the extension outside the rim and come down onto the dish.
          const disc = b * b - 4 * a * c;
          if (!(disc > 0) || b <= 0) continue;
          const root = -(b + Math.sqrt(disc)) / 2; // b > 0: the roots are root/a (later), c/root
          const up = c / root;
          if (r0 + up * (2 * d + h * up) < DISHES[s + 3]) continue; // rises through the dish
          q[U] = root / a;
        } else continue; // under this dish: only a drop from above hits it
      }
      const u = q[U];
      if (!(u < q[BEST])) continue;
      const r2 = r0 + u * (2 * d + h * u);
      if (r2 < DISHES[s + 2] || r2 >= DISHES[s + 3]) continue; // crosses it beyond the rim
      q[BEST] = u;
      end = k;
    }
    // The pool's plane: a splash droplet leaves it, anything else comes down onto it.
    const above = y - POOL_LEVEL;
    if (from === END_POOL) {
      if (vy > 0) q[U] = vy / G2;
      else q[U] = 0;
    } else if (above > 0) {
      q[A] = -G2;
      q[B] = vy;
      q[C] = above;
      solveDown(q);
    } else q[U] = 0;
    const u = q[U];
    if (u < q[BEST]) {
      const r2 = r0 + u * (2 * d + h * u);
      if (r2 < POOL_R2) {
        q[BEST] = u;
        end = END_POOL;
      } else {
        // Outside the basin: it falls to the ground and dies there.
        if (y > 0) {
          q[A] = -G2;
          q[B] = vy;
          q[C] = y;
          solveDown(q);
          q[BEST] = q[U];
        } else q[BEST] = u;
        end = END_GROUND;
      }
    }
    flight[f + 7] = t0 + q[BEST];
    this.end[i] = end;
  }

  /**
   * Runs slot `i`'s drop through every flight that ends by its age `lived` ticks (a small
   * integer): bounces, splashes. Returns false once the drop is gone (in the pool, or on the
   * ground).
   */
  settle(i: number, lived: number): boolean {
    const t = lived * DT;
    const flight = this.flight;
    const f = i * F;
    while (flight[f + 7] <= t) {
      const end = this.end[i];
      const t0 = flight[f], te = flight[f + 7];
      const u = te - t0;
      const x = flight[f + 1] + flight[f + 4] * u;
      const z = flight[f + 3] + flight[f + 6] * u;
      const vx = flight[f + 4], vy = flight[f + 5] - G * u, vz = flight[f + 6];
      if (end < END_POOL) {
        const s = end * DISH_FIELDS;
        const apex = DISHES[s], curve = DISHES[s + 1];
        // The dome's unit normal: (2·curve·x, 1, 2·curve·z) normalised.
        const gx = 2 * curve * x, gz = 2 * curve * z;
        const inv = 1 / Math.sqrt(gx * gx + 1 + gz * gz);
        const nx = gx * inv, ny = inv, nz = gz * inv;
        bounce[0] = vx;
        bounce[1] = vy;
        bounce[2] = vz;
        bounce[3] = nx;
        bounce[4] = ny;
        bounce[5] = nz;
        bounce[6] = DISHES[s + 4];
        bounce[7] = DISHES[s + 5];
        reflect(bounce);
        const bx = bounce[0], by = bounce[1], bz = bounce[2];
        // Too slow off the dish to leave it in closed form: it hops at MIN_REBOUND instead.
        const lift = MIN_REBOUND - (bx * nx + by * ny + bz * nz);
        // Math.max, not a choice between two numbers (optimised code may box what it merges).
        const extra = Math.max(lift, 0);
        this.touched[i] |= 1 << end;
        flight[f] = te;
        flight[f + 1] = x;
        flight[f + 2] = apex - curve * (x * x + z * z);
        flight[f + 3] = z;
        flight[f + 4] = bx + extra * nx;
        flight[f + 5] = by + extra * ny;
        flight[f + 6] = bz + extra * nz;
        this.plan(i, end);
        continue;
      }
      if (end === END_POOL) {
        this.touched[i] |= TOUCHED_POOL;
        if (this.splash[i] === 0 && vy <= -SPLASH_MIN_SPEED) {
          // A fast drop splashes back up once as a droplet, scattered by its own draws.
          this.#scatter(i);
          const su = scatter[0], sv = scatter[1], sw = scatter[2];
          this.splash[i] = 1;
          flight[f] = te;
          flight[f + 1] = x;
          flight[f + 2] = POOL_LEVEL;
          flight[f + 3] = z;
          flight[f + 4] = vx * SPLASH_CARRY + SPLASH_SCATTER * (2 * su - 1);
          flight[f + 5] = -vy * (SPLASH_LIFT[0] + (SPLASH_LIFT[1] - SPLASH_LIFT[0]) * sw);
          flight[f + 6] = vz * SPLASH_CARRY + SPLASH_SCATTER * (2 * sv - 1);
          this.plan(i, END_POOL);
          continue;
        }
      }
      return false; // into the pool (slow, or a droplet's second contact), or on the ground
    }
    return true;
  }

  /**
   * Slot `i`'s splash draws into `scatter`: `hashUnit(key, 3i …+2)`, the key named by its birth
   * tick (kept while the drops of one tick splash in turn).
   */
  #scatter(i: number): void {
    const born = this.born[i] >>> 0;
    const cache = this.#splashKey;
    if (cache[0] !== born) {
      cache[0] = born;
      cache[1] = streamKey(this.#seed, STREAM.fountain, born, SPLASH_STREAM);
    }
    hashUnits(cache[1], i * 3, scatter, 0, 3);
  }

  /**
   * Writes slot `i`'s position and velocity at its age `lived` ticks (within its current flight),
   * turned about the fountain's axis by `turn[k]` (cosine) and `turn[k + 1]` (sine), into `pos`
   * and `vel` at `p`.
   */
  place(
    i: number,
    lived: number,
    turn: Float64Array,
    k: number,
    pos: Float32Array,
    vel: Float32Array | null,
    p: number,
  ): void {
    const flight = this.flight;
    const f = i * F;
    const c = turn[k], s = turn[k + 1];
    const u = lived * DT - flight[f];
    const x = flight[f + 1] + flight[f + 4] * u;
    const z = flight[f + 3] + flight[f + 6] * u;
    pos[p] = c * x - s * z;
    pos[p + 1] = flight[f + 2] + flight[f + 5] * u - G2 * u * u;
    pos[p + 2] = s * x + c * z;
    if (vel === null) return;
    const vx = flight[f + 4], vz = flight[f + 6];
    vel[p] = c * vx - s * vz;
    vel[p + 1] = flight[f + 5] - G * u;
    vel[p + 2] = s * vx + c * vz;
  }
}
