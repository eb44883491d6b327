/**
 * Desync arbitration in cluster mode, in-process against a real nats-server: the scene's owner
 * computes the true hash from the window it holds, so two liars on different nodes that agree on
 * a fake hash cannot get an honest client resynced; they are resynced themselves and, wrong again
 * and again, closed 1008 by the edge that holds them.
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../../shared/protocol.ts";
import { worldFromWindow } from "../../shared/world.ts";
import { CLOSE_WRONG_HASHES } from "../../server/scene/relay.ts";
import { eventsOf } from "../../testing/cluster_streams.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

type Welcome = Extract<ServerMessage, { t: "welcome" }>;

const CHECKPOINT = 60;

/**
 * The highest tick a client's edge has promised by welcome or heartbeat (an event's tick is not
 * counted: the edge refuses a hash for a tick beyond its last heartbeat).
 */
function promisedTo(client: TestClient): number {
  let promised = 0;
  for (const m of client.messages) {
    if (m.t === "welcome") promised = Math.max(promised, m.horizon);
    else if (m.t === "tick") promised = Math.max(promised, m.n);
  }
  return promised;
}

Deno.test({
  name: "cluster desync: two liars on different nodes cannot resync an honest client",
  ignore: !requireNats("cluster desync test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const cluster = (nodeId: string) => nats.nodeOptions(nodeId);
    // Fast settling; every dispute computed; the limits themselves are unit-tested elsewhere.
    const desyncLimits = {
      timeoutMs: 300,
      arbitrationIntervalMs: 0,
      resyncIntervalMs: 0,
      strikesToDisconnect: 3,
      strikeWindowMs: 60_000,
    };
    const a = await startTestServer({ cluster: cluster("node-a"), desyncLimits });
    const b = await startTestServer({ cluster: cluster("node-b"), desyncLimits });
    const clients: TestClient[] = [];
    try {
      const scene = "cluster-desync-1";
      const honest = await TestClient.join(a.url, scene);
      clients.push(honest.client);
      const liarA = await TestClient.join(a.url, scene);
      clients.push(liarA.client);
      const liarB = await TestClient.join(b.url, scene);
      clients.push(liarB.client);
      // Some events in the window (the first ones may be refused while the owner is chosen).
      // At most one launch every 400 ms, under the launch rate (4/s): a poll's every pass sent
      // one, and under load a burst of them got `rate_limited` (seen once in CI).
      let sentAt = -Infinity;
      await eventually("launches are stamped", () => {
        const n = honest.client.events().filter((e) => e.by !== "show").length;
        if (n < 3 && performance.now() - sentAt >= 400) {
          sentAt = performance.now();
          honest.client.submit({ type: "launch", x: n * 4 - 4, z: 3 });
        }
        return n >= 3;
      }, 15_000);
      const everyone = [honest.client, liarA.client, liarB.client];
      for (let round = 1; round <= 3; round++) {
        const tick = Math.ceil((Math.max(...everyone.map(promisedTo)) + 1) / CHECKPOINT) *
          CHECKPOINT;
        await eventually(
          `every client passed tick ${tick}`,
          () => everyone.every((c) => promisedTo(c) >= tick),
          5000,
        );
        const truth = worldFromWindow({
          seed: honest.welcome.seed,
          capacity: honest.welcome.skyCap,
          tick,
          snapshot: honest.welcome.snapshot,
          events: eventsOf(honest.welcome, honest.client).filter((e) => e.tick < tick),
        }).checkpointHash();
        const lie = "0123456789abcdef" === truth ? "fedcba9876543210" : "0123456789abcdef";
        liarA.client.send({ t: "hash", tick, h: lie });
        liarB.client.send({ t: "hash", tick, h: lie });
        honest.client.send({ t: "hash", tick, h: truth });
        if (round < 3) {
          for (const liar of [liarA.client, liarB.client]) {
            await liar.waitFor((m) => m.t === "resync" && m.tick === tick, 10_000);
          }
        }
      }
      // Third wrong hash: each edge closes its liar with 1008.
      const codes: number[] = [];
      for (const liar of [liarA.client, liarB.client]) liar.closed.then((e) => codes.push(e.code));
      await eventually("both liars are disconnected", () => codes.length === 2, 10_000);
      assert.deepEqual(codes, [CLOSE_WRONG_HASHES, CLOSE_WRONG_HASHES]);
      for (const client of everyone) {
        assert.deepEqual(client.errors().filter((e) => e.code !== "paused"), []);
      }
      assert.ok(!honest.client.messages.some((m) => m.t === "resync"), "honest: no resync");
      assert.equal(honest.client.messages.filter((m) => m.t === "welcome").length, 1);
      assert.equal(honest.client.socket.readyState, WebSocket.OPEN, "honest client connected");
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await a.shutdown();
      await b.shutdown();
      await Promise.all([a.dataDir, b.dataDir].map((d) => Deno.remove(d, { recursive: true })));
      await nats.stop();
    }
  },
});
