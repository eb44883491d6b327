/**
 * Retention of scenes nobody owns, in cluster mode (three NATS servers, replicas 3, two nodes, a
 * 30× scene clock, `RETAIN_HOURS` = 3 minutes of the scene): a scene left early is removed once
 * idle past the retention, as on the single node; a scene left after its record's snapshot moved
 * is pruned by the sweep while nobody owns it, then removed too; and a removed scene's id opened
 * again is a new scene that works (stamps from seq 1, its log starts at tick 0); an edge that
 * opened a scene as it was being removed sends its clients to join again (1013), and they get
 * the new scene.
 *
 * Runs last, with nothing beside it: on its 30× scene clock a second of CPU starvation is half a
 * minute of the scene. Beside the other tiers in CI (2026-12-01) the idle scene was not removed
 * within its six scene minutes in four runs of five, and once beside the niced browser tier
 * (2026-12-04); alone it passed every time.
 */
// test tiers: last
import assert from "node:assert/strict";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import {
  keysSubject,
  LEASE_BUCKET,
  LOG_STREAM,
  logSubject,
  SCENE_BUCKET,
} from "../../server/cluster/subjects.ts";
import type { ServerMessage } from "../../shared/protocol.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { fastClock } from "../../testing/fast_clock.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";
import { answerAlive } from "../../server/cluster/node_liveness.ts";

/** Scene time at 30× real time: three minutes of retention pass in six seconds. */
const SPEED = 30;
const clock = fastClock(SPEED);
/** Scene seconds → real ms. */
const sceneS = (s: number) => (s * 1000) / SPEED;

/** Joins with a welcome awaited up to 15 s (a new scene's first welcome waits for NATS writes). */
async function join(url: string, scene: string) {
  const client = await TestClient.connect(url, scene);
  client.send({ t: "hello" });
  try {
    const welcome = await client.waitFor((m) => m.t === "welcome", 15_000);
    return { client, welcome: welcome as Extract<ServerMessage, { t: "welcome" }> };
  } catch (e) {
    await client.close();
    // Which join it was (CI once timed out here with no scene named).
    throw new Error(`${scene} on ${url}: ${(e as Error).message}`, { cause: e });
  }
}

