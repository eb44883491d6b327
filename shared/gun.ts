/**
 * The particle gun: a stream of bright tracers from a viewer's camera along its view direction
 * (docs/sources.md, the particle system and the gun), fired over GUN_SPAWN_TICKS ticks with a tight spread. Shots fly straight and fast
 * (no drag, slight gravity) and die when they leave the scene's bounding box or at their maximum
 * life. The camera is usually outside the box (the default views stand back 130–195 m): shots from
 * there fly in and are in play until they are outside the box and moving away from it.
 *
 * @example
 * ```ts
 * import { Gun } from "./gun.ts";
 * const gun = new Gun(7, 1000);
 * gun.fire(1, 0, [0, 2, 50], [0, 0.1, -1]);
 * for (let t = 0; t < 10; t++) gun.step(t);
 * gun.live(); // tracers in flight
 * ```
 */
import { DT, SCENE_HALF_EXTENT, SCENE_HEIGHT, WINDOW_TICKS } from "./constants.ts";
import { GUN_TINT, PALETTE } from "./firework_colors.ts";
import { BlockSystem } from "./block_system.ts";
import type { Hasher } from "./hash.ts";
import type { Block } from "./particle_pool.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";

/** Shots per volley. */
export const GUN_SHOTS = 45;
/** Ticks between two shots: far enough apart that each tracer reads as its own dash. */
export const GUN_SHOT_INTERVAL = 2;
/** The volley streams out over this many ticks (1.5 s), one shot every GUN_SHOT_INTERVAL. */
export const GUN_SPAWN_TICKS = GUN_SHOTS * GUN_SHOT_INTERVAL;
/**
 * Most ticks a shot lives: at GUN_SPEED, 360 m, enough to fly from a camera pulled back as far as
 * the orbit controls allow (≈ 270 m) into the scene.
 */
export const GUN_MAX_LIFE = 240;
/** Muzzle speed, m/s. */
export const GUN_SPEED = 90;
/** Largest sideways deviation of a shot's direction per axis (before renormalising). */
export const GUN_SPREAD = 0.012;
/** Tracer brightness: above 1, so tone mapping and bloom make them glow. */
export const GUN_GAIN = 1.6;
/** Shots start this far ahead of the muzzle (just in front of the camera). */
export const GUN_MUZZLE_OFFSET = 2;
/** Downward acceleration of shots, m/s² (a gentle arc). */
export const GUN_GRAVITY = 2;
/** Sprite diameter of a shot, metres: thin, so a tracer near the camera is a dash, not a beam. */
export const GUN_SHOT_SIZE = 0.3;
/** Ticks over which a shot fades out at the end of its life. */
const FADE_TICKS = 30;
/** Ticks from the volley's tick to its end tick, by which every shot is dead. */
export const GUN_LIFE_TICKS = GUN_SPAWN_TICKS + GUN_MAX_LIFE;
// A late joiner rebuilds the present from the window: every shot must die inside it.
if (GUN_LIFE_TICKS > WINDOW_TICKS) {
  throw new Error(`gun_life: ${GUN_LIFE_TICKS} ticks exceed WINDOW_TICKS = ${WINDOW_TICKS}`);
}

const GRAVITY_DT = GUN_GRAVITY * DT;
const TINT_R = PALETTE[GUN_TINT][0] * GUN_GAIN;
const TINT_G = PALETTE[GUN_TINT][1] * GUN_GAIN;
const TINT_B = PALETTE[GUN_TINT][2] * GUN_GAIN;

/** One volley's block: where it fires from and its normalised direction. */
export interface VolleyBlock extends Block {
  readonly ox: number;
  readonly oy: number;
  readonly oz: number;
  readonly dx: number;
  readonly dy: number;
  readonly dz: number;
}

/** Whether a point is inside the scene's bounding box (x, z ∈ [−60, 60], y ∈ [0, 90]). */
export function insideScene(x: number, y: number, z: number): boolean {
  return x >= -SCENE_HALF_EXTENT && x <= SCENE_HALF_EXTENT && z >= -SCENE_HALF_EXTENT &&
    z <= SCENE_HALF_EXTENT && y >= 0 && y <= SCENE_HEIGHT;
}

/** Whether a coordinate outside [lo, hi] is closing in on it (inside: always true). */
function closing(p: number, v: number, lo: number, hi: number): boolean {
  return p < lo ? v > 0 : p > hi ? v < 0 : true;
}

/**
 * Whether a shot at (x, y, z) moving at (vx, vy, vz) is in play: inside the scene's box, or
 * outside it and closing in on every axis it is outside on (fired from a camera outside the box).
 * A shot outside the box and moving away from it on some axis has left for good, or never comes.
 *
 * @example
 * ```ts
 * inPlay(0, 40, 130, 0, 0, -90); // true: a camera's shot flying towards the scene
 * inPlay(0, 40, -61, 0, 0, -90); // false: it has left through the far side
 * ```
 */
