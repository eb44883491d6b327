/**
 * The scene engine's contract (testing/scene_contract.ts) over the cluster's JetStream log, on a
 * 3-node NATS cluster with replicas 3. Skipped (with the reason printed) without nats-server;
 * under CI=true a missing nats-server fails instead.
 */
import { ServerClock } from "../../server/scene/clock.ts";
import { ClusterMetrics } from "../../server/cluster/cluster_metrics.ts";
import { JetStreamSceneLog } from "../../server/cluster/jetstream_log.ts";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { createRecord, getRecord } from "../../server/cluster/scene_records.ts";
import { appendEntry, lastEntry, readEvents } from "../../server/cluster/stream_log.ts";
import { isNoResponders } from "../../server/cluster/nats_errors.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { runSceneContract } from "../../testing/scene_contract.ts";
import { eventually } from "../../testing/wait.ts";

Deno.test({
  name: "scene contract: the JetStream log (3-node NATS, replicas 3)",
  ignore: !requireNats("scene contract on JetStream"),
  async fn(t) {
    const nats = await startNatsCluster({ size: 3 });
    const logs: string[] = [];
    const link = await NatsLink.open(
      { natsUrls: nats.urls, ...nats.auth, nodeId: "contract", replicas: 3, leaseTtlMs: 3000 },
      (msg) => logs.push(msg),
    );
    try {
      await runSceneContract(t, {
        async create(id, seed, epoch, snapshot) {
          const record = {
            seed,
            epoch,
            reserved: 0,
            showCursor: 0,
            snapshot,
            snapshotStreamSeq: 0,
          };
          // The three servers just started: a KV write may find no stream to answer for a
          // moment (the client calls it "jetstream is not enabled", caused by no responders:
          // nothing was written, so it is asked again).
          let created = false;
          await eventually(
            `the record of ${id} is written`,
            async () => {
              try {
                created = await createRecord(link, id, record);
                return true;
              } catch (e) {
                if (isNoResponders(e) || (e instanceof Error && isNoResponders(e.cause))) {
                  return false;
                }
                throw e;
              }
            },
            10_000,
            100,
          );
          if (!created) throw new Error(`scene ${id} exists`);
          // A read may reach a replica that has not applied the create yet: wait until it has.
          await eventually(`the record of ${id} can be read`, async () => {
            return await getRecord(link, id) !== null;
          });
          return {
            load: () =>
              JetStreamSceneLog.open({
                link,
                nodeId: "contract",
                // The log's retry budget runs on real time, whatever the scene's clock says.
                clock: new ServerClock(Date.now, () => performance.now()),
                leaseTtlMs: 3000,
                metrics: new ClusterMetrics("contract"),
                log: (msg) => logs.push(msg),
              }, id),
            stored: () => readEvents(link, id, 1, 1_000_000),
            storedSnapshot: async () => (await getRecord(link, id))!.record.snapshot,
            async intrude() {
              // Another node takes the scene over: its ownership marker fences ours.
              const last = await lastEntry(link, id);
              const { seq = 0, tick = 0 } = last?.entry ?? {};
              await appendEntry(link, id, { owner: "intruder", seq, tick }, last?.streamSeq ?? 0);
            },
          };
        },
      });
    } finally {
      await link.close();
      await nats.stop();
    }
  },
});
