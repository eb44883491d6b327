/**
 * Logs kept by a policy (single node): with at most 50 events per scene, older events are pruned
 * in the background, the log API refuses what was pruned (410) and reports where the log starts,
 * a late joiner and a replay from the first kept seq both match the veteran's hash, the database
 * file stops growing, and a scene idle past the age limit is removed entirely. The server's
 * clocks are injected and jumped forward, so minutes pass in an instant.
 */
import assert from "node:assert/strict";
import { WINDOW_TICKS } from "../../shared/constants.ts";
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";
import { World, worldFromWindow } from "../../shared/world.ts";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

interface Page {
  seed: number;
  firstSeq: number;
  lastSeq: number;
  startTick: number;
  exactFromTick: number;
  events: SceneEvent[];
  next: number | null;
  snapshot?: WorldSnapshot;
}

const FAST = { perSecond: 200, burst: 200 };

/** What the WAL index (`scenes.db-shm`) says: the log's frames and salt, and frames copied. */
interface WalIndex {
  /** The log's salt: it changes when the log is rewound, which only follows a full copy. */
  salt: string;
  /** Frames in the log (mxFrame). */
  frames: number;
  /** Frames a checkpoint copied into the database file (nBackfill). */
  copied: number;
}

/**
 * Reads the WAL index of the scene database in `dataDir` (SQLite's wal-index layout: two copies
 * of a 48-byte header in native byte order, then the checkpoint info); null while it is being
 * written (the copies differ).
 */
