/**
 * The fountain: a tall central jet and a ring of jets arcing inward, in a round basin at the
 * origin. Every jet's water (white, as in the source: docs/sources.md, fountain) falls on the
 * upper of two shallow conical dishes, slides and bounces off onto the lower one, then off its
 * rim into the pool (the source's two reflections), and splashes at the pool surface: a drop that reaches the pool jumps
 * back up once as a smaller splash droplet, scattered at random, and dies when it falls back. Storage is a ring of rows, one row per spawn tick, so the layout
 * (and the hash) depends only on the last FOUNTAIN_MAX_LIFE ticks of on/off input.
 */
import { DT, FOUNTAIN_BASIN_RADIUS } from "./constants.ts";
import { cos, sin, TAU } from "./dmath.ts";
import type { Hasher } from "./hash.ts";
import { wordsOf } from "./hash.ts";
import { hashUnit, Rng, STREAM, streamKey } from "./prng.ts";
import { staggeredArrays } from "./staggered_buffer.ts";
import type { StreakView } from "./views.ts";

/** Every fountain particle dies within this many ticks of its spawn (≤ WINDOW_TICKS): the longest FOUNTAIN_LIFE. */
export const FOUNTAIN_MAX_LIFE = 240;
/**
 * Most particles spawned in a tick while the fountain is on (all jets together): a row's slots.
 * Each jet draws its count per tick from the tick's stream, between FOUNTAIN_COUNT_LOW of its
 * share and all of it (the source's random emission count: docs/sources.md, fountain).
 */
export const FOUNTAIN_PER_TICK = 56;
/** The least share of a jet's slots it fills in a tick. */
export const FOUNTAIN_COUNT_LOW = 0.75;
/** Each drop's own life, ticks: drawn per drop from the tick's stream (docs/sources.md, fountain). */
export const FOUNTAIN_LIFE = [200, 240] as const;
/** Gravity, metres per second². */
export const FOUNTAIN_GRAVITY = 9.81;
/** The pool surface (kill plane) inside the basin, metres above the ground. */
export const POOL_LEVEL = 0.3;
/** Ticks over which a particle fades out before its maximum life. */
export const FOUNTAIN_FADE_TICKS = 30;
/** Base opacity of water. */
export const WATER_ALPHA = 0.55;

/**
 * A bounce surface: the cone `y = apexY − slope·r` over the annulus `rMin ≤ r < rMax`
 * (r = distance from the fountain's axis; slope 0 gives a horizontal plane). Each contact
 * reflects the velocity about the local tangent plane: `v' = (1 − μ)·v_t − ε·v_n`.
 */
export interface BounceSurface {
  readonly name: string;
  readonly apexY: number;
  readonly slope: number;
  readonly rMin: number;
  readonly rMax: number;
  /** Friction μ: the share of tangential velocity lost per contact. */
  readonly mu: number;
  /** Restitution ε: the share of normal velocity kept (reversed) per contact. */
  readonly eps: number;
}

const RIM_WIDTH = 0.45;

/** The fountain's bounce surfaces, highest first; the client can draw the dishes from them. */
export const FOUNTAIN_SURFACES: readonly BounceSurface[] = Object.freeze([
  { name: "upper-dish", apexY: 2.2, slope: 0.15, rMin: 0, rMax: 1.4, mu: 0.03, eps: 0.35 },
  // Wide enough to catch the water thrown off the upper dish's rim (docs/sources.md, fountain).
  { name: "lower-dish", apexY: 1.2, slope: 0.18, rMin: 0, rMax: 3.8, mu: 0.025, eps: 0.3 },
  {
    name: "basin-rim",
    apexY: 0.55,
    slope: 0,
    rMin: FOUNTAIN_BASIN_RADIUS,
    rMax: FOUNTAIN_BASIN_RADIUS + RIM_WIDTH,
    mu: 0.2,
    eps: 0.25,
  },
  {
    name: "ground",
    apexY: 0,
    slope: 0,
    rMin: FOUNTAIN_BASIN_RADIUS + RIM_WIDTH,
    rMax: Infinity,
    mu: 0.3,
    eps: 0.2,
  },
]);

/**
 * A nozzle. Spawn velocities lie in a thin vertical cylindrical shell around the jet's axis
 * velocity: horizontal offset of random angle θ and radius in [ringRadius, ringRadius + ringWidth],
 * vertical speed in [vyMin, vyMax].
 */
