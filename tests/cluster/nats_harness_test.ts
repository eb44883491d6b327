/** The NATS test harness itself: real `nats-server` processes on loopback. */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { retryWhileSettling, START_RETRY } from "../../server/cluster/retry_while_settling.ts";
import {
  natsServerPath,
  requireNats,
  startNatsCluster,
  startSnowfireNode,
} from "../../testing/nats_cluster.ts";
import { eventually } from "../../testing/wait.ts";

const THREE = "nats harness: a 3-server cluster stores with 3 replicas and stays writable";

Deno.test({ name: THREE, ignore: !requireNats(THREE) }, async (t) => {
  const cluster = await startNatsCluster({ size: 3 });
  try {
    await t.step("every server reports the same JetStream meta leader", async () => {
      assert.equal(cluster.urls.length, 3);
      const leaders = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const jsz = await cluster.monitor(i, "jsz");
        const meta = jsz.meta_cluster as { leader: string; cluster_size: number };
        assert.equal(meta.cluster_size, 3);
        leaders.add(meta.leader);
      }
      assert.equal(leaders.size, 1);
    });

    const nc = await connect({ servers: cluster.urls, ...cluster.admin, reconnectTimeWait: 100 });
    try {
      const jsm = await jetstreamManager(nc);
      const js = jetstream(nc);
      // As a node does at start: a cluster that just elected its leader may refuse a replicated
      // stream for a moment ("insufficient resources" until it has heard from every server).
      await retryWhileSettling(
        "create the stream",
        () => jsm.streams.add({ name: "HARNESS", subjects: ["harness.>"], num_replicas: 3 }),
        { ...START_RETRY, log: console.log },
      );

      await t.step("a stream with 3 replicas accepts a publish", async () => {
        const ack = await js.publish("harness.a", "one");
        assert.equal(ack.seq, 1);
        const info = await jsm.streams.info("HARNESS");
        assert.equal(info.config.num_replicas, 3);
        assert.equal(info.cluster?.replicas?.length, 2);
      });

      await t.step("killing one server keeps the stream writable", async () => {
        // Kill the server that leads the stream: the hardest case (a new stream leader is elected).
        const info = await jsm.streams.info("HARNESS");
        const victim = cluster.servers.findIndex((s) => s.name === info.cluster?.leader);
        assert.ok(victim >= 0, `stream leader ${info.cluster?.leader} is one of ours`);
        const oldPid = cluster.servers[victim].pid;
        await cluster.kill(victim);
        let ack: { seq: number } | undefined;
        let refusal: unknown;
        await eventually("the stream takes a write again (a new leader)", async () => {
          try {
            ack = await js.publish("harness.a", "two", { timeout: 2000 });
            return true;
          } catch (e) {
            refusal = e;
            return false;
          }
        }, 15_000).catch((e) => {
          throw refusal ?? e;
        });
        assert.equal(ack!.seq, 2);
        await cluster.restart(victim);
        assert.notEqual(cluster.servers[victim].pid, oldPid);
        const after = await js.publish("harness.a", "three", { timeout: 5000 });
        assert.equal(after.seq, 3);
      });
    } finally {
      await nc.close();
    }
  } finally {
    await cluster.stop();
  }
});

const ONE = "nats harness: a single server serves JetStream and stop removes its storage";

Deno.test({ name: ONE, ignore: !requireNats(ONE) }, async () => {
  const cluster = await startNatsCluster({ size: 1 });
  const varz = await cluster.monitor(0, "varz");
  const storeDir = (varz.jetstream as { config: { store_dir: string } }).config.store_dir;
  try {
    assert.equal(cluster.urls.length, 1);
    const nc = await connect({ servers: cluster.urls, ...cluster.admin });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: "ONE", subjects: ["one.>"] });
      const ack = await jetstream(nc).publish("one.x", "hi");
      assert.equal(ack.seq, 1);
    } finally {
      await nc.close();
    }
  } finally {
    await cluster.stop();
  }
  await assert.rejects(Deno.stat(storeDir), Deno.errors.NotFound);
});

Deno.test("nats harness: natsServerPath is null or an existing file", () => {
  const path = natsServerPath();
  if (path !== null) assert.ok(Deno.statSync(path).isFile);
  else assert.equal(requireNats("probe"), false);
});

const NODE = "nats harness: a Snowfire node child serves its printed URL and stops";

Deno.test({ name: NODE, ignore: !requireNats(NODE) }, async () => {
  const cluster = await startNatsCluster({ size: 1 });
  try {
    const node = await startSnowfireNode({ natsUrls: cluster.urls, nodeId: "harness-a" });
    try {
      assert.match(node.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${node.url}/healthz`);
      await response.body?.cancel();
      assert.equal(response.status, 200);
    } finally {
      await node.stop();
    }
    await assert.rejects(fetch(`${node.url}/healthz`));
  } finally {
    await cluster.stop();
  }
});
