/**
 * Worker that computes a scene's true checkpoint hash (`World.checkpointHash`, what clients
 * report) at a checkpoint tick from the window (the
 * snapshot at T − W and the events since), exactly as a late joiner's client builds its world.
 * A busy window takes ~45 ms: off the server's thread, no heartbeat waits for it. Protocol: the
 * server posts `{id, job}` and gets `{id, hash}` or `{id, error}` back.
 */
/// <reference lib="deno.worker" />
import { worldFromWindow } from "../../shared/world.ts";
import type { HashJob } from "./hash_arbiter.ts";

self.onmessage = (e: MessageEvent<{ id: number; job: HashJob }>) => {
  const { id, job } = e.data;
  try {
    const world = worldFromWindow({
      seed: job.seed,
      snapshot: job.snapshot,
      events: job.events,
      tick: job.tick,
      capacity: job.capacity,
    });
    self.postMessage({ id, hash: world.checkpointHash() });
  } catch (err) {
    self.postMessage({ id, error: (err as Error).message });
  }
};