export function inPlay(
  x: number,
  y: number,
  z: number,
  vx: number,
  vy: number,
  vz: number,
): boolean {
  return closing(x, vx, -SCENE_HALF_EXTENT, SCENE_HALF_EXTENT) &&
    closing(z, vz, -SCENE_HALF_EXTENT, SCENE_HALF_EXTENT) && closing(y, vy, 0, SCENE_HEIGHT);
}

/** All gun volleys of a world. */
export class Gun extends BlockSystem<VolleyBlock> {
  readonly #rng = new Rng();

  /**
   * Adds volley `seq` applied at `tick`. The direction need not be normalised (it must not be
   * zero: the protocol refuses that); a zero direction fires straight up rather than NaN.
   */
  fire(
    seq: number,
    tick: number,
    origin: readonly [number, number, number],
    direction: readonly [number, number, number],
  ): void {
    const [x, y, z] = direction;
    const length = Math.sqrt(x * x + y * y + z * z);
    const ok = length > 0 && Number.isFinite(length);
    this.pool.add({
      seq,
      tick,
      start: 0,
      size: GUN_SHOTS,
      endTick: tick + GUN_LIFE_TICKS,
      ox: origin[0],
      oy: origin[1],
      oz: origin[2],
      dx: ok ? x / length : 0,
      dy: ok ? y / length : 1,
      dz: ok ? z / length : 0,
    });
  }

  /** Simulates `tick` → `tick + 1`: moves shots, kills those outside the box, fires the next ones. */
  step(tick: number): void {
    this.#integrate();
    const blocks = this.pool.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const k = tick - blocks[b].tick;
      if (k < GUN_SPAWN_TICKS && k % GUN_SHOT_INTERVAL === 0) {
        this.#spawn(blocks[b], k / GUN_SHOT_INTERVAL);
      }
    }
    this.pool.expire(tick + 1);
  }

  /** Hashes each live volley's block in application order. */
  hashInto(h: Hasher): void {
    h.u32(this.pool.blocks.length);
    this.pool.hashInto(h);
  }

  #integrate(): void {
    const { position, previous, velocity, color, life } = this.pool;
    const count = this.pool.count;
    let died = 0;
    for (let i = 0; i < count; i++) {
      const left = life[i];
      if (left <= 0) continue;
      const p = i * 3;
      const x = position[p], y = position[p + 1], z = position[p + 2];
      previous[p] = x;
      previous[p + 1] = y;
      previous[p + 2] = z;
      const vy = velocity[p + 1] - GRAVITY_DT;
      velocity[p + 1] = vy;
      const vx = velocity[p], vz = velocity[p + 2];
      const nx = x + vx * DT, ny = y + vy * DT, nz = z + vz * DT;
      position[p] = nx;
      position[p + 1] = ny;
      position[p + 2] = nz;
      const remaining = inPlay(nx, ny, nz, vx, vy, vz) ? left - 1 : 0;
      life[i] = remaining;
      if (remaining === 0) {
        color[i * 4 + 3] = 0;
        died++;
      } else if (remaining < FADE_TICKS) {
        color[i * 4 + 3] = remaining / FADE_TICKS;
      }
    }
    this.liveCount -= died;
  }

  /** Fires the volley's `k`-th shot (on its k · GUN_SHOT_INTERVAL-th tick). */
  #spawn(block: VolleyBlock, k: number): void {
    const { position, previous, velocity, color, life, maxLife, size } = this.pool;
    const rng = this.#rng.reseed(streamKey(this.seed, STREAM.gun, block.seq, k));
    const i = block.start + k;
    let dx = block.dx + GUN_SPREAD * (2 * rng.next() - 1);
    let dy = block.dy + GUN_SPREAD * (2 * rng.next() - 1);
    let dz = block.dz + GUN_SPREAD * (2 * rng.next() - 1);
    const norm = 1 / Math.sqrt(dx * dx + dy * dy + dz * dz);
    dx *= norm;
    dy *= norm;
    dz *= norm;
    const speed = GUN_SPEED * (0.95 + 0.1 * rng.next());
    const p = i * 3;
    const x = block.ox + dx * GUN_MUZZLE_OFFSET;
    const y = block.oy + dy * GUN_MUZZLE_OFFSET;
    const z = block.oz + dz * GUN_MUZZLE_OFFSET;
    position[p] = previous[p] = x;
    position[p + 1] = previous[p + 1] = y;
    position[p + 2] = previous[p + 2] = z;
    velocity[p] = dx * speed;
    velocity[p + 1] = dy * speed;
    velocity[p + 2] = dz * speed;
    maxLife[i] = GUN_MAX_LIFE;
    size[i] = GUN_SHOT_SIZE;
    const shade = 0.85 + 0.15 * rng.next();
    const c = i * 4;
    color[c] = TINT_R * shade;
    color[c + 1] = TINT_G * shade;
    color[c + 2] = TINT_B * shade;
    // A shot that starts outside the box heading away from it (a camera looking out of the
    // scene) is born dead.
    if (inPlay(x, y, z, velocity[p], velocity[p + 1], velocity[p + 2])) {
      life[i] = GUN_MAX_LIFE;
      color[c + 3] = 1;
      this.liveCount++;
    }
  }
}