async function walIndex(dataDir: string): Promise<WalIndex | null> {
  const bytes = await Deno.readFile(`${dataDir}/scenes.db-shm`);
  if (bytes.length < 100 || !bytes.subarray(0, 48).every((b, i) => b === bytes[48 + i])) {
    return null;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return {
    salt: `${view.getUint32(32, true)}.${view.getUint32(36, true)}`,
    frames: view.getUint32(16, true),
    copied: view.getUint32(96, true),
  };
}

Deno.test("retention prunes old events and keeps late join and replay exact", async (t) => {
  let offsetMs = 0;
  await withServer({
    now: () => Date.now() + offsetMs,
    monotonic: () => performance.now() + offsetMs,
    retention: { eventsPerScene: 50, hours: 1 },
    retentionPassMs: 20,
    roomIdleMs: 100,
    rateLimits: { launch: FAST, settings: FAST, gun: FAST, frames: { perSecond: 500, burst: 500 } },
  }, async (server) => {
    const scene = "kept-by-policy";
    const get = async (query: string) => {
      const res = await fetch(`${server.url}/api/scenes/${scene}/log?${query}`);
      return { status: res.status, body: await res.json() };
    };
    const health = async () => (await (await fetch(`${server.url}/healthz`)).json());
    const { client: veteran, welcome } = await TestClient.join(server.url, scene);
    let sent = 0;
    /** Submits `n` events (wind changes and launches) and waits until the veteran has them all. */
    const burst = async (n: number) => {
      const before = veteran.events().length;
      for (let i = 0; i < n; i++) {
        sent++;
        if (sent % 3 === 0) {
          veteran.submit({ type: "launch", x: (sent % 20) - 10, z: 5, kind: "peony" });
        } else {
          veteran.submit({
            type: "settings",
            settings: { windSpeed: sent % 10, windDirection: (sent * 35) % 360, show: false },
          });
        }
      }
      await eventually(
        `${n} events came back`,
        () => veteran.events().length >= before + n,
        10_000,
      );
    };
    /**
     * Lets `seconds` pass on the server's clocks at once; resolves when a scheduler pass ran at
     * the new time (the veteran has its heartbeat).
     */
    const jump = async (seconds: number) => {
      const last = veteran.messages.findLast((m) => m.t === "tick");
      offsetMs += seconds * 1000;
      const after = (last?.t === "tick" ? last.n : welcome.horizon) + seconds * welcome.tickRate;
      await veteran.waitFor((m) => m.t === "tick" && m.n >= after);
    };

    const sizes: number[] = [];
    await t.step("events beyond 50 are pruned from the front", async () => {
      // Two rounds, each pruned once the room's snapshot passes it (T − W − the resume margin, in
      // 10 s steps: 80 s on). The late joiner's check below simulates the scene from its start,
      // so every round here costs it 80 s of world; the rounds of "stops growing" come after it.
      for (let round = 0; round < 2; round++) {
        await burst(60);
        await jump(80);
      }
      await burst(10);
      // The room's stored snapshot moves forward on its own pass; the retention follows it.
      await eventually("the log was pruned", async () => (await get("limit=1")).body.firstSeq > 1);
      const head = (await get("limit=1")).body as Page;
      assert.ok(head.startTick > 0, "a log start was recorded");
      assert.equal(head.exactFromTick, head.startTick + WINDOW_TICKS);
      // Kept: about the newest 50, more only where the room's stored snapshot holds them back.
      assert.ok(
        head.lastSeq - head.firstSeq + 1 < sent,
        `kept ${head.lastSeq - head.firstSeq + 1}`,
      );
      const pruned = await get("from=1");
      assert.equal(pruned.status, 410);
      assert.equal(pruned.body.error.code, "pruned");
      const beforeStart = await get(`tick=${head.startTick - 1}`);
      assert.equal(beforeStart.status, 410);
      sizes.push((await health()).stored.fileBytes);
    });

    await t.step(
      "a late joiner and a replay from the first kept seq match the veteran",
      async () => {
        const { client: late, welcome: lateWelcome } = await TestClient.join(server.url, scene);
        try {
          const T = lateWelcome.horizon;
          // The veteran's world: everything it received since its welcome at the scene's start.
          const veteran0 = worldFromWindow({
            seed: welcome.seed,
            snapshot: welcome.snapshot,
            events: welcome.events,
            tick: welcome.horizon,
          });
          for (const event of veteran.events()) {
            if (event.tick >= welcome.horizon) veteran0.apply(event);
          }
          veteran0.advanceTo(T);
          const veteranHash = veteran0.hash();
          const lateWorld = worldFromWindow({
            seed: lateWelcome.seed,
            snapshot: lateWelcome.snapshot,
            events: lateWelcome.events,
            tick: T,
          });
          assert.equal(lateWorld.hash(), veteranHash, "late joiner");
          // A replay of the whole kept log from its start (first kept seq) on.
          const head = (await get(`tick=0&limit=1`)).status === 410
            ? (await get("limit=1")).body as Page
            : null;
          assert.ok(head, "tick 0 is pruned");
          const first = (await get(`tick=${head.startTick}&snapshot=1&limit=5000`)).body as Page;
          assert.equal(first.events[0].seq, first.firstSeq);
          assert.ok(T >= first.exactFromTick, `${T} >= ${first.exactFromTick}`);
          const replayed = new World({ seed: first.seed, snapshot: first.snapshot });
          for (const event of first.events) if (event.tick < T) replayed.apply(event);
          replayed.advanceTo(T);
          assert.equal(replayed.hash(), veteranHash, "replay from the first kept seq");
          // And the window a page's replay seeks with: the snapshot at T − W and the events on.
          const window = (await get(`tick=${T - WINDOW_TICKS}&snapshot=1&limit=5000`)).body as Page;
          const seeked = worldFromWindow({
            seed: window.seed,
            snapshot: window.snapshot!,
            events: window.events.filter((e) => e.tick < T),
            tick: T,
          });
          assert.equal(seeked.hash(), veteranHash, "replay seeking T");
        } finally {
          await late.close();
        }
      },
    );

    await t.step("the database file stops growing", async () => {
      for (let round = 0; round < 4; round++) {
        await burst(60);
        await jump(80);
        await eventually("the retention settled", async () => {
          const head = (await get("limit=1")).body as Page;
          return head.lastSeq - head.firstSeq < 250;
        });
        // The WAL checkpoint (every second) copies the log into the file: wait until it copied
        // every frame written by now (or rewound the log, which it does only after copying all).
        let written: WalIndex | null = null;
        await eventually("the WAL index reads", async () => {
          written = await walIndex(server.dataDir);
          return written !== null;
        });
        const { salt, frames } = written!;
        await eventually("a checkpoint copied the log into the file", async () => {
          const index = await walIndex(server.dataDir);
          return index !== null && (index.salt !== salt || index.copied >= frames);
        });
        sizes.push((await health()).stored.fileBytes);
      }
      const settled = sizes.slice(2);
      assert.ok(
        Math.max(...settled) <= settled[0],
        `file sizes over rounds: ${sizes.join(", ")}`,
      );
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      assert.match(metrics, /^snowfire_stored_events \d+$/m);
      assert.match(metrics, /^snowfire_stored_bytes \d+$/m);
      assert.match(metrics, /^snowfire_pruned_events_total [1-9]\d*$/m);
    });

    await t.step("a scene idle past the age limit is removed entirely", async () => {
      const idle = "idle-then-gone";
      const { client } = await TestClient.join(server.url, idle);
      client.submit({ type: "launch", x: 0, z: 0 });
      await client.waitFor((m) => m.t === "event");
      await client.close();
      // The room unloads after roomIdleMs: only the veteran's scene stays loaded.
      await eventually("the idle room unloads", async () => {
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        return /^snowfire_scenes_loaded 1$/m.test(metrics);
      });
      const stored = await fetch(`${server.url}/api/scenes/${idle}`);
      await stored.body?.cancel();
      assert.equal(stored.status, 200);
      await jump(3700);
      await eventually("the idle scene is gone", async () => {
        const res = await fetch(`${server.url}/api/scenes/${idle}`);
        await res.body?.cancel();
        return res.status === 404;
      });
      // The veteran's scene is open: it stays, with its newest event.
      const head = (await get("limit=1")).body as Page;
      assert.ok(head.lastSeq >= sent);
      assert.equal((await health()).ok, true);
    });
    await veteran.close();
  });
});
