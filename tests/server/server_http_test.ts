/** The HTTP routes: scene creation, pages, the JSON API, health, metrics, static files, errors. */
import assert from "node:assert/strict";
import { SceneId } from "../../shared/protocol.ts";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { Metrics } from "../../server/scene/metrics.ts";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

/** A bundle name as the build makes them: its content hash in the name. */
const HASHED = "app-7QX4K2ZB.js";
/** Bundle text, long enough (> 1 KiB) to be worth compressing. */
const BUNDLE = Array.from({ length: 200 }, (_, i) => `console.log("line ${i}");`).join("\n");

async function staticFixture(): Promise<string> {
  // Inside a parent of its own, so the file planted outside it is this test's alone.
  const dir = `${await Deno.makeTempDir({ prefix: "snowfire-static-" })}/static`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/index.html`,
    '<!doctype html><title>scene page</title><script type="module" src="/static/build/app.js"></script>',
  );
  await Deno.mkdir(`${dir}/build`);
  await Deno.writeTextFile(`${dir}/build/app.js`, "console.log('app');");
  await Deno.writeTextFile(`${dir}/build/${HASHED}`, BUNDLE);
  await Deno.writeTextFile(`${dir}/build/${HASHED}.map`, '{"version":3}');
  await Deno.writeTextFile(`${dir}/build/manifest.json`, JSON.stringify({ "app.js": HASHED }));
  await Deno.writeTextFile(`${dir}/../snowfire-secret.txt`, "outside");
  return dir;
}

Deno.test("routes serve scenes, the API, health, metrics and static files", async (t) => {
  const staticDir = await staticFixture();
  try {
    await withServer({ staticDir }, async (server) => {
      let scene = "";
      await t.step("/ redirects to a fresh friendly id without storing a scene", async () => {
        const res = await fetch(`${server.url}/`, { redirect: "manual" });
        await res.body?.cancel();
        assert.equal(res.status, 302);
        const match = /^\/s\/(.+)$/.exec(res.headers.get("location") ?? "");
        assert.ok(match, "redirects to /s/:id");
        scene = match[1];
        assert.ok(SceneId.safeParse(scene).success);
        assert.match(scene, /^[a-z]+-[a-z]+-\d{4}$/);
        const head = await fetch(`${server.url}/`, { method: "HEAD", redirect: "manual" });
        assert.equal(head.status, 302);
        const unstored = await fetch(`${server.url}/api/scenes/${scene}`);
        assert.equal(unstored.status, 404, "the scene exists only once someone joins");
        await unstored.body?.cancel();
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        assert.match(metrics, /^snowfire_scenes_stored 0$/m);
      });
      await t.step("/s/:id serves the scene page; a typed name redirects to its id", async () => {
        const page = await fetch(`${server.url}/s/${scene}`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get("content-type")!, /text\/html/);
        assert.match(await page.text(), /scene page/);
        for (
          const [typed, id] of [
            ["UPPER_case", "upper-case"],
            ["My%20Party!!", "my-party"],
            ["Caf%C3%A9%20No%C3%ABl?x=1", "cafe-noel?x=1"],
          ]
        ) {
          const moved = await fetch(`${server.url}/s/${typed}`, { redirect: "manual" });
          await moved.body?.cancel();
          assert.equal(moved.status, 301, typed);
          assert.equal(moved.headers.get("location"), `/s/${id}`);
        }
        // Nothing usable left: a page that says what a scene name is, with a way on.
        const bad = await fetch(`${server.url}/s/!!!`, { headers: { accept: "text/html" } });
        assert.equal(bad.status, 404);
        const text = await bad.text();
        assert.match(text, /<h1>404<\/h1>[\s\S]*letters a–z[\s\S]*bad_scene/);
        assert.match(text, /href="\/"/);
      });
      await t.step("/api/scenes/:id describes the scene; unknown scenes are 404", async () => {
        const { client } = await TestClient.join(server.url, scene);
        await client.close();
        await eventually("the visitor left", async () => {
          const now = await (await fetch(`${server.url}/api/scenes/${scene}`)).json();
          return now.people.length === 0;
        });
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
        // A returning visitor is a guest (the scene's settings are its host's): four launches.
        for (let i = 0; i < 4; i++) client.submit({ type: "launch", x: i, z: 0 });
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
            "snowfire_heartbeat_pass_ms",
            "snowfire_heartbeat_gap_max_ms",
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
    await Deno.remove(`${staticDir}/..`, { recursive: true });
  }
});

/** The CSP directives of a response, by name. */
function csp(res: Response): Map<string, string[]> {
  const header = res.headers.get("content-security-policy") ?? "";
  return new Map(
    header.split(";").map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map((
      [name, ...values],
    ) => [name, values]),
  );
}

Deno.test("HTTP hygiene: security headers, hashed immutable bundle, compression, ETags, methods", async (t) => {
  const staticDir = await staticFixture();
  try {
    await withServer({ staticDir }, async (server) => {
      const scene = "tidy-pines-1";
      await t.step(
        "every response carries a CSP that fits the page, nosniff and no framing",
        async () => {
          for (
            const [path, accept] of [
              [`/s/${scene}`, "text/html"],
              ["/api/scenes/none-here", "application/json"],
              ["/healthz", "application/json"],
              [`/static/build/${HASHED}`, "*/*"],
            ]
          ) {
            const res = await fetch(`${server.url}${path}`, { headers: { accept } });
            await res.body?.cancel();
            assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
            const policy = csp(res);
            assert.deepEqual(policy.get("script-src"), ["'self'"], path);
            assert.deepEqual(policy.get("frame-ancestors"), ["'none'"], path);
            assert.equal(res.headers.get("x-frame-options"), "DENY", path);
            assert.equal(res.headers.get("referrer-policy"), "no-referrer", path);
            assert.deepEqual(policy.get("object-src"), ["'none'"], path);
            const host = new URL(server.url).host;
            assert.deepEqual(policy.get("connect-src"), [
              "'self'",
              `ws://${host}`,
              `wss://${host}`,
            ]);
            for (const values of policy.values()) {
              assert.ok(!values.includes("'unsafe-eval'") && !values.includes("'unsafe-inline'"));
            }
          }
        },
      );
      await t.step("FRAME_ANCESTORS names the sites that may embed a scene", async () => {
        await withServer(
          { staticDir, frameAncestors: ["https://blog.example", "https://*.friends.example"] },
          async (embeddable) => {
            const res = await fetch(`${embeddable.url}/s/${scene}?embed=1`);
            await res.body?.cancel();
            assert.deepEqual(csp(res).get("frame-ancestors"), [
              "https://blog.example",
              "https://*.friends.example",
            ]);
            // X-Frame-Options cannot name sites: it is left out rather than contradict the CSP.
            assert.equal(res.headers.get("x-frame-options"), null);
            assert.equal(res.headers.get("x-content-type-options"), "nosniff");
          },
        );
      });
      await t.step("the error page's inline style is allowed by the CSP's hash", async () => {
        const res = await fetch(`${server.url}/nowhere`, { headers: { accept: "text/html" } });
        const html = await res.text();
        const style = /<style>([^<]*)<\/style>/.exec(html)![1];
        const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style));
        const hash = `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
        assert.ok(csp(res).get("style-src")!.includes(hash), "style hash listed");
        assert.doesNotMatch(html, /style="/, "no inline style attributes");
      });
      let pageEtag = "";
      await t.step(
        "the page names the content-hashed bundle and revalidates with an ETag",
        async () => {
          const res = await fetch(`${server.url}/s/${scene}`);
          const html = await res.text();
          assert.match(html, new RegExp(`src="/static/build/${HASHED}"`));
          assert.doesNotMatch(html, /build\/app\.js/);
          assert.equal(res.headers.get("cache-control"), "no-cache");
          pageEtag = res.headers.get("etag")!;
          assert.match(pageEtag, /^"[\w-]+"$/);
          const again = await fetch(`${server.url}/s/${scene}`, {
            headers: { "if-none-match": pageEtag },
          });
          assert.equal(again.status, 304);
          assert.equal(await again.text(), "");
          assert.equal(again.headers.get("etag"), pageEtag);
          const other = await fetch(`${server.url}/s/another-scene-2`, {
            headers: { "if-none-match": pageEtag },
          });
          assert.equal(other.status, 304, "the same page for every scene");
          const stale = await fetch(`${server.url}/s/${scene}`, {
            headers: { "if-none-match": '"something-else"' },
          });
          assert.equal(stale.status, 200);
          await stale.body?.cancel();
        },
      );
      await t.step("the page follows a new build: its manifest names another bundle", async () => {
        const next = "app-NEXTBLD2.js";
        await Deno.writeTextFile(`${staticDir}/build/${next}`, BUNDLE);
        await Deno.writeTextFile(
          `${staticDir}/build/manifest.json`,
          JSON.stringify({ "app.js": next }),
        );
        const res = await fetch(`${server.url}/s/${scene}`, {
          headers: { "if-none-match": pageEtag },
        });
        assert.equal(res.status, 200);
        assert.match(await res.text(), new RegExp(next));
        assert.notEqual(res.headers.get("etag"), pageEtag);
      });
      await t.step("the hashed bundle is immutable, with an ETag", async () => {
        const res = await fetch(`${server.url}/static/build/${HASHED}`, {
          headers: { "accept-encoding": "identity" },
        });
        assert.equal(await res.text(), BUNDLE);
        assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
        const etag = res.headers.get("etag")!;
        const again = await fetch(`${server.url}/static/build/${HASHED}`, {
          headers: { "if-none-match": `W/${etag}`, "accept-encoding": "identity" },
        });
        assert.equal(again.status, 304);
        await again.body?.cancel();
        const plain = await fetch(`${server.url}/static/build/app.js`);
        assert.equal(plain.headers.get("cache-control"), "no-cache", "unhashed names revalidate");
        await plain.body?.cancel();
      });
      await t.step(
        "brotli and gzip are negotiated; identity when neither is accepted",
        async () => {
          const url = `${server.url}/static/build/${HASHED}`;
          const cases: [string, string | null][] = [
            ["gzip, deflate, br, zstd", "br"],
            ["gzip", "gzip"],
            ["br;q=0, gzip;q=0.5", "gzip"],
            ["identity", null],
            ["", null],
          ];
          for (const [accept, expected] of cases) {
            // fetch would decode by itself; a raw request shows what travels.
            const res = await rawGet(url, accept);
            assert.equal(res.encoding, expected, `Accept-Encoding: ${accept}`);
            assert.equal(res.vary, "Accept-Encoding");
            const body = expected === "br"
              ? brotliDecompressSync(res.body)
              : expected === "gzip"
              ? gunzipSync(res.body)
              : res.body;
            assert.equal(new TextDecoder().decode(body), BUNDLE);
            if (expected) assert.ok(res.body.byteLength < BUNDLE.length / 3, "actually smaller");
          }
          const br = await rawGet(url, "br");
          const gz = await rawGet(url, "gzip");
          assert.notEqual(br.etag, gz.etag, "each encoding has its own validator");
        },
      );
      await t.step("source maps are not public without DEV=1", async () => {
        const res = await fetch(`${server.url}/static/build/${HASHED}.map`);
        assert.equal(res.status, 404);
        assert.match((await res.json()).error.message, /DEV=1/);
        const js = await fetch(`${server.url}/static/build/${HASHED}`);
        assert.equal(js.headers.get("sourcemap"), null);
        await js.body?.cancel();
      });
      await t.step("wrong methods get 405 with Allow; HEAD reads without changing", async () => {
        for (
          const [method, path] of [
            ["POST", "/"],
            ["PUT", `/s/${scene}`],
            ["DELETE", `/api/scenes/${scene}`],
            ["POST", `/api/scenes/${scene}/log`],
            ["PATCH", "/healthz"],
            ["POST", "/metrics"],
            ["POST", `/static/build/${HASHED}`],
          ]
        ) {
          const res = await fetch(`${server.url}${path}`, { method });
          assert.equal(res.status, 405, `${method} ${path}`);
          assert.equal(res.headers.get("allow"), "GET, HEAD");
          assert.equal((await res.json()).error.code, "method_not_allowed");
        }
        const head = await fetch(`${server.url}/s/${scene}`, { method: "HEAD" });
        assert.equal(head.status, 200);
        assert.equal(await head.text(), "");
        const missing = await fetch(`${server.url}/no/such/path`, { method: "POST" });
        assert.equal(missing.status, 404, "unknown paths stay 404 whatever the method");
        await missing.body?.cancel();
      });
    });
    await t.step("with DEV=1 the source map is served and named by the bundle", async () => {
      await withServer({ staticDir, dev: true }, async (server) => {
        const js = await fetch(`${server.url}/static/build/${HASHED}`);
        assert.equal(js.headers.get("sourcemap"), `${HASHED}.map`);
        await js.body?.cancel();
        const map = await fetch(`${server.url}/static/build/${HASHED}.map`);
        assert.equal(map.status, 200);
        assert.deepEqual(await map.json(), { version: 3 });
      });
    });
  } finally {
    await Deno.remove(`${staticDir}/..`, { recursive: true });
  }
});

Deno.test("the WebSocket origin check compares the scheme too", async () => {
  await withServer({}, async (server) => {
    const host = new URL(server.url).host;
    const upgrade = (headers: Record<string, string>) =>
      fetch(`${server.url}/s/scheme-check-1/ws`, {
        headers: {
          upgrade: "websocket",
          connection: "Upgrade",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          "sec-websocket-version": "13",
          ...headers,
        },
      });
    const https = await upgrade({ origin: `https://${host}` });
    assert.equal(https.status, 403, "an https page is not this http site");
    assert.equal((await https.json()).error.code, "forbidden_origin");
    // Behind a TLS-terminating proxy the browser's origin is https and the proxy says so.
    const client = await TestClient.connect(server.url, "scheme-check-1", {
      origin: `https://${host}`,
      "x-forwarded-proto": "https",
    });
    await client.close();
    const plain = await TestClient.connect(server.url, "scheme-check-1", {
      origin: `http://${host}`,
    });
    await plain.close();
    const downgraded = await upgrade({ origin: `http://${host}`, "x-forwarded-proto": "https" });
    assert.equal(downgraded.status, 403, "an http page is not the https site");
    await downgraded.body?.cancel();
  });
});

