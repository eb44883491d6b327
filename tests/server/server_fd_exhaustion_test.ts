/**
 * No exhaustion kills the listener: a server child under a low open-file limit is flooded with
 * silent connections from one address past that limit; once the attacker leaves, a new
 * connection is served. Before the guard, Deno 2.9.6's `node:http` listener never accepted again
 * (`ws` engine) and `Deno.serve` ended the process (`deno` engine).
 */
import assert from "node:assert/strict";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

/** Open files the server child may have: low, so the flood is short. */
const FD_LIMIT = 160;
/** Connections the attacker opens (the kernel's backlog takes what the server does not accept). */
const FLOOD = 400;

/** One HTTP GET on a fresh connection, with a deadline; the status line, or why not. */
async function probe(port: number, path: string, ms = 3000): Promise<string> {
  let conn: Deno.Conn;
  try {
    conn = await Deno.connect({ hostname: "127.0.0.1", port });
  } catch (e) {
    return `connect failed: ${(e as Error).message}`;
  }
  try {
    await conn.write(
      new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`),
    );
    const buf = new Uint8Array(4096);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      conn.read(buf),
      new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), ms)),
    ]).catch((e) => `read failed: ${(e as Error).message}`);
    clearTimeout(timer);
    if (typeof n === "string") return n;
    return new TextDecoder().decode(buf.subarray(0, n ?? 0)).split("\r\n")[0];
  } finally {
    conn.close();
  }
}

/** `statuses` with runs of the same one folded: `a ×3 | b`. */
function folded(statuses: string[]): string {
  const runs: [string, number][] = [];
  for (const status of statuses) {
    const last = runs.at(-1);
    if (last?.[0] === status) last[1]++;
    else runs.push([status, 1]);
  }
  return runs.map(([status, n]) => n > 1 ? `${status} ×${n}` : status).join(" | ");
}

for (const engine of ["ws", "deno"]) {
  Deno.test(`${engine} engine: a flood past the open-file limit, then a new connection is served`, async (t) => {
    const dataDir = await Deno.makeTempDir();
    const server = await startTestServer({
      process: true,
      dataDir,
      env: { WS_ENGINE: engine },
      wrap: ["prlimit", `--nofile=${FD_LIMIT}`],
    });
    const port = Number(new URL(server.url).port);
    const held: Deno.Conn[] = [];
    /** Reads pending on the held connections; each settles when the server cuts its connection. */
    const reads: Promise<void>[] = [];
    let cut = 0;
    let flooded = 0;
    try {
      await t.step("the start-up log prints the open-file limit and the caps", () => {
        assert.match(server.output(), new RegExp(`open files: ${FD_LIMIT} \\(hard ${FD_LIMIT}\\)`));
        assert.match(server.output(), /connections at most 96, 256 per address/);
      });
      await t.step(
        "the attacker holds more connections than the server has descriptors",
        async () => {
          for (let i = 0; i < FLOOD; i++) {
            try {
              held.push(await Deno.connect({ hostname: "127.0.0.1", port }));
            } catch {
              break;
            }
          }
          // `Deno.serve` stops listening when accept fails (connects are refused until it is
          // served again); `node:net` leaves the rest in the kernel's backlog.
          assert.ok(held.length > FD_LIMIT - 64, `held ${held.length}`);
          flooded = held.length;
          // The flood is held until the server is at its limit: it cuts one of the attacker's
          // connections (`ws`: refused past the connection cap; `deno`: its listener failed on
          // the open-file limit, resetting what waited in its backlog), or, its listener failed,
          // it refuses a newcomer outright (`deno`, when nothing was reset). While the flood
          // lasts a newcomer is refused (or waits): nothing to assert but survival.
          for (const conn of held) {
            reads.push(conn.read(new Uint8Array(1)).then(() => {}, () => {}).finally(() => cut++));
          }
          const refusesNewcomers = async () => {
            try {
              (await Deno.connect({ hostname: "127.0.0.1", port })).close();
              return false;
            } catch {
              return true;
            }
          };
          await eventually(
            "the server cut one of the attacker's connections or refuses newcomers",
            // (Only `deno` is asked: `node:net` leaves connects in a backlog that may be full,
            // where a connect would wait on SYN retries.)
            async () => cut > 0 || (engine === "deno" && await refusesNewcomers()),
            5000,
            100,
          );
        },
      );
      await t.step("after the attacker leaves, new connections are served", async () => {
        for (const conn of held.splice(0)) conn.close();
        await Promise.all(reads);
        const results: string[] = [];
        const left = performance.now();
        // The server recovers by itself within a few seconds (the watchdog looks every second).
        await eventually("a new connection is served", async () => {
          const status = await probe(port, "/healthz", 1500);
          results.push(status);
          return status.startsWith("HTTP/1.1 200");
        }, 8000).catch(() => {}); // the assertion below says what the probes saw
        assert.match(
          results.at(-1)!,
          /^HTTP\/1\.1 200/,
          `probes: ${folded(results)}\n${server.output()}`,
        );
        for (let i = 0; i < 3; i++) assert.match(await probe(port, "/healthz"), /^HTTP\/1\.1 200/);
        console.log(
          `fd flood (${engine}): ${flooded} connections held against ${FD_LIMIT} descriptors; ` +
            `served again ${Math.round(performance.now() - left)} ms after the attacker left ` +
            `(${results.length} probes: ${folded(results)}), then 3 of 3`,
        );
      });
    } finally {
      for (const conn of held) conn.close();
      await Promise.all(reads);
      const status = await server.kill("SIGTERM");
      assert.ok(status.code === 0 || status.signal === "SIGTERM", server.output());
      await Deno.remove(dataDir, { recursive: true });
    }
  });
}
