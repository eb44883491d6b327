/**
 * Fireworks: a rising shell that drops a trail of warm sparks along its path every tick, an apex
 * burst uniform on the sphere, and secondary bursts from some burst particles. Each launch owns
 * one dense block of the pool, sized by its plan, so its budget is exact and the layout depends
 * only on live launches.
 *
 * Motion is per-tick drag and gravity (v ← drag·v − g·DT, x ← x + v·DT), unrolled once into
 * per-kind tables of age, so a particle's position is a closed form of its spawn point, spawn
 * velocity and age. Stepping evaluates it tick by tick; `jumpTo` evaluates it at any tick
 * directly, bit for bit the same, which makes a late join cost O(particles), not O(steps).
 */
import { DT } from "./constants.ts";
import { cos, sin, TAU } from "./dmath.ts";
import {
  COLOR_ENTRY,
  COLOR_STEPS,
  COLOR_TABLE,
  PALETTE,
  PALETTE_SIZE,
  RAINBOW_FIRST,
  RAINBOW_HUES,
  THEME_TINTS,
  WARM_WHITE,
} from "./firework_colors.ts";
import {
  BURST_LIFE_MAX,
  BURST_LIFE_MIN,
  BURST_SPEED_NOISE,
  CHILD_LIFE_MAX,
  CHILD_LIFE_MIN,
  FireworkPlan,
  PHASE,
  planFirework,
  RISE_MAX,
  SECONDARY_CHILDREN,
  SECONDARY_DELAY_MAX,
  secondaryDelays,
  SHELL_DECELERATION,
  SHELL_DRIFT_MAX,
  TRAIL_LIFE_MAX,
  TRAIL_LIFE_MIN,
  TRAIL_PER_TICK,
  TRAIL_RING_TICKS,
  trailSlot,
} from "./firework_plan.ts";
import type { Hasher } from "./hash.ts";
import { type Block, ParticlePool } from "./particle_pool.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";
import { type Theme, THEMES, type ThemeSetting } from "./types.ts";
import type { ParticleView } from "./views.ts";

// The hot loop skips a launch's slots below its lowest live one. That is only safe if no slot
// below a live one spawns later: during the rise the live shell in slot 0 pins the bottom, so
// reused trail ring slots are never skipped; the burst spawns at once, and children (last
// in the block) spawn while ordinary burst particles, which outlive every secondary delay,
// are still alive below them.
if (BURST_LIFE_MIN <= SECONDARY_DELAY_MAX) {
  throw new Error("firework_layout: burst particles must outlive every secondary delay");
}

/** Particle kinds; a particle's style is `kind * PALETTE_SIZE + tint`. */
export const KIND = { shell: 0, trail: 1, burst: 2, child: 3 } as const;

/** Sprite diameters in metres by kind. */
export const SIZE = { shell: 0.7, trail: 0.32, burst: 0.55, child: 0.4 } as const;

/**
 * Upper bound on the distance between consecutive trail sparks at spawn, metres: stratified
 * sampling puts them at most 1.8 / TRAIL_PER_TICK segments apart, and the fastest shell moves
 * at most (SHELL_DECELERATION · RISE_MAX · DT + 2 · SHELL_DRIFT_MAX) · DT per tick. It is below
 * the trail sprite's size, so the trail reads as one unbroken line.
 */
export const TRAIL_GAP_BOUND = (1.8 / TRAIL_PER_TICK) *
  (SHELL_DECELERATION * RISE_MAX * DT + 2 * SHELL_DRIFT_MAX) * DT;

/** Per kind (see KIND): velocity kept per tick (drag), downward acceleration (m/s²), tint mix. */
export const KIND_PHYSICS: readonly (readonly [number, number, number])[] = [
  [1, SHELL_DECELERATION, 0], // shell: decelerates to its apex exactly
  [0.9, 3, 0.15], // trail: slows fast, drifts down, stays warm
  [0.975, 4, 0.85], // burst
  [0.95, 4, 0.9], // secondary burst
];

