/**
 * Cluster mode in-process with a fast scene clock (10×), so the window W and the snapshot steps
 * pass in seconds: the owner moves the scene record's snapshot forward, an edge on another node
 * welcomes from it, and a node taking over after a graceful shutdown continues from it.
 */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import { WINDOW_TICKS } from "../../shared/constants.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { worldFromWindow } from "../../shared/world.ts";
import { SCENE_BUCKET } from "../../server/cluster/subjects.ts";
import type { SceneRecord } from "../../server/cluster/scene_records.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { auditStream } from "../../testing/cluster_streams.ts";
import { TestClient } from "../../testing/test_client.ts";
import { fastClock } from "../../testing/fast_clock.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

/** Scene time at 10× real time. */
const clock = fastClock(10);

Deno.test({
  name: "the owner moves the stored snapshot forward; edges and a new owner start from it",
  ignore: !requireNats("cluster snapshot test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    // A lease TTL of 3000 scene milliseconds: 300 ms of real time.
    const cluster = (nodeId: string) => nats.nodeOptions(nodeId, 3000);
    const a = await startTestServer({ ...clock, cluster: cluster("node-a") });
    const b = await startTestServer({ ...clock, cluster: cluster("node-b") });
    const nc = await connect({ servers: nats.urls, ...nats.auth });
    const clients: TestClient[] = [];
    try {
      const scene = "cluster-snap-1";
      const veteran = await TestClient.join(a.url, scene);
      clients.push(veteran.client);
      // (Sent again while the new scene's first owner is still being chosen: refused as paused.)
      await eventually("the settings change is stamped", () => {
        const done = veteran.client.events().some((e) => e.body.type === "settings");
        if (!done) {
          veteran.client.submit({
            type: "settings",
            settings: { show: false, windSpeed: 7, theme: "blue-silver" },
          });
        }
        return done;
      }, 10_000);
      const kv = await new Kvm(nc).open(SCENE_BUCKET);
      const record = async () => (await kv.get(scene))!.json<SceneRecord>();
      // Keep launching until the record's snapshot has moved past the settings change (a
      // snapshot taken before its tick, which a slow first owner makes likely, holds the old
      // settings).
      const settingsTick = veteran.client.events().find((e) => e.body.type === "settings")!.tick;
      let i = 0;
      await eventually("the stored snapshot moved past the settings change", async () => {
        const revision = (await kv.get(scene))!.revision;
        veteran.client.submit({ type: "launch", x: (i++ % 10) * 4 - 20, z: 2 });
        // One launch per record write: the snapshot can only have moved once the record is written
        // again (a snapshot step or a reservation; a deadline, then the next launch).
        await eventually("the owner writes the record again", async () => {
          return (await kv.get(scene))!.revision > revision;
        }, 2000).catch(() => {});
        return (await record()).snapshot.tick > settingsTick;
      }, 20_000);
      const stored = await record();
      assert.ok(stored.snapshotStreamSeq > 0);
      assert.equal(stored.snapshot.settings.theme, "blue-silver");

      // A late joiner on B: its edge reads from the stored snapshot on.
      const late = await TestClient.join(b.url, scene);
      clients.push(late.client);
      const wb = late.welcome;
      assert.ok(wb.snapshot.tick >= stored.snapshot.tick);
      assert.equal(wb.snapshot.tick, Math.max(stored.snapshot.tick, wb.horizon - WINDOW_TICKS));
      await eventually(
        "the veteran has the late joiner's events",
        () => veteran.client.events().some((e) => e.seq >= wb.lastSeq),
      );
      const veteranEvents = [...veteran.welcome.events, ...veteran.client.events()]
        .map(({ t: _t, ...e }: SceneEvent & { t?: string }) => e as SceneEvent)
        .filter((e) => e.seq <= wb.lastSeq);
      const options = { seed: wb.seed, capacity: wb.skyCap, tick: wb.horizon + 30 };
      assert.equal(
        worldFromWindow({ ...options, snapshot: wb.snapshot, events: wb.events }).hash(),
        worldFromWindow({ ...options, snapshot: veteran.welcome.snapshot, events: veteranEvents })
          .hash(),
      );

      // A shuts down (releasing its lease); B takes over from the stored snapshot and continues.
      // (The welcome's last seq when no event reached the late joiner since: under load the
      // veteran's last launches were all stamped before it joined.)
      const lastSeq = Math.max(wb.lastSeq, ...auditStream(late.client.messages).events.keys());
      await a.shutdown();
      late.client.submit({ type: "launch", x: 5, z: 5 });
      let next: SceneEvent | undefined;
      await eventually("B stamps the next event", () => {
        next = late.client.events().find((e) => e.seq > lastSeq);
        if (!next) late.client.submit({ type: "launch", x: 5, z: 5 });
        return next !== undefined;
      }, 10_000);
      assert.equal(next!.seq, lastSeq + 1);
      assert.deepEqual(auditStream(late.client.messages).violations, []);
      assert.deepEqual(auditStream(veteran.client.messages).violations, []);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await nc.close();
      await a.shutdown();
      await b.shutdown();
      await Promise.all([a.dataDir, b.dataDir].map((d) => Deno.remove(d, { recursive: true })));
      await nats.stop();
    }
  },
});
