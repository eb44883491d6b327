/**
 * Scene limits: a scene is stored only once someone says hello in it, an empty scene stops its
 * show and stores nothing, each client address has a budget for new scenes, and the number of
 * loaded scenes is capped with a clear refusal (page and WebSocket error); new connections per
 * address are budgeted too.
 */
import assert from "node:assert/strict";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

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

/** Waits until the server's scheduler has run `n` more passes (each one visits every room). */
async function passes(url: string, n: number): Promise<void> {
  const from = await metric(url, "snowfire_heartbeat_passes_total");
  await eventually(
    `${n} more scheduler passes ran`,
    async () => await metric(url, "snowfire_heartbeat_passes_total") >= from + n,
  );
}

Deno.test("a scene nobody says hello in is never stored", async () => {
  await withServer({}, async (server) => {
    const ghost = await TestClient.connect(server.url, "ghost-1");
    // The server holds the silent connection in its scene, and its passes (which persist every
    // room's progress) go by without a hello.
    await eventually(
      "the server holds the connection",
      async () => await metric(server.url, "snowfire_connections") === 1,
    );
    assert.equal(await metric(server.url, "snowfire_scenes_loaded"), 1, "the scene is open");
    await passes(server.url, 3);
    await ghost.close();
    await eventually(
      "the server saw the close",
      async () => await metric(server.url, "snowfire_connections") === 0,
    );
    // An empty scene nobody said hello in goes at the next pass.
    await passes(server.url, 2);
    const res = await fetch(`${server.url}/api/scenes/ghost-1`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
    assert.equal(await metric(server.url, "snowfire_scenes_stored"), 0);
    assert.equal(await metric(server.url, "snowfire_scenes_loaded"), 0, "unloaded at once");
  });
});

Deno.test("an idle scene with the show on stores at most one event a minute", async () => {
  // Issue 33, failure 4: 20 silent held scenes stored 14.7 show events a second. The show is now
  // derived by every page from the seed and the settings: watched or not, nothing is stored.
  // The scene clock runs 8x: 4 s here are 32 s of scene time (about 25 show launches).
  await withServer({ ...FAST }, async (server) => {
    const scene = "lonely-1";
    const info = async () => await (await fetch(`${server.url}/api/scenes/${scene}`)).json();
    const { client, welcome } = await TestClient.join(server.url, scene);
    assert.equal(welcome.snapshot.settings.show, true, "the show is on");
    const start = await info();
    // Watched: the show plays (heartbeats promise its ticks), and stores nothing.
    const watched = await client.waitFor((m) => m.t === "tick" && m.n > start.tick + 1200, 10_000);
    assert.ok(watched.t === "tick");
    await client.close();
    await eventually(
      "the server saw the close",
      async () => await metric(server.url, "snowfire_connections") === 0,
    );
    // Unwatched for as long again: until the scene's clock has run that many more ticks.
    const closedTick = watched.n;
    const unwatchedUntil = closedTick + (closedTick - start.tick);
    await eventually(
      "the unwatched scene's clock ran as long again",
      async () => (await info()).tick >= unwatchedUntil,
      10_000,
    );
    const end = await info();
    const minutes = (end.tick - start.tick) / 3600;
    assert.ok(minutes >= 0.5, `${minutes} scene minutes passed`);
    assert.ok(
      end.lastSeq - start.lastSeq <= Math.max(1, minutes),
      `${end.lastSeq - start.lastSeq} events stored in ${minutes.toFixed(2)} scene minutes`,
    );
    assert.equal(client.events().filter((e) => e.by === "show").length, 0, "none was sent");
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
