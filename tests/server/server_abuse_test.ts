/**
 * Bad input and abuse (in-process server): every kind of bad frame gets its precise error and
 * changes nothing; refusals are coalesced; floods are rate-limited without touching anyone else;
 * a burst fills the sky; too-large frames close with 1009; full rooms, foreign origins and invalid
 * scene ids are refused; slow readers are dropped. Attacks measured on a child server process
 * are in server_flood_test.ts.
 */
// test tiers: alone
import assert from "node:assert/strict";
import { eventCost } from "../../shared/budget.ts";
import type { ServerMessage } from "../../shared/protocol.ts";
import { DEFAULT_RATE_LIMITS } from "../../server/config.ts";
import { CLOSE_SLOW_CONSUMER, Peer } from "../../server/scene/peer.ts";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

/** A submitted launch body with the given fields (valid or not). */
function launch(fields: Record<string, unknown>): unknown {
  return { t: "submit", body: { type: "launch", ...fields } };
}

const QUIET = { t: "submit", body: { type: "settings", settings: { show: false } } };
const isError = (m: ServerMessage) => m.t === "error";

/**
 * A server monotonic clock on real time that the test can move ahead: `skip(ms)` makes `ms` pass
 * for the server at once (its rate limits and refusal notices run on this clock).
 */
function skippingClock(): { monotonic: () => number; skip: (ms: number) => void } {
  let skippedMs = 0;
  return {
    monotonic: () => performance.now() + skippedMs,
    skip: (ms) => skippedMs += ms,
  };
}

Deno.test("each bad frame gets its own precise error and changes nothing", async () => {
  // Every refusal answered (no coalescing), so each case can be checked on its own.
  await withServer({ refusalNoticeMs: 0 }, async (server) => {
    const scene = "bad-input-1";
    const fresh = await TestClient.connect(server.url, scene);
    fresh.submit({ type: "launch", x: 0, z: 0 });
    const early = await fresh.waitFor(isError);
    assert.deepEqual(early, {
      t: "error",
      code: "bad_message",
      message: "launch: send hello first",
    });
    await fresh.close();

    const { client: bad, welcome } = await TestClient.join(server.url, scene);
    bad.send(QUIET);
    await bad.waitFor((m) => m.t === "event" && m.body.type === "settings");
    const { client: bystander } = await TestClient.join(server.url, scene);
    const before = (await (await fetch(`${server.url}/api/scenes/${scene}`)).json()).lastSeq;

    const cases: [unknown, string, RegExp][] = [
      ["{not json", "bad_message", /^invalid JSON/],
      [{ t: "dance" }, "bad_message", /^t: Invalid discriminator value/],
      [{ x: 1 }, "bad_message", /^t: /],
      ['{"t":"launch","x":1,"z":1}', "bad_message", /^t: Invalid discriminator value/],
      [{ t: "submit" }, "bad_message", /^submit\.body: /],
      [{ t: "submit", body: { type: "dance" } }, "bad_message", /^submit\.body\.type: /],
      [launch({ x: 1 }), "bad_message", /^launch\.z: .*expected number/],
      [launch({ x: 91, z: 0 }), "bad_message", /^launch\.x: Too big/],
      [launch({ x: 1, z: 1, boom: true }), "bad_message", /^launch: Unrecognized key/],
      [
        { t: "submit", body: { type: "gun", origin: [0, 1, 0], direction: [0, 0, 0] } },
        "bad_message",
        /direction must not be zero/,
      ],
      [
        { t: "submit", body: { type: "settings", settings: {} } },
        "bad_message",
        /settings must change at least one field/,
      ],
      [
        { t: "submit", body: { type: "settings", settings: { snow: 2 } } },
        "bad_message",
        /^settings\.settings\.snow: Too big/,
      ],
      [{ t: "submit", body: { type: "launch", x: 1, z: 1 }, x: 1 }, "bad_message", /^submit: /],
      [{ t: "hash", tick: 61, h: "abc" }, "bad_message", /not a multiple of 60/],
      [{ t: "hash", tick: 60 * 1e6, h: "abc" }, "bad_message", /in the future/],
      [{ t: "hello" }, "bad_message", /already received/],
      [new Uint8Array([1, 2, 3]), "bad_message", /binary frames are not accepted/],
    ];
    for (const [i, [frame, code, message]] of cases.entries()) {
      bad.send(frame);
      const errors = await bad.waitForCount(isError, i + 1);
      const got = errors[i];
      assert.ok(got.t === "error");
      assert.equal(got.code, code, `case ${i}: ${JSON.stringify(frame).slice(0, 60)}`);
      assert.match(got.message, message, `case ${i}`);
    }
    bad.send({ t: "ping", id: 7, ct: 123.5 });
    const pong = await bad.waitFor((m) => m.t === "pong");
    assert.ok(pong.t === "pong" && pong.id === 7 && pong.ct === 123.5 && pong.n > welcome.horizon);

    const after = (await (await fetch(`${server.url}/api/scenes/${scene}`)).json()).lastSeq;
    assert.equal(after, before, "no bad frame became an event");
    assert.equal(bystander.errors().length, 0, "the bystander noticed nothing");
    assert.equal(bystander.events().filter((e) => e.by === welcome.you.id).length, 0);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(
      metrics,
      new RegExp(`^snowfire_refused_total\\{code="bad_message"\\} ${cases.length + 1}$`, "m"),
    );
    await Promise.all([bad.close(), bystander.close()]);
  });
});

