/**
 * A retention purge that overtakes a reader between its read of the scene record and its read of
 * the log (what the cluster retention soak saw once under load: a late joiner's welcome that did
 * not rebuild the veteran's world). The scene here is set up as such a reader finds it: the
 * record it read says the snapshot covers events 1–10, while the owner has meanwhile moved the
 * record on (snapshot at event 20) and purged the log up to event 15. An edge opening the scene
 * reads the record again instead of welcoming from the old snapshot plus events 16–30; a node
 * taking the scene over refuses the stale record instead of loading a window without 11–15.
 */
import assert from "node:assert/strict";
import { ClusterMetrics } from "../../server/cluster/cluster_metrics.ts";
import { JetStreamSceneLog } from "../../server/cluster/jetstream_log.ts";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import {
  createRecord,
  getRecord,
  type SceneRecord,
  updateRecord,
} from "../../server/cluster/scene_records.ts";
import { coveredSeq, followsOn } from "../../server/cluster/snapshot_start.ts";
import {
  appendEntry,
  lastEntry,
  LogRangeGoneError,
  readRange,
} from "../../server/cluster/stream_log.ts";
import { LEASE_BUCKET, LOG_STREAM, logSubject } from "../../server/cluster/subjects.ts";
import { ServerClock } from "../../server/scene/clock.ts";
import { WINDOW_TICKS } from "../../shared/constants.ts";
import type { ServerMessage } from "../../shared/protocol.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { worldFromWindow } from "../../shared/world.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";
import { Kvm } from "@nats-io/kv";
import { answerAlive } from "../../server/cluster/node_liveness.ts";

/**
 * Event `i`: a wind change at tick 10·i (each one moves the wind's integral differently); the
 * last one a window W after the others, so a welcome's horizon is at least W past either
 * snapshot (a welcome's snapshot trails its horizon by W or more).
 */
const event = (i: number): SceneEvent => ({
  seq: i,
  tick: i < 30 ? 10 * i : 300 + WINDOW_TICKS,
  by: "p1",
  body: { type: "settings", settings: { windSpeed: i % 9, windDirection: (i * 37) % 360 } },
});
const events = Array.from({ length: 30 }, (_, i) => event(i + 1));
/** What the record said when the reader read it: events 1–10 covered. */
const s1 = advanceSnapshot(initialSnapshot({ show: false }), events.slice(0, 10), 105);
/** What the owner stored before its purge: events 1–20 covered. */
const s2 = advanceSnapshot(s1, events.slice(10, 20), 205);

/**
 * Stores a scene whose log holds events 1–30 and whose record's snapshot covers 1–10, then
 * purges the log up to event 15 (as an owner does, up to a keyframe older than the record's
 * snapshot): the state a reader that read the record before the owner moved it on to event 20
 * and purged finds. Returns the records before and after the move.
 */
async function raceScene(link: NatsLink, scene: string, epoch: number) {
  const record: SceneRecord = {
    seed: 11,
    epoch,
    reserved: 0,
    showCursor: 0,
    snapshot: initialSnapshot({ show: false }),
    snapshotStreamSeq: 0,
  };
  assert.ok(await createRecord(link, scene, record));
  const streamSeqs: number[] = [];
  let last = 0;
  for (const e of events) streamSeqs.push(last = await appendEntry(link, scene, e, last));
  const { revision } = (await getRecord(link, scene))!;
  const stale = { ...record, snapshot: s1, snapshotStreamSeq: streamSeqs[9], snapshotSeq: 10 };
  const staleRevision = await updateRecord(link, scene, stale, revision);
  await link.jsm.streams.purge(LOG_STREAM, { filter: logSubject(scene), seq: streamSeqs[14] + 1 });
  return {
    stale,
    staleRevision,
    fresh: { ...stale, snapshot: s2, snapshotStreamSeq: streamSeqs[19], snapshotSeq: 20 },
    streamSeqs,
  };
}

/** The world at `tick` from every event after `snapshot`. */
const truth = (seed: number, capacity: number, tick: number) =>
  worldFromWindow({ seed, capacity, snapshot: s1, events: events.slice(10), tick }).hash();

Deno.test("followsOn finds an event left out after the last seq read", () => {
  assert.equal(followsOn(10, event(11)), true);
  assert.equal(followsOn(10, event(10)), true, "a duplicate leaves nothing out");
  assert.equal(followsOn(10, event(12)), false);
  assert.equal(followsOn(10, { owner: "node-a", seq: 10, tick: 100 }), true);
  assert.equal(followsOn(10, { owner: "node-a", seq: 11, tick: 110 }), false);
});

