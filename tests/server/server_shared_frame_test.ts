/**
 * A broadcast's `SharedFrame` over real sockets, on both engines: each socket gets exactly the
 * frames sent to it, in order, with its own frames in between; the `ws` engine encodes a shared
 * frame once for all sockets; a closing socket gets nothing more; and what a shared frame leaves
 * in the process still counts in the socket's backlog (so slow readers stay bounded).
 */
import assert from "node:assert/strict";
import { listen } from "../../server/ws/ws_engine.ts";
import type { Listener, WsEngine } from "../../server/ws/ws_engine.ts";
import type { ConnSocket } from "../../server/ws/ws_socket.ts";
import { NodeConnSocket } from "../../server/ws/ws_node.ts";
import { SharedFrame } from "../../server/scene/shared_frame.ts";
import { rawUpgrade, readAll } from "../../testing/raw_ws.ts";
import { eventually } from "../../testing/wait.ts";

/** A listener whose every upgrade is accepted; its sockets, in the order they came. */
async function acceptAll(engine: WsEngine): Promise<{ listener: Listener; sockets: ConnSocket[] }> {
  const sockets: ConnSocket[] = [];
  const listener = await listen(engine, (request, env) => {
    const { socket, response } = env.upgrade!(request);
    socket.listen({ message() {}, oversized() {}, close() {} });
    sockets.push(socket);
    return response;
  }, { port: 0, hostname: "127.0.0.1", maxFrameBytes: 1 << 20, log: () => {} });
  return { listener, sockets };
}

interface Client {
  ws: WebSocket;
  got: string[];
  closed: Promise<void>;
}

/** A browser-style client that keeps every text frame it receives. */
async function client(port: number): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/s/shared/ws`);
  const got: string[] = [];
  ws.onmessage = (e) => got.push(e.data);
  const closed = new Promise<void>((resolve) => ws.onclose = () => resolve());
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  return { ws, got, closed };
}

for (const engine of ["ws", "deno"] as const) {
  Deno.test(`${engine} engine: a shared frame reaches each socket once, in order with its own frames`, async () => {
    const { listener, sockets } = await acceptAll(engine);
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 3; i++) clients.push(await client(listener.port));
      await eventually(
        "three sockets are open",
        () => sockets.length === 3 && sockets.every((s) => s.readyState === 1),
      );
      const first = new SharedFrame('{"t":"tick","n":60}');
      // Over 65535 bytes: the 64-bit length form.
      const big = new SharedFrame(JSON.stringify({ t: "event", pad: "❄".repeat(30_000) }));
      sockets.forEach((socket, i) => {
        socket.send(`own ${i} a`);
        socket.sendShared(first);
      });
      const wire = first.wire;
      if (engine === "ws") assert.ok(wire instanceof Uint8Array, "the ws engine encoded it");
      else assert.equal(wire, undefined, "the deno engine frames natively");
      // The last socket starts closing: it gets nothing after its close.
      sockets[2].close(1000, "bye");
      sockets.forEach((socket, i) => {
        socket.send(`own ${i} b`);
        socket.sendShared(big);
        socket.sendShared(first);
      });
      assert.equal(first.wire, wire, "encoded once, the same bytes for every socket");
      await eventually(
        "two clients got five frames",
        () => clients[0].got.length === 5 && clients[1].got.length === 5,
      );
      await clients[2].closed;
      for (const i of [0, 1]) {
        assert.deepEqual(clients[i].got, [
          `own ${i} a`,
          first.text,
          `own ${i} b`,
          big.text,
          first.text,
        ]);
      }
      assert.deepEqual(clients[2].got, ["own 2 a", first.text]);
    } finally {
      for (const c of clients) {
        if (c.ws.readyState <= 1) c.ws.close();
        await c.closed;
      }
      await listener.close();
    }
  });
}

Deno.test("ws engine: shared frames a peer does not read count in its backlog", async () => {
  const { listener, sockets } = await acceptAll("ws");
  const raw = await rawUpgrade(listener.port, "shared");
  try {
    await eventually(
      "the socket is open",
      () => sockets.length === 1 && sockets[0].readyState === 1,
    );
    const socket = sockets[0] as NodeConnSocket;
    const frame = new SharedFrame("x".repeat(256 * 1024));
    // 16 MiB to a peer that never reads: more than loopback's kernel buffers take.
    for (let i = 0; i < 64; i++) socket.sendShared(frame);
    assert.ok(
      socket.bufferedAmount > 1024 * 1024,
      `the process holds what the kernel did not take (bufferedAmount ${socket.bufferedAmount})`,
    );
    assert.equal(socket.undrained().bytes, 64 * frame.text.length, "all of it unconfirmed");
  } finally {
    raw.close();
    await listener.close();
  }
});

Deno.test("ws engine: nothing shared is written after a socket's close frame", async () => {
  const { listener, sockets } = await acceptAll("ws");
  const raw = await rawUpgrade(listener.port, "shared");
  try {
    await eventually("the socket is open", () => sockets[0]?.readyState === 1);
    const frame = new SharedFrame('{"t":"tick","n":120}');
    sockets[0].sendShared(frame);
    // Hard: the server ends the connection itself shortly after its close frame.
    sockets[0].close(1000, "bye", true);
    sockets[0].sendShared(frame);
    sockets[0].send("after");
    const { texts, closeCode } = await readAll(raw);
    assert.deepEqual(texts, [frame.text]);
    assert.equal(closeCode, 1000);
    // The server's end of the connection is gone too before the listener closes (else the
    // resource sanitizer may still see it accepted and open).
    await eventually("the server's socket is closed", () => sockets[0].readyState === 3);
  } finally {
    try {
      raw.close();
    } catch {
      // Closed by readAll's deadline already.
    }
    await listener.close();
  }
});