export interface Jet {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  /** Horizontal axis velocity, metres per second. */
  readonly vx: number;
  readonly vz: number;
  readonly ringRadius: number;
  readonly ringWidth: number;
  readonly vyMin: number;
  readonly vyMax: number;
  /** Share of the per-tick spawns. */
  readonly share: number;
}

const RING_JETS = 6;
const RING_JET_RADIUS = 4.6;
/** Inward speed of a ring jet, m/s: its arc lands on the upper dish (two bounces: docs/sources.md). */
const RING_JET_INWARD_SPEED = 3.6;

function ringJets(): Jet[] {
  const jets: Jet[] = [];
  for (let k = 0; k < RING_JETS; k++) {
    const angle = (k + 0.5) * (TAU / RING_JETS);
    const c = cos(angle), s = sin(angle);
    jets.push({
      x: RING_JET_RADIUS * c,
      y: 0.4,
      z: RING_JET_RADIUS * s,
      vx: -RING_JET_INWARD_SPEED * c,
      vz: -RING_JET_INWARD_SPEED * s,
      ringRadius: 0.05,
      ringWidth: 0.1,
      vyMin: 7.0,
      vyMax: 7.6,
      share: 0.1,
    });
  }
  return jets;
}

/** The central tall jet above the upper dish and the six arcing ring jets. */
export const FOUNTAIN_JETS: readonly Jet[] = Object.freeze([
  {
    x: 0,
    y: 2.35,
    z: 0,
    vx: 0,
    vz: 0,
    ringRadius: 0.3,
    ringWidth: 0.45,
    vyMin: 8.2,
    vyMax: 8.8,
    share: 0.4,
  },
  ...ringJets(),
]);

/** Water colour: white (docs/sources.md, fountain), shaded per drop. */
const WATER_RGB = [1, 1, 1] as const;
/** Drop diameters (metres): a fresh drop's range, and a splash droplet's. */
const DROP_SIZE = [0.05, 0.09] as const;
export const SPLASH_SIZE = 0.035;
/**
 * A drop hitting the pool faster than this (m/s, downward) splashes: it jumps back up with
 * SPLASH_LIFT of its speed, keeps SPLASH_CARRY of its horizontal velocity and scatters by up
 * to SPLASH_SCATTER m/s sideways. A slower one, or a droplet coming down again, just dies.
 */
export const SPLASH_MIN_SPEED = 1.5;
const SPLASH_LIFT = [0.18, 0.38] as const;
const SPLASH_CARRY = 0.25;
const SPLASH_SCATTER = 0.9;
/** Second key word of the splashes' random numbers (the spawns use the tick's high word). */
const SPLASH_STREAM = 0x53504c41;
const STAGGER_BYTES = 64;
const GRAVITY_STEP = FOUNTAIN_GRAVITY * DT;
// A particle within this distance under a surface still counts as having come from above:
// float32 storage can put a resting particle a hair below the surface it was projected onto.
const SURFACE_SKIN = 0.02;
const HIGHEST_SURFACE = Math.max(...FOUNTAIN_SURFACES.map((s) => s.apexY));
const BASIN_RADIUS_SQUARED = FOUNTAIN_BASIN_RADIUS * FOUNTAIN_BASIN_RADIUS;

// The surfaces packed for the hot loop: apexY, slope, rMin, rMax, mu, eps, and the cone's unit
// normal as (radial factor per metre of x/z offset, vertical component).
const SURFACE_FIELDS = 8;
const SURFACE_COUNT = FOUNTAIN_SURFACES.length;
const PACKED_SURFACES = new Float64Array(SURFACE_COUNT * SURFACE_FIELDS);
FOUNTAIN_SURFACES.forEach((surface, k) => {
  const norm = 1 / Math.sqrt(1 + surface.slope * surface.slope);
  PACKED_SURFACES.set([
    surface.apexY,
    surface.slope,
    surface.rMin,
    surface.rMax,
    surface.mu,
    surface.eps,
    surface.slope * norm,
    norm,
  ], k * SURFACE_FIELDS);
});

