/**
 * Scene limits: a scene is stored only once someone says hello in it, an empty scene stops its
 * show and stores nothing, each client address has a budget for new scenes, and the number of
 * loaded scenes is capped with a clear refusal (page and WebSocket error); new connections per
 * address are budgeted too.
 */
import assert from "node:assert/strict";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { eventually, sleep } from "../../testing/wait.ts";

/** Scene time 8× faster, so a few seconds hold many scheduled show launches. */
const FAST = {
  now: () => performance.timeOrigin + performance.now() * 8,
  monotonic: () => performance.now() * 8,
};

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  assert.ok(match, `${name} in /metrics`);
  return Number(match[1]);
}

Deno.test("a scene nobody says hello in is never stored", async () => {
  await withServer({}, async (server) => {
    const ghost = await TestClient.connect(server.url, "ghost-1");
    await sleep(100);
    await ghost.close();
    await sleep(100);
    const res = await fetch(`${server.url}/api/scenes/ghost-1`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
    assert.equal(await metric(server.url, "snowfire_scenes_stored"), 0);
    assert.equal(await metric(server.url, "snowfire_scenes_loaded"), 0, "unloaded at once");
  });
});

Deno.test("an empty scene stops its show and stores nothing", async () => {
  await withServer({ ...FAST }, async (server) => {
    const scene = "lonely-1";
    const { client } = await TestClient.join(server.url, scene);
    // While someone watches, the show launches (control: the schedule is dense at 8×).
    await client.waitFor((m) => m.t === "event" && m.by === "show", 10_000);
    await client.close();
    await sleep(100);
    const before = (await (await fetch(`${server.url}/api/scenes/${scene}`)).json()).lastSeq;
    // 2 s here are 16 s of scene time: about ten show launches if the show kept running.
    await sleep(2000);
    const info = await (await fetch(`${server.url}/api/scenes/${scene}`)).json();
    assert.equal(info.lastSeq, before, "no show event was stamped or stored while nobody watched");
    // The next visitor gets the show again, from the present. It restarts as soon as the socket
    // is in the room, so its first launch may be stamped before this welcome is built.
    const { client: again, welcome } = await TestClient.join(server.url, scene);
    assert.ok(welcome.lastSeq >= before);
    await again.waitFor((m) => m.t === "event" && m.by === "show", 10_000);
    const log = await (await fetch(`${server.url}/api/scenes/${scene}/log?from=${before + 1}`))
      .json();
    assert.ok(log.events.length >= 1);
    // Nothing from the empty spell (~960 ticks at 8×) is back-filled: every new launch is at or
    // after the tick the scene had when it was last seen empty, give or take one pass.
    for (const event of log.events) {
      assert.ok(event.tick >= info.tick - 60, `tick ${event.tick} vs empty until ${info.tick}`);
    }
    await again.close();
  });
});

Deno.test("each address has a budget for new scenes; joining existing ones is not limited", async () => {
  await withServer({ newScenes: { perSecond: 0.01, burst: 3 } }, async (server) => {
    const joined: TestClient[] = [];
    for (let i = 0; i < 3; i++) {
      joined.push((await TestClient.join(server.url, `mine-${i}`)).client);
    }
    const over = await TestClient.connect(server.url, "mine-3");
    const refusal = await over.waitFor((m) => m.t === "error");
    assert.ok(refusal.t === "error");
    assert.equal(refusal.code, "rate_limited");
    assert.match(refusal.message, /too many new scenes from your address/);
    assert.ok(refusal.retryAfterMs! > 0);
    assert.equal((await over.closed).code, 1008);
    const page = await fetch(`${server.url}/s/mine-4`, { headers: { accept: "text/html" } });
    assert.equal(page.status, 429);
    assert.match(await page.text(), /too many new scenes/);
    const { client: again } = await TestClient.join(server.url, "mine-1");
    await Promise.all([again.close(), ...joined.map((c) => c.close())]);
  });
});

Deno.test("past the loaded-scene cap a new scene is refused until one empties", async () => {
  await withServer({ maxScenes: 2 }, async (server) => {
    const { client: a } = await TestClient.join(server.url, "cap-a");
    const { client: b } = await TestClient.join(server.url, "cap-b");
    const c = await TestClient.connect(server.url, "cap-c");
    const refusal = await c.waitFor((m) => m.t === "error");
    assert.ok(refusal.t === "error");
    assert.equal(refusal.code, "server_busy");
    assert.match(refusal.message, /already runs 2 scenes/);
    assert.equal((await c.closed).code, 1013);
    const page = await fetch(`${server.url}/s/cap-c`, { headers: { accept: "text/html" } });
    assert.equal(page.status, 503);
    assert.match(await page.text(), /<h1>503<\/h1>[\s\S]*server_busy/);
    // An empty scene makes room (it is unloaded early, its state stored).
    await a.close();
    await eventually("cap-a is empty", async () => {
      const info = await (await fetch(`${server.url}/api/scenes/cap-a`)).json();
      return info.people.length === 0;
    });
    const { client: c2 } = await TestClient.join(server.url, "cap-c");
    assert.equal(await metric(server.url, "snowfire_scenes_loaded"), 2);
    await Promise.all([b.close(), c2.close()]);
  });
});

Deno.test("each address has a budget for new connections, refused before the upgrade", async () => {
  await withServer({ connections: { perSecond: 0.5, burst: 3 } }, async (server) => {
    const open: TestClient[] = [];
    for (let i = 0; i < 3; i++) open.push(await TestClient.connect(server.url, "door-1"));
    await assert.rejects(TestClient.connect(server.url, "door-1"));
    const res = await fetch(`${server.url}/s/door-1/ws`, {
      headers: { upgrade: "websocket", connection: "Upgrade" },
    });
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
    assert.equal((await res.json()).error.code, "rate_limited");
    await Promise.all(open.map((c) => c.close()));
  });
});
