/**
 * A scene's first open on a node while the NATS cluster cannot answer for a moment (two of its
 * three servers down, so the buckets and the log have no leader): the edge retries its reads and
 * its create while the cluster settles, and the person who said hello is welcomed as the scene's
 * host once the servers are back, instead of being dropped with "try again" at the first refusal
 * (what CI saw once in a cluster seconds old, whose bucket leader moved during a first open).
 */
import assert from "node:assert/strict";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

Deno.test({
  name: "an edge's first open retries while NATS settles and welcomes its creator",
  ignore: !requireNats("cluster open settling test"),
  async fn() {
    const nats = await startNatsCluster({ size: 3 });
    const logs: string[] = [];
    // The node speaks to the first server only: the one that stays up.
    const cluster = { ...nats.nodeOptions("node-a"), natsUrls: [nats.urls[0]] };
    const server = await startTestServer({ cluster, log: (line: string) => logs.push(line) });
    const clients: TestClient[] = [];
    const withLog = (e: unknown) => {
      throw new Error(`${(e as Error).message}\nserver log:\n${logs.join("\n")}`);
    };
    try {
      await Promise.all([nats.kill(1), nats.kill(2)]);
      const host = await TestClient.connect(server.url, "opens-while-settling");
      clients.push(host);
      host.send({ t: "hello" });
      // (Longer than a join's usual wait: the servers' restart and elections take seconds.)
      const welcomed = host.waitFor((m) => m.t === "welcome", 40_000);
      welcomed.catch(() => {});
      // The servers come back once the open has been refused at least once.
      await eventually(
        "the open is refused and retried",
        () => logs.some((line) => line.includes("NATS is settling, retrying")),
        15_000,
      ).catch(withLog);
      await Promise.all([nats.restart(1), nats.restart(2)]);
      await welcomed.catch(withLog);
      await host.waitFor((m) => m.t === "host", 5_000);
      assert.ok(!logs.some((line) => line.includes("opening opens-while-settling failed")));
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
      await nats.stop();
    }
  },
});
