/**
 * Twenty concurrent readers of a big scene's log (`limit=5000`, as fast as answered, from one
 * address) against a child server; a viewer in another scene keeps its heartbeat gap p99 within
 * 1.5× quiet. Before: p50 4.7×, p99 9.5× (issue 19). About 20 s, 15 s more for each measurement
 * after a miss; the readers run at nice 19.
 */
// test tiers: alone
import assert from "node:assert/strict";
import { sleep } from "../../testing/wait.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { LogReaderChild } from "../../testing/log_reader.ts";
import { GapObserver } from "../../testing/raw_ws.ts";
import { SceneStore } from "../../server/local/store.ts";
import { initialSnapshot } from "../../shared/settings.ts";

/** How long the readers start requests; an attack window lasts until the last is answered. */
const ATTACK_MS = 800;
const QUIET_MS = 1200;
/** Quiet and attack windows alternate this many times; the gaps of each kind are pooled. */
const ROUNDS = 4;
/**
 * Measurements at most (another only when the one before missed the bound). Three, as in the
 * fan-out test: a clean-clone CI run (2026-12-04, f5c08b2) missed twice in a row beside the niced
 * browser tier (2.16x, 2.09x; its seven runs before: 1.02–1.44x).
 */
const ATTEMPTS = 3;
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
 * server thread's priority, taking its CPU on a saturated machine (now nice +5). Reads in flight
 * are also bounded (2 per address, 8 in all). Then: the worker builds and gzips whole pages
 * (the thread writes ~30 KB instead of 440 KB), refusals are answered after a pause without a
 * stack trace, and a page costs tokens by its size. Since the refusals are paced per address
 * (10 a second, `RefusalPacer`; they were one per connection a second, and those refused
 * together came back together) and pages are one string from SQLite, what the attack adds to the
 * server's thread is spread evenly: a page ~1.2 ms, a refusal ~0.5 ms (/proc schedstat). At load
 * 2–4 the ratio is 0.8–1.25x; on this shared machine the other sessions' processes take the
 * cores for 100–600 ms at a time, whichever window they fall in,
 * hence more and shorter alternating windows, and a second measurement after a miss (see
 * docs/performance.md).
 */
Deno.test("20 concurrent log readers leave another scene's heartbeats within 1.5x quiet", async () => {
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
    // On a miss the whole measurement runs again (as in the other flood tests): on this
    // shared machine another session's process took the cores for 100–600 ms at a time,
    // whichever window it fell in; a regression misses every time.
    let ok = false;
    let served = 0;
    let detail = "";
    for (let attempt = 1; attempt <= ATTEMPTS && !ok; attempt++) {
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
      served += bursts.reduce((sum, b) => sum + b.events, 0);
      detail = `${bursts.map((b) => JSON.stringify(b.statuses)).join(" ")}, ${served} ` +
        `events served; victim gap p99 ${attackP99.toFixed(1)} ms (${attacked.length} gaps), ` +
        `quiet ${quietP99.toFixed(1)} ms (${quiet.length} gaps): ${
          (attackP99 / quietP99).toFixed(2)
        }x, attempt ${attempt}`;
      console.log(`log flood: ${detail}`);
      ok = attackP99 <= quietP99 * 1.5;
    }
    assert.ok(served > 0, `the readers were served: ${detail}`);
    assert.ok(ok, `victim heartbeat gap p99 within 1.5x quiet: ${detail}`);
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
