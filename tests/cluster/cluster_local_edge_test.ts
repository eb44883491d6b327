/**
 * The owner's own node: its edge takes the owner's heartbeats in process (the very ones the owner
 * publishes for the other nodes), and hears when the owner steps down, so it listens to NATS again
 * before the lease is released.
 */
import assert from "node:assert/strict";
import { ServerClock } from "../../server/scene/clock.ts";
import { ClusterMetrics } from "../../server/cluster/cluster_metrics.ts";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { createRecord } from "../../server/cluster/scene_records.ts";
import { type Beat, SceneOwner } from "../../server/cluster/scene_owner.ts";
import { beatSubject } from "../../server/cluster/subjects.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { eventually } from "../../testing/wait.ts";

Deno.test({
  name: "an owner hands its node's edge the heartbeats it publishes, until it steps down",
  ignore: !requireNats("cluster local edge test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const link = await NatsLink.open(
      { natsUrls: nats.urls, ...nats.auth, nodeId: "a", replicas: 1, leaseTtlMs: 3000 },
      () => {},
    );
    const clock = new ServerClock(Date.now, () => performance.now());
    let owner: SceneOwner | null = null;
    try {
      const scene = "local-1";
      assert.ok(
        await createRecord(link, scene, {
          seed: 7,
          epoch: clock.wallMs(),
          reserved: 0,
          showCursor: 0,
          snapshot: initialSnapshot({ show: false }),
          snapshotStreamSeq: 0,
        }),
      );
      const published: Beat[] = [];
      const sub = link.nc.subscribe(beatSubject(scene), {
        callback: (_err, msg) => void published.push(msg.json<Beat>()),
      });
      owner = await SceneOwner.take({
        link,
        nodeId: "a",
        clock,
        skyCap: 200_000,
        leaseTtlMs: 3000,
        desyncTimeoutMs: 3000,
        metrics: new ClusterMetrics("a"),
        log: () => {},
      }, scene);
      assert.ok(owner, "a takes the free scene");
      const local: Beat[] = [];
      let stopped = 0;
      owner.attach({ beat: (beat) => local.push(beat), ownerStopped: () => stopped++ });
      // The scheduler's passes, as the node runs them, until three heartbeats were due.
      await eventually("the owner beat three times", () => {
        owner!.pass(clock.monotonicMs());
        return local.length >= 3;
      });
      await link.nc.flush();
      assert.deepEqual(local, published, "the same heartbeats, in the same order");
      assert.ok(local.every((b, i) => i === 0 || b.n > local[i - 1].n));
      assert.equal(stopped, 0);

      owner.stepDown("test");
      assert.equal(stopped, 1, "the edge hears of the step-down at once");
      const before = local.length;
      owner.pass(clock.monotonicMs() + 1000);
      assert.equal(local.length, before, "no heartbeat after stepping down");
      owner.stepDown("again");
      assert.equal(stopped, 1, "told once");

      let late = 0;
      owner.attach({ beat: () => {}, ownerStopped: () => late++ });
      assert.equal(late, 1, "an edge attached to an owner that stepped down is told at once");
      sub.unsubscribe();
    } finally {
      owner?.stepDown("test done");
      await link.close();
      await nats.stop();
    }
  },
});