const STYLE_COUNT = KIND_PHYSICS.length * PALETTE_SIZE;
const MIX = new Float64Array(STYLE_COUNT);
const TINT = new Float64Array(STYLE_COUNT * 3);
for (let kind = 0; kind < KIND_PHYSICS.length; kind++) {
  for (let tint = 0; tint < PALETTE_SIZE; tint++) {
    const s = kind * PALETTE_SIZE + tint;
    MIX[s] = KIND_PHYSICS[kind][2];
    const rgb = PALETTE[tint] ?? PALETTE[WARM_WHITE];
    TINT[s * 3] = rgb[0];
    TINT[s * 3 + 1] = rgb[1];
    TINT[s * 3 + 2] = rgb[2];
  }
}

/** Ages (ticks) each kind's motion tables cover; every particle dies or bursts younger. */
const AGE_STRIDE = 256;
if (
  Math.max(RISE_MAX, TRAIL_LIFE_MAX, BURST_LIFE_MAX, SECONDARY_DELAY_MAX, CHILD_LIFE_MAX) >=
    AGE_STRIDE
) {
  throw new Error("firework_ages: a lifetime exceeds the motion tables");
}

// The per-tick recursion unrolled, per kind and age a (index AGE_BASE[style] + a):
//   v(a) = v0 · VELOCITY_KEPT[a] − (0, VELOCITY_FALL[a], 0)
//   x(a) = x0 + v0 · REACH[a] − (0, DROP[a], 0)
// Built with + and * only, in the same order on every engine.
/** Share of the spawn velocity left after `a` ticks of drag. */
export const VELOCITY_KEPT: Float64Array = new Float64Array(KIND_PHYSICS.length * AGE_STRIDE);
/** Downward velocity gained from gravity after `a` ticks (m/s). */
export const VELOCITY_FALL: Float64Array = new Float64Array(KIND_PHYSICS.length * AGE_STRIDE);
/** Metres travelled per m/s of spawn velocity after `a` ticks. */
export const REACH: Float64Array = new Float64Array(KIND_PHYSICS.length * AGE_STRIDE);
/** Metres fallen from gravity after `a` ticks. */
export const DROP: Float64Array = new Float64Array(KIND_PHYSICS.length * AGE_STRIDE);
for (let kind = 0; kind < KIND_PHYSICS.length; kind++) {
  const drag = KIND_PHYSICS[kind][0], gravityDt = KIND_PHYSICS[kind][1] * DT;
  let kept = 1, fall = 0, reach = 0, drop = 0;
  for (let a = 0; a < AGE_STRIDE; a++) {
    const e = kind * AGE_STRIDE + a;
    VELOCITY_KEPT[e] = kept;
    VELOCITY_FALL[e] = fall;
    REACH[e] = reach;
    DROP[e] = drop;
    kept = kept * drag;
    fall = fall * drag + gravityDt;
    reach = reach + kept * DT;
    drop = drop + fall * DT;
  }
}

/** Per style: where its kind's rows start in the motion tables. */
export const AGE_BASE: Int32Array = new Int32Array(STYLE_COUNT);
for (let s = 0; s < STYLE_COUNT; s++) AGE_BASE[s] = Math.floor(s / PALETTE_SIZE) * AGE_STRIDE;

/** Floats per style in STYLE_COLORS: rgba at each of the COLOR_STEPS + 1 curve samples. */
export const STYLE_STRIDE = (COLOR_STEPS + 1) * 4;

/**
 * Every style's colour at every curve sample, already rounded to float32 as stored: the curve
 * (COLOR_TABLE) tinted by the style's tint and mix. Copying four floats is the hot loop's
 * whole colour cost.
 */
export const STYLE_COLORS: Float32Array = (() => {
  const out = new Float32Array(STYLE_COUNT * STYLE_STRIDE);
  for (let s = 0; s < STYLE_COUNT; s++) {
    for (let j = 0; j <= COLOR_STEPS; j++) {
      const e = j * COLOR_ENTRY;
      const w = MIX[s] * COLOR_TABLE[e + 4];
      const k = COLOR_TABLE[e + 3];
      const hr = COLOR_TABLE[e], hg = COLOR_TABLE[e + 1], hb = COLOR_TABLE[e + 2];
      const o = s * STYLE_STRIDE + j * 4;
      out[o] = k * (hr + w * (TINT[s * 3] - hr));
      out[o + 1] = k * (hg + w * (TINT[s * 3 + 1] - hg));
      out[o + 2] = k * (hb + w * (TINT[s * 3 + 2] - hb));
      out[o + 3] = COLOR_TABLE[e + 5];
    }
  }
  return out;
})();

