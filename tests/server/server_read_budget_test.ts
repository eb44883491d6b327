/** Per-address rate limits on every HTTP route that reads the database. */
import assert from "node:assert/strict";
import { withServer } from "../../testing/test_server.ts";

Deno.test("routes that read the database share a per-address budget; others do not", async (t) => {
  // The budget's clock moves only when the test says: a slow machine returns no token early.
  let clockMs = 1_000_000;
  const monotonic = () => clockMs;
  await withServer({ httpReads: { perSecond: 0.5, burst: 4 }, monotonic }, async (server) => {
    await t.step("the burst is served, then 429 rate_limited with Retry-After", async () => {
      const paths = ["/api/scenes/quiet-pine-1000", "/healthz", "/metrics", "/s/quiet-pine-1000"];
      for (const path of paths) {
        const res = await fetch(`${server.url}${path}`);
        await res.body?.cancel();
        assert.notEqual(res.status, 429, path);
      }
      for (const path of [...paths, "/api/scenes/quiet-pine-1000/log"]) {
        const res = await fetch(`${server.url}${path}`);
        assert.equal(res.status, 429, path);
        // A token comes back every 2 s; a log page (5 tokens for the default 1000 events, no more
        // than the burst of 4) waits for four.
        const wait = path.endsWith("/log") ? "8" : "2";
        assert.equal(res.headers.get("retry-after"), wait);
        const body = await res.json();
        assert.equal(body.error.code, "rate_limited");
        assert.equal(
          body.error.message,
          `too many requests from your address; try again in ${wait} s`,
        );
      }
    });
    await t.step("static files and the redirect to a fresh scene are not budgeted", async () => {
      const res = await fetch(`${server.url}/`, { redirect: "manual" });
      await res.body?.cancel();
      assert.equal(res.status, 302);
      const missing = await fetch(`${server.url}/static/nothing.js`);
      await missing.body?.cancel();
      assert.equal(missing.status, 404);
    });
    await t.step("the metrics count the refusals", async () => {
      clockMs += 2100;
      const text = await (await fetch(`${server.url}/metrics`)).text();
      assert.match(text, /rate_limited.* ([5-9]|\d\d+)$/m);
    });
  });
});

Deno.test("a log page costs more of the budget the more events it asks for", async () => {
  const { requestCost } = await import("../../server/http/read_budget.ts");
  assert.equal(requestCost(new URL("http://x/api/scenes/a")), 1);
  assert.equal(requestCost(new URL("http://x/api/scenes/a/log")), 5);
  assert.equal(requestCost(new URL("http://x/api/scenes/a/log?limit=600")), 4);
  assert.equal(requestCost(new URL("http://x/api/scenes/a/log?limit=5000")), 21);
  assert.equal(requestCost(new URL("http://x/api/scenes/a/log?limit=junk")), 5);
  await withServer({ httpReads: { perSecond: 0.1, burst: 42 } }, async (server) => {
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/api/scenes/quiet-pine-1000/log?limit=5000`);
      await res.body?.cancel();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [404, 404, 429], "two big pages spend a burst of 42");
  });
});
