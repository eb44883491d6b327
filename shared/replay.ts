/**
 * Replays a scenario from tick 0 and reports the state hash at checkpoints: the golden
 * fixtures' format, runnable in any JS engine.
 */
import { initialSnapshot } from "./settings.ts";
import type { SceneEvent, Settings } from "./types.ts";
import { World } from "./world.ts";

/** A replay scenario, as stored in `tests/fixtures/replay/*.json`. */
export interface ReplayInput {
  seed: number;
  /** Settings at tick 0 over the defaults. */
  settings?: Partial<Settings>;
  events: SceneEvent[];
  /** Last tick to reach. */
  ticks: number;
  /** Checkpoint spacing in ticks. */
  every: number;
}

/** One checkpoint: the hash of the state at `tick`. */
export interface Checkpoint {
  tick: number;
  hash: string;
}

/**
 * The hashes at ticks every, 2·every, … ≤ ticks (the state after stepping to that tick).
 *
 * @example
 * ```ts
 * import { replay } from "./replay.ts";
 *
 * const checkpoints = replay({
 *   seed: 7,
 *   settings: { show: false },
 *   events: [{ seq: 1, tick: 10, by: "ana", body: { type: "launch", x: 0, z: 0 } }],
 *   ticks: 240,
 *   every: 60,
 * });
 * console.log(checkpoints.map((c) => c.tick)); // [60, 120, 180, 240]
 * ```
 */
export function replay(o: ReplayInput): Checkpoint[] {
  if (!(o.every >= 1) || !Number.isInteger(o.every)) {
    throw new RangeError(`replay_every: every must be a positive integer, got ${o.every}`);
  }
  const world = new World({ seed: o.seed, snapshot: initialSnapshot(o.settings) });
  for (const event of o.events) world.apply(event);
  const out: Checkpoint[] = [];
  for (let tick = o.every; tick <= o.ticks; tick += o.every) {
    world.advanceTo(tick);
    out.push({ tick, hash: world.hash() });
  }
  return out;
}