/**
 * Places spark `i` at (x, y, z), moving at `speed` along the direction (cos φ, θ) on top of the
 * carried velocity (vx, vy, vz). With cos φ = 1 − 2u, directions are uniform on the sphere
 * (φ = acos(1 − 2u)); sin φ = √(1 − cos² φ) saves the acos/sin/cos round trip.
 */
function placeSpark(
  pool: ParticlePool<FireworkBlock>,
  i: number,
  x: number,
  y: number,
  z: number,
  vx: number,
  vy: number,
  vz: number,
  cosPhi: number,
  theta: number,
  speed: number,
): void {
  const { position, previous, origin, velocity } = pool;
  const p = i * 3;
  const ring = Math.sqrt(1 - cosPhi * cosPhi) * speed;
  position[p] = previous[p] = origin[p] = x;
  position[p + 1] = previous[p + 1] = origin[p + 1] = y;
  position[p + 2] = previous[p + 2] = origin[p + 2] = z;
  velocity[p] = vx + ring * cos(theta);
  velocity[p + 1] = vy + speed * cosPhi;
  velocity[p + 2] = vz + ring * sin(theta);
}

/**
 * Writes the colour of slot `i` for a particle of `style` that is `age` ticks into `maxLife`:
 * the shared life curve, tinted. Spawns use it; the hot loop inlines the same lookup.
 */
function paint(color: Float32Array, i: number, style: number, age: number, maxLife: number): void {
  const o = style * STYLE_STRIDE + Math.floor((age * COLOR_STEPS) / maxLife + 0.5) * 4;
  const c = i * 4;
  color[c] = STYLE_COLORS[o];
  color[c + 1] = STYLE_COLORS[o + 1];
  color[c + 2] = STYLE_COLORS[o + 2];
  color[c + 3] = STYLE_COLORS[o + 3];
}

/** One launch's block: its plan plus what the launch resolved (where, which tints). */
export interface FireworkBlock extends Block {
  readonly plan: FireworkPlan;
  readonly x: number;
  readonly z: number;
  readonly theme: Theme;
  /** Main and second tint (palette indices); unused for rainbow. */
  readonly primary: number;
  readonly secondary: number;
  /** Ticks after the apex at which each secondary bursts. */
  readonly delays: Uint8Array;
  /**
   * The slots that may be alive, relative to `start`: below `lo` all are dead for good, from
   * `hi` on none has spawned yet. The hot loop visits only [lo, hi).
   */
  lo: number;
  hi: number;
}

/** Resolves a launch's theme: its own, else the scene's unless `auto`, else the launch's roll. */
export function resolveTheme(
  own: Theme | undefined,
  setting: ThemeSetting,
  roll: number,
): Theme {
  if (own) return own;
  if (setting !== "auto") return setting;
  return THEMES[Math.floor(roll * THEMES.length)];
}

/** All fireworks of a world. */
export class Fireworks {
  readonly seed: number;
  /** Render view and storage. */
  readonly pool: ParticlePool<FireworkBlock>;
  #live = 0;
  readonly #rng = new Rng();
  readonly #scratch32 = new Float32Array(3);
  readonly #scratch64 = new Float64Array(3);

  constructor(seed: number, capacity: number) {
    this.seed = seed;
    this.pool = new ParticlePool<FireworkBlock>(capacity);
  }

  /** The render view (shells, trails, bursts, secondary bursts). */
  get view(): ParticleView {
    return this.pool;
  }

  /** Live particles (alive shells and sparks). */
  live(): number {
    return this.#live;
  }

  /** Slots reserved by live launches. */
  used(): number {
    return this.pool.count;
  }

