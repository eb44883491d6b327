/**
 * Scene limits in cluster mode, against real nodes over a one-server NATS: as on a single node, a
 * scene is stored only when someone says hello in it (`GET /` and a bare socket store nothing),
 * each client address has a budget for new scenes, and a node relays at most `MAX_SCENES` (when
 * full, a newcomer from another network than the largest holder's still gets in).
 */
import assert from "node:assert/strict";
import {
  type NatsCluster,
  requireNats,
  type SnowfireNode,
  startNatsCluster,
  startSnowfireNode,
} from "../../testing/nats_cluster.ts";
import { AddressClient } from "../../testing/address_client.ts";
import { TestClient } from "../../testing/test_client.ts";
import { eventually } from "../../testing/wait.ts";

const haveNats = requireNats("cluster scene limits tests");

function startNode(
  nats: NatsCluster,
  nodeId: string,
  env: Record<string, string>,
): Promise<SnowfireNode> {
  return startSnowfireNode({ natsUrls: nats.urls, nodeId, env: { LEASE_TTL_MS: "2000", ...env } });
}

async function stored(url: string, scene: string): Promise<boolean> {
  const response = await fetch(`${url}/api/scenes/${scene}`);
  await response.body?.cancel();
  assert.ok(response.status === 200 || response.status === 404, `status ${response.status}`);
  return response.status === 200;
}

Deno.test({
  name: "cluster scenes are stored on the first hello and budgeted per address",
  ignore: !haveNats,
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const nodes: SnowfireNode[] = [];
    const clients: TestClient[] = [];
    try {
      const a = await startNode(nats, "node-a", { RATE_NEW_SCENES: "0.01/2" });
      nodes.push(a);
      const b = await startNode(nats, "node-b", { MAX_SCENES: "1" });
      nodes.push(b);

      // GET / (and HEAD /) picks a fresh id and stores nothing.
      for (const method of ["GET", "HEAD"]) {
        const home = await fetch(`${a.url}/`, { method, redirect: "manual" });
        await home.body?.cancel();
        assert.equal(home.status, 302);
        const id = /\/s\/([^/]+)$/.exec(home.headers.get("location") ?? "")?.[1];
        assert.ok(id, `a scene id in ${home.headers.get("location")}`);
        assert.equal(await stored(a.url, id), false, `${method} / stored nothing`);
      }

      // A socket alone stores nothing; its hello creates the scene (one token of two).
      const quiet = await TestClient.connect(a.url, "limits-first");
      clients.push(quiet);
      // The node opened the scene's edge for the socket (what would store it, if anything did).
      await eventually("node a relays the scene to the bare socket", async () => {
        const health = await (await fetch(`${a.url}/healthz`)).json();
        return health.connections === 1 && health.cluster.relayed === 1;
      }, 10_000);
      assert.equal(await stored(a.url, "limits-first"), false, "no hello: not stored");
      quiet.send({ t: "hello" });
      await quiet.waitFor((m) => m.t === "welcome", 20_000);
      assert.equal(await stored(a.url, "limits-first"), true, "stored after the hello");

      // The second new scene takes the last token; the third is refused, socket and page alike.
      clients.push((await TestClient.join(a.url, "limits-second")).client);
      const over = await TestClient.connect(a.url, "limits-third");
      clients.push(over);
      const refusal = await over.waitFor((m) => m.t === "error");
      assert.ok(refusal.t === "error");
      assert.equal(refusal.code, "rate_limited");
      assert.match(refusal.message, /too many new scenes from your address/);
      assert.equal((await over.closed).code, 1008);
      const page = await fetch(`${a.url}/s/limits-fourth`, { headers: { accept: "text/html" } });
      assert.equal(page.status, 429);
      await page.body?.cancel();
      // Scenes that exist cost nothing: one stored by another node's visitor included.
      clients.push((await TestClient.join(b.url, "limits-elsewhere")).client);
      clients.push((await TestClient.join(a.url, "limits-elsewhere")).client);
      clients.push((await TestClient.join(a.url, "limits-first")).client);

      // Node b relays at most one scene: a second is refused while the first has viewers.
      const busy = await TestClient.connect(b.url, "limits-first");
      clients.push(busy);
      const full = await busy.waitFor((m) => m.t === "error");
      assert.ok(full.t === "error");
      assert.equal(full.code, "server_busy");
      assert.equal((await busy.closed).code, 1013);
      // Once its scene is empty, b closes it to make room.
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await eventually("b makes room", async () => {
        const again = await TestClient.connect(b.url, "limits-first");
        again.send({ t: "hello" });
        const first = await again.waitFor((m) => m.t === "welcome" || m.t === "error", 20_000);
        await again.close();
        return first.t === "welcome";
      });

      // Node c is full with two scenes held from one network (127.0.0.0/24): a newcomer from
      // another network gets in (one of them closes, its people told why); one from the
      // holder's network does not.
      const c = await startNode(nats, "node-c", { MAX_SCENES: "2" });
      nodes.push(c);
      const held = [];
      for (let i = 0; i < 2; i++) {
        const client = await AddressClient.join(c.url, `limits-held-${i}`, `127.0.0.${2 + i}`);
        assert.ok(client.welcomed);
        held.push(client);
      }
      try {
        const same = await AddressClient.join(c.url, "limits-same-net", "127.0.0.9");
        assert.equal((same.messages[0] as { code?: string }).code, "server_busy");
        await same.close();
        const guest = await AddressClient.join(c.url, "limits-guest-net", "127.0.1.2");
        held.push(guest);
        assert.ok(guest.welcomed, "a newcomer from another network gets in");
        const closed = held.filter((h) =>
          h.messages.some((m) => m.t === "error" && m.code === "server_busy")
        );
        assert.equal(closed.length, 1);
        assert.equal(await closed[0].closed, 1013);
      } finally {
        await Promise.all(held.map((h) => h.close()));
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all(nodes.map((n) => n.stop()));
      await nats.stop();
    }
  },
});