/**
 * Reflects velocity `(vx, vy, vz)` off a surface with unit normal `(nx, ny, nz)`:
 * `v' = (1 − μ)·v_t − ε·v_n`, written into `out[0..3)`. Velocities already leaving the surface
 * (v·n ≥ 0) are returned unchanged.
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
  const vn = vx * nx + vy * ny + vz * nz;
  if (vn >= 0) {
    out[0] = vx;
    out[1] = vy;
    out[2] = vz;
    return;
  }
  const keep = 1 - mu;
  out[0] = keep * (vx - vn * nx) - eps * vn * nx;
  out[1] = keep * (vy - vn * ny) - eps * vn * ny;
  out[2] = keep * (vz - vn * nz) - eps * vn * nz;
}

/** Scratch for the bounced velocity; module-level so the hot loop never allocates. */
const bounced = new Float64Array(3);

/** Options for benchmarks and tests; the world uses the defaults. */
export interface FountainOptions {
  /** Particles spawned per tick while on, split across the jets by share. */
  perTick?: number;
}

/** The fountain particles' render view: a ring of `FOUNTAIN_MAX_LIFE` rows of `perTick` slots. */
class FountainView implements StreakView {
  count = 0;
  constructor(
    readonly position: Float32Array,
    readonly previous: Float32Array,
    readonly velocity: Float32Array,
    readonly color: Float32Array,
    readonly size: Float32Array,
  ) {}
}

/** Splits `total` slots per tick across jets by share; the first jet takes the remainder. */
function spawnCounts(total: number): Int32Array {
  const counts = new Int32Array(FOUNTAIN_JETS.length);
  let assigned = 0;
  for (let j = 1; j < FOUNTAIN_JETS.length; j++) {
    counts[j] = Math.floor(total * FOUNTAIN_JETS[j].share);
    assigned += counts[j];
  }
  counts[0] = total - assigned;
  return counts;
}

/** Bit of `Fountain.touched` set when a drop reaches the pool (k-th surface: bit k). */
export const TOUCHED_POOL = 0x40;
/** Bit of `Fountain.touched` set when a slot is spawned into. */
export const TOUCHED_SPAWNED = 0x80;

/**
 * Fountain rotation (docs/sources.md, fountain): with the `fountainSpin` setting on, the central
 * nozzle is a turning head of FOUNTAIN_ARMS arms, each throwing its drops within ±ARM_SPREAD/2
 * radians of its direction, one turn every FOUNTAIN_SPIN_TICKS ticks.
 */
export const FOUNTAIN_ARMS = 6;
export const FOUNTAIN_SPIN_TICKS = 720;
const ARM_SPREAD = 0.35;
/**
 * Spiral motion (the source's spiral motion: a velocity turned about a given axis): with the
 * `fountainSpiral` setting on, every drop, with its velocity, turns about the fountain's axis by
 * FOUNTAIN_SPIRAL_RATE radians a second, so the water swirls round the fountain.
 */
export const FOUNTAIN_SPIRAL_RATE = 1.2;
const SPIRAL_COS = cos(FOUNTAIN_SPIRAL_RATE * DT);
const SPIRAL_SIN = sin(FOUNTAIN_SPIRAL_RATE * DT);

/**
 * How the fountain moves besides its jets: the scene settings of the same names (hosts set them;
 * off by default), so the world passes its settings as they are.
 */
export interface FountainMotion {
  /** The central nozzle turns. */
  readonly fountainSpin?: boolean;
  /** Drops spiral about the axis. */
  readonly fountainSpiral?: boolean;
}

const STILL: FountainMotion = Object.freeze({});

/** The fountain system. `step` never allocates. */
export class Fountain {
  /** Scene seed. */
  readonly seed: number;
  /** Slots per row (particles spawned per tick while on). */
  readonly perTick: number;
  /** Total slots: `FOUNTAIN_MAX_LIFE × perTick`. */
  readonly capacity: number;
  /** Render view; its arrays are also the simulation state (with each row's live count). */
  readonly view: StreakView;
  /**
   * Per slot, the surfaces its drop touched since it was spawned (bit k: FOUNTAIN_SURFACES[k]),
   * TOUCHED_POOL once it reached the pool, TOUCHED_SPAWNED once spawned; kept after the drop dies
   * until its row is spawned again. For probes and tests: not state (nothing reads it back).
   */
  readonly touched: Uint8Array;