Deno.test({
  name: "cluster retention removes idle scenes and prunes scenes nobody owns",
  ignore: !requireNats("cluster sweep test"),
  async fn(t) {
    const nats = await startNatsCluster({ size: 3 });
    // Renewed every 20 s of the scene (0.7 s here); the bucket's TTL is 60 s of real time.
    const cluster = (nodeId: string) => nats.nodeOptions(nodeId, 60_000);
    const options = {
      ...clock,
      // Three minutes: the owner of a scene younger than that prunes nothing.
      retention: { hours: 1 / 20, eventsPerScene: 1_000_000 },
      retentionPassMs: 5000,
      roomIdleMs: 1000,
      // SWEEP_DEBUG=1 prints the nodes' logs.
      log: Deno.env.get("SWEEP_DEBUG") ? (m: string) => console.error(m) : () => {},
    };
    const a = await startTestServer({ ...options, cluster: cluster("node-a") });
    const b = await startTestServer({ ...options, cluster: cluster("node-b") });
    const nc = await connect({ servers: nats.urls, ...nats.auth });
    const jsm = await jetstreamManager(nc);
    const records = await new Kvm(nc).open(SCENE_BUCKET);
    const clients: TestClient[] = [];
    /** Answers that said "try again", asked again by `head`. */
    const retried: number[] = [];
    const head = async (scene: string) => {
      let answer: { status: number; firstSeq: number; lastSeq: number } | undefined;
      // 429 and 503 say "try again": the log API's read limits, or a NATS read that failed
      // (503 storage_unavailable). (The server pauses before it refuses, so asking again at once
      // does not spin.) A read racing the scene's removal once waited 10 s for entries purged
      // under it and answered 503 (seen once in four runs of this file alone); it now ends at
      // once and reads the record again (404 once it is gone). Past the deadline the last
      // "try again" is the answer.
      await eventually(`${scene}'s log answers other than "try again"`, async () => {
        const res = await fetch(`${b.url}/api/scenes/${scene}/log?limit=1`);
        const body = await res.json();
        answer = { status: res.status, firstSeq: body.firstSeq as number, lastSeq: body.lastSeq };
        if (res.status !== 429 && res.status !== 503) return true;
        retried.push(res.status);
        return false;
      }, 10_000).catch(() => {});
      return answer!;
    };
    /** Entries of the scene's log and keyframe subjects in the stream. */
    const stored = async (scene: string) => {
      const info = await jsm.streams.info(LOG_STREAM, {
        subjects_filter: `${logSubject(scene)}.>`,
      });
      const log = await jsm.streams.info(LOG_STREAM, { subjects_filter: logSubject(scene) });
      return {
        entries: log.state.subjects?.[logSubject(scene)] ?? 0,
        keyframes: info.state.subjects?.[keysSubject(scene)] ?? 0,
      };
    };
    const owned = async () => {
      let n = 0;
      for (const url of [a.url, b.url]) {
        n += (await (await fetch(`${url}/healthz`)).json()).cluster.owned;
      }
      return n;
    };
    const recordOf = async (scene: string) => {
      const entry = await records.get(scene);
      return entry && entry.operation === "PUT" ? entry.json<{ seed: number }>() : null;
    };
    /** Watches sweep-late from the moment it is left until it is removed (see below). */
    let lateWatch: Promise<boolean> | undefined;
    try {
      // sweep-early is left as soon as its owner wrote its marker. sweep-late starts then (so it
      // outlives sweep-early whatever a loaded machine makes of the first moments) and is watched
      // for 150 s of the scene (its record's snapshot trails it by W + 60 s and moves every 10 s:
      // keyframes from about 10 s to 80 s), then left before its owner could prune anything. Its
      // client launches every 5 s of the scene: the seeded show is derived, not stored, so without
      // a person's launches the log would hold nothing a keyframe could be cut after.
      const early = await join(a.url, "sweep-early");
      clients.push(early.client);
      await eventually("sweep-early has an owner", async () => {
        return (await stored("sweep-early")).entries > 0;
      }, 20_000);
      await early.client.close();
      const late = await join(a.url, "sweep-late");
      clients.push(late.client);
      const lateSeed = late.welcome.seed;
      const started = performance.now();
      let launched = -Infinity;
      await eventually("sweep-late ran 150 s with keyframes", async () => {
        if (performance.now() - launched >= sceneS(5)) {
          launched = performance.now();
          late.client.submit({ type: "launch", x: 2, z: -3 });
        }
        if (performance.now() - started < sceneS(150)) return false;
        return (await stored("sweep-late")).keyframes >= 2;
      }, sceneS(300));
      const before = await head("sweep-late");
      assert.equal(before.firstSeq, 1, "the owner pruned nothing");
      await late.client.close();
      await eventually("nobody owns a scene", async () => await owned() === 0, 10_000);
      // (Launches may land until the owner left: the last seq is read once nobody owns it.)
      const left = await head("sweep-late");
      // sweep-late is watched from now on, beside the first step: which of the two scenes goes
      // first is not fixed. sweep-early is removable a few scene seconds before sweep-late is
      // left, yet in 3 of 21 runs here (2 of 7 CI runs) it went 10 real seconds or more later,
      // after sweep-late. Why is not pinned down; one candidate: the sweep skips a scene while an
      // edge's pull on its log waits, and a pull left behind waits until it expires.
      const seen: number[] = [];
      let takenBy = 0;
      let lastStatus = 0;
      lateWatch = (async () => {
        let removed = false;
        await eventually("sweep-late's log stops answering", async () => {
          const now = await head("sweep-late");
          lastStatus = now.status;
          if (now.status !== 200) {
            removed = now.status === 404;
            return true;
          }
          seen.push(now.firstSeq);
          if (await owned() !== 0) takenBy++;
          return false;
        }, sceneS(1500)).catch(() => {}); // past the deadline: not removed
        return removed;
      })();

      await t.step("a scene idle past the retention is removed", async () => {
        // Idle since a few seconds of the scene: gone three minutes later (or once a pull left
        // behind on its log expired).
        await eventually("sweep-early is removed", async () => {
          return (await head("sweep-early")).status === 404;
        }, sceneS(1500));
        assert.equal(await recordOf("sweep-early"), null);
        assert.deepEqual(await stored("sweep-early"), { entries: 0, keyframes: 0 });
        // (A node's bucket read may come from a replica a moment behind.)
        await eventually("the API says the scene does not exist", async () => {
          const described = await fetch(`${a.url}/api/scenes/sweep-early`);
          await described.body?.cancel();
          return described.status === 404;
        });
      });

      await t.step("a scene nobody owns is pruned, then removed", async () => {
        // The sweep prunes it by age (up to the keyframe before the newest) while it has no
        // owner (from about 190 s of the scene on); three minutes after it was left it is idle past
        // the retention and goes.
        assert.equal(
          await lateWatch,
          true,
          `sweep-late is removed (last answer ${lastStatus}; asked again after ${
            retried.join(", ") || "none"
          })`,
        );
        assert.equal(takenBy, 0, "nobody took the scene");
        assert.ok(
          seen.some((s) => s > 1),
          `pruned before it went (first kept seqs seen ${[...new Set(seen)].join(", ")})`,
        );
        // (lastSeq + 1: no event after the new start, when the last keyframe kept is past them.)
        assert.ok(seen.every((s) => s <= left.lastSeq + 1), `${seen} within ${left.lastSeq}`);
        assert.equal(await recordOf("sweep-late"), null);
        assert.deepEqual(await stored("sweep-late"), { entries: 0, keyframes: 0 });
        const metrics = (await (await fetch(`${a.url}/metrics`)).text()) +
          (await (await fetch(`${b.url}/metrics`)).text());
        const removed = [...metrics.matchAll(/^snowfire_scenes_removed_total (\d+)$/gm)]
          .reduce((n, m) => n + Number(m[1]), 0);
        assert.equal(removed, 2);
      });

      await t.step("a removed scene's id opened again is a new scene that works", async () => {
        const again = await join(b.url, "sweep-late");
        clients.push(again.client);
        assert.equal(again.welcome.lastSeq, 0);
        assert.notEqual(again.welcome.seed, lateSeed, "a new seed (1 in 2^32 to fail)");
        // A launch of this client is stamped (at 30× the sky may pause for a moment: send again).
        let tries = 0;
        await eventually("a launch is stamped", () => {
          if (tries++ % 40 === 0) again.client.submit({ type: "launch", x: 1, z: 2 });
          return again.client.events().some((e) => e.by === again.welcome.you.id);
        }, 20_000);
        const first = again.client.events()[0];
        assert.equal(first.seq, 1);
        const page = await (await fetch(`${a.url}/api/scenes/sweep-late/log?tick=0&limit=5`))
          .json();
        assert.equal(page.startTick, 0);
        assert.equal(page.events[0].seq, 1);
        assert.equal(page.seed, again.welcome.seed);
      });

      await t.step(
        "an edge that opened a scene while it was removed sends its clients back",
        async () => {
          // Someone else holds the lease, so the edge relays the scene without an owner; then the
          // scene is removed under it (what a sweep does) and the lease is freed.
          const leases = await new Kvm(nc).open(LEASE_BUCKET);
          await leases.create("sweep-race", new TextEncoder().encode("someone-else"));
          // A live process holds it: it answers when a takeover asks.
          answerAlive(nc, "someone-else");
          const stale = await join(a.url, "sweep-race");
          clients.push(stale.client);
          const { revision } = (await records.get("sweep-race"))!;
          await jsm.streams.purge(LOG_STREAM, { filter: logSubject("sweep-race") });
          await records.delete("sweep-race", { previousSeq: revision });
          await leases.delete("sweep-race");
          // The edge's takeover finds the record gone: its clients are told to come again.
          const closed = await stale.client.closed;
          assert.equal(closed.code, 1013);
          const fresh = await join(a.url, "sweep-race");
          clients.push(fresh.client);
          assert.notEqual(fresh.welcome.seed, stale.welcome.seed);
          let tries = 0;
          await eventually("the new scene stamps", () => {
            if (tries++ % 40 === 0) fresh.client.submit({ type: "launch", x: 1, z: 2 });
            return fresh.client.events().some((e) => e.by === fresh.welcome.you.id);
          }, 20_000);
        },
      );
    } finally {
      await lateWatch?.catch(() => false);
      await Promise.all(clients.map((c) => c.close()));
      await nc.close();
      await a.shutdown();
      await b.shutdown();
      await Promise.all([a.dataDir, b.dataDir].map((d) => Deno.remove(d, { recursive: true })));
      await nats.stop();
    }
  },
});