  /**
   * Adds launch `seq` at (x, z) applied at `tick`: reserves its block and places the shell on
   * the ground. The caller checks the sky's capacity first.
   */
  launch(
    seq: number,
    tick: number,
    x: number,
    z: number,
    own: Theme | undefined,
    setting: ThemeSetting,
  ): void {
    const plan = planFirework(this.seed, seq);
    const theme = resolveTheme(own, setting, plan.themeRoll);
    let primary = RAINBOW_FIRST, secondary = RAINBOW_FIRST;
    if (theme !== "rainbow") {
      const tints = THEME_TINTS[theme];
      const p = Math.floor(plan.primaryRoll * tints.length);
      primary = tints[p];
      secondary =
        tints[(p + 1 + Math.floor(plan.secondaryRoll * (tints.length - 1))) % tints.length];
    }
    const delays = secondaryDelays(this.seed, seq, new Uint8Array(plan.secondaryCount));
    const block: FireworkBlock = {
      seq,
      tick,
      start: 0,
      size: plan.slots,
      endTick: tick + plan.lifeTicks,
      plan,
      x,
      z,
      theme,
      primary,
      secondary,
      delays,
      lo: 0,
      hi: 1,
    };
    this.pool.add(block);
    const { position, previous, origin, velocity, life, maxLife, style, size, color } = this.pool;
    const i = block.start;
    position[i * 3] = previous[i * 3] = origin[i * 3] = x;
    position[i * 3 + 1] = previous[i * 3 + 1] = origin[i * 3 + 1] = 0;
    position[i * 3 + 2] = previous[i * 3 + 2] = origin[i * 3 + 2] = z;
    velocity[i * 3] = plan.driftX;
    velocity[i * 3 + 1] = plan.shellSpeed;
    velocity[i * 3 + 2] = plan.driftZ;
    // The block, not the life counter, ends the shell at its apex; a long nominal life keeps its
    // colour near the white-hot start of the curve while it rises.
    life[i] = maxLife[i] = plan.riseTicks * 4;
    const shellStyle = KIND.shell * PALETTE_SIZE + WARM_WHITE;
    style[i] = shellStyle;
    size[i] = SIZE.shell;
    paint(color, i, shellStyle, 0, maxLife[i]);
    this.#live++;
  }

