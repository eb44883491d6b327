/**
 * An edge that opens on a quiet scene (every event already covered by the stored snapshot, so
 * nothing in the log after it) welcomes at the scene's last seq, not at 0: a client welcomed with
 * lastSeq 0 would take the next event for a gap and start over. A 10× scene clock lets the
 * snapshot pass the last event in seconds.
 */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import type { SceneRecord } from "../../server/cluster/scene_records.ts";
import { SCENE_BUCKET } from "../../server/cluster/subjects.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { fastClock } from "../../testing/fast_clock.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";
import { TICK_MS } from "../../shared/constants.ts";
import type { EventBody, ServerMessage } from "../../shared/protocol.ts";

/** Scene time at 10× real time. */
const clock = fastClock(10);

/**
 * Submits `body` until it is stamped (an event of its type by `you`) and returns the event; a
 * refusal that says "try again" (the sky paused while a node reconnects, a rate limit) is sent
 * again after a moment, anything else fails. Liveness, not speed: up to 30 s.
 */
async function submitStamped(
  client: TestClient,
  you: string,
  body: EventBody,
): Promise<Extract<ServerMessage, { t: "event" }>> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const from = client.messages.length;
    client.submit(body);
    const answer = await client.waitFor(
      (m) =>
        client.messages.indexOf(m) >= from &&
        ((m.t === "event" && m.body.type === body.type && m.by === you) || m.t === "error"),
      Math.max(1, deadline - performance.now()),
    );
    if (answer.t === "event") return answer;
    const again = answer.t === "error" &&
      (answer.code === "paused" || answer.code === "rate_limited");
    if (!again || performance.now() > deadline) {
      throw new Error(`${body.type} refused: ${JSON.stringify(answer)}`);
    }
    // Sent again once a heartbeat says the sky is live (paused: the owner is back) and the
    // scene's clock passed the time the refusal named (rate limits run on that clock).
    const ticks = () => client.messages.flatMap((m) => m.t === "tick" ? [m.n] : []);
    const target = Math.max(0, ...ticks()) + Math.ceil((answer.retryAfterMs ?? 0) / TICK_MS) + 1;
    await eventually(
      `a heartbeat at tick ${target} or later`,
      () => Math.max(0, ...ticks()) >= target,
      Math.max(1, deadline - performance.now()),
    );
  }
}

Deno.test({
  name: "an edge opening on a quiet scene welcomes at its last seq",
  ignore: !requireNats("cluster quiet edge test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const cluster = (nodeId: string) => nats.nodeOptions(nodeId, 20_000);
    const a = await startTestServer({ ...clock, cluster: cluster("node-a") });
    const b = await startTestServer({ ...clock, cluster: cluster("node-b") });
    const nc = await connect({ servers: nats.urls, ...nats.auth });
    const clients: TestClient[] = [];
    try {
      const scene = "cluster-quiet-1";
      const veteran = await TestClient.join(a.url, scene);
      clients.push(veteran.client);
      // No show, so the scene falls quiet after this client's own events. Each is sent again
      // if refused: under CI's load a node may pause the sky while it reconnects to NATS (one
      // run's settings change was refused "paused", the show stamped on, and the last seq taken
      // below moved on before the late join: 63, then 68 at the welcome).
      const quiet = await submitStamped(veteran.client, veteran.welcome.you.id, {
        type: "settings",
        settings: { show: false },
      });
      const launch = await submitStamped(veteran.client, veteran.welcome.you.id, {
        type: "launch",
        x: 2,
        z: 3,
      });
      // The owner moves the stored snapshot past every event (T − W − the resume margin).
      const kv = await new Kvm(nc).open(SCENE_BUCKET);
      await eventually("the snapshot covers the last event", async () => {
        const record = (await kv.get(scene))?.json<SceneRecord>();
        return (record?.snapshot.tick ?? 0) > Math.max(launch.tick, quiet.tick);
      }, 30_000);
      const lastSeq = Math.max(
        ...veteran.client.messages.flatMap((m) => m.t === "event" ? [m.seq] : []),
        veteran.welcome.lastSeq,
      );
      // Node B has not opened the scene yet: its edge starts at the snapshot.
      const late = await TestClient.join(b.url, scene);
      clients.push(late.client);
      assert.equal(late.welcome.lastSeq, lastSeq, "the welcome names the scene's last seq");
      // The next event follows it with no gap on both nodes.
      await submitStamped(veteran.client, veteran.welcome.you.id, { type: "launch", x: -2, z: 1 });
      const next = await late.client.waitFor((m) => m.t === "event", 30_000);
      assert.ok(next.t === "event");
      assert.equal(next.seq, lastSeq + 1);
      assert.equal(late.client.messages.some((m) => m.t === "resync"), false);
    } finally {
      for (const client of clients) await client.close();
      await nc.close();
      await a.close();
      await b.close();
      await nats.stop();
    }
  },
});
