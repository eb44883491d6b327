/** Connection caps per address and in total, the open-file limit, and timeouts for plain HTTP. */
import assert from "node:assert/strict";
import { ConnectionGuard, FD_RESERVE } from "../../server/ws/conn_guard.ts";
import { parseFdLimit } from "../../server/ws/fd_limit.ts";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

Deno.test("ConnectionGuard counts per address and in total", () => {
  const guard = new ConnectionGuard(3, 2);
  assert.equal(guard.admit("10.0.0.1"), null);
  assert.equal(guard.admit("::ffff:10.0.0.1"), null, "a mapped IPv4 address is the same address");
  assert.equal(guard.admit("10.0.0.1"), "address_full");
  assert.equal(guard.admit("2001:db8::1"), null);
  assert.equal(guard.admit("2001:db8::2"), "server_full");
  guard.release("10.0.0.1");
  assert.equal(guard.of("10.0.0.1"), 1);
  assert.equal(guard.admit("2001:db8::2"), null);
  assert.equal(guard.admit("2001:db8::3"), "server_full");
  assert.deepEqual(guard.refused, { address_full: 1, server_full: 2 });
});

Deno.test("ConnectionGuard keeps a reserve of descriptors", () => {
  assert.equal(new ConnectionGuard(10_000, 100, 1024).total, 1024 - FD_RESERVE);
  assert.equal(new ConnectionGuard(500, 100, 1024).total, 500);
  assert.equal(new ConnectionGuard(500, 100, Infinity).total, 500);
});

Deno.test("parseFdLimit reads /proc limits", () => {
  const text = "Limit                     Soft Limit           Hard Limit           Units\n" +
    "Max open files            1024                 unlimited            files\n";
  assert.deepEqual(parseFdLimit(text), { soft: 1024, hard: Infinity });
  assert.deepEqual(parseFdLimit("nothing"), { soft: undefined, hard: undefined });
});

async function readAll(conn: Deno.Conn, ms: number): Promise<{ text: string; closed: boolean }> {
  const buf = new Uint8Array(4096);
  let text = "";
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      conn.read(buf).catch(() => null),
      new Promise<"wait">((resolve) =>
        timer = setTimeout(() => resolve("wait"), deadline - performance.now())
      ),
    ]);
    clearTimeout(timer);
    if (n === "wait") return { text, closed: false };
    if (n === null) return { text, closed: true };
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return { text, closed: false };
}

for (const engine of ["ws", "deno"] as const) {
  Deno.test(`${engine} engine: one address holds at most maxConnectionsPerAddress`, async () => {
    await withServer({ wsEngine: engine, maxConnectionsPerAddress: 2 }, async (server) => {
      const a = await TestClient.join(server.url, "cap-scene");
      const b = await TestClient.join(server.url, "cap-scene");
      const res = await fetch(`${server.url}/healthz`);
      assert.equal(res.status, 503);
      assert.equal((await res.json()).error.code, "too_many_connections");
      await a.client.close();
      await b.client.close();
      await eventually("served again once the sockets closed", async () => {
        const again = await fetch(`${server.url}/healthz`);
        await again.body?.cancel();
        return again.status === 200;
      });
    });
  });
}

Deno.test("ws engine: silent and slow-header connections are closed; WebSockets stay", async () => {
  await withServer({ httpIdleMs: 300, headersTimeoutMs: 600 }, async (server) => {
    const port = Number(new URL(server.url).port);
    const { client } = await TestClient.join(server.url, "idle-scene");
    const silent = await Deno.connect({ hostname: "127.0.0.1", port });
    const started = performance.now();
    assert.deepEqual(await readAll(silent, 3000), { text: "", closed: true });
    const silentMs = performance.now() - started;
    assert.ok(silentMs >= 250 && silentMs < 2000, `silent closed after ${silentMs} ms`);
    silent.close();
    // A slowloris keeps sending a header byte now and then (every 100 ms, well inside the idle
    // time): the idle timer never fires; the headers timeout closes it.
    const slow = await Deno.connect({ hostname: "127.0.0.1", port });
    await slow.write(new TextEncoder().encode("GET /healthz HTTP/1.1\r\n"));
    const slowStarted = performance.now();
    let closed = false;
    const reading = (async () => {
      const buf = new Uint8Array(4096);
      try {
        while (await slow.read(buf) !== null) {
          // Whatever it answers before closing.
        }
      } catch {
        // Reset by the server (or closed below when it never did).
      }
      closed = true;
    })();
    const writes: Promise<unknown>[] = [];
    const trickle = setInterval(() => {
      writes.push(slow.write(new TextEncoder().encode("x")).catch(() => {}));
    }, 100);
    await eventually("the server closed the slowloris", () => closed, 3000).catch(() => {});
    const slowMs = performance.now() - slowStarted;
    clearInterval(trickle);
    const closedByServer = closed;
    slow.close();
    await Promise.all([reading, ...writes]);
    assert.ok(
      closedByServer && slowMs < 1500,
      `slowloris closed: ${closedByServer} after ${slowMs} ms`,
    );
    assert.equal(client.socket.readyState, WebSocket.OPEN, "the WebSocket outlived both timeouts");
    await client.close();
  });
});
