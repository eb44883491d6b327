/**
 * Twenty concurrent readers of a big scene's log (`limit=5000`, as fast as answered, from one
 * address) against a child server; a viewer in another scene keeps its heartbeat gap p99 within
 * 1.5× quiet. Before: p50 4.7×, p99 9.5× (issue 19). About 15 s; the readers run at nice 19.
 */
// test tiers: alone
import assert from "node:assert/strict";
import { sleep } from "../testing/wait.ts";
import { startTestServer } from "../testing/test_server.ts";
import { LogReaderChild } from "../testing/log_reader.ts";
import { GapObserver } from "../testing/raw_ws.ts";
import { SceneStore } from "../server/local/store.ts";
import { initialSnapshot } from "../shared/settings.ts";

const ATTACK_MS = 2000;
const QUIET_MS = 1500;
/** Quiet and attack windows alternate this many times; the gaps of each kind are pooled. */
const ROUNDS = 3;
const READERS = 20;
const EVENTS = 30_000;

/**
 * Failed until describe stopped folding the log (issue 19): each request runs `Rooms.describe`,
 * which for a scene not loaded read and folded every event since the stored snapshot on the event
 * loop (750–835 ms for this scene's 30k events); victim p99 9522 and 7494 ms against quiet 151
 * and 168 ms (63x, 45x). Then the pages' events came from the worker as UTF-8 JSON, spliced into
 * the response: 0.68–6.58x on this shared machine (load 11–35), so it was opt-in. What was left
 * (profiles and per-thread CPU from /proc): the `ws` engine's HTTP never kept a connection alive
 * (every request a new TCP connection, reset after one or two answers: 0.53 ms of main-thread
 * CPU per request in the flood, 0.25 ms with keep-alive), and the page reader thread ran at the
 * server thread's priority, taking its CPU on a saturated machine (now nice +10). Reads in flight
 * are also bounded (2 per address, 8 in all). Then: the worker builds and gzips whole pages
 * (the thread writes ~30 KB instead of 440 KB), refusals are answered after a pause (one per
 * connection a second) without a stack trace, and a page costs tokens by its size. Quiet and
 * attack windows alternate in one run, so a load that changes during the run hits both alike.
 * Per 2 s attack window the server's thread still runs 50–115 ms against ~30 ms quiet (4 pages,
 * 60 refusals; /proc schedstat), and on a saturated machine that doubles its run-queue waits.
 */
Deno.test({
  name: "20 concurrent log readers leave another scene's heartbeats within 1.5x quiet",
  // Still opt-in: on this shared 2-core machine at load 17–25 it measured 0.75–3.77x (see
  // docs/measurements.md); at load 7–9, 0.82–2.87x in a later session, where a viewer in its own
  // process under SCHED_RR saw 0.67–2.03x: CPU share on saturated cores, not event-loop work.
  ignore: Deno.env.get("LOG_FLOOD") !== "1",
}, async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "snowfire-logflood-" });
  const scene = "big-log-1";
  const store = new SceneStore(dataDir);
  store.createScene(scene, 7, Date.now(), initialSnapshot());
  store.transaction(() => {
    for (let seq = 1; seq <= EVENTS; seq++) {
      store.appendEvent(scene, {
        seq,
        tick: seq,
        by: "show",
        body: { type: "settings", settings: { snow: (seq % 100) / 100 } },
      });
    }
  });
  await store.close();
  const server = await startTestServer({ process: true, dataDir });
  const port = Number(new URL(server.url).port);
  const observer = await GapObserver.join(server.url, "log-victim-1");
  const reader = await LogReaderChild.start(port, scene, READERS);
  try {
    const quiet: number[] = [];
    const attacked: number[] = [];
    const bursts = [];
    for (let round = 0; round < ROUNDS; round++) {
      observer.reset();
      await sleep(QUIET_MS);
      quiet.push(...observer.gaps());
      observer.reset();
      bursts.push(await reader.burst(ATTACK_MS));
      attacked.push(...observer.gaps());
    }
    const quietP99 = p99(quiet);
    const attackP99 = p99(attacked);
    const served = bursts.reduce((sum, b) => sum + b.events, 0);
    const detail = `${bursts.map((b) => JSON.stringify(b.statuses)).join(" ")}, ${served} ` +
      `events served; victim gap p99 ${attackP99.toFixed(1)} ms (${attacked.length} gaps), ` +
      `quiet ${quietP99.toFixed(1)} ms (${quiet.length} gaps): ${
        (attackP99 / quietP99).toFixed(2)
      }x`;
    console.log(`log flood: ${detail}`);
    assert.ok(served > 0, `the readers were served: ${detail}`);
    assert.ok(attackP99 <= quietP99 * 1.5, `victim heartbeat gap p99 within 1.5x quiet: ${detail}`);
  } finally {
    await reader.close();
    await observer.close();
    await server.kill("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
});

function p99(gaps: number[]): number {
  const sorted = [...gaps].sort((a, b) => a - b);
  return sorted.length === 0 ? Infinity : sorted[Math.floor((sorted.length - 1) * 0.99)];
}
