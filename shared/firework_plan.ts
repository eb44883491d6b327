/**
 * A firework's shape decided up front from its random stream (seed, seq): rise time, burst size,
 * secondary bursts and therefore its exact slot budget and end tick. The system that simulates
 * the firework and the server's admission control (`eventCost`) both read this one function, so
 * they can never disagree.
 */
import { DT } from "./constants.ts";
import { hashUnit, Rng, STREAM, streamKey } from "./prng.ts";

/** Trail particles spawned per tick while the shell rises. */
export const TRAIL_PER_TICK = 6;
/** Shortest and longest rise of a shell, in ticks. */
export const RISE_MIN = 100;
export const RISE_MAX = 135;
/** The rising shell's constant deceleration (m/s²); it reaches its apex after its rise ticks. */
export const SHELL_DECELERATION = 24;
/** Largest sideways drift of a shell along x and along z, m/s (the noise on its path). */
export const SHELL_DRIFT_MAX = 1.2;
/** Fewest and most particles of the apex burst. */
export const BURST_MIN = 500;
export const BURST_MAX = 1500;
/** Range of a burst's base speed in m/s. */
export const BURST_SPEED_MIN = 11;
export const BURST_SPEED_MAX = 17;
/** Per-particle speed noise on the burst shell: speed · (1 ± BURST_SPEED_NOISE). */
export const BURST_SPEED_NOISE = 0.15;
/** Lifetimes in ticks: trail particles, burst particles. */
export const TRAIL_LIFE_MIN = 20;
export const TRAIL_LIFE_MAX = 36;
export const BURST_LIFE_MIN = 90;
export const BURST_LIFE_MAX = 150;
/** Share of burst particles that burst again lies in [MIN, MAX). */
export const SECONDARY_SHARE_MIN = 0.02;
export const SECONDARY_SHARE_MAX = 0.05;
/** Particles each secondary burst spawns. */
export const SECONDARY_CHILDREN = 20;
/** Ticks from the main burst to a secondary burst. */
export const SECONDARY_DELAY_MIN = 30;
export const SECONDARY_DELAY_MAX = 70;
/** Lifetime range of secondary burst particles, in ticks. */
export const CHILD_LIFE_MIN = 30;
export const CHILD_LIFE_MAX = 60;

/**
 * Trail sparks live at most TRAIL_LIFE_MAX ticks, so a launch needs trail slots for only this
 * many ticks of spawning: tick k reuses the slots of tick k − TRAIL_RING_TICKS, all dead by then.
 */
export const TRAIL_RING_TICKS = TRAIL_LIFE_MAX + 1;

/** Block slot of trail spark `n` spawned on the `k`-th tick of the rise (relative to the block). */
export function trailSlot(k: number, n: number): number {
  return 1 + (k % TRAIL_RING_TICKS) * TRAIL_PER_TICK + n;
}

/** Ticks from the apex by which every burst, secondary and trail particle is dead. */
export const BURST_TAIL = Math.max(
  TRAIL_LIFE_MAX,
  BURST_LIFE_MAX,
  SECONDARY_DELAY_MAX + CHILD_LIFE_MAX,
);

/** Every firework is entirely dead this many ticks after its launch tick (≤ WINDOW_TICKS). */
export const FIREWORK_MAX_LIFE = RISE_MAX + BURST_TAIL;

/** Sub-stream phases of one firework's stream (keyed by seed and seq). */
export const PHASE = {
  plan: 0,
  burst: 1,
  delay: 2,
  /** + the secondary's index. */
  child: 1 << 16,
  /** + the rise tick. */
  trail: 2 << 16,
} as const;

/** The up-front shape of one firework. Reused in place: `planFirework` never allocates. */
export class FireworkPlan {
  /** Ticks from launch to apex. */
  riseTicks = 0;
  /** Initial upward speed of the shell, m/s. */
  shellSpeed = 0;
  /** Sideways drift of the shell (the noise on its path), m/s. */
  driftX = 0;
  driftZ = 0;
  /** Particles in the apex burst. */
  burstCount = 0;
  /** Base speed of the burst, m/s. */
  burstSpeed = 0;
  /** How many burst particles burst again (the first ones of the burst). */
  secondaryCount = 0;
  /** Uniform numbers that pick the theme (under `auto`) and the theme's two tints. */
  themeRoll = 0;
  primaryRoll = 0;
  secondaryRoll = 0;
  /** Slot layout inside the block: shell 0, the trail ring from 1, the burst, the children. */
  burstStart = 0;
  childStart = 0;
  /** Total slots: the firework's exact particle budget. */
  slots = 0;
  /** Ticks from launch to the end tick, by which every particle is dead. */
  lifeTicks = 0;
}

const rng = new Rng();

/** Fills `out` with the plan of firework `seq` in a scene with `seed`, and returns it. */
export function planFirework(
  seed: number,
  seq: number,
  out: FireworkPlan = new FireworkPlan(),
): FireworkPlan {
  rng.reseed(streamKey(seed, STREAM.firework, seq, PHASE.plan));
  const rise = RISE_MIN + rng.int(RISE_MAX - RISE_MIN + 1);
  out.riseTicks = rise;
  // v after `rise` decelerating ticks is 0: the apex.
  out.shellSpeed = SHELL_DECELERATION * rise * DT;
  out.driftX = rng.range(-SHELL_DRIFT_MAX, SHELL_DRIFT_MAX);
  out.driftZ = rng.range(-SHELL_DRIFT_MAX, SHELL_DRIFT_MAX);
  out.burstCount = BURST_MIN + rng.int(BURST_MAX - BURST_MIN + 1);
  out.burstSpeed = rng.range(BURST_SPEED_MIN, BURST_SPEED_MAX);
  out.secondaryCount = Math.floor(
    out.burstCount * rng.range(SECONDARY_SHARE_MIN, SECONDARY_SHARE_MAX),
  );
  out.themeRoll = rng.next();
  out.primaryRoll = rng.next();
  out.secondaryRoll = rng.next();
  out.burstStart = 1 + Math.min(rise, TRAIL_RING_TICKS) * TRAIL_PER_TICK;
  out.childStart = out.burstStart + out.burstCount;
  out.slots = out.childStart + out.secondaryCount * SECONDARY_CHILDREN;
  out.lifeTicks = rise + BURST_TAIL;
  return out;
}

/** Ticks after the apex at which secondary burst `j` of firework `seq` goes off (random access). */
export function secondaryDelay(seed: number, seq: number, j: number): number {
  return delayFrom(streamKey(seed, STREAM.firework, seq, PHASE.delay), j);
}

/** Fills `out[j]` with secondaryDelay(seed, seq, j) for every j < out.length. */
export function secondaryDelays(seed: number, seq: number, out: Uint8Array): Uint8Array {
  const key = streamKey(seed, STREAM.firework, seq, PHASE.delay);
  for (let j = 0; j < out.length; j++) out[j] = delayFrom(key, j);
  return out;
}

function delayFrom(key: number, j: number): number {
  const u = hashUnit(key, j);
  return SECONDARY_DELAY_MIN + Math.floor(u * (SECONDARY_DELAY_MAX - SECONDARY_DELAY_MIN + 1));
}
