/**
 * Desync arbitration cost: the true hash of a busy window computed on the arbiter's worker (the
 * server's own thread only clones the job), and how late a 5 ms timer on the server's thread
 * fires meanwhile — the heartbeat pass would be that late. Compare with the same computation on
 * the server's thread.
 */
import { WINDOW_TICKS } from "../shared/constants.ts";
import { advanceSnapshot, initialSnapshot } from "../shared/settings.ts";
import { worldFromWindow } from "../shared/world.ts";
import { HashArbiter } from "../server/scene/hash_arbiter.ts";
import { busyScenario } from "../testing/world_scenarios.ts";

const SEED = 77;
const events = busyScenario({ key: 9, ticks: 1500, launchGap: 4, gunGap: 30, settingsGap: 200 });
const T = 1380;
const job = {
  seed: SEED,
  snapshot: advanceSnapshot(initialSnapshot(), events, T - WINDOW_TICKS),
  events: events.filter((e) => e.tick >= T - WINDOW_TICKS && e.tick < T),
  tick: T,
  capacity: 200_000,
};
const arbiter = new HashArbiter();
await arbiter.hash(job); // starts the worker

/** Worst lateness of a 5 ms timer chain while `work` runs. */
async function worstTimerLate(work: () => Promise<unknown>): Promise<number> {
  let worst = 0, running = true;
  const ticker = (async () => {
    while (running) {
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, 5));
      worst = Math.max(worst, performance.now() - t0 - 5);
    }
  })();
  await work();
  running = false;
  await ticker;
  return worst;
}

let workerMs = Infinity, workerLate = Infinity, mainMs = Infinity, mainLate = Infinity;
Deno.bench({
  name: "arbitration on the worker (true hash of a busy window)",
  group: "arbitration",
  baseline: true,
  n: 10,
  warmup: 2,
  async fn() {
    const t0 = performance.now();
    const late = await worstTimerLate(() => arbiter.hash(job)!);
    workerMs = Math.min(workerMs, performance.now() - t0);
    workerLate = Math.min(workerLate, late);
  },
});
Deno.bench({
  name: "the same hash on the server's thread",
  group: "arbitration",
  n: 10,
  warmup: 2,
  async fn() {
    const t0 = performance.now();
    const late = await worstTimerLate(async () => {
      await new Promise((r) => setTimeout(r, 0));
      worldFromWindow(job).hash();
    });
    mainMs = Math.min(mainMs, performance.now() - t0);
    mainLate = Math.min(mainLate, late);
  },
});
addEventListener("unload", () => {
  console.log(
    `arbitration (${job.events.length} window events): worker ${workerMs.toFixed(1)} ms, ` +
      `server-thread timer late ≤ ${workerLate.toFixed(1)} ms; on the server's thread ` +
      `${mainMs.toFixed(1)} ms, timer late ${mainLate.toFixed(1)} ms (best of 10)`,
  );
  arbiter.close();
});
