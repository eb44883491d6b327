/**
 * The server's own opinion in a desync dispute: computes a scene's true state hash at a tick on
 * a worker thread (`hash_worker.ts`), one job at a time, with a short queue. When the queue is
 * full the job is refused (the dispute then resyncs nobody), so a flood of disputes costs one
 * thread's time and a bounded amount of memory.
 */
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";

/** Everything needed to rebuild the world at `tick`: the snapshot at T − W and the events since. */
export interface HashJob {
  seed: number;
  snapshot: WorldSnapshot;
  events: SceneEvent[];
  tick: number;
  capacity: number;
}

/** Jobs waiting behind the running one, across every scene; more are refused. */
const MAX_QUEUED = 8;

/**
 * Computes true hashes off the event loop.
 *
 * @example
 * ```ts
 * const arbiter = new HashArbiter();
 * const hash = await arbiter.hash({ seed: 1, snapshot, events: [], tick: 60, capacity: 200_000 });
 * await arbiter.close();
 * ```
 */
export class HashArbiter {
  #worker: Worker | undefined;
  #nextId = 0;
  readonly #waiting = new Map<number, PromiseWithResolvers<string>>();
  /** Hashes computed, and jobs refused because the queue was full. */
  computed = 0;
  refused = 0;

  /** The hash at `job.tick`, or undefined when too many jobs are already waiting. */
  hash(job: HashJob): Promise<string> | undefined {
    if (this.#waiting.size > MAX_QUEUED) {
      this.refused++;
      return undefined;
    }
    const worker = this.#worker ??= this.#start();
    const id = this.#nextId++;
    const pending = Promise.withResolvers<string>();
    this.#waiting.set(id, pending);
    worker.postMessage({ id, job });
    return pending.promise;
  }

  /** Stops the worker; jobs still waiting are rejected. */
  close(): Promise<void> {
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const pending of this.#waiting.values()) pending.reject(new Error("arbiter closed"));
    this.#waiting.clear();
    return Promise.resolve();
  }

  #start(): Worker {
    const worker = new Worker(new URL("./hash_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (e: MessageEvent<{ id: number; hash?: string; error?: string }>) => {
      const pending = this.#waiting.get(e.data.id);
      if (!pending) return;
      this.#waiting.delete(e.data.id);
      if (e.data.hash !== undefined) {
        this.computed++;
        pending.resolve(e.data.hash);
      } else {
        pending.reject(new Error(e.data.error ?? "hash worker failed"));
      }
    };
    worker.onerror = (e) => {
      e.preventDefault();
      for (const pending of this.#waiting.values()) pending.reject(new Error(e.message));
      this.#waiting.clear();
      this.#worker?.terminate();
      this.#worker = undefined;
    };
    return worker;
  }
}
