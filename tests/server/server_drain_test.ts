/**
 * The slow-reader budget also watches what a socket does not drain, not only how much it holds:
 * on the `ws` engine what the peer never confirmed reading (kernel buffers included), and a
 * welcome's bytes from the moment it is sent.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../../testing/test_server.ts";
import { TestClient } from "../../testing/test_client.ts";
import { maskedFrame, rawUpgrade, TEXT } from "../../testing/raw_ws.ts";
import { eventually } from "../../testing/wait.ts";
import { DEFAULT_RATE_LIMITS } from "../../server/config.ts";
import {
  CLOSE_SLOW_CONSUMER,
  DRAIN_DEADLINE_MS,
  DRAIN_FLOOR_BYTES,
  Peer,
} from "../../server/scene/peer.ts";

function fakePeer(bufferedAmount: number) {
  let nowMs = 0;
  const closes: number[] = [];
  const socket = {
    readyState: 1,
    bufferedAmount,
    sent: [] as string[],
    send(data: string) {
      this.sent.push(data);
    },
    close(code: number) {
      closes.push(code);
    },
  };
  const stats = { messagesSent: 0, slowConsumersDropped: 0 };
  const peer = new Peer({
    id: "p1",
    name: "Still Stoat",
    color: "#ffffff",
    socket,
    limits: DEFAULT_RATE_LIMITS,
    maxBufferedBytes: 1 << 20,
    stats,
    monotonic: () => {
      clockReads++;
      return nowMs;
    },
  });
  let clockReads = 0;
  return {
    peer,
    socket,
    closes,
    stats,
    at: (ms: number) => nowMs = ms,
    clockReads: () => clockReads,
  };
}

Deno.test("a socket under the drain floor is checked without reading the clock", () => {
  // The heartbeat checks every listener; a clock read is a call into the runtime (it made a
  // pass over 1000 peers ten times slower).
  const { peer, socket, closes, clockReads } = fakePeer(DRAIN_FLOOR_BYTES);
  for (let i = 0; i < 100; i++) peer.sendChecked("tick");
  assert.equal(clockReads(), 0);
  assert.equal(socket.sent.length, 100);
  assert.deepEqual(closes, []);
});

Deno.test("a socket that keeps a backlog under the cap past the drain deadline is closed 1013", () => {
  const { peer, socket, closes, stats, at } = fakePeer(DRAIN_FLOOR_BYTES + 1);
  peer.sendChecked("welcome");
  at(DRAIN_DEADLINE_MS - 1);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [], "still within the deadline");
  at(DRAIN_DEADLINE_MS);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [CLOSE_SLOW_CONSUMER]);
  assert.equal(stats.slowConsumersDropped, 1);
  assert.deepEqual(socket.sent, ["welcome", "tick"]);
});

Deno.test("a socket that drains in time is never closed", () => {
  const { peer, socket, closes, at } = fakePeer(DRAIN_FLOOR_BYTES + 1);
  peer.sendChecked("welcome");
  at(DRAIN_DEADLINE_MS / 2);
  socket.bufferedAmount = 0;
  peer.sendChecked("tick");
  socket.bufferedAmount = DRAIN_FLOOR_BYTES + 1;
  at(DRAIN_DEADLINE_MS);
  peer.sendChecked("tick");
  at(DRAIN_DEADLINE_MS * 1.4);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [], "the clock restarted when it drained");
});

Deno.test("a socket the kernel took everything from but whose peer never confirmed is closed 1013", () => {
  // What the process holds reads 0 (the kernel has it); the engine still sees it undrained.
  const { peer, socket, closes, at } = fakePeer(0);
  const undrained = { bytes: 0, confirmed: 0 };
  Object.assign(socket, { undrained: () => undrained });
  peer.sendChecked("welcome");
  undrained.bytes = DRAIN_FLOOR_BYTES + 1;
  at(1);
  peer.sendChecked("tick");
  at(1 + DRAIN_DEADLINE_MS);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [CLOSE_SLOW_CONSUMER]);
});

Deno.test("a peer confirming as it reads a fast stream is never closed, however much is in flight", () => {
  const { peer, socket, closes, at } = fakePeer(0);
  const undrained = { bytes: 4 * DRAIN_FLOOR_BYTES, confirmed: 0 };
  Object.assign(socket, { undrained: () => undrained });
  for (let ms = 0; ms <= 3 * DRAIN_DEADLINE_MS; ms += 50) {
    at(ms);
    // Always more than the floor unconfirmed, but confirmations keep coming.
    if (ms % 500 === 0) undrained.confirmed += 1000;
    peer.sendChecked("tick");
  }
  assert.deepEqual(closes, []);
  // Then the confirmations stop: closed one deadline after the last one.
  const last = 3 * DRAIN_DEADLINE_MS - (3 * DRAIN_DEADLINE_MS) % 500;
  at(last + DRAIN_DEADLINE_MS - 1);
  peer.sendChecked("tick");
  assert.deepEqual(closes, []);
  at(last + DRAIN_DEADLINE_MS);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [CLOSE_SLOW_CONSUMER]);
});

Deno.test("a big welcome starts the drain clock when it is sent, not at the next check", () => {
  const { peer, socket, closes, at } = fakePeer(0);
  // The welcome itself stays unsent (a peer that never reads).
  socket.send = function (data: string) {
    this.sent.push(data);
    this.bufferedAmount += DRAIN_FLOOR_BYTES + data.length;
  };
  peer.sendChecked("welcome");
  at(DRAIN_DEADLINE_MS);
  peer.sendChecked("tick");
  assert.deepEqual(closes, [CLOSE_SLOW_CONSUMER], "the welcome's own bytes count from t = 0");
});

Deno.test("a ws-engine peer that never reads is dropped although the kernel holds its welcome", async () => {
  const fast = { perSecond: 100_000, burst: 100_000 };
  const server = await startTestServer({
    wsEngine: "ws",
    drainDeadlineMs: 1500,
    rateLimits: { ...DEFAULT_RATE_LIMITS, settings: fast, frames: fast },
    eventsPerMinute: 100_000_000,
  });
  const port = Number(new URL(server.url).port);
  let raw: Deno.TcpConn | undefined;
  try {
    // A scene whose welcome is ~100 KiB: 1500 settings changes inside the window.
    const { client, welcome } = await TestClient.join(server.url, "drain-kernel-1");
    for (let i = 0; i < 1500; i++) {
      client.submit({
        type: "settings",
        settings: { snow: i % 2 ? 0.25 : 0.75, windSpeed: i % 9 },
      });
    }
    await client.waitForCount((m) => m.t === "event" && m.by === welcome.you.id, 1500, 30_000);
    const dropped = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/^snowfire_slow_consumers_total (\d+)/m.exec(text)?.[1]);
    };
    assert.equal(await dropped(), 0);
    // Hello, then never a read: the welcome fits in loopback's kernel buffers, so the process
    // holds nothing (bufferedAmount 0) and only the missing confirmation shows the peer is stuck.
    raw = await rawUpgrade(port, "drain-kernel-1");
    await raw.write(maskedFrame(TEXT, new TextEncoder().encode('{"t":"hello"}')));
    await eventually(
      "the never-reading peer is dropped as slow",
      async () => await dropped() > 0,
      20_000,
    );
    assert.equal(await dropped(), 1, "the never-reading peer was dropped as slow");
    // The reading client (whose WebSocket answers the confirmations) is still served.
    const before = client.messages.length;
    await client.waitForCount(() => true, before + 5, 20_000);
    await client.close();
  } finally {
    raw?.close();
    await server.shutdown();
  }
});
