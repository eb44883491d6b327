/**
 * The retention sweep's passes over one scene nobody owns, against one NATS server with the
 * scene's log, keyframes and record written by hand and an injected wall clock (no nodes, no
 * waiting): a pass prunes it; the next passes leave it alone (one record read each) until the
 * policy's cut reaches its next keyframe, then prune again; once idle past the retention it is
 * removed, once (a second removal of the same record counts nothing). And a scene whose create
 * went through while its answer was lost is created, once: before, the hello failed, the unused
 * record was removed later and the retry created the id again, so the soak counted two removals for
 * one creation.
 */
import assert from "node:assert/strict";
import { ClusterMetrics } from "../../server/cluster/cluster_metrics.ts";
import { appendKeyframe } from "../../server/cluster/keyframes.ts";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { removeScene, RetentionSweep } from "../../server/cluster/retention_sweep.ts";
import { createRecord, getRecord, type SceneRecord } from "../../server/cluster/scene_records.ts";
import { appendEntry, nextEntry } from "../../server/cluster/stream_log.ts";
import { ServerClock } from "../../server/scene/clock.ts";
import { ageCutTick } from "../../server/scene/retention_policy.ts";
import { TICK_MS } from "../../shared/constants.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";

Deno.test({
  name: "the sweep prunes a scene nobody owns, waits for its next keyframe, then removes it once",
  ignore: !requireNats("cluster sweep pass test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const link = await NatsLink.open({
      natsUrls: nats.urls,
      ...nats.auth,
      nodeId: "node-a",
      replicas: 1,
      leaseTtlMs: 3000,
    }, () => {});
    const epoch = Date.now();
    let nowTick = 0;
    // The scene's clock is the monotonic one (wall = start + elapsed): `nowTick` and half a tick.
    const clock = new ServerClock(() => epoch + TICK_MS / 2, () => nowTick * TICK_MS);
    const metrics = new ClusterMetrics("node-a");
    const policy = { hours: 1 / 60, eventsPerScene: 1_000_000 };
    /** The ticks the policy keeps (about a minute of the scene). */
    const R = 100_000 - ageCutTick(policy, 100_000);
    const sweep = new RetentionSweep({
      link,
      nodeId: "node-a",
      clock,
      policy,
      passMs: 0,
      leaseTtlMs: 3000,
      metrics,
      log: () => {},
    });
    try {
      // A scene left at tick 6000: an event every second, keyframes every 10 s up to 4800 (its
      // record's snapshot), as its last owner wrote them.
      const scene = "swept";
      const events: SceneEvent[] = Array.from({ length: 100 }, (_, i) => ({
        seq: i + 1,
        tick: 60 * (i + 1),
        by: "p1",
        body: { type: "settings", settings: { windSpeed: i % 7 } },
      }));
      const streamSeqs: number[] = [];
      let last = 0;
      for (const e of events) streamSeqs.push(last = await appendEntry(link, scene, e, last));
      let snapshot = initialSnapshot({ show: false });
      let keySeq = 0;
      for (let tick = 600; tick <= 4800; tick += 600) {
        snapshot = advanceSnapshot(snapshot, events, tick);
        // The last event below the keyframe's tick: seq tick/60 − 1.
        const streamSeq = streamSeqs[tick / 60 - 2];
        keySeq = (await appendKeyframe(link, scene, { snapshot, streamSeq }, keySeq))!;
      }
      assert.ok(
        await createRecord(link, scene, {
          seed: 3,
          epoch,
          reserved: 6000,
          showCursor: 0,
          snapshot,
          snapshotStreamSeq: streamSeqs[4800 / 60 - 2],
        }),
      );
      const firstSeq = async () => {
        const first = await nextEntry(link, scene, 1);
        return first ? first.entry.seq : null;
      };

      // The cut passed the keyframe at 3000 (events 1–49 go).
      nowTick = 3050 + R;
      let pass = await sweep.sweep();
      assert.equal(pass.scenes, 1);
      assert.ok(pass.purged > 0, JSON.stringify(pass));
      assert.equal(await firstSeq(), 50);
      // Nothing to do until the cut reaches the next keyframe (3600): left alone.
      nowTick = 3599 + R;
      pass = await sweep.sweep();
      assert.deepEqual({ waiting: pass.waiting, purged: pass.purged }, { waiting: 1, purged: 0 });
      nowTick = 3650 + R;
      pass = await sweep.sweep();
      assert.ok(pass.purged > 0, JSON.stringify(pass));
      assert.equal(await firstSeq(), 60);
      // Idle past the retention at 6000 + R + 1.
      nowTick = 6000 + R;
      pass = await sweep.sweep();
      assert.equal(pass.removed, 0);
      nowTick = 6001 + R;
      const { revision } = (await getRecord(link, scene))!;
      pass = await sweep.sweep();
      assert.equal(pass.removed, 1, JSON.stringify(pass));
      assert.equal(await getRecord(link, scene), null);
      assert.equal(await firstSeq(), null);
      assert.equal(await removeScene(link, scene, revision), false, "removed once");
      pass = await sweep.sweep();
      assert.equal(pass.scenes, 0);
      assert.equal(metrics.scenesRemoved, 1);
      assert.equal(metrics.sweeps, 6);
    } finally {
      await link.close();
      await nats.stop();
    }
  },
});

Deno.test({
  name: "a scene whose create went through while its answer was lost is created once",
  ignore: !requireNats("cluster sweep pass test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const link = await NatsLink.open({
      natsUrls: nats.urls,
      ...nats.auth,
      nodeId: "node-a",
      replicas: 1,
      leaseTtlMs: 3000,
    }, () => {});
    try {
      // The answer to a put does not arrive (a timeout under load), after `write` happened.
      const lossy = (write: (...args: Parameters<typeof link.scenes.put>) => Promise<unknown>) =>
        ({
          jsm: link.jsm,
          scenes: {
            put: async (...args: Parameters<typeof link.scenes.put>) => {
              await write(...args);
              throw new Error("TIMEOUT");
            },
          },
        }) as unknown as NatsLink;
      const record = (seed: number): SceneRecord => ({
        seed,
        epoch: Date.now(),
        reserved: 0,
        showCursor: 0,
        snapshot: initialSnapshot(),
        snapshotStreamSeq: 0,
      });
      // The bucket stored it: ours.
      const ours = record(5);
      const stored = lossy((...args) => link.scenes.put(...args));
      assert.equal(await createRecord(stored, "lost-answer", ours), true);
      assert.deepEqual((await getRecord(link, "lost-answer"))?.record, ours);
      // Another node's create went through instead: not ours, the error stands.
      const theirs = lossy(() => createRecord(link, "taken", record(6)));
      await assert.rejects(createRecord(theirs, "taken", record(7)), /TIMEOUT/);
      assert.equal((await getRecord(link, "taken"))?.record.seed, 6);
    } finally {
      await link.close();
      await nats.stop();
    }
  },
});
