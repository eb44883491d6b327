/**
 * Durability: after a graceful restart or a `kill -9`, a scene keeps its epoch, seq continues
 * without gap or reuse, clients resume, ticks never go back, and the show stays the seed's show.
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../../shared/protocol.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { showLaunchBody, showLaunches } from "../../shared/show.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

interface LogPage {
  events: SceneEvent[];
  next: number | null;
  epoch: number;
  seed: number;
}

async function fullLog(url: string, scene: string): Promise<LogPage> {
  let from = 1;
  const all: SceneEvent[] = [];
  let page: LogPage;
  do {
    page = await (await fetch(`${url}/api/scenes/${scene}/log?from=${from}&limit=7`)).json();
    all.push(...page.events);
    from = page.next ?? 0;
  } while (page.next !== null);
  return { ...page, events: all };
}

function assertGapFree(events: SceneEvent[]): void {
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
    "seq 1..n, no gap, no reuse",
  );
  for (let i = 1; i < events.length; i++) {
    assert.ok(events[i].tick >= events[i - 1].tick, `tick goes back at seq ${events[i].seq}`);
  }
}

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "snowfire-restart-" });
}

Deno.test("a graceful restart continues the scene and clients resume", async () => {
  const dataDir = await tempDir();
  const scene = "second-life-1";
  const first = await startTestServer({ dataDir });
  const { client, welcome } = await TestClient.join(first.url, scene);
  for (let i = 0; i < 3; i++) client.submit({ type: "launch", x: i, z: -i });
  await client.waitForCount((m) => m.t === "event" && m.by === welcome.you.id, 3);
  const before = await fullLog(first.url, scene);
  await first.shutdown();
  assert.equal((await client.closed).code, 1001, "shutdown says going away");
  const lastSeen = Math.max(welcome.lastSeq, ...client.events().map((e) => e.seq));

  const second = await startTestServer({ dataDir });
  try {
    const { client: back, welcome: again } = await TestClient.join(second.url, scene, {
      lastSeq: lastSeen,
    });
    assert.equal(again.resumed, true);
    assert.equal(again.seed, welcome.seed);
    assert.ok(again.horizon >= before.events[before.events.length - 1].tick);
    back.submit({ type: "launch", x: 9, z: 9 });
    const next = await back.waitFor((m) => m.t === "event" && m.by === again.you.id);
    assert.ok(next.t === "event" && next.seq > lastSeen);
    const after = await fullLog(second.url, scene);
    assert.equal(after.epoch, before.epoch, "the epoch does not move");
    assertGapFree(after.events);
    assert.deepEqual(after.events.slice(0, before.events.length), before.events);
    await back.close();
  } finally {
    await second.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("after kill -9 of a child server the scene continues with no lost or reused seq", async () => {
  const dataDir = await tempDir();
  const scene = "hard-stop-1";
  let server = await startTestServer({ process: true, dataDir });
  try {
    const { client, welcome } = await TestClient.join(server.url, scene);
    for (let i = 0; i < 4; i++) client.submit({ type: "launch", x: i, z: i });
    await client.waitForCount((m) => m.t === "event" && m.by === welcome.you.id, 4);
    const seen = client.events().map(({ t: _t, ...e }) => e);
    const lastSeen = seen[seen.length - 1].seq;
    const status = await server.kill("SIGKILL");
    assert.equal(status.signal, "SIGKILL");
    await client.closed;

    server = await startTestServer({ process: true, dataDir });
    const log = await fullLog(server.url, scene);
    assertGapFree(log.events);
    for (const event of seen) {
      assert.deepEqual(log.events[event.seq - 1], event, "every event a client saw was stored");
    }
    const { client: back, welcome: again } = await TestClient.join(server.url, scene, {
      lastSeq: lastSeen,
    });
    assert.equal(again.resumed, true);
    back.submit({ type: "launch", x: -1, z: -1 });
    const next = await back.waitFor((m) => m.t === "event" && m.by === again.you.id);
    assert.ok(next.t === "event");
    assertGapFree((await fullLog(server.url, scene)).events);
    assert.ok(next.seq > lastSeen);
    await back.close();
  } finally {
    const status = await server.kill("SIGTERM");
    assert.equal(status.code, 0, `graceful exit on SIGTERM:\n${server.output()}`);
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the same seed gives the same show before and after a restart", async () => {
  // Scene time runs 8× faster so a few seconds hold many scheduled launches.
  const fast = {
    now: () => performance.timeOrigin + performance.now() * 8,
    monotonic: () => performance.now() * 8,
  };
  const dataDir = await tempDir();
  const scene = "encore-1";
  let seed = 0;
  const watched: [number, number][] = [];
  for (let run = 0; run < 2; run++) {
    const server = await startTestServer({ dataDir, ...fast });
    try {
      const { client, welcome } = await TestClient.join(server.url, scene);
      seed = welcome.seed;
      const isNewShow = (m: ServerMessage) =>
        m.t === "event" && m.by === "show" && m.tick > welcome.horizon;
      await client.waitForCount(isNewShow, 4, 10_000);
      // Every event with a tick below the last promise (heartbeat or event tick) has arrived.
      const promised = Math.max(
        ...client.messages.map((m) => m.t === "tick" ? m.n : m.t === "event" ? m.tick : 0),
      );
      watched.push([welcome.horizon, promised]);
      await client.close();
    } finally {
      await server.shutdown();
    }
  }
  const server = await startTestServer({ dataDir, ...fast });
  const log = (await fullLog(server.url, scene)).events;
  await server.shutdown();
  await Deno.remove(dataDir, { recursive: true });

  assertGapFree(log);
  const show = log.filter((e) => e.by === "show");
  const ticks = show.map((e) => e.tick);
  assert.equal(new Set(ticks).size, ticks.length, "no show launch was repeated");
  for (const event of show) {
    const [planned] = showLaunches(seed, event.tick, event.tick + 1);
    assert.ok(planned, `a show launch at ${event.tick} that the schedule does not have`);
    assert.deepEqual(event.body, showLaunchBody(planned, "auto"));
  }
  for (const [from, to] of watched) {
    const planned = showLaunches(seed, from + 1, to).map((l) => l.tick);
    const emitted = ticks.filter((t) => t > from && t < to);
    assert.deepEqual(emitted, planned, `every launch scheduled in (${from}, ${to}) came once`);
    assert.ok(planned.length >= 3, `only ${planned.length} launches watched`);
  }
});

Deno.test("a restart after the wall clock stepped back neither reuses nor freezes ticks", async () => {
  const dataDir = await tempDir();
  const scene = "time-warp-1";
  const first = await startTestServer({ dataDir });
  const { client, welcome } = await TestClient.join(first.url, scene);
  client.submit({ type: "launch", x: 1, z: 1 });
  const last = await client.waitFor((m) => m.t === "event" && m.by === welcome.you.id);
  await first.shutdown();
  await client.closed;
  const lastTick = last.t === "event" ? last.tick : Infinity;

  const second = await startTestServer({ dataDir, now: () => Date.now() - 3_600_000 });
  try {
    const { client: back, welcome: again } = await TestClient.join(second.url, scene);
    assert.ok(again.horizon >= lastTick, `horizon ${again.horizon} fell below ${lastTick}`);
    back.submit({ type: "launch", x: 2, z: 2 });
    const next = await back.waitFor((m) => m.t === "event" && m.by === again.you.id);
    assert.ok(next.t === "event" && next.tick >= lastTick);
    await back.waitFor((m) => m.t === "tick" && m.n >= again.horizon + 30, 3000);
    await back.close();
  } finally {
    await second.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});