  readonly #view: FountainView;
  readonly #counts: Int32Array;
  /** Per slot, how many ticks short of FOUNTAIN_MAX_LIFE its drop's own life is (FOUNTAIN_LIFE). */
  readonly #short: Uint8Array;
  /**
   * Per row, its live drops after the last step (0: nothing to visit). A fountain that is off,
   * or one a late joiner starts empty FOUNTAIN_MAX_LIFE ticks back, skips its empty rows.
   */
  readonly #rowLive = new Uint16Array(FOUNTAIN_MAX_LIFE);
  readonly #rng = new Rng();
  readonly #positionWords: Uint32Array;
  readonly #velocityWords: Uint32Array;
  readonly #colorWords: Uint32Array;
  #nextTick = 0;
  #live = 0;

  constructor(seed: number, options: FountainOptions = {}) {
    const perTick = options.perTick ?? FOUNTAIN_PER_TICK;
    if (!Number.isInteger(perTick) || perTick < 1) {
      throw new RangeError(`fountain_rate: perTick must be a positive integer, got ${perTick}`);
    }
    this.seed = seed;
    this.perTick = perTick;
    this.capacity = FOUNTAIN_MAX_LIFE * perTick;
    this.#counts = spawnCounts(perTick);
    const cap = this.capacity;
    const [position, previous, velocity, color, size] = staggeredArrays(
      [3 * cap, 3 * cap, 3 * cap, 4 * cap, cap],
      STAGGER_BYTES,
    );
    this.#view = new FountainView(position, previous, velocity, color, size);
    this.touched = new Uint8Array(cap);
    this.#short = new Uint8Array(cap);
    this.view = this.#view;
    this.#positionWords = wordsOf(this.#view.position);
    this.#velocityWords = wordsOf(this.#view.velocity);
    this.#colorWords = wordsOf(this.#view.color);
  }

  /**
   * Puts a live drop into `slot` (for probes and tests: the next step moves it like any other),
   * with the most life a drop has.
   *
   * @example
   * ```ts
   * const fountain = new Fountain(7);
   * fountain.inject(0, [0, 3, 0], [0, -1, 0]);
   * fountain.step(1, false); // the drop falls onto the upper dish
   * ```
   */
  inject(slot: number, [px, py, pz]: readonly number[], [vx, vy, vz]: readonly number[]): void {
    const { position, previous, velocity, color } = this.#view;
    position.set([px, py, pz], slot * 3);
    previous.set([px, py, pz], slot * 3);
    velocity.set([vx, vy, vz], slot * 3);
    color.set([1, 1, 1, WATER_ALPHA], slot * 4);
    this.#short[slot] = 0;
    this.#rowLive[Math.floor(slot / this.perTick)]++;
  }

  /** Live particles after the last step. */
  live(): number {
    return this.#live;
  }

  /** The tick the fountain's state is at (one past the last stepped tick). */
  get tick(): number {
    return this.#nextTick;
  }

