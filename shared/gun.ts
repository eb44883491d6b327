/**
 * The particle gun: a stream of bright tracers from a viewer's camera along its view direction
 * (seed 001), fired over GUN_SPAWN_TICKS ticks with a tight spread. Shots fly straight and fast
 * (no drag, slight gravity) and die when they leave the scene's bounding box or at their maximum
 * life.
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
import { DT, SCENE_HALF_EXTENT, SCENE_HEIGHT } from "./constants.ts";
import { GUN_TINT, PALETTE } from "./firework_colors.ts";
import { BlockSystem } from "./block_system.ts";
import type { Hasher } from "./hash.ts";
import type { Block } from "./particle_pool.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";

/** Shots per volley. */
export const GUN_SHOTS = 72;
/** The volley streams out over this many ticks (0.6 s), GUN_SHOTS / GUN_SPAWN_TICKS per tick. */
export const GUN_SPAWN_TICKS = 36;
/** Most ticks a shot lives; at GUN_SPEED it crosses the box's diagonal (≈ 192 m) in about that. */
export const GUN_MAX_LIFE = 150;
/** Muzzle speed, m/s. */
export const GUN_SPEED = 80;
/** Largest sideways deviation of a shot's direction per axis (before renormalising). */
export const GUN_SPREAD = 0.012;
/** Tracer brightness: above 1, so tone mapping and bloom make them glow. */
export const GUN_GAIN = 1.6;
/** Shots start this far ahead of the camera so they do not fill the screen. */
export const GUN_MUZZLE_OFFSET = 2;
/** Downward acceleration of shots, m/s² (a gentle arc). */
export const GUN_GRAVITY = 2;
/** Sprite diameter of a shot, metres. */
export const GUN_SHOT_SIZE = 0.7;
/** Ticks over which a shot fades out at the end of its life. */
const FADE_TICKS = 30;
/** Ticks from the volley's tick to its end tick, by which every shot is dead. */
export const GUN_LIFE_TICKS = GUN_SPAWN_TICKS + GUN_MAX_LIFE;

const SHOTS_PER_TICK = GUN_SHOTS / GUN_SPAWN_TICKS;
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
      if (k < GUN_SPAWN_TICKS) this.#spawn(blocks[b], k);
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
      const nx = x + velocity[p] * DT, ny = y + vy * DT, nz = z + velocity[p + 2] * DT;
      position[p] = nx;
      position[p + 1] = ny;
      position[p + 2] = nz;
      const remaining = insideScene(nx, ny, nz) ? left - 1 : 0;
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

  /** Fires the volley's shots for its `k`-th tick, spaced along the muzzle's first tick of flight. */
  #spawn(block: VolleyBlock, k: number): void {
    const { position, previous, velocity, color, life, maxLife, size } = this.pool;
    const rng = this.#rng.reseed(streamKey(this.seed, STREAM.gun, block.seq, k));
    let spawned = 0;
    for (let n = 0; n < SHOTS_PER_TICK; n++) {
      const i = block.start + k * SHOTS_PER_TICK + n;
      let dx = block.dx + GUN_SPREAD * (2 * rng.next() - 1);
      let dy = block.dy + GUN_SPREAD * (2 * rng.next() - 1);
      let dz = block.dz + GUN_SPREAD * (2 * rng.next() - 1);
      const norm = 1 / Math.sqrt(dx * dx + dy * dy + dz * dz);
      dx *= norm;
      dy *= norm;
      dz *= norm;
      const speed = GUN_SPEED * (0.95 + 0.1 * rng.next());
      const along = GUN_MUZZLE_OFFSET + speed * DT * ((n + rng.next()) / SHOTS_PER_TICK);
      const p = i * 3;
      const x = block.ox + dx * along, y = block.oy + dy * along, z = block.oz + dz * along;
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
      // A muzzle offset can start a shot outside the box (camera at its edge): it is born dead.
      if (insideScene(x, y, z)) {
        life[i] = GUN_MAX_LIFE;
        color[c + 3] = 1;
        spawned++;
      }
    }
    this.liveCount += spawned;
  }
}
