/**
 * Describing a stored scene (`GET /api/scenes/:id`, and the describe every log page starts with)
 * reads a few rows, never the log: the store keeps the settings in force as events are written.
 * It used to fold every event since the stored snapshot on the server's thread (750–835 ms for a
 * 30k-event scene, issue 19), so twenty log readers stalled every other scene.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import type { SceneEvent } from "../../shared/types.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import { ServerClock } from "../../server/scene/clock.ts";
import { Metrics } from "../../server/scene/metrics.ts";
import { Rooms } from "../../server/local/rooms.ts";
import { SceneStore } from "../../server/local/store.ts";

/** A store that counts the events its log reads return. */
class CountingStore extends SceneStore {
  eventsRead = 0;
  override eventsFromTick(scene: string, tick: number): SceneEvent[] {
    const events = super.eventsFromTick(scene, tick);
    this.eventsRead += events.length;
    return events;
  }
  override eventsFromSeq(scene: string, fromSeq: number, limit: number): SceneEvent[] {
    const events = super.eventsFromSeq(scene, fromSeq, limit);
    this.eventsRead += events.length;
    return events;
  }
}

function roomsOn(store: SceneStore): Rooms {
  return new Rooms({
    store,
    metrics: new Metrics(),
    clock: new ServerClock(Date.now, () => performance.now()),
    skyCap: 100,
    maxPeers: 10,
    desyncTimeoutMs: 1000,
    presenceLimit: 10,
    log: () => {},
  }, 60_000);
}

/** Settings events with varied fields, seq 1..n at ticks 1..n. */
function settingsEvents(n: number): SceneEvent[] {
  return Array.from({ length: n }, (_, i) =>
    ({
      seq: i + 1,
      tick: i + 1,
      by: "show",
      body: i % 3 === 0
        ? { type: "settings", settings: { snow: (i % 100) / 100 } }
        : i % 3 === 1
        ? { type: "settings", settings: { windSpeed: i % 7, show: i % 2 === 0 } }
        : { type: "launch", x: 1, z: 2 },
    }) as SceneEvent);
}

Deno.test("describing a stored scene reports the settings in force without reading its log", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "snowfire-describe-" });
  const store = new CountingStore(dataDir);
  try {
    const events = settingsEvents(3000);
    store.createScene("long-night-1", 7, Date.now(), initialSnapshot({ theme: "rainbow" }));
    store.transaction(() => events.forEach((e) => store.appendEvent("long-night-1", e)));
    const expected = advanceSnapshot(initialSnapshot({ theme: "rainbow" }), events, Infinity)
      .settings;
    const rooms = roomsOn(store);

    await t.step("the settings and last seq match a fold of the whole log", () => {
      store.eventsRead = 0;
      const info = rooms.describe("long-night-1")!;
      assert.deepEqual(info.settings, expected);
      assert.equal(info.lastSeq, 3000);
      assert.equal(store.eventsRead, 0, "no event was read to describe the scene");
    });

    await t.step("a scene with no events reports its snapshot's settings", () => {
      store.createScene("quiet-pine-2", 8, Date.now(), initialSnapshot({ snow: 0.9 }));
      assert.deepEqual(
        rooms.describe("quiet-pine-2")!.settings,
        initialSnapshot({ snow: 0.9 }).settings,
      );
      assert.equal(rooms.describe("no-such-3"), undefined);
    });

    await t.step("events appended later are folded in as they are written", () => {
      store.appendEvent("long-night-1", {
        seq: 3001,
        tick: 3001,
        by: "p1",
        body: { type: "settings", settings: { windDirection: 123, fountain: false } },
      });
      const info = rooms.describe("long-night-1")!;
      assert.equal(info.settings.windDirection, 123);
      assert.equal(info.settings.fountain, false);
      assert.equal(info.settings.theme, "rainbow");
      assert.equal(store.eventsRead, 0);
    });
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a database from before the settings column is described right and kept from then on", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "snowfire-describe-old-" });
  try {
    // The schema as it was: no settings column, no trigger.
    const old = new DatabaseSync(join(dataDir, "scenes.db"));
    old.exec(`
      CREATE TABLE scenes (id TEXT PRIMARY KEY, seed INTEGER NOT NULL, epoch REAL NOT NULL,
        snapshot TEXT NOT NULL, last_tick INTEGER NOT NULL, show_cursor INTEGER NOT NULL);
      CREATE TABLE events (scene TEXT NOT NULL, seq INTEGER NOT NULL, tick INTEGER NOT NULL,
        by TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (scene, seq)) WITHOUT ROWID;
      CREATE INDEX events_by_tick ON events (scene, tick);
    `);
    const events = settingsEvents(200);
    old.prepare("INSERT INTO scenes VALUES (?, ?, ?, ?, 0, 0)").run(
      "old-log-1",
      5,
      Date.now(),
      JSON.stringify(initialSnapshot()),
    );
    const insert = old.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)");
    for (const e of events) insert.run("old-log-1", e.seq, e.tick, e.by, JSON.stringify(e.body));
    old.close();

    const store = new CountingStore(dataDir);
    try {
      const rooms = roomsOn(store);
      const expected = advanceSnapshot(initialSnapshot(), events, Infinity).settings;
      assert.deepEqual(rooms.describe("old-log-1")!.settings, expected, "folded once");
      assert.equal(store.eventsRead, 200);
      store.appendEvent("old-log-1", {
        seq: 201,
        tick: 201,
        by: "p1",
        body: { type: "settings", settings: { snow: 0.01 } },
      });
      assert.deepEqual(rooms.describe("old-log-1")!.settings, { ...expected, snow: 0.01 });
      assert.equal(store.eventsRead, 200, "from then on kept, not folded");
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
