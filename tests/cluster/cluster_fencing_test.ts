/**
 * Fencing, step by step against a real nats-server: a second owner taking a scene over (here by
 * force, as after a lease expiry) fences the first one; the first one's next append is refused,
 * it steps down, and the log holds no event of it after the takeover marker.
 */
import assert from "node:assert/strict";
import { ServerClock } from "../../server/scene/clock.ts";
import { ClusterMetrics } from "../../server/cluster/cluster_metrics.ts";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { createRecord, getRecord } from "../../server/cluster/scene_records.ts";
import { RESERVE_AHEAD_TICKS, SceneOwner } from "../../server/cluster/scene_owner.ts";
import { isEvent, LogReader, type StoredEntry } from "../../server/cluster/stream_log.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { eventually } from "../../testing/wait.ts";

/** Stores a scene's record as a node's first hello does: seed 7, the show off. */
async function createQuietScene(link: NatsLink, scene: string, clock: ServerClock) {
  assert.ok(
    await createRecord(link, scene, {
      seed: 7,
      epoch: clock.wallMs(),
      reserved: 0,
      showCursor: 0,
      snapshot: initialSnapshot({ show: false }),
      snapshotStreamSeq: 0,
    }),
    `scene ${scene} created`,
  );
}

Deno.test({
  name:
    "a deposed owner's append is refused and it steps down; its successor starts above its reservation",
  ignore: !requireNats("cluster fencing test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const options = (nodeId: string) => ({
      natsUrls: nats.urls,
      ...nats.auth,
      nodeId,
      replicas: 1,
      leaseTtlMs: 3000,
    });
    const logs: string[] = [];
    const log = (msg: string) => logs.push(msg);
    const linkA = await NatsLink.open(options("a"), log);
    const linkB = await NatsLink.open(options("b"), log);
    const clock = new ServerClock(Date.now, () => performance.now());
    const deps = (link: NatsLink, nodeId: string) => ({
      link,
      nodeId,
      clock,
      skyCap: 200_000,
      leaseTtlMs: 3000,
      desyncTimeoutMs: 3000,
      metrics: new ClusterMetrics(nodeId),
      log,
    });
    const owners: SceneOwner[] = [];
    try {
      const scene = "fence-1";
      await createQuietScene(linkA, scene, clock);
      const depsA = deps(linkA, "a");
      const a = await SceneOwner.take(depsA, scene);
      assert.ok(a, "a takes the free scene");
      owners.push(a);
      assert.equal(
        await SceneOwner.take(deps(linkB, "b"), scene),
        null,
        "b cannot while a holds it",
      );
      const first = await a.submit({ by: "p1", body: { type: "launch", x: 1, z: 1 } });
      assert.deepEqual(first, { ok: true, seq: 1 });
      const reservedByA = (await getRecord(linkA, scene))!.record.reserved;

      // The lease is gone (as after a TTL expiry while a was paused): b takes over.
      await linkA.leases.purge(scene);
      const b = await SceneOwner.take(deps(linkB, "b"), scene);
      assert.ok(b, "b takes the scene over");
      owners.push(b);
      assert.equal(a.active, true, "a has not noticed yet");

      const stale = await a.submit({ by: "p2", body: { type: "launch", x: 2, z: 2 } });
      assert.equal("code" in stale && stale.code, "paused", "a's append is refused");
      assert.equal(a.active, false, "a stepped down");
      assert.ok(logs.some((l) => /a steps down from fence-1: fenced/.test(l)));
      assert.equal(depsA.metrics.appendRetries, 0, "a fenced append is not retried");

      const next = await b.submit({ by: "p3", body: { type: "launch", x: 3, z: 3 } });
      assert.deepEqual(next, { ok: true, seq: 2 }, "seq continues without a gap or reuse");

      const entries: StoredEntry[] = [];
      const reader = await LogReader.open(linkB, scene, 1, (e) => entries.push(e));
      await eventually("the reader has the log's four entries", () => entries.length >= 4);
      await reader.close();
      const kinds = entries.map(({ entry }) =>
        isEvent(entry) ? `event ${entry.seq} by ${entry.by}` : `owner ${entry.owner}`
      );
      assert.deepEqual(kinds, ["owner a", "event 1 by p1", "owner b", "event 2 by p3"]);
      const events = entries.map((e) => e.entry).filter(isEvent);
      assert.ok(events[1].tick > reservedByA, "b stamps above every horizon a could promise");
      assert.ok(events[0].tick <= reservedByA, "a never stamps above its reservation");
      assert.ok(reservedByA > 0 && reservedByA >= RESERVE_AHEAD_TICKS);
    } finally {
      for (const owner of owners) owner.stepDown("test done");
      await linkA.close();
      await linkB.close();
      await nats.stop();
    }
  },
});