/** GET with a given Accept-Encoding over a raw TCP connection: the body as it travels. */
async function rawGet(
  url: string,
  acceptEncoding: string,
): Promise<
  { encoding: string | null; vary: string | null; etag: string | null; body: Uint8Array }
> {
  const { hostname, port, pathname } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const accept = acceptEncoding ? `Accept-Encoding: ${acceptEncoding}\r\n` : "";
    await conn.write(
      new TextEncoder().encode(
        `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${accept}Connection: close\r\n\r\n`,
      ),
    );
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(65536);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      chunks.push(buf.slice(0, n));
    }
    const all = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
    let at = 0;
    for (const c of chunks) all.set(c, (at += c.length) - c.length);
    const split = all.findIndex((_, i) =>
      all[i] === 13 && all[i + 1] === 10 && all[i + 2] === 13 && all[i + 3] === 10
    );
    const head = new TextDecoder().decode(all.subarray(0, split));
    const header = (name: string) =>
      new RegExp(`^${name}: *(.*)$`, "im").exec(head)?.[1].trim() ?? null;
    let body: Uint8Array = all.subarray(split + 4);
    if (header("transfer-encoding") === "chunked") body = unchunk(body);
    return {
      encoding: header("content-encoding"),
      vary: header("vary"),
      etag: header("etag"),
      body,
    };
  } finally {
    conn.close();
  }
}

