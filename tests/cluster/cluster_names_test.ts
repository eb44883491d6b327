/**
 * Names are told apart across the scene, not only per node: an edge skips the names other nodes'
 * edges announced, and takes a name only by an atomic create in the names bucket. Before, two
 * people on two nodes could both be "Ana" (issue 19), and then still when both joined within the
 * moment a join takes to cross NATS.
 */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import { NAME_TTL_MS } from "../../server/cluster/name_claims.ts";
import { NAME_BUCKET } from "../../server/cluster/subjects.ts";
import { requireNats, startNatsCluster, startSnowfireNode } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { eventually } from "../../testing/wait.ts";

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

const SAME_MOMENT =
  "two people joining on two nodes with one name at the same moment get two names";
Deno.test({ name: SAME_MOMENT, ignore: !requireNats(SAME_MOMENT) }, async () => {
  const nats = await startNatsCluster({ size: 1 });
  const a = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "same-a" });
  const b = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "same-b" });
  const clients: TestClient[] = [];
  try {
    const scene = "same-moment-1";
    // The scene open on both nodes first, so each round's two hellos race each other only.
    const watcher = await TestClient.join(a.url, scene);
    clients.push(watcher.client);
    const other = await TestClient.join(b.url, scene, { name: "Watcher" });
    clients.push(other.client);
    // A name the server made up is still shown as made up (the HUD marks `gen` names), here and
    // on the other node.
    assert.equal(watcher.welcome.you.gen, true, "the watcher's generated name");
    const generated = (p: { id: string; gen?: boolean }) =>
      p.id === watcher.welcome.you.id && p.gen === true;
    await eventually(
      "node B lists node A's generated name as generated",
      () =>
        other.welcome.peers.some(generated) ||
        other.client.messages.some((m) => m.t === "presence" && generated(m.peer)),
      10_000,
    );
    const given: string[][] = [];
    for (let round = 1; round <= 20; round++) {
      const name = `Ana ${round}`;
      const pair = await Promise.all([
        TestClient.join(a.url, scene, { name }),
        TestClient.join(b.url, scene, { name: name.toUpperCase() }),
      ]);
      for (const { client } of pair) clients.push(client);
      given.push(pair.map(({ welcome }) => welcome.you.name));
    }
    const clashes = given.filter(([x, y]) => x.toLowerCase() === y.toLowerCase());
    assert.deepEqual(clashes, [], `every round told the two apart: ${JSON.stringify(given)}`);
    for (const [round, names] of given.entries()) {
      const suffixed = names.filter((n) => n.endsWith(" (2)"));
      assert.equal(suffixed.length, 1, `round ${round + 1}: one of ${names} has the suffix`);
    }
    // A name is free again once its holder left: taken on the other node as it is.
    const holder = given[0][0] === "Ana 1" ? 0 : 1;
    const leaving = clients[2 + holder];
    const leftId = [...leaving.messages].find((m) => m.t === "welcome")!;
    const stayer = clients[2 + 1 - holder];
    await leaving.close();
    await eventually(
      "the other node heard of the leave",
      () =>
        stayer.messages.some((m) =>
          m.t === "presence" && m.kind === "leave" &&
          leftId.t === "welcome" && m.peer.id === leftId.you.id
        ),
      10_000,
    );
    const again = await TestClient.join([a.url, b.url][1 - holder], scene, { name: "ana 1" });
    clients.push(again.client);
    assert.equal(again.welcome.you.name, "ana 1", "the name was given back on leaving");
  } finally {
    for (const client of clients) await client.close();
    await a.stop();
    await b.stop();
    await nats.stop();
  }
});

const DEAD_NODE = "a name held on a node that died is free again once its people are gone";
Deno.test({ name: DEAD_NODE, ignore: !requireNats(DEAD_NODE) }, async () => {
  const nats = await startNatsCluster({ size: 1 });
  const a = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "dead-a" });
  const b = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "dead-b" });
  const clients: TestClient[] = [];
  try {
    const scene = "dead-node-1";
    const watcher = await TestClient.join(b.url, scene, { name: "Watcher" });
    clients.push(watcher.client);
    const ana = await TestClient.join(a.url, scene, { name: "Ana" });
    clients.push(ana.client);
    const anaId = ana.welcome.you.id;
    const heard = (kind: string) => () =>
      watcher.client.messages.some((m) =>
        m.t === "presence" && m.kind === kind && m.peer.id === anaId
      );
    await eventually("node B knows Ana", heard("join"), 10_000);
    // Node A dies without a word: its key for Ana stays in the names bucket.
    await a.kill("SIGKILL");
    await eventually("node B saw Ana go", heard("leave"), 30_000);
    const again = await TestClient.join(b.url, scene, { name: "ana" });
    clients.push(again.client);
    // Before, the dead node's key kept the name for the bucket's 30 s TTL ("ana (2)").
    assert.equal(again.welcome.you.name, "ana", "the dead node's claim no longer counts");
  } finally {
    for (const client of clients) await client.close();
    await a.stop();
    await b.stop();
    await nats.stop();
  }
});

const OLD_BUCKET = "a names bucket made with the old 30 s TTL gets the new TTL when a node starts";
Deno.test({ name: OLD_BUCKET, ignore: !requireNats(OLD_BUCKET) }, async () => {
  const nats = await startNatsCluster({ size: 1 });
  const nc = await connect({ servers: nats.urls, ...nats.auth });
  let node: Awaited<ReturnType<typeof startSnowfireNode>> | null = null;
  try {
    const kvm = new Kvm(nc);
    await kvm.create(NAME_BUCKET, { ttl: 30_000, history: 1 });
    node = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "old-bucket" });
    const status = await (await kvm.open(NAME_BUCKET)).status();
    // Left at 30 s, every name would expire while its person is still there (no more renewals).
    assert.equal(status.ttl, NAME_TTL_MS);
  } finally {
    await node?.stop();
    await nc.close();
    await nats.stop();
  }
});