Deno.test({
  name:
    "an append that timed out is published again with the same msgId: stored once, the owner stays",
  ignore: !requireNats("cluster append retry test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const logs: string[] = [];
    const log = (msg: string) => logs.push(msg);
    const link = await NatsLink.open(
      { natsUrls: nats.urls, ...nats.auth, nodeId: "a", replicas: 1, leaseTtlMs: 6000 },
      log,
    );
    const clock = new ServerClock(Date.now, () => performance.now());
    const metrics = new ClusterMetrics("a");
    let owner: SceneOwner | null = null;
    try {
      const scene = "retry-1";
      await createQuietScene(link, scene, clock);
      owner = await SceneOwner.take({
        link,
        nodeId: "a",
        clock,
        skyCap: 200_000,
        leaseTtlMs: 6000,
        desyncTimeoutMs: 3000,
        metrics,
        log,
      }, scene);
      assert.ok(owner);
      assert.deepEqual(
        await owner.submit({ by: "p1", body: { type: "launch", x: 1, z: 1 } }),
        { ok: true, seq: 1 },
      );
      // The server freezes (as a stream leader stalls in an election): the append's first try
      // times out (2 s) though the server, once it runs again, stores it; the retry must get the
      // stored sequence back (msgId dedupe), not append a second copy nor be fenced by the first.
      await nats.kill(0, "SIGSTOP");
      await stopped(nats.servers[0].pid);
      const pending = owner.submit({ by: "p2", body: { type: "launch", x: 2, z: 2 } });
      const retrying = () => logs.some((l) => /append of seq 2 failed .*retrying/.test(l));
      try {
        await eventually("the append's first try timed out and is retried", retrying, 10_000);
      } finally {
        await nats.kill(0, "SIGCONT");
      }
      assert.deepEqual(await pending, { ok: true, seq: 2 });
      assert.equal(owner.active, true, "the owner did not step down");
      assert.ok(metrics.appendRetries >= 1, "the append was retried");
      assert.ok(retrying());
      assert.deepEqual(
        await owner.submit({ by: "p3", body: { type: "launch", x: 3, z: 3 } }),
        { ok: true, seq: 3 },
      );
      const entries: StoredEntry[] = [];
      const reader = await LogReader.open(link, scene, 1, (e) => entries.push(e));
      await eventually("the reader has the log's four entries", () => entries.length >= 4);
      await reader.close();
      const kinds = entries.map(({ entry }) =>
        isEvent(entry) ? `event ${entry.seq} by ${entry.by}` : `owner ${entry.owner}`
      );
      assert.deepEqual(kinds, ["owner a", "event 1 by p1", "event 2 by p2", "event 3 by p3"]);
      assert.equal(entries.at(-1)!.streamSeq, 4, "nothing else was stored");
    } finally {
      owner?.stepDown("test done");
      await link.close();
      await nats.stop();
    }
  },
});

/** Waits until process `pid` is in the stopped state (a signal is delivered asynchronously). */
async function stopped(pid: number): Promise<void> {
  await eventually(`process ${pid} is stopped`, async () => {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
    // The state field follows the parenthesised command name.
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
  });
}