  /**
   * Simulates tick → tick + 1: moves and bounces every live particle, retires the row spawned
   * `FOUNTAIN_MAX_LIFE` ticks ago, and, when `on`, spawns this tick's particles into that row
   * from the stream keyed (seed, tick). Never allocates.
   */
  step(tick: number, on: boolean, motion: FountainMotion = STILL): void {
    if (!(tick >= 0 && Number.isSafeInteger(tick))) {
      throw new RangeError(`fountain_tick: ticks are non-negative integers, got ${tick}`);
    }
    const perTick = this.perTick;
    const rowOfTick = tick % FOUNTAIN_MAX_LIFE;
    // The row spawned FOUNTAIN_MAX_LIFE ticks ago dies; this tick's spawns take its place.
    this.#clearRow(rowOfTick);
    this.touched.fill(0, rowOfTick * perTick, (rowOfTick + 1) * perTick);
    if (on) this.#spawn(tick, rowOfTick, motion.fountainSpin === true);
    const spiral = motion.fountainSpiral === true;
    const touched = this.touched, short = this.#short, rowLive = this.#rowLive;
    const { position, previous, velocity, color, size } = this.#view;
    // The splashes' random numbers: random access by slot, keyed by the tick (made on first use).
    let splashKey = 0;
    let live = 0;
    // Rows in spawn order, oldest first; age 0 is the row just spawned at the nozzles.
    for (let age = FOUNTAIN_MAX_LIFE - 1; age >= 0; age--) {
      const row = (rowOfTick + FOUNTAIN_MAX_LIFE - age) % FOUNTAIN_MAX_LIFE;
      if (rowLive[row] === 0) continue;
      const liveBefore = live;
      const end = (row + 1) * perTick;
      for (let i = row * perTick; i < end; i++) {
        if (color[i * 4 + 3] === 0) continue;
        const left = FOUNTAIN_MAX_LIFE - short[i] - age;
        if (left <= 0) {
          this.#clearSlot(i);
          continue;
        }
        const alpha = WATER_ALPHA * Math.min(1, left / FOUNTAIN_FADE_TICKS);
        // Gravity, motion, then the first surface it stepped into from above bounces it.
        const p = i * 3;
        const px = position[p], py = position[p + 1], pz = position[p + 2];
        previous[p] = px;
        previous[p + 1] = py;
        previous[p + 2] = pz;
        let vx = velocity[p], vy = velocity[p + 1] - GRAVITY_STEP, vz = velocity[p + 2];
        let x = px + vx * DT, z = pz + vz * DT;
        if (spiral) {
          // The drop and its velocity turn about the fountain's axis: its distance from the axis,
          // and so its path over the round dishes, is what it was; it spirals round them.
          const tx = SPIRAL_COS * x - SPIRAL_SIN * z;
          z = SPIRAL_SIN * x + SPIRAL_COS * z;
          x = tx;
          const tv = SPIRAL_COS * vx - SPIRAL_SIN * vz;
          vz = SPIRAL_SIN * vx + SPIRAL_COS * vz;
          vx = tv;
        }
        let y = py + vy * DT;
        const r2 = x * x + z * z;
        if (y < POOL_LEVEL && r2 < BASIN_RADIUS_SQUARED) {
          // The pool surface: a fast drop splashes back up once as a droplet; the rest die.
          touched[i] |= TOUCHED_POOL;
          if (vy > -SPLASH_MIN_SPEED || size[i] < DROP_SIZE[0]) {
            this.#clearSlot(i);
            continue;
          }
          const key = splashKey ||
            (splashKey = streamKey(this.seed, STREAM.fountain, tick >>> 0, SPLASH_STREAM));
          const u = hashUnit(key, i * 3), v = hashUnit(key, i * 3 + 1);
          const w = hashUnit(key, i * 3 + 2);
          position[p] = x;
          position[p + 1] = POOL_LEVEL;
          position[p + 2] = z;
          velocity[p] = vx * SPLASH_CARRY + SPLASH_SCATTER * (2 * u - 1);
          velocity[p + 1] = -vy * (SPLASH_LIFT[0] + (SPLASH_LIFT[1] - SPLASH_LIFT[0]) * w);
          velocity[p + 2] = vz * SPLASH_CARRY + SPLASH_SCATTER * (2 * v - 1);
          size[i] = SPLASH_SIZE;
          color[i * 4 + 3] = alpha;
          live++;
          continue;
        }
        if (y < HIGHEST_SURFACE) {
          const r = Math.sqrt(r2);
          for (let s = 0; s < SURFACE_COUNT * SURFACE_FIELDS; s += SURFACE_FIELDS) {
            if (r < PACKED_SURFACES[s + 2] || r >= PACKED_SURFACES[s + 3]) continue;
            const apex = PACKED_SURFACES[s], slope = PACKED_SURFACES[s + 1];
            const height = apex - slope * r;
            if (y >= height) continue;
            // Only a particle that was above the surface a tick ago hits it; one under passes.
            if (py < apex - slope * Math.sqrt(px * px + pz * pz) - SURFACE_SKIN) continue;
            const radial = r > 0 ? PACKED_SURFACES[s + 6] / r : 0;
            const nx = x * radial, ny = PACKED_SURFACES[s + 7], nz = z * radial;
            const mu = PACKED_SURFACES[s + 4], eps = PACKED_SURFACES[s + 5];
            bounceVelocity(vx, vy, vz, nx, ny, nz, mu, eps, bounced);
            touched[i] |= 1 << (s / SURFACE_FIELDS);
            vx = bounced[0];
            vy = bounced[1];
            vz = bounced[2];
            y = height;
            break;
          }
        }
        position[p] = x;
        position[p + 1] = y;
        position[p + 2] = z;
        velocity[p] = vx;
        velocity[p + 1] = vy;
        velocity[p + 2] = vz;
        color[i * 4 + 3] = alpha;
        live++;
      }
      rowLive[row] = live - liveBefore;
    }
    this.#live = live;
    this.#nextTick = tick + 1;
    this.#view.count = live > 0 ? this.capacity : 0;
  }

