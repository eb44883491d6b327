/** The HTTP routes: scene creation, pages, the JSON API, health, metrics, static files, errors. */
import assert from "node:assert/strict";
import { SceneId } from "../shared/protocol.ts";
import { TestClient, withServer } from "./helpers/server_harness.ts";

async function staticFixture(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "snowfire-static-" });
  await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html><title>scene page</title>");
  await Deno.mkdir(`${dir}/build`);
  await Deno.writeTextFile(`${dir}/build/app.js`, "console.log('app');");
  await Deno.writeTextFile(`${dir}/../snowfire-secret.txt`, "outside");
  return dir;
}

Deno.test("routes serve scenes, the API, health, metrics and static files", async (t) => {
  const staticDir = await staticFixture();
  try {
    await withServer({ staticDir }, async (server) => {
      let scene = "";
      await t.step("/ creates a scene with a friendly id and redirects to it", async () => {
        const res = await fetch(`${server.url}/`, { redirect: "manual" });
        await res.body?.cancel();
        assert.equal(res.status, 302);
        const match = /^\/s\/(.+)$/.exec(res.headers.get("location") ?? "");
        assert.ok(match, "redirects to /s/:id");
        scene = match[1];
        assert.ok(SceneId.safeParse(scene).success);
        assert.match(scene, /^[a-z]+-[a-z]+-\d{4}$/);
      });
      await t.step("/s/:id serves the scene page; an invalid id gets a 404 page", async () => {
        const page = await fetch(`${server.url}/s/${scene}`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get("content-type")!, /text\/html/);
        assert.match(await page.text(), /scene page/);
        const bad = await fetch(`${server.url}/s/UPPER_case`, { headers: { accept: "text/html" } });
        assert.equal(bad.status, 404);
        assert.match(await bad.text(), /<h1>404<\/h1>[\s\S]*bad_scene/);
      });
      await t.step("/api/scenes/:id describes the scene; unknown scenes are 404", async () => {
        const info = await (await fetch(`${server.url}/api/scenes/${scene}`)).json();
        assert.equal(info.id, scene);
        assert.ok(Number.isInteger(info.seed) && info.epoch > 0 && info.tick >= 0);
        assert.equal(info.settings.snow, 0.5);
        assert.deepEqual(info.people, []);
        const missing = await fetch(`${server.url}/api/scenes/no-such-scene`);
        assert.equal(missing.status, 404);
        assert.deepEqual(await missing.json(), {
          error: { code: "not_found", message: "no scene no-such-scene" },
        });
      });
      await t.step("/api/scenes/:id/log pages through the stored events", async () => {
        const { client, welcome } = await TestClient.join(server.url, scene);
        client.send({ t: "settings", settings: { show: false } });
        for (let i = 0; i < 3; i++) client.send({ t: "launch", x: i, z: 0 });
        await client.waitForCount((m) => m.t === "event" && m.by === welcome.you.id, 4);
        await client.close();
        const first = await (await fetch(`${server.url}/api/scenes/${scene}/log?limit=2`)).json();
        assert.equal(first.events.length, 2);
        assert.equal(first.next, 3);
        const all = await (await fetch(`${server.url}/api/scenes/${scene}/log?from=1`)).json();
        assert.deepEqual(
          all.events.map((e: { seq: number }) => e.seq),
          all.events.map((_: unknown, i: number) => i + 1),
        );
        assert.equal(all.next, null);
        assert.equal(all.seed, welcome.seed);
        const bad = await fetch(`${server.url}/api/scenes/${scene}/log?from=-4`);
        assert.equal(bad.status, 400);
        assert.equal((await bad.json()).error.code, "bad_query");
      });
      await t.step("/healthz and /metrics report the server's state", async () => {
        const health = await (await fetch(`${server.url}/healthz`)).json();
        assert.equal(health.ok, true);
        const res = await fetch(`${server.url}/metrics`);
        assert.match(res.headers.get("content-type")!, /text\/plain; version=0.0.4/);
        const text = await res.text();
        for (
          const name of [
            "snowfire_scenes_loaded",
            "snowfire_connections",
            "snowfire_events_total",
            "snowfire_refused_total",
            "snowfire_desyncs_total",
            "snowfire_heartbeat_lag_ms",
          ]
        ) {
          assert.match(text, new RegExp(`^# TYPE ${name} `, "m"));
        }
        assert.match(text, /^snowfire_events_total\{by="client"\} 4$/m);
        assert.match(text, /^snowfire_scenes_created_total 1$/m);
      });
      await t.step("/static/* serves files and never escapes the static directory", async () => {
        const js = await fetch(`${server.url}/static/build/app.js`);
        assert.equal(js.status, 200);
        assert.match(js.headers.get("content-type")!, /javascript/);
        assert.equal(await js.text(), "console.log('app');");
        for (
          const path of [
            "/static/../snowfire-secret.txt",
            "/static/%2e%2e/snowfire-secret.txt",
            "/static/nope.js",
          ]
        ) {
          const res = await fetch(`${server.url}${path}`);
          assert.equal(res.status, 404, path);
          assert.equal((await res.json()).error.code, "not_found");
        }
      });
      await t.step("unknown routes and plain GETs on the socket get JSON errors", async () => {
        const res = await fetch(`${server.url}/nowhere`);
        assert.equal(res.status, 404);
        assert.equal((await res.json()).error.code, "not_found");
        const ws = await fetch(`${server.url}/s/${scene}/ws`);
        assert.equal(ws.status, 426);
        assert.equal((await ws.json()).error.code, "upgrade_required");
      });
    });
  } finally {
    await Deno.remove(`${staticDir}/../snowfire-secret.txt`);
    await Deno.remove(staticDir, { recursive: true });
  }
});