function unchunk(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  let i = 0;
  while (i < data.length) {
    let end = i;
    while (!(data[end] === 13 && data[end + 1] === 10)) end++;
    const size = parseInt(new TextDecoder().decode(data.subarray(i, end)), 16);
    if (size === 0) break;
    out.push(...data.subarray(end + 2, end + 2 + size));
    i = end + 2 + size + 2;
  }
  return new Uint8Array(out);
}

Deno.test("heartbeat metrics report the pass's duration and the real send gap", async (t) => {
  await t.step("a long pass shows in both; a late start only in the gap", () => {
    const m = new Metrics();
    m.pass(0, 2);
    m.pass(45, 47);
    assert.equal(m.heartbeatPass.lastMs, 2);
    assert.equal(m.heartbeatGap.lastMs, 45);
    m.pass(90, 170); // a pass that ran 80 ms
    assert.equal(m.heartbeatPass.lastMs, 80);
    assert.equal(m.heartbeatGap.lastMs, 123);
    m.pass(400, 401); // started 230 ms late, ran 1 ms
    assert.equal(m.heartbeatPass.lastMs, 1);
    assert.equal(m.heartbeatGap.lastMs, 231);
    assert.equal(m.heartbeatPass.maxMs, 80);
    assert.equal(m.heartbeatGap.maxMs, 231);
  });
  await t.step("a stalled event loop shows as a send gap in /metrics", async () => {
    await withServer({}, async (server) => {
      const value = async (name: string) => {
        const text = await (await fetch(`${server.url}/metrics`)).text();
        return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)![1]);
      };
      // A pass has ended before the stall, so the next one measures its gap from there.
      await eventually(
        "the scheduler ran a pass",
        async () => await value("snowfire_heartbeat_passes_total") >= 1,
      );
      const stall = 300;
      const until = performance.now() + stall;
      while (performance.now() < until) {
        // Busy: no pass can run meanwhile, as under a flood of synchronous work.
      }
      await eventually(
        "the stalled pass's gap is reported",
        async () => await value("snowfire_heartbeat_gap_max_ms") >= stall,
      );
      assert.ok(await value("snowfire_heartbeat_pass_max_ms") < stall, "the passes were short");
    });
  });
});