  /**
   * Places this tick's particles at the nozzles, in `row`, from the stream keyed (seed, tick):
   * each jet's count, then per drop its direction, speed, shade, size and life. With `spin` the
   * central jet throws its drops along the turning head's arms.
   */
  #spawn(tick: number, row: number, spin: boolean): void {
    const { position, previous, velocity, color, size } = this.#view;
    const rng = this.#rng.reseed(
      streamKey(this.seed, STREAM.fountain, tick >>> 0, Math.floor(tick / 4294967296)),
    );
    const counts = this.#counts, short = this.#short, touched = this.touched;
    // The head's turn: a whole number of ticks into its period, so any tick gives the same bits.
    const head = spin ? ((tick % FOUNTAIN_SPIN_TICKS) / FOUNTAIN_SPIN_TICKS) * TAU : 0;
    let first = row * this.perTick;
    for (let j = 0; j < FOUNTAIN_JETS.length; j++) {
      const jet = FOUNTAIN_JETS[j];
      const slots = counts[j];
      const least = Math.ceil(slots * FOUNTAIN_COUNT_LOW);
      const n = slots - Math.floor(rng.next() * (slots - least + 1));
      const arms = spin && j === 0;
      let i = first;
      first += slots;
      this.#rowLive[row] += n;
      for (let k = 0; k < n; k++, i++) {
        const theta = arms
          ? head + (k % FOUNTAIN_ARMS) * (TAU / FOUNTAIN_ARMS) + (rng.next() - 0.5) * ARM_SPREAD
          : rng.next() * TAU;
        const radius = jet.ringRadius + jet.ringWidth * rng.next();
        const p = i * 3;
        position[p] = previous[p] = jet.x;
        position[p + 1] = previous[p + 1] = jet.y;
        position[p + 2] = previous[p + 2] = jet.z;
        velocity[p] = jet.vx + radius * cos(theta);
        velocity[p + 1] = jet.vyMin + (jet.vyMax - jet.vyMin) * rng.next();
        velocity[p + 2] = jet.vz + radius * sin(theta);
        const shade = 0.85 + 0.15 * rng.next();
        const c = i * 4;
        color[c] = WATER_RGB[0] * shade;
        color[c + 1] = WATER_RGB[1] * shade;
        color[c + 2] = WATER_RGB[2] * shade;
        size[i] = DROP_SIZE[0] + (DROP_SIZE[1] - DROP_SIZE[0]) * rng.next();
        short[i] = FOUNTAIN_MAX_LIFE - FOUNTAIN_LIFE[0] -
          Math.floor(rng.next() * (FOUNTAIN_LIFE[1] - FOUNTAIN_LIFE[0] + 1));
        touched[i] = TOUCHED_SPAWNED;
        color[c + 3] = WATER_ALPHA; // alive: `step` moves it through this tick like the rest
      }
    }
  }

  #clearRow(row: number): void {
    const start = row * this.perTick;
    const end = start + this.perTick;
    const { position, previous, velocity, color, size } = this.#view;
    position.fill(0, start * 3, end * 3);
    previous.fill(0, start * 3, end * 3);
    velocity.fill(0, start * 3, end * 3);
    color.fill(0, start * 4, end * 4);
    size.fill(0, start, end);
    this.#short.fill(0, start, end);
    this.#rowLive[row] = 0;
  }

  #clearSlot(i: number): void {
    const { position, previous, velocity, color, size } = this.#view;
    position.fill(0, i * 3, i * 3 + 3);
    previous.fill(0, i * 3, i * 3 + 3);
    velocity.fill(0, i * 3, i * 3 + 3);
    color.fill(0, i * 4, i * 4 + 4);
    size[i] = 0;
  }

  /**
   * Hashes every slot, row by row from the oldest spawn tick to the newest. Dead slots are all
   * zero, so the hash depends only on the last FOUNTAIN_MAX_LIFE ticks, never on older history.
   */
  hashInto(h: Hasher): void {
    const perTick = this.perTick;
    h.u32(this.#live);
    for (let age = FOUNTAIN_MAX_LIFE; age >= 1; age--) {
      const row = (this.#nextTick + FOUNTAIN_MAX_LIFE * 2 - age) % FOUNTAIN_MAX_LIFE;
      const start = row * perTick, end = start + perTick;
      h.words(this.#positionWords, start * 3, end * 3);
      h.words(this.#velocityWords, start * 3, end * 3);
      h.words(this.#colorWords, start * 4, end * 4);
    }
  }
}
