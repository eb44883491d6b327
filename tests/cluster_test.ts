/**
 * Cluster mode with real processes on loopback: a nats-server and two or three Snowfire nodes.
 * Clients of one scene on different nodes get identical streams and equal world hashes; the
 * owner is killed (-9) or paused (SIGSTOP) under traffic and another node takes over without a
 * gap, a reused seq or an event below a horizon; a late joiner on a third node matches a
 * veteran; a NATS outage pauses the sky without dropping anyone.
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../shared/protocol.ts";
import type { SceneEvent } from "../shared/types.ts";
import { worldFromWindow } from "../shared/world.ts";
import { eventually, TestClient } from "./helpers/server_harness.ts";
import {
  type NatsCluster,
  requireNats,
  type SnowfireNode,
  startNatsCluster,
  startSnowfireNode,
} from "./helpers/nats_cluster.ts";
import { auditStream } from "./helpers/cluster_streams.ts";

const haveNats = requireNats("cluster tests");

const LEASE_TTL_MS = 2000;

type Welcome = Extract<ServerMessage, { t: "welcome" }>;

function startNode(nats: NatsCluster, nodeId: string): Promise<SnowfireNode> {
  return startSnowfireNode({
    natsUrls: nats.urls,
    nodeId,
    env: { LEASE_TTL_MS: String(LEASE_TTL_MS) },
  });
}

async function metricsOf(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  return await res.text();
}

function gauge(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(name + "{") || l.startsWith(name + " "));
  return line ? Number(line.split(" ").pop()) : NaN;
}

function eventsOf(welcome: Welcome, client: TestClient): SceneEvent[] {
  const out = new Map<number, SceneEvent>();
  for (const e of welcome.events) out.set(e.seq, e);
  for (const e of client.events()) {
    const { t: _t, ...event } = e;
    out.set(event.seq, event);
  }
  return [...out.values()].sort((a, b) => a.seq - b.seq);
}

Deno.test({
  name: "clients of one scene on different nodes get identical streams and equal hashes",
  ignore: !haveNats,
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const a = await startNode(nats, "node-a");
    const b = await startNode(nats, "node-b");
    const clients: TestClient[] = [];
    try {
      const scene = "cluster-same-1";
      const ja = await TestClient.join(a.url, scene);
      clients.push(ja.client);
      const jb = await TestClient.join(b.url, scene);
      clients.push(jb.client);
      assert.equal(ja.welcome.seed, jb.welcome.seed, "both nodes serve the same scene");
      // Launches and settings from both sides.
      for (let i = 0; i < 6; i++) {
        ja.client.send({ t: "launch", x: i * 3 - 9, z: 4 });
        jb.client.send({ t: "launch", x: -i * 2, z: -6, theme: "rainbow" });
      }
      jb.client.send({ t: "settings", settings: { windSpeed: 5, snow: 0.3 } });
      ja.client.send({ t: "gun", origin: [0, 3, 40], direction: [0.1, 0.4, -1] });
      await eventually(
        "both clients got the 14 client events",
        () =>
          [ja, jb].every(({ welcome, client }) =>
            eventsOf(welcome, client).filter((e) => e.by !== "show").length >= 14
          ),
        15_000,
      );
      const lastA = eventsOf(ja.welcome, ja.client).at(-1)!.seq;
      await eventually(
        "B caught up with A",
        () => eventsOf(jb.welcome, jb.client).some((e) => e.seq >= lastA),
        5000,
      );
      const streamA = eventsOf(ja.welcome, ja.client).filter((e) => e.seq <= lastA);
      const streamB = eventsOf(jb.welcome, jb.client).filter((e) => e.seq <= lastA);
      assert.deepEqual(streamB, streamA, "identical (seq, tick, by, body)");
      for (const { client } of [ja, jb]) {
        assert.deepEqual(auditStream(client.messages).violations, []);
        assert.deepEqual(client.errors(), []);
      }
      // Equal world hashes at a checkpoint both have passed.
      const tick = Math.ceil((streamA.at(-1)!.tick + 30) / 60) * 60;
      const hash = (w: Welcome, events: SceneEvent[]) =>
        worldFromWindow({ seed: w.seed, capacity: w.skyCap, tick, snapshot: w.snapshot, events })
          .hash();
      assert.equal(hash(jb.welcome, streamB), hash(ja.welcome, streamA));

      // The log API answers the same on both nodes.
      const logA = await (await fetch(`${a.url}/api/scenes/${scene}/log?from=1`)).json();
      const logB = await (await fetch(`${b.url}/api/scenes/${scene}/log?from=1`)).json();
      assert.deepEqual(logA.events.filter((e: SceneEvent) => e.seq <= lastA), streamA);
      assert.deepEqual(logB.events.filter((e: SceneEvent) => e.seq <= lastA), streamA);
      const ma = await metricsOf(a.url);
      const mb = await metricsOf(b.url);
      assert.equal(
        gauge(ma, "snowfire_cluster_scenes_owned") + gauge(mb, "snowfire_cluster_scenes_owned"),
        1,
      );
      assert.equal(gauge(ma, "snowfire_cluster_nats_connected"), 1);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all([a.stop(), b.stop()]);
      await nats.stop();
    }
  },
});
