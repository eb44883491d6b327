/**
 * Hosts in cluster mode, with real processes: the creator on one node gets the key, a guest on
 * another node is refused a settings change (the owner checks), a grant's key crosses nodes to
 * the grantee alone, a reaction crosses nodes, a person removed by a host on another node stays
 * out when their browser comes back to either node, and after the owner is killed a kept key
 * proves host rights on the node that took over.
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../../shared/protocol.ts";
import {
  requireNats,
  type SnowfireNode,
  startNatsCluster,
  startSnowfireNode,
} from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { eventually } from "../../testing/wait.ts";

type HostFrame = Extract<ServerMessage, { t: "host" }>;
const isHostFrame = (m: ServerMessage): m is HostFrame => m.t === "host";

async function owned(node: SnowfireNode): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("snowfire_cluster_scenes_owned"));
  return line ? Number(line.split(" ").pop()) : 0;
}

Deno.test({
  name: "cluster hosts: keys cross nodes to their holders; host state survives failover",
  ignore: !requireNats("cluster hosts test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const env = { LEASE_TTL_MS: "2000" };
    const a = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "host-a", env });
    const b = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "host-b", env });
    const clients: TestClient[] = [];
    try {
      const scene = "cluster-hosts-1";
      const ana = await TestClient.join(a.url, scene);
      clients.push(ana.client);
      const anaKey = ((await ana.client.waitFor(isHostFrame)) as HostFrame).key!;
      assert.match(anaKey, /^[A-Za-z0-9_-]{32}$/);
      const bo = await TestClient.join(b.url, scene);
      clients.push(bo.client);
      assert.deepEqual(bo.welcome.snapshot.rules?.hosts, [ana.welcome.you.id]);

      bo.client.submit({ type: "settings", settings: { snow: 1 } });
      await bo.client.waitFor((m) => m.t === "error" && m.code === "forbidden", 10_000);

      ana.client.send({ t: "host", action: { do: "grant", peer: bo.welcome.you.id } });
      const boKey = ((await bo.client.waitFor(isHostFrame, 10_000)) as HostFrame).key!;
      assert.ok(boKey && boKey !== anaKey, "the grantee's own key, across nodes");
      bo.client.send({ t: "host", action: { do: "lock", lock: "everyone" } });
      await ana.client.waitFor(
        (m) => m.t === "event" && m.body.type === "rules" && m.body.do === "lock",
        10_000,
      );
      assert.ok(!JSON.stringify(ana.client.messages).includes(boKey));
      assert.ok(!JSON.stringify(bo.client.messages).includes(anaKey));
      // The log API's snapshot carries the rules in force (and no hashes), on either node.
      const lockTick = ana.client.events().find((e) =>
        e.body.type === "rules" && e.body.do === "lock"
      )!.tick;
      const page = await (await fetch(
        `${b.url}/api/scenes/${scene}/log?tick=${lockTick + 1}&snapshot=1&limit=1`,
      )).text();
      assert.equal(JSON.parse(page).snapshot?.rules?.lock, "everyone", page);
      assert.ok(!/"keys"|"key"/.test(page), "no key hashes in the log API");

      // A guest on b (browser token "c…") reacts; ana on a sees it. Once ana saw cy's presence,
      // node a knows cy's token hash: ana's removal keeps that browser out on both nodes.
      const person = "c".repeat(22);
      const cy = await TestClient.join(b.url, scene, { person });
      clients.push(cy.client);
      const cyId = cy.welcome.you.id;
      await ana.client.waitFor((m) => m.t === "presence" && m.peer.id === cyId, 10_000);
      cy.client.send({ t: "react", emoji: "🎉" });
      await ana.client.waitFor(
        (m) => m.t === "reactions" && m.by.some((r) => r.by === cyId),
        10_000,
      );
      ana.client.send({ t: "host", action: { do: "remove", peer: cyId } });
      assert.equal((await cy.client.closed).code, 1008);
      await ana.client.waitFor(
        (m) => m.t === "event" && m.body.type === "rules" && m.body.do === "remove",
        10_000,
      );
      for (const node of [a, b]) {
        const again = await TestClient.connect(node.url, scene);
        clients.push(again);
        again.send({ t: "hello", person });
        assert.equal((await again.closed).code, 1008, `kept out on ${node.url}`);
        assert.deepEqual(again.errors().map((e) => e.code), ["removed"]);
      }

      // The owner dies; the other node takes the scene over from the log.
      const [ownsA, ownsB] = [await owned(a), await owned(b)];
      assert.equal(ownsA + ownsB, 1, "one owner");
      const [dead, alive] = ownsA === 1 ? [a, b] : [b, a];
      await dead.kill("SIGKILL");
      const back = await TestClient.join(alive.url, scene);
      clients.push(back.client);
      await eventually("the survivor owns the scene", async () => await owned(alive) === 1, 20_000);
      // The edge's sky stays paused until the new owner's heartbeats arrive: ask until the
      // answer is the owner's (forbidden), not the pause.
      await eventually("the new owner refuses a guest's host action", async () => {
        const from = back.client.messages.length;
        back.client.send({ t: "host", action: { do: "lock", lock: "hosts" } });
        // Each try waits for its own answer (paused while the sky is, then forbidden).
        const answer = await back.client.waitFor(
          (m) => back.client.messages.indexOf(m) >= from && m.t === "error",
          5000,
        ).catch(() => null);
        return answer?.t === "error" && answer.code === "forbidden";
      }, 20_000);
      back.client.send({ t: "host", action: { do: "claim", key: anaKey } });
      back.client.send({ t: "host", action: { do: "lock", lock: "hosts" } });
      await back.client.waitFor(
        (m) =>
          m.t === "event" && m.body.type === "rules" && m.body.do === "lock" &&
          m.body.lock === "hosts",
        15_000,
      );
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      await a.stop(2000).catch(() => {});
      await b.stop(2000).catch(() => {});
      await nats.stop();
    }
  },
});
