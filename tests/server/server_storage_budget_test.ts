/**
 * Storage with defaults: the database has a size budget unless told otherwise (one scene and one
 * network hold at most a share of it), and each address a
 * budget of events stored per minute; both refuse with a code and a message saying which budget.
 */
import assert from "node:assert/strict";
import {
  DEFAULT_DB_MAX_BYTES,
  describeConfig,
  optionsFromEnv,
  resolveConfig,
} from "../../server/config.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { StorageUnavailableError } from "../../server/scene/errors.ts";
import { SceneStore } from "../../server/local/store.ts";
import { storageBudget } from "../../server/local/storage_budget.ts";
import { TestClient } from "../../testing/test_client.ts";
import { eventually } from "../../testing/wait.ts";
import { withServer } from "../../testing/test_server.ts";

const fast = { perSecond: 5000, burst: 5000 };
const MB = 1024 * 1024;

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

Deno.test("a scene and a spender hold their shares; the whole budget names DB_MAX_MB; files stay within it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "snowfire-budget-" });
  const logged: string[] = [];
  const store = new SceneStore(dataDir, { maxBytes: 2 * MB, log: (m) => logged.push(m) });
  store.startCheckpointer(20, (m) => logged.push(m));
  const seqs = new Map<string, number>();
  const { walBytes } = storageBudget(2 * MB);
  /**
   * Back-pressure while the checkpointer catches up (the log is full, or nearly for a busy
   * scene): waits until it cut the write-ahead log back below three quarters of its part.
   */
  const logCutBack = () =>
    eventually("the checkpointer cut the write-ahead log back", async () => {
      const wal = await Deno.stat(`${dataDir}/scenes.db-wal`).catch(() => ({ size: 0 }));
      return wal.size < walBytes * 0.75;
    });
  // Events of ~640 bytes (a long sender id): the budget fills in a few thousand commits.
  const BY = "p".repeat(600);
  /** Appends launches to `scene` for `spender` until one is refused; returns its message. */
  const fill = async (scene: string, spender: string): Promise<string> => {
    while (!seqs.has(scene)) {
      try {
        store.createScene(scene, 1, Date.now(), initialSnapshot());
        seqs.set(scene, 0);
      } catch (e) {
        assert.match((e as Error).message, /write-ahead log is (nearly )?full/);
        await logCutBack();
      }
    }
    for (let i = 0;; i++) {
      const seq = (seqs.get(scene) ?? 0) + 1;
      try {
        store.appendEvent(scene, {
          seq,
          tick: seq,
          by: BY,
          body: { type: "launch", x: i % 7, z: 1, theme: "rainbow" },
        }, spender);
        seqs.set(scene, seq);
      } catch (e) {
        assert.ok(e instanceof StorageUnavailableError, String(e));
        // Back-pressure while the checkpointer catches up: wait for it.
        if (/write-ahead log is (nearly )?full/.test(e.message)) {
          await logCutBack();
          continue;
        }
        return e.message;
      }
      assert.ok(i < 100_000, "never refused");
    }
  };
  try {
    const scene = await fill("share-1", "203.0.113.0/24");
    assert.match(scene, /^this scene has stored its share of the server's storage \(0\.2 MB\)/);
    assert.equal(store.health().ok, true, "one scene at its share is no storage failure");
    // The same network in more scenes: its own share (a quarter) ends it.
    let spender = "";
    for (let n = 2; n < 9 && !spender.includes("network"); n++) {
      spender = await fill(`share-${n}`, "203.0.113.0/24");
    }
    assert.match(spender, /^your network has stored its share of the server's storage \(0\.4 MB\)/);
    // Many scenes from many networks fill the whole budget.
    let whole = "";
    for (let n = 0; n < 40 && !whole.includes("DB_MAX_MB"); n++) {
      whole = await fill(`many-${n}`, `198.51.${n}.0/24`);
    }
    assert.match(
      whole,
      /SQLITE_FULL.*the database reached its size budget of 2\.0 MB \(DB_MAX_MB\)/,
    );
    const health = store.health();
    assert.equal(health.ok, false);
    assert.equal(!health.ok && health.code, "storage_unavailable");
    assert.equal(logged.filter((m) => m.includes("writes failing")).length, 1, logged.join("\n"));
    let files = 0;
    for (const suffix of ["", "-wal", "-shm"]) {
      files += (await Deno.stat(`${dataDir}/scenes.db${suffix}`).catch(() => ({ size: 0 }))).size;
    }
    console.log(`db budget 2 MB: ${whole}; db+wal+shm ${(files / MB).toFixed(2)} MB`);
    assert.ok(files <= 2 * MB, `files within the budget: ${files}`);
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
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
      /^your address stored its budget of 10 events a minute \(or its network, 2x that\); nothing was stored, try again in [1-6] s/,
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
