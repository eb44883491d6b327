/**
 * The log API pages by seq (from/cursor) or by tick (with the snapshot in force there, equal to
 * folding every earlier settings change), and refuses silly ranges with a clear 400.
 */
import assert from "node:assert/strict";
import { LogPageSchema } from "../../shared/protocol.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

const FAST = { perSecond: 100, burst: 100 };

Deno.test("log API pages by cursor and tick and refuses silly ranges", async (t) => {
  await withServer({ rateLimits: { settings: FAST, launch: FAST } }, async (server) => {
    const scene = "log-pages";
    const { client } = await TestClient.join(server.url, scene);
    client.submit({ type: "settings", settings: { show: false } });
    for (let i = 0; i < 20; i++) {
      client.submit({
        type: "settings",
        settings: { windSpeed: i % 7, windDirection: (i * 20) % 360 },
      });
      if (i % 4 === 0) client.submit({ type: "launch", x: i, z: 0 });
    }
    await eventually("26 events came back", () => client.events().length >= 26, 10_000);
    await client.close();
    const get = async (query: string) => {
      const res = await fetch(`${server.url}/api/scenes/${scene}/log?${query}`);
      const body = await res.json();
      // Every page has the one shape both modes and the page's replay share.
      if (res.ok) LogPageSchema.parse(body);
      return { status: res.status, body };
    };
    const all = (await get("limit=5000")).body.events as SceneEvent[];

    await t.step("cursor pages cover the log once, in order", async () => {
      const seen: number[] = [];
      let cursor: number | null = 1;
      while (cursor !== null) {
        const page: { firstSeq: number; events: SceneEvent[]; next: number | null } =
          (await get(`cursor=${cursor}&limit=7`)).body;
        assert.equal(page.firstSeq, 1);
        seen.push(...page.events.map((e: SceneEvent) => e.seq));
        cursor = page.next;
      }
      assert.deepEqual(seen, all.map((e) => e.seq));
    });

    await t.step("a tick page starts at that tick with the snapshot in force there", async () => {
      const mid = all[Math.floor(all.length / 2)].tick;
      const page = (await get(`tick=${mid}&snapshot=1&limit=5000`)).body;
      assert.ok(page.events.length > 0 && page.events.every((e: SceneEvent) => e.tick >= mid));
      assert.deepEqual(page.events, all.filter((e) => e.tick >= mid));
      assert.deepEqual(page.snapshot, advanceSnapshot(initialSnapshot(), all, mid));
      assert.equal(page.exactFromTick, 0);
    });

    await t.step(
      "a page is gzip-compressed for a client that takes gzip, plain otherwise",
      async () => {
        const url = `${server.url}/api/scenes/${scene}/log?limit=5000`;
        const plain = await fetch(url, { headers: { "accept-encoding": "identity" } });
        assert.equal(plain.headers.get("content-encoding"), null);
        const text = await plain.text();
        assert.equal(JSON.parse(text).events.length, all.length);
        const zipped = await fetch(url, { headers: { "accept-encoding": "gzip" } });
        assert.equal(zipped.headers.get("content-encoding"), "gzip");
        // fetch inflates it (and keeps the header).
        assert.equal(await zipped.text(), text);
      },
    );

    await t.step("silly ranges get a 400 that says why", async () => {
      for (
        const [query, code] of [
          ["limit=0", "bad_query"],
          ["limit=5001", "bad_query"],
          ["from=0", "bad_query"],
          ["from=1.5", "bad_query"],
          ["tick=-1", "bad_query"],
          ["from=2&tick=3", "bad_query"],
          ["snapshot=1", "bad_query"],
          [`from=${all.length + 2}`, "out_of_range"],
        ]
      ) {
        const { status, body } = await get(query);
        assert.equal(status, 400, query);
        assert.equal(body.error.code, code, query);
        assert.ok(body.error.message.length > 10, query);
      }
    });
  });
});

Deno.test("log API snapshots carry the host rules in force, without any hashes", async () => {
  await withServer({ refusalNoticeMs: 0 }, async (server) => {
    const scene = "log-rules";
    const { client: host } = await TestClient.join(server.url, scene);
    await host.waitFor((m) => m.t === "host");
    const guest = await TestClient.join(server.url, scene, { person: "g".repeat(22) });
    const gone = await TestClient.join(server.url, scene, { person: "r".repeat(22) });
    const guestId = guest.welcome.you.id;
    const goneId = gone.welcome.you.id;
    host.send({ t: "host", action: { do: "lock", lock: "everyone" } });
    host.send({ t: "host", action: { do: "pause", on: true } });
    host.send({ t: "host", action: { do: "mute", peer: guestId, on: true } });
    host.send({ t: "host", action: { do: "remove", peer: goneId } });
    await host.waitForCount((m) => m.t === "event" && m.body.type === "rules", 4);
    const rulesEvents = host.events().filter((e) => e.body.type === "rules");
    await Promise.all([host.close(), guest.client.close(), gone.client.close()]);
    const snapshotAt = async (tick: number) => {
      const res = await fetch(`${server.url}/api/scenes/${scene}/log?tick=${tick}&snapshot=1`);
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.ok(!/"keys"|"removedPeople"|"person"/.test(text), "no hashes of any kind");
      return LogPageSchema.parse(JSON.parse(text)).snapshot!;
    };
    const first = rulesEvents[0].tick;
    const before = await snapshotAt(first);
    assert.equal(before.rules?.lock ?? "hosts", "hosts", "the default before the host's change");
    assert.equal(before.rules?.paused ?? false, false);
    const after = await snapshotAt(rulesEvents.at(-1)!.tick + 1);
    assert.equal(after.rules?.lock, "everyone");
    assert.equal(after.rules?.paused, true);
    assert.deepEqual(after.rules?.muted, [guestId]);
    assert.deepEqual(after.rules?.removed, [goneId]);
  });
});