Deno.test("a launch flood is rate-limited, answered once, and another client is unaffected", async () => {
  const clock = skippingClock();
  const options = {
    rateLimits: { launch: { perSecond: 2, burst: 5 } },
    monotonic: clock.monotonic,
  };
  await withServer(options, async (server) => {
    const scene = "flood-gate-1";
    const { client: flooder, welcome: wf } = await TestClient.join(server.url, scene);
    flooder.send(QUIET);
    const { client: calm, welcome: wc } = await TestClient.join(server.url, scene);
    for (let i = 0; i < 40; i++) flooder.submit({ type: "launch", x: i % 40, z: 0 });
    calm.submit({ type: "launch", x: -5, z: -5 });
    await calm.waitFor((m) => m.t === "event" && m.by === wc.you.id);
    const limited = await flooder.waitFor((m) => m.t === "error" && m.code === "rate_limited");
    assert.ok(limited.t === "error" && limited.retryAfterMs! > 0 && limited.retryAfterMs! <= 500);
    const accepted = () =>
      calm.events().filter((e) => e.by === wf.you.id && e.body.type === "launch");
    const refused = async () => {
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/^snowfire_refused_total\{code="rate_limited"\} (\d+)$/m.exec(metrics)?.[1]);
    };
    // Every launch is either stamped (and relayed) or refused.
    await eventually(
      "every flood launch was stamped or refused",
      async () => accepted().length + await refused() === 40,
    );
    assert.ok(
      accepted().length >= 5 && accepted().length <= 7,
      `${accepted().length} flood launches got through`,
    );
    assert.equal(flooder.errors().length, 1, "refusals of one kind within a second: one notice");
    assert.equal(calm.errors().length, 0);
    assert.equal(flooder.socket.readyState, WebSocket.OPEN, "over-rate launches are no abuse");
    // The next notice, a second later (on the server's clock), says how many went unanswered.
    clock.skip(1000);
    for (let i = 0; i < 10; i++) flooder.submit({ type: "launch", x: i, z: 1 });
    const [, second] = await flooder.waitForCount((m) => m.t === "error", 2);
    assert.ok(second.t === "error");
    assert.match(second.message, /and \d+ more like it since the last notice/);
    await Promise.all([flooder.close(), calm.close()]);
  });
});