  /** Simulates `tick` → `tick + 1`: moves every live particle, then spawns and bursts. */
  step(tick: number): void {
    const blocks = this.pool.blocks;
    let died = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      died += this.#integrateRange(block.start + block.lo, block.start + block.hi);
    }
    this.#live -= died;
    for (let b = 0; b < blocks.length; b++) this.#advanceBlock(blocks[b], tick);
    for (let b = 0; b < blocks.length; b++) this.#raiseLo(blocks[b]);
    this.pool.expire(tick + 1);
  }

  /**
   * Drops launches that have ended by `tick` without simulating anything: for a caller that
   * will `jumpTo` a later tick and never looks at the states in between.
   */
  skip(tick: number): void {
    this.pool.expire(tick + 1);
  }

  /**
   * Sets every launch to its state at `tick` (≥ each launch's tick) directly from the closed
   * forms: identical, bit for bit, to stepping there. Launches that ended by `tick` are dropped.
   */
  jumpTo(tick: number): void {
    this.pool.expire(tick);
    const blocks = this.pool.blocks;
    const life = this.pool.life;
    let live = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      this.#jumpBlock(block, tick - block.tick);
      this.#raiseLo(block);
      for (let i = block.start + block.lo; i < block.start + block.hi; i++) if (life[i] > 0) live++;
    }
    this.#live = live;
  }

  /** Hashes each live launch's block in application order. */
  hashInto(h: Hasher): void {
    const blocks = this.pool.blocks;
    h.u32(blocks.length);
    // Only the possibly-live range: below `lo` every slot is dead for good, from `hi` on none
    // has spawned, and lo/hi themselves follow from the launch and the ticks since it.
    for (let b = 0; b < blocks.length; b++) {
      this.pool.hashBlock(h, blocks[b], blocks[b].lo, blocks[b].hi);
    }
  }

  /**
   * Slots below `hi` never spawn later (see the invariant at the top), so dead ones at the
   * bottom of a launch's range are done for good: `lo` is its first live slot (or `hi`).
   */
  #raiseLo(block: FireworkBlock): void {
    const life = this.pool.life;
    let lo = block.lo;
    while (lo < block.hi && life[block.start + lo] <= 0) lo++;
    block.lo = lo;
  }

  /** The hot loop: one tick of age, the closed-form position and the colour of live slots. */
  #integrateRange(from: number, to: number): number {
    const { position, previous, origin, velocity, color, life, maxLife, style } = this.pool;
    // Locals, not module bindings, so the optimiser keeps them in registers.
    const colors = STYLE_COLORS, ageBase = AGE_BASE, reach = REACH, drop = DROP;
    let died = 0;
    for (let i = from; i < to; i++) {
      const left = life[i];
      if (left <= 0) continue;
      const remaining = left - 1;
      life[i] = remaining;
      const full = maxLife[i];
      const age = full - remaining;
      const s = style[i] | 0;
      const a = ageBase[s] + age;
      const r = reach[a], d = drop[a];
      const p = i * 3;
      previous[p] = position[p];
      previous[p + 1] = position[p + 1];
      previous[p + 2] = position[p + 2];
      // place(), inlined: the same expression, so stepping and jumping agree to the bit.
      position[p] = origin[p] + velocity[p] * r;
      position[p + 1] = origin[p + 1] + velocity[p + 1] * r - d;
      position[p + 2] = origin[p + 2] + velocity[p + 2] * r;
      const c = i * 4;
      if (remaining === 0) {
        color[c + 3] = 0;
        died++;
        continue;
      }
      // paint(), inlined: the life curve at this age, tinted.
      const o = s * STYLE_STRIDE + (((age * COLOR_STEPS) / full + 0.5) | 0) * 4;
      color[c] = colors[o];
      color[c + 1] = colors[o + 1];
      color[c + 2] = colors[o + 2];
      color[c + 3] = colors[o + 3];
    }
    return died;
  }

  /** Writes slot `i`'s position at `age` ticks after its spawn into `out` (float64 array). */
  #placeAt(i: number, age: number, out: Float64Array | Float32Array, at: number): void {
    const { origin, velocity, style } = this.pool;
    const a = AGE_BASE[style[i] | 0] + age;
    const r = REACH[a], d = DROP[a];
    const p = i * 3;
    out[at] = origin[p] + velocity[p] * r;
    out[at + 1] = origin[p + 1] + velocity[p + 1] * r - d;
    out[at + 2] = origin[p + 2] + velocity[p + 2] * r;
  }

  /** Slot `i`'s stored (float32) position at `age`, as stepping would have stored it. */
  #storedPositionAt(i: number, age: number): Float32Array {
    this.#placeAt(i, age, this.#scratch32, 0);
    return this.#scratch32;
  }

  /**
   * Slot `i`'s velocity in m/s at `age` ticks after its spawn, by the closed form (float64;
   * fireworks store only the spawn velocity). Writes into and returns `out`.
   */
  velocityAt(i: number, age: number, out: Float64Array): Float64Array {
    const { velocity, style } = this.pool;
    const a = AGE_BASE[style[i] | 0] + age;
    const kept = VELOCITY_KEPT[a];
    const p = i * 3;
    out[0] = velocity[p] * kept;
    out[1] = velocity[p + 1] * kept - VELOCITY_FALL[a];
    out[2] = velocity[p + 2] * kept;
    return out;
  }

  /**
   * Sets slot `i` (spawned with its full life) to its state `age` ticks later, as stepping
   * leaves it: alive, or dead since reaching its max life (position frozen there, colour of its
   * last live tick with alpha 0).
   */
  #settle(i: number, age: number): void {
    if (age <= 0) return;
    const { position, previous, life, maxLife, style, color } = this.pool;
    const full = maxLife[i];
    const at = age < full ? age : full;
    this.#placeAt(i, at - 1, previous, i * 3);
    this.#placeAt(i, at, position, i * 3);
    const s = style[i] | 0;
    if (age < full) {
      life[i] = full - age;
      paint(color, i, s, age, full);
    } else {
      life[i] = 0;
      paint(color, i, s, full - 1, full);
      color[i * 4 + 3] = 0;
    }
  }

  /** Rebuilds one launch `steps` ticks after it, by its spawns and the closed forms. */
  #jumpBlock(block: FireworkBlock, steps: number): void {
    if (steps <= 0) return;
    const plan = block.plan;
    const rise = plan.riseTicks;
    const trailTicks = Math.min(steps, rise);
    // Earlier trail ticks' slots were reused by these last TRAIL_RING_TICKS ones.
    const firstTrail = Math.max(0, trailTicks - TRAIL_RING_TICKS);
    for (let k = firstTrail; k < trailTicks; k++) this.#spawnTrail(block, k);
    for (let k = firstTrail; k < trailTicks; k++) {
      for (let n = 0; n < TRAIL_PER_TICK; n++) {
        this.#settle(block.start + trailSlot(k, n), steps - k - 1);
      }
    }
    const shell = block.start;
    if (steps < rise) {
      this.#settle(shell, steps);
      return;
    }
    this.#burst(block);
    // The shell stepped to its apex, then the burst put it out without another paint.
    const { position, previous, life, maxLife, style, color } = this.pool;
    this.#placeAt(shell, rise - 1, previous, shell * 3);
    this.#placeAt(shell, rise, position, shell * 3);
    life[shell] = 0;
    paint(color, shell, style[shell] | 0, rise, maxLife[shell]);
    color[shell * 4 + 3] = 0;
    const sinceApex = steps - rise;
    for (let n = 0; n < plan.burstCount; n++) {
      this.#settle(shell + plan.burstStart + n, sinceApex);
    }
    const delays = block.delays;
    for (let j = 0; j < delays.length; j++) {
      if (sinceApex < delays[j]) continue;
      this.#secondaryBurst(block, j);
      const first = shell + plan.childStart + j * SECONDARY_CHILDREN;
      for (let n = 0; n < SECONDARY_CHILDREN; n++) this.#settle(first + n, sinceApex - delays[j]);
    }
  }

  /** Spawns what the launch emits after stepping `tick`: trail, burst, secondary bursts. */
  #advanceBlock(block: FireworkBlock, tick: number): void {
    const k = tick - block.tick;
    const plan = block.plan;
    if (k < plan.riseTicks) this.#spawnTrail(block, k);
    if (k === plan.riseTicks - 1) this.#burst(block);
    const since = k - (plan.riseTicks - 1);
    if (since <= 0) return;
    const delays = block.delays;
    for (let j = 0; j < delays.length; j++) {
      if (delays[j] === since) this.#secondaryBurst(block, j);
    }
  }

  /** Drops TRAIL_PER_TICK sparks stratified along the shell's last segment, so it never breaks. */
  #spawnTrail(block: FireworkBlock, k: number): void {
    const rng = this.#rng.reseed(streamKey(this.seed, STREAM.firework, block.seq, PHASE.trail + k));
    const shell = block.start;
    // The shell's segment this tick: from its position at age k to age k + 1 (as stored).
    const from = this.#storedPositionAt(shell, k);
    const x0 = from[0], y0 = from[1], z0 = from[2];
    const to = this.#storedPositionAt(shell, k + 1);
    const dx = to[0] - x0, dy = to[1] - y0, dz = to[2] - z0;
    const sv = this.velocityAt(shell, k + 1, this.#scratch64);
    const svx = sv[0], svy = sv[1], svz = sv[2];
    const { position, previous, origin, velocity, life, maxLife, style, size, color } = this.pool;
    const trailStyle = KIND.trail * PALETTE_SIZE + WARM_WHITE;
    const first = shell + trailSlot(k, 0);
    for (let n = 0; n < TRAIL_PER_TICK; n++) {
      const i = first + n;
      const p = i * 3;
      // Stratified along the segment: sample n sits in [(n + 0.1) / N, (n + 0.9) / N].
      const f = (n + 0.5 + 0.8 * (rng.next() - 0.5)) / TRAIL_PER_TICK;
      position[p] = previous[p] = origin[p] = x0 + dx * f;
      position[p + 1] = previous[p + 1] = origin[p + 1] = y0 + dy * f;
      position[p + 2] = previous[p + 2] = origin[p + 2] = z0 + dz * f;
      velocity[p] = svx * 0.1 + rng.range(-1.2, 1.2);
      velocity[p + 1] = svy * 0.1 + rng.range(-1.2, 1.2);
      velocity[p + 2] = svz * 0.1 + rng.range(-1.2, 1.2);
      const lifetime = TRAIL_LIFE_MIN + rng.int(TRAIL_LIFE_MAX - TRAIL_LIFE_MIN + 1);
      life[i] = maxLife[i] = lifetime;
      style[i] = trailStyle;
      size[i] = SIZE.trail;
      paint(color, i, trailStyle, 0, lifetime);
    }
    block.hi = Math.max(block.hi, trailSlot(k, TRAIL_PER_TICK));
    this.#live += TRAIL_PER_TICK;
  }

  /** Ends the shell at its apex and spawns the burst: directions uniform on the sphere. */
  #burst(block: FireworkBlock): void {
    const plan = block.plan;
    const rng = this.#rng.reseed(streamKey(this.seed, STREAM.firework, block.seq, PHASE.burst));
    const shell = block.start;
    const apex = this.#storedPositionAt(shell, plan.riseTicks);
    const ax = apex[0], ay = apex[1], az = apex[2];
    const sv = this.velocityAt(shell, plan.riseTicks, this.#scratch64);
    const svx = sv[0], svy = sv[1], svz = sv[2];
    const { life, maxLife, style, size, color } = this.pool;
    life[shell] = 0;
    color[shell * 4 + 3] = 0;
    this.#live--;
    const rainbow = block.theme === "rainbow";
    const first = shell + plan.burstStart;
    for (let n = 0; n < plan.burstCount; n++) {
      const i = first + n;
      const cosPhi = 1 - 2 * rng.next();
      const theta = TAU * rng.next();
      const speed = plan.burstSpeed * (1 + BURST_SPEED_NOISE * (2 * rng.next() - 1));
      const pick = rng.next();
      const lifeRoll = rng.int(BURST_LIFE_MAX - BURST_LIFE_MIN + 1);
      placeSpark(this.pool, i, ax, ay, az, svx, svy, svz, cosPhi, theta, speed);
      // The first secondaryCount particles burst again: they die exactly when they burst.
      const lifetime = n < plan.secondaryCount ? block.delays[n] : BURST_LIFE_MIN + lifeRoll;
      const tint = rainbow
        ? RAINBOW_FIRST + Math.floor((theta / TAU) * RAINBOW_HUES) % RAINBOW_HUES
        : pick < 0.7
        ? block.primary
        : block.secondary;
      const s = KIND.burst * PALETTE_SIZE + tint;
      life[i] = maxLife[i] = lifetime;
      style[i] = s;
      size[i] = SIZE.burst;
      paint(color, i, s, 0, lifetime);
    }
    block.hi = plan.burstStart + plan.burstCount;
    this.#live += plan.burstCount;
  }

  /** Secondary burst `j`: its parent just died; children scatter from where it was. */
  #secondaryBurst(block: FireworkBlock, j: number): void {
    const plan = block.plan;
    const rng = this.#rng.reseed(streamKey(this.seed, STREAM.firework, block.seq, PHASE.child + j));
    const parent = block.start + plan.burstStart + j;
    // The parent dies as it bursts, at an age equal to its delay.
    const at = this.#storedPositionAt(parent, block.delays[j]);
    const ax = at[0], ay = at[1], az = at[2];
    const pv = this.velocityAt(parent, block.delays[j], this.#scratch64);
    const pvx = pv[0] * 0.3, pvy = pv[1] * 0.3, pvz = pv[2] * 0.3;
    const { life, maxLife, style, size, color } = this.pool;
    const parentTint = (style[parent] | 0) % PALETTE_SIZE;
    const tint = parentTint === block.primary ? block.secondary : parentTint;
    const s = KIND.child * PALETTE_SIZE + tint;
    const first = block.start + plan.childStart + j * SECONDARY_CHILDREN;
    const childSpeed = rng.range(4, 7);
    for (let n = 0; n < SECONDARY_CHILDREN; n++) {
      const i = first + n;
      const cosPhi = 1 - 2 * rng.next();
      const theta = TAU * rng.next();
      const speed = childSpeed * (1 + 0.2 * (2 * rng.next() - 1));
      placeSpark(this.pool, i, ax, ay, az, pvx, pvy, pvz, cosPhi, theta, speed);
      const lifetime = CHILD_LIFE_MIN + rng.int(CHILD_LIFE_MAX - CHILD_LIFE_MIN + 1);
      life[i] = maxLife[i] = lifetime;
      style[i] = s;
      size[i] = SIZE.child;
      paint(color, i, s, 0, lifetime);
    }
    block.hi = Math.max(block.hi, plan.childStart + (j + 1) * SECONDARY_CHILDREN);
    this.#live += SECONDARY_CHILDREN;
  }
}
