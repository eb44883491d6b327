/**
 * How a client spreads a checkpoint hash (`World.beginCheckpoint`) over frames: in slices of
 * `CHECKPOINT_SLICE_SLOTS` firework slots while the frame's time lasts, at least one slice a
 * frame, never more than `CHECKPOINT_SLICE_MS` of it. The work a frame does for the hash is
 * bounded in milliseconds, whatever the ticks the frame stepped: a slow frame does not make the
 * next one slower (no catch-up spiral). A hash still under way at the next checkpoint is finished
 * there (a checkpoint at a million sparks is ~10–20 ms of evaluation, docs/checkpoint.md).
 *
 * @example
 * ```ts
 * import { workCheckpoint } from "./checkpoint_spread.ts";
 * import { World } from "../shared/world.ts";
 *
 * const world = new World({ seed: 1 });
 * const job = world.beginCheckpoint();
 * const clock = () => performance.now();
 * workCheckpoint(job, clock() + 4, clock); // the digest: an empty sky is done in one slice
 * ```
 */
import type { CheckpointHash } from "../shared/checkpoint_hash.ts";

/** Firework slots evaluated between two looks at the clock (~1–2 ms at 0.1–0.2 µs a slot). */
export const CHECKPOINT_SLICE_SLOTS = 8_192;

/** The most of a frame a checkpoint hash takes, ms, even when the frame has more time left. */
export const CHECKPOINT_SLICE_MS = 4;

/**
 * Works on `job` until `deadline` (by `clock`), at most CHECKPOINT_SLICE_MS and at least one
 * slice; returns the digest once done, else null.
 */
export function workCheckpoint(
  job: CheckpointHash,
  deadline: number,
  clock: () => number,
): string | null {
  const started = clock();
  const until = Math.min(deadline, started + CHECKPOINT_SLICE_MS);
  let digest = job.work(CHECKPOINT_SLICE_SLOTS);
  while (digest === null && clock() < until) digest = job.work(CHECKPOINT_SLICE_SLOTS);
  return digest;
}