Deno.test("a burst of launches hits sky_full with a retry-after", async () => {
  // Room for about two fireworks: the third and later must be refused until the first ones end.
  const probe = eventCost(1, { seq: 1, tick: 0, by: "p", body: { type: "launch", x: 0, z: 0 } });
  const skyCap = Math.round(probe.particles * 2.2);
  await withServer(
    { skyCap, rateLimits: { launch: { perSecond: 50, burst: 50 } } },
    async (server) => {
      const { client, welcome } = await TestClient.join(server.url, "full-sky-1");
      client.send(QUIET);
      for (let i = 0; i < 8; i++) client.submit({ type: "launch", x: i, z: i });
      const refusedCount = async () => {
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        return Number(/^snowfire_refused_total\{code="sky_full"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
      };
      const stamped = () =>
        client.events().filter((e) => e.by === welcome.you.id && e.body.type === "launch").length;
      await eventually("all eight answered", async () => stamped() + await refusedCount() >= 8);
      assert.ok(await refusedCount() >= 1, "the burst overflowed the sky");
      const refused = await client.waitForCount(isError, 1);
      assert.equal(refused.length, 1, "one notice for the whole burst");
      for (const e of refused) {
        assert.ok(e.t === "error");
        assert.equal(e.code, "sky_full");
        assert.ok(e.retryAfterMs! > 0, "a retry-after comes with it");
      }
      assert.equal(welcome.skyCap, skyCap);
      await client.close();
    },
  );
});

Deno.test("refused frames spend an abuse budget; when it is gone the socket closes with 1008", async () => {
  const refused = { perSecond: 1, burst: 5 };
  await withServer({ rateLimits: { refused } }, async (server) => {
    const noHello = await TestClient.connect(server.url, "budget-1");
    for (let i = 0; i < 10; i++) noHello.send({ t: "ping", id: i, ct: 0 });
    const closed = await noHello.closed;
    assert.equal(closed.code, 1008);
    assert.equal(noHello.errors().length, 1, "one coalesced notice, then the close");
    assert.match(noHello.errors()[0].message, /send hello first/);

    const { client: binary } = await TestClient.join(server.url, "budget-1");
    for (let i = 0; i < 10; i++) binary.send(new Uint8Array([i]));
    assert.equal((await binary.closed).code, 1008);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^snowfire_abusers_closed_total 2$/m);
  });
});

Deno.test("a too-large frame closes the socket with 1009, on both engines", async (t) => {
  for (const wsEngine of ["ws", "deno"] as const) {
    await t.step(wsEngine, async () => {
      await withServer({ wsEngine }, async (server) => {
        // The scene's first joiner is its host, and a host may send a show's longer frame; the
        // 4 KiB limit is a guest's.
        const { client: host } = await TestClient.join(server.url, "big-frame-1");
        try {
          const { client } = await TestClient.join(server.url, "big-frame-1");
          client.send("x".repeat(5000));
          const closed = await client.closed;
          assert.equal(closed.code, 1009);
          const { client: binary } = await TestClient.join(server.url, "big-frame-1");
          binary.send(new Uint8Array(5000));
          assert.equal((await binary.closed).code, 1009);
          const metrics = await (await fetch(`${server.url}/metrics`)).text();
          assert.match(metrics, /^snowfire_refused_total\{code="too_large"\} 2$/m);
        } finally {
          await host.close();
        }
      });
    });
  }
});

Deno.test("a connection that never says hello is closed with 1008 after the timeout", async () => {
  await withServer({ helloTimeoutMs: 300 }, async (server) => {
    // The server's hello timer starts when it accepts the socket, so after `started`; timed from
    // after the polite client's join, a slow join (a loaded machine) made the close look early.
    const started = performance.now();
    const silent = await TestClient.connect(server.url, "silent-1");
    const { client: polite, welcome } = await TestClient.join(server.url, "silent-1");
    assert.equal((await silent.closed).code, 1008);
    assert.ok(performance.now() - started >= 250, "not before the timeout");
    // The polite client's own hello deadline (300 ms after its accept, before its welcome) is
    // swept in a scheduler pass; a heartbeat from a pass 400 ms of scene time after the welcome,
    // then a pong after that pass, come after any close that pass would have sent.
    const past = welcome.horizon + Math.ceil(0.4 * welcome.tickRate);
    await polite.waitFor((m) => m.t === "tick" && m.n >= past);
    polite.send({ t: "ping", id: 1, ct: 0 });
    await polite.waitFor((m) => m.t === "pong" && m.id === 1);
    assert.equal(polite.socket.readyState, WebSocket.OPEN, "a welcomed client stays");
    await polite.close();
  });
});

Deno.test("a full room refuses the next connection with room_full", async () => {
  await withServer({ maxPeers: 2 }, async (server) => {
    const a = await TestClient.connect(server.url, "tiny-room-1");
    const b = await TestClient.connect(server.url, "tiny-room-1");
    const c = await TestClient.connect(server.url, "tiny-room-1");
    const refusal = await c.waitFor(isError);
    assert.equal(refusal.t === "error" && refusal.code, "room_full");
    assert.equal((await c.closed).code, 1013);
    const other = await TestClient.connect(server.url, "tiny-room-2");
    other.send({ t: "hello" });
    await other.waitFor((m) => m.t === "welcome");
    await Promise.all([a.close(), b.close(), other.close()]);
  });
});

Deno.test("a foreign Origin is refused unless allowed", async () => {
  await withServer({ allowedOrigins: ["http://friend.test"] }, async (server) => {
    await assert.rejects(
      TestClient.connect(server.url, "guarded-1", { origin: "http://evil.test" }),
    );
    const friend = await TestClient.connect(server.url, "guarded-1", {
      origin: "http://friend.test",
    });
    const same = await TestClient.connect(server.url, "guarded-1", { origin: server.url });
    await Promise.all([friend.close(), same.close()]);
    const res = await fetch(`${server.url}/s/guarded-1/ws`, {
      headers: { origin: "http://evil.test", upgrade: "websocket" },
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error.code, "forbidden_origin");
  });
});

Deno.test("invalid scene ids are refused before any upgrade", async () => {
  await withServer({}, async (server) => {
    await assert.rejects(TestClient.connect(server.url, "Not_Valid"));
    const res = await fetch(`${server.url}/api/scenes/${"x".repeat(65)}`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, "bad_scene");
  });
});

Deno.test("a peer whose socket falls behind is closed with 1013 instead of buffered", () => {
  const closes: [number, string][] = [];
  const stats = { messagesSent: 0, slowConsumersDropped: 0 };
  const socket = {
    readyState: 1,
    bufferedAmount: 0,
    sent: [] as string[],
    send(data: string) {
      this.sent.push(data);
    },
    close(code: number, reason: string) {
      closes.push([code, reason]);
    },
  };
  const peer = new Peer({
    id: "p1",
    name: "Slow Sloth",
    color: "#ffffff",
    socket,
    limits: DEFAULT_RATE_LIMITS,
    maxBufferedBytes: 1000,
    stats,
  });
  peer.sendChecked("a");
  socket.bufferedAmount = 1001;
  peer.sendChecked("b");
  peer.send("c");
  assert.deepEqual(socket.sent, ["a"], "nothing more is queued once over the cap");
  assert.equal(closes.length, 1);
  assert.equal(closes[0][0], CLOSE_SLOW_CONSUMER);
  assert.deepEqual(stats, { messagesSent: 1, slowConsumersDropped: 1 });
  assert.equal(peer.gone, true);
});

Deno.test("a real client that stops reading is dropped while the others carry on", async () => {
  const frames = { perSecond: 1e6, burst: 1e6 };
  await withServer({ maxBufferedBytes: 64 * 1024, rateLimits: { frames } }, async (server) => {
    const scene = "slow-reader-1";
    const { client: reader, welcome } = await TestClient.join(server.url, scene);
    reader.send(QUIET);
    // A raw TCP client upgrades, says hello, asks for a flood of pongs and never reads a byte.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    const request = `GET /s/${scene}/ws HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
      "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    await conn.write(new TextEncoder().encode(request));
    await conn.write(maskedText(JSON.stringify({ t: "hello", name: "Sloth" })));
    await reader.waitFor((m) => m.t === "presence" && m.peer.name === "Sloth");
    const ping = maskedText(JSON.stringify({ t: "ping", id: 1, ct: 1 }));
    const batch = new Uint8Array(ping.length * 1000);
    for (let i = 0; i < 1000; i++) batch.set(ping, i * ping.length);
    const dropped = () => reader.messages.some((m) => m.t === "presence" && m.kind === "leave");
    // Each batch asks for a thousand pongs the raw client never reads: ask until it is dropped.
    await eventually("the reader saw the raw client dropped", async () => {
      if (!dropped()) await conn.write(batch).catch(() => {});
      return dropped();
    }, 10_000);
    await reader.waitFor((m) => m.t === "presence" && m.kind === "leave", 10_000);
    conn.close();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^snowfire_slow_consumers_total 1$/m);
    reader.submit({ type: "launch", x: 3, z: 3 });
    await reader.waitFor((m) =>
      m.t === "event" && m.by === welcome.you.id && m.body.type === "launch"
    );
    const info = await (await fetch(`${server.url}/api/scenes/${scene}`)).json();
    assert.deepEqual(info.people.map((p: { id: string }) => p.id), [welcome.you.id]);
    // The server's half of the dropped socket finishes closing once the TCP connection is gone:
    // the shutdown at the end of withServer waits until every server socket has ended.
    await reader.close();
  });
});

/** A masked client text frame (RFC 6455: clients mask), for payloads under 126 bytes. */
function maskedText(text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const frame = new Uint8Array(6 + payload.length);
  frame[0] = 0x81;
  frame[1] = 0x80 | payload.length;
  const mask = [0x12, 0x34, 0x56, 0x78];
  frame.set(mask, 2);
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i] ^ mask[i % 4];
  return frame;
}

Deno.test("ws engine: a socket that never answers pings is dropped; one that answers stays", async () => {
  await withServer({ keepaliveMs: 600 }, async (server) => {
    const { client: alive } = await TestClient.join(server.url, "keepalive-1");
    // A raw TCP client upgrades, says hello, and then never reads: it never sees a ping.
    const port = Number(new URL(server.url).port);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const request = `GET /s/keepalive-1/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    await conn.write(new TextEncoder().encode(request));
    await conn.write(maskedText(JSON.stringify({ t: "hello", name: "Ghost" })));
    await alive.waitFor((m) => m.t === "presence" && m.kind === "join" && m.peer.name === "Ghost");
    const left = await alive.waitFor(
      (m) => m.t === "presence" && m.kind === "leave" && m.peer.name === "Ghost",
      5000,
    );
    assert.ok(left);
    assert.equal(alive.socket.readyState, WebSocket.OPEN, "a client that answers pings stays");
    conn.close();
    await alive.close();
  });
});
