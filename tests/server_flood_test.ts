/**
 * The connection attacks of issue 8, each against a child server process (default engine, default
 * limits), with the bound it must now keep: a no-hello binary flooder that never reads, a "{}"
 * flooder, and a 60 MiB frame. Each measures the child's RSS from /proc and, where it matters, the
 * heartbeat gaps of an observer in another scene (quiet first, in the same test). Bounded in time.
 */
import assert from "node:assert/strict";
import { sleep } from "./helpers/server_harness.ts";
import { type ServerProcess, spawnServer } from "./helpers/server_process.ts";
import {
  BINARY,
  floodUntilClosed,
  frameHeader,
  GapObserver,
  maskedFrame,
  rawUpgrade,
  readAll,
  repeated,
  rssBytes,
  rssPeak,
  TEXT,
} from "./helpers/raw_ws.ts";

const MiB = 1024 * 1024;

/** How long each attack runs, and how long the quiet baseline is measured. */
const ATTACK_MS = 4000;
const QUIET_MS = 3000;

/** Most the server may grow while an attack runs (it grew by 4.1 GB before). */
const FLOOD_RSS_BUDGET = 32 * MiB;

/** "A few MiB": the most one 60 MiB frame may cost the server. */
const BIG_FRAME_RSS_BUDGET = 6 * MiB;

async function withChild(fn: (server: ServerProcess, port: number) => Promise<void>) {
  const dataDir = await Deno.makeTempDir({ prefix: "snowfire-flood-" });
  const server = await spawnServer(dataDir);
  try {
    await fn(server, Number(new URL(server.url).port));
  } finally {
    await server.kill("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("a no-hello binary flooder that never reads is cut off; memory and other scenes hold", async () => {
  await withChild(async (server, port) => {
    const observer = await GapObserver.join(server.url, "observer-1");
    await sleep(QUIET_MS);
    const quiet = observer.gapP99();
    observer.reset();
    const before = rssBytes(server.child.pid);
    const peak = rssPeak(server.child.pid);
    // Tiny binary frames, 8192 per write; when the server cuts one connection, open the next.
    const batch = repeated(maskedFrame(BINARY, new Uint8Array([1, 2])), 8192);
    const until = performance.now() + ATTACK_MS;
    let connections = 0;
    let bytes = 0;
    let cut = 0;
    while (performance.now() < until) {
      const conn = await rawUpgrade(port, `flood-${connections % 3}`);
      connections++;
      const result = await floodUntilClosed(conn, batch, until);
      bytes += result.bytes;
      if (result.cut) cut++;
      try {
        conn.close();
      } catch {
        // Already reset.
      }
    }
    const grew = peak.stop() - before;
    const gap = observer.gapP99();
    const samples = observer.samples;
    await observer.close();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const detail = `${connections} connections, ${(bytes / MiB).toFixed(1)} MiB written, ` +
      `RSS +${(grew / MiB).toFixed(1)} MiB, observer gap p99 ${gap.toFixed(1)} ms ` +
      `(quiet ${quiet.toFixed(1)} ms, ${samples} gaps)`;
    console.log(`no-hello flood: ${detail}`);
    assert.ok(cut >= connections - 1, `every flooding connection was cut: ${detail}`);
    assert.ok(grew < FLOOD_RSS_BUDGET, `RSS growth within budget: ${detail}`);
    assert.ok(gap <= quiet * 1.5, `other scenes' heartbeat gap p99 within 1.5x quiet: ${detail}`);
    assert.match(metrics, /^snowfire_abusers_closed_total [1-9]\d*$/m);
  });
});

Deno.test('a "{}" flooder gets a handful of coalesced errors, then close 1008', async () => {
  await withChild(async (server, port) => {
    const observer = await GapObserver.join(server.url, "observer-2");
    await sleep(QUIET_MS);
    const quiet = observer.gapP99();
    observer.reset();
    const conn = await rawUpgrade(port, "curly-1");
    const hello = maskedFrame(TEXT, new TextEncoder().encode('{"t":"hello"}'));
    await conn.write(hello);
    // Read what the server answers while flooding (to count its error frames).
    const answers = readAll(conn, ATTACK_MS + 2000);
    const batch = repeated(maskedFrame(TEXT, new TextEncoder().encode("{}")), 8192);
    const flood = await floodUntilClosed(conn, batch, performance.now() + ATTACK_MS);
    const { texts, closeCode } = await answers;
    try {
      conn.close();
    } catch {
      // Already reset.
    }
    const gap = observer.gapP99();
    await observer.close();
    const errors = texts.filter((t) => JSON.parse(t).t === "error");
    const detail = `${(flood.bytes / MiB).toFixed(1)} MiB written, ${errors.length} errors, ` +
      `close ${closeCode}, gap p99 ${gap.toFixed(1)} ms (quiet ${quiet.toFixed(1)})`;
    console.log(`"{}" flood: ${detail}`);
    assert.equal(closeCode, 1008, detail);
    assert.ok(errors.length >= 1 && errors.length <= 3, `coalesced: ${detail}`);
    assert.ok(gap <= quiet * 1.5, `other scenes' heartbeat gap p99 within 1.5x quiet: ${detail}`);
  });
});

Deno.test("a 60 MiB frame is refused from its header: close 1009, a few MiB at most", async () => {
  await withChild(async (server, port) => {
    const conn = await rawUpgrade(port, "big-1");
    const answers = readAll(conn, 10_000);
    await sleep(300);
    const before = rssBytes(server.child.pid);
    const peak = rssPeak(server.child.pid, 5);
    const size = 60 * MiB;
    const chunk = new Uint8Array(MiB).fill(0x61);
    let written = 0;
    try {
      written += await conn.write(frameHeader(TEXT, size));
      while (written < size) written += await conn.write(chunk);
    } catch {
      // The server dropped the connection: the rest of the frame is never sent.
    }
    const { closeCode } = await answers;
    await sleep(200);
    const grew = peak.stop() - before;
    try {
      conn.close();
    } catch {
      // Already reset.
    }
    const detail = `${(written / MiB).toFixed(1)} MiB written before the cut, RSS +${
      (grew / MiB).toFixed(2)
    } MiB`;
    console.log(`60 MiB frame: ${detail}`);
    assert.equal(closeCode, 1009, detail);
    assert.ok(written < size, `the server did not read it all: ${detail}`);
    assert.ok(grew < BIG_FRAME_RSS_BUDGET, `RSS growth within a few MiB: ${detail}`);
  });
});
