/**
 * Storage with defaults: the database has a size budget unless told otherwise, and each address a
 * budget of events stored per minute; both refuse with a code and a message saying which budget.
 */
import assert from "node:assert/strict";
import {
  DEFAULT_DB_MAX_BYTES,
  describeConfig,
  optionsFromEnv,
  resolveConfig,
} from "../../server/config.ts";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";

const fast = { perSecond: 5000, burst: 5000 };

Deno.test("the database has a 1 GiB budget by default; DB_MAX_MB sets another", () => {
  const config = resolveConfig({ dataDir: "/tmp/x" });
  assert.equal(config.dbMaxBytes, DEFAULT_DB_MAX_BYTES);
  assert.equal(DEFAULT_DB_MAX_BYTES, 1024 ** 3);
  assert.match(describeConfig(config), /dbMaxBytes=1073741824/);
  assert.match(describeConfig(config), /events 1200\/min/);
  const env = optionsFromEnv((name) => ({ DB_MAX_MB: "2", EVENTS_PER_MINUTE: "60" })[name]);
  assert.equal(resolveConfig(env).dbMaxBytes, 2 * 1024 * 1024);
  assert.equal(resolveConfig(env).eventsPerMinute, 60);
});

Deno.test("a database at its budget refuses with storage_unavailable naming the budget", async () => {
  await withServer({
    dbMaxBytes: 64 * 1024,
    rateLimits: { settings: fast, frames: fast },
    refusalNoticeMs: 0,
    eventsPerMinute: 1e6,
  }, async (server) => {
    const { client } = await TestClient.join(server.url, "budget-db-1");
    let sent = 0;
    while (!client.errors().some((e) => e.code === "storage_unavailable")) {
      assert.ok(sent < 5000, "the capped database never filled up");
      for (let i = 0; i < 100; i++, sent++) {
        client.submit({ type: "settings", settings: { snow: sent % 2 ? 0.25 : 0.75 } });
      }
      await client.waitForCount((m) => m.t === "event" || m.t === "error", sent, 10_000);
    }
    const refusal = client.errors().find((e) => e.code === "storage_unavailable")!;
    assert.match(
      refusal.message,
      /SQLITE_FULL.*the database reached its size budget of 0\.1 MB \(DB_MAX_MB\)\); nothing changed/,
    );
    console.log(`db budget: ${client.events().length} events stored, then: ${refusal.message}`);
    await client.close();
  });
});

Deno.test("an address gets eventsPerMinute stored events, shared by its connections", async () => {
  await withServer({
    eventsPerMinute: 10,
    rateLimits: { launch: fast, frames: fast },
    refusalNoticeMs: 0,
  }, async (server) => {
    const a = (await TestClient.join(server.url, "budget-ev-1")).client;
    const b = (await TestClient.join(server.url, "budget-ev-2")).client;
    for (let i = 0; i < 6; i++) a.submit({ type: "launch", x: i, z: 0 });
    await a.waitForCount((m) => m.t === "event", 6);
    for (let i = 0; i < 6; i++) b.submit({ type: "launch", x: i, z: 0 });
    await b.waitForCount((m) => m.t === "event" || m.t === "error", 6);
    assert.equal(b.events().length, 4, "the address had 4 of its 10 left");
    const refusal = b.errors()[0];
    assert.equal(refusal.code, "rate_limited");
    assert.match(
      refusal.message,
      /^your address stored its budget of 10 events a minute; nothing was stored, try again in [1-6] s/,
    );
    assert.ok(refusal.retryAfterMs! > 0 && refusal.retryAfterMs! <= 6000);
    a.submit({ type: "launch", x: 9, z: 9 });
    await a.waitForCount((m) => m.t === "error", 1);
    assert.equal(a.errors()[0].code, "rate_limited");
    console.log(
      `event budget: 10 stored of 12 launches from one address; then: ${refusal.message}`,
    );
    await a.close();
    await b.close();
  });
});
