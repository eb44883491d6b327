/**
 * Durability: after a graceful restart or a `kill -9`, a scene keeps its epoch, seq continues
 * without gap or reuse, clients resume, ticks never go back, and the show stays the seed's show.
 */
import assert from "node:assert/strict";
import type { SceneEvent } from "../../shared/types.ts";
import { derivedLaunches, sourcesOf } from "../../shared/derived.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { worldFromWindow } from "../../shared/world.ts";
import { SceneStore } from "../../server/local/store.ts";
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
  // The show is derived from the seed and the settings by every world (issue 33, item 4): a
  // restart stores none of it, and the welcome after it rebuilds the same sky as a world that
  // followed the scene from tick 0. Scene time runs 8x faster.
  const fast = {
    now: () => performance.timeOrigin + performance.now() * 8,
    monotonic: () => performance.now() * 8,
  };
  const dataDir = await tempDir();
  const scene = "encore-1";
  for (let run = 0; run < 2; run++) {
    const server = await startTestServer({ dataDir, ...fast });
    try {
      const { client, welcome } = await TestClient.join(server.url, scene);
      if (run === 0) client.submit({ type: "settings", settings: { theme: "red-gold" } });
      await client.waitFor((m) => m.t === "tick" && m.n > welcome.horizon + 240, 10_000);
      await client.close();
    } finally {
      await server.shutdown();
    }
  }
  const stored = new SceneStore(dataDir);
  const log = stored.eventsFromSeq(scene, 1, 10_000);
  await stored.close();
  const server = await startTestServer({ dataDir, ...fast });
  try {
    const { client, welcome } = await TestClient.join(server.url, scene);
    assertGapFree(log);
    assert.deepEqual(log.map((e) => e.body.type), ["settings"], "only the settings change stored");
    const options = { seed: welcome.seed, capacity: welcome.skyCap, tick: welcome.horizon };
    const late = worldFromWindow({
      ...options,
      snapshot: welcome.snapshot,
      events: welcome.events,
    });
    const whole = worldFromWindow({ ...options, snapshot: initialSnapshot(), events: log });
    const show = derivedLaunches(
      welcome.seed,
      sourcesOf(welcome.snapshot),
      welcome.horizon - 300,
      welcome.horizon,
    );
    assert.ok(show.length >= 3, "the show flies in the window");
    assert.equal(late.hash(), whole.hash(), "the same sky as from tick 0");
    await client.close();
  } finally {
    await server.shutdown();
    await Deno.remove(dataDir, { recursive: true });
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