Deno.test({
  name: "a purge that overtook the record read makes readers read the record again",
  ignore: !requireNats("cluster prune race test"),
  async fn(t) {
    const nats = await startNatsCluster({ size: 1 });
    const cluster = {
      natsUrls: nats.urls,
      ...nats.auth,
      nodeId: "node-a",
      replicas: 1,
      leaseTtlMs: 60_000,
    };
    const logs: string[] = [];
    const link = await NatsLink.open({ ...cluster, nodeId: "setup" }, () => {});
    const server = await startTestServer({ cluster, log: (m) => logs.push(m) });
    const clients: TestClient[] = [];
    const clock = new ServerClock(Date.now, () => performance.now());
    try {
      await t.step("the owner's load refuses the stale record", async () => {
        const scene = "race-owner";
        const { fresh, staleRevision, streamSeqs } = await raceScene(link, scene, clock.wallMs());
        const { record } = (await getRecord(link, scene))!;
        assert.equal(await coveredSeq(link, scene, record), 10);
        // (A record from before `snapshotSeq` whose entry is gone: nothing says.)
        assert.equal(await coveredSeq(link, scene, { ...record, snapshotSeq: undefined }), null);
        const deps = {
          link,
          nodeId: "node-b",
          clock,
          leaseTtlMs: 3000,
          metrics: new ClusterMetrics("node-b"),
          log: () => {},
        };
        await assert.rejects(JetStreamSceneLog.open(deps, scene), /pruned past the record/);
        await updateRecord(link, scene, fresh, staleRevision);
        // The prune may remove the snapshot's own entry (a keyframe before the newest at the same
        // stream sequence, when no event came between two snapshots): the log still follows on.
        await link.jsm.streams.purge(LOG_STREAM, {
          filter: logSubject(scene),
          seq: streamSeqs[19] + 1,
        });
        const { log, loaded } = await JetStreamSceneLog.open(deps, scene);
        log.stop();
        assert.deepEqual(loaded.events.map((e) => e.seq), events.slice(20).map((e) => e.seq));
        assert.deepEqual(loaded.snapshot, s2);
      });

      await t.step("a range read whose entries were purged under it ends at once", async () => {
        const scene = "race-range";
        const streamSeqs: number[] = [];
        let at = 0;
        for (const e of events.slice(0, 5)) {
          streamSeqs.push(at = await appendEntry(link, scene, e, at));
        }
        const last = (await lastEntry(link, scene))!;
        const seqs = (read: { entry: { seq: number } }[]) => read.map((s) => s.entry.seq);
        assert.deepEqual(seqs(await readRange(link, scene, 1, last)), [1, 2, 3, 4, 5]);
        // A prune of the first three: the read goes on with what is left.
        await link.jsm.streams.purge(LOG_STREAM, { filter: logSubject(scene), seq: streamSeqs[3] });
        assert.deepEqual(seqs(await readRange(link, scene, 1, last)), [4, 5]);
        // The scene removed (its subject purged): nothing up to `last` will come. The read ends
        // with its own error at the first check, not as a timeout after 10 s.
        await link.jsm.streams.purge(LOG_STREAM, { filter: logSubject(scene) });
        await assert.rejects(readRange(link, scene, 1, last), (e) => {
          assert.ok(e instanceof LogRangeGoneError, String(e));
          assert.equal(e.code, "log_range_gone");
          return true;
        });
      });

      await t.step("a range read ends when its connection closes", async () => {
        const scene = "race-closed";
        let at = 0;
        for (const e of events.slice(0, 3)) at = await appendEntry(link, scene, e, at);
        const last = (await lastEntry(link, scene))!;
        // Entries still to come (the owner appends them later): the read waits for them.
        const ahead = { ...last, streamSeq: last.streamSeq + 2 };
        const closing = await NatsLink.open({ ...cluster, nodeId: "closing" }, () => {});
        const delivered = Promise.withResolvers<void>();
        const started = performance.now();
        const reading = readRange(closing, scene, 1, ahead, () => {
          delivered.resolve();
          return false;
        });
        await delivered.promise;
        await closing.close();
        // Before, it went on checking the closed connection and timed out after 10 s, its
        // timers outliving the node that closed.
        await assert.rejects(reading, /connection closed/);
        const took = performance.now() - started;
        assert.ok(took < 2000, `ended ${took.toFixed(0)} ms after it began`);
      });

      await t.step("an edge opening the scene reads the record again", async () => {
        const scene = "race-edge";
        // Nobody takes the scene over (a lease someone else holds): the edge alone reads it.
        const leases = await new Kvm(link.nc).open(LEASE_BUCKET);
        await leases.create(scene, new TextEncoder().encode("someone-else"));
        // A live process holds it: it answers when a takeover asks.
        answerAlive(link.nc, "someone-else");
        const epoch = clock.wallMs() - 10_000;
        const { fresh, staleRevision, streamSeqs } = await raceScene(link, scene, epoch);
        const client = await TestClient.connect(server.url, scene);
        clients.push(client);
        client.send({ t: "hello" });
        // The edge read the stale record: the owner's record write (which came before its purge)
        // lands now, once the edge found the log pruned past it (or, before the fix, welcomed).
        const reopened = async () =>
          /snowfire_cluster_reopened_after_prune_total\{[^}]*\} [1-9]/.test(
            await (await fetch(`${server.url}/metrics`)).text(),
          );
        await eventually(
          "the edge welcomed or found the log pruned past the record",
          async () => client.messages.some((m) => m.t === "welcome") || await reopened(),
          10_000,
        );
        await updateRecord(link, scene, fresh, staleRevision);
        // (And the snapshot's own entry goes, which the edge does not need.)
        await link.jsm.streams.purge(LOG_STREAM, {
          filter: logSubject(scene),
          seq: streamSeqs[19] + 1,
        });
        const welcome = await client.waitFor((m) => m.t === "welcome", 10_000) as Extract<
          ServerMessage,
          { t: "welcome" }
        >;
        const T = welcome.horizon;
        assert.equal(T, 300 + WINDOW_TICKS);
        const got = worldFromWindow({
          seed: welcome.seed,
          capacity: welcome.skyCap,
          snapshot: welcome.snapshot,
          events: welcome.events,
          tick: T,
        }).hash();
        assert.equal(
          got,
          truth(welcome.seed, welcome.skyCap, T),
          "the welcome rebuilds the scene's world",
        );
        assert.ok(await reopened(), "counted in /metrics");
        assert.ok(
          logs.some((m) => m.includes("race-edge: the log was pruned past the record")),
          logs.join("\n"),
        );
      });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
      await link.close();
      await nats.stop();
    }
  },
});
