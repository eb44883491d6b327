/**
 * Names are told apart across the scene, not only per node: an edge also counts the names other
 * nodes' edges announced. Before, two people on two nodes could both be "Ana" (issue 19).
 */
import assert from "node:assert/strict";
import { requireNats, startNatsCluster, startSnowfireNode } from "../testing/nats_cluster.ts";
import { TestClient } from "../testing/test_client.ts";
import { eventually } from "../testing/wait.ts";

const NAME = "a name taken on another node gets a suffix";
Deno.test({ name: NAME, ignore: !requireNats(NAME) }, async () => {
  const nats = await startNatsCluster({ size: 1 });
  const a = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "names-a" });
  const b = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "names-b" });
  const clients: TestClient[] = [];
  try {
    const scene = "two-anas-1";
    // A watcher on node B, so we know when B's edge has heard of Ana on node A.
    const watcher = await TestClient.join(b.url, scene, { name: "Watcher" });
    clients.push(watcher.client);
    const first = await TestClient.join(a.url, scene, { name: "Ana" });
    clients.push(first.client);
    assert.equal(first.welcome.you.name, "Ana");
    await eventually(
      "node B knows Ana",
      () =>
        watcher.client.messages.some((m) =>
          m.t === "presence" && m.kind === "join" && m.peer.id === first.welcome.you.id
        ),
      10_000,
    );
    const second = await TestClient.join(b.url, scene, { name: "ana" });
    clients.push(second.client);
    assert.equal(second.welcome.you.name, "ana (2)", "told apart from Ana on node A");
    // Node A hears of the watcher by B's roster (it was announced before A's edge existed).
    const watcherId = watcher.welcome.you.id;
    await eventually(
      "node A knows the watcher",
      () =>
        first.welcome.peers.some((p) => p.id === watcherId) ||
        first.client.messages.some((m) =>
          m.t === "presence" && m.kind === "join" && m.peer.id === watcherId
        ),
      10_000,
    );
    const third = await TestClient.join(a.url, scene, { name: "Watcher" });
    clients.push(third.client);
    assert.equal(third.welcome.you.name, "Watcher (2)", "and the other way round");
  } finally {
    for (const client of clients) await client.close();
    await a.stop();
    await b.stop();
    await nats.stop();
  }
});
