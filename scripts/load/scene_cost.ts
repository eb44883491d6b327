/**
 * Storage cost per scene: `deno run -A scripts/load/scene_cost.ts [N]` (default 200).
 *
 * Starts a server on a temporary DATA_DIR and visits N new scenes one after the other (hello,
 * stay 1 s with the show on, leave), then N more scenes that a socket opens without a hello.
 * After the server has shut down (database checkpointed and closed) it reports the bytes the
 * database grew per visited scene, and that the unvisited ones stored nothing. Loopback only.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startServer } from "../../server/server.ts";

const n = Number(Deno.args[0] ?? 200);
const dataDir = await Deno.makeTempDir({ prefix: "snowfire-scene-cost-" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function dbBytes(): { bytes: number; scenes: number; events: number } {
  const db = new DatabaseSync(join(dataDir, "scenes.db"), { readOnly: true });
  const pages = db.prepare("PRAGMA page_count").get() as { page_count: number };
  const size = db.prepare("PRAGMA page_size").get() as { page_size: number };
  const scenes = db.prepare("SELECT count(*) AS n FROM scenes").get() as { n: number };
  const events = db.prepare("SELECT count(*) AS n FROM events").get() as { n: number };
  db.close();
  return { bytes: pages.page_count * size.page_size, scenes: scenes.n, events: events.n };
}

async function visit(url: string, scene: string, hello: boolean, stayMs: number): Promise<void> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/s/${scene}/ws`);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => {
      if (hello) socket.send('{"t":"hello"}');
      resolve();
    };
    socket.onerror = () => reject(new Error(`could not open ${scene}`));
  });
  await sleep(stayMs);
  await new Promise<void>((resolve) => {
    socket.onclose = () => resolve();
    socket.close(1000, "bye");
  });
}

const options = {
  port: 0,
  hostname: "127.0.0.1",
  dataDir,
  log: () => {},
  newScenes: { perSecond: 1e6, burst: 1e6 },
  roomIdleMs: 500,
};
let server = await startServer(options);
const start = Date.now();
// One scene first, so the database's fixed overhead (schema, first pages) is not counted.
await visit(server.url, "warm-up", true, 1000);
await server.shutdown();
const base = dbBytes();
server = await startServer(options);
// Visits overlap a little (ten at a time) to keep the run short.
for (let i = 0; i < n; i += 10) {
  await Promise.all(
    Array.from(
      { length: Math.min(10, n - i) },
      (_, k) => visit(server.url, `v-${i + k}`, true, 1000),
    ),
  );
}
await sleep(1500);
await server.shutdown();
const visited = dbBytes();
server = await startServer(options);
for (let i = 0; i < n; i += 10) {
  await Promise.all(
    Array.from(
      { length: Math.min(10, n - i) },
      (_, k) => visit(server.url, `u-${i + k}`, false, 200),
    ),
  );
}
await sleep(1500);
await server.shutdown();
const unvisited = dbBytes();
await Deno.remove(dataDir, { recursive: true });

const perScene = (visited.bytes - base.bytes) / n;
console.log(
  `${n} visited scenes (hello, 1 s with the show on, leave): +${
    (visited.bytes - base.bytes) / 1024
  } KiB, ${perScene.toFixed(0)} bytes per scene, ${
    ((visited.events - base.events) / n).toFixed(1)
  } events per scene`,
);
console.log(
  `${n} sockets without hello: +${(unvisited.bytes - visited.bytes) / 1024} KiB, ${
    unvisited.scenes - visited.scenes
  } scenes stored (took ${((Date.now() - start) / 1000).toFixed(0)} s)`,
);
