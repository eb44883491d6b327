/**
 * An edge keeps a person's submits in order while it asks again for one that no owner answered
 * (a new scene's first moments, a hand-over): a launch made after a settings change that is being
 * retried waits for it, instead of reaching the owner first (the order a cluster test once saw
 * reversed, the settings change stamped 125–140 ticks after the launch made after it).
 *
 * And an edge that never heard an owner (a new scene's first owner still starting, its sky shown
 * paused) asks for a launch until one answers, instead of refusing it at once.
 *
 * The owner here is the test: it holds the scene's lease as "stand-in" (sending heartbeats in the
 * first step so the edge stays live, none in the second), answers as a live process when asked
 * (`answerAlive`), and answers submits only once the edge has had to retry.
 */
import assert from "node:assert/strict";
import { connect, type Msg } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { answerAlive } from "../../server/cluster/node_liveness.ts";
import { createRecord } from "../../server/cluster/scene_records.ts";
import { beatSubject, LEASE_BUCKET, submitSubject } from "../../server/cluster/subjects.ts";
import type { EventBody } from "../../shared/protocol.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

/** Stores `scene` with its lease held by `owner` (the test), so no node here takes it over. */
async function standInScene(link: NatsLink, scene: string, owner: string): Promise<void> {
  const leases = await new Kvm(link.nc).open(LEASE_BUCKET);
  await leases.create(scene, new TextEncoder().encode(owner));
  assert.ok(
    await createRecord(link, scene, {
      seed: 7,
      epoch: Date.now() - 5_000,
      reserved: 0,
      showCursor: 0,
      snapshot: initialSnapshot({ show: false }),
      snapshotStreamSeq: 0,
    }),
  );
}

Deno.test({
  name: "an edge holds a person's submits while no owner answers, in their order",
  ignore: !requireNats("cluster submit order test"),
  async fn(t) {
    const nats = await startNatsCluster({ size: 1 });
    const owner = "stand-in";
    const link = await NatsLink.open(nats.nodeOptions("setup"), () => {});
    const nc = await connect({ servers: nats.urls, ...nats.auth });
    // The stand-in is a live process to the node: it answers when asked whether it is alive.
    answerAlive(nc, owner);
    const server = await startTestServer({ cluster: nats.nodeOptions("node-a", 60_000) });
    const clients: TestClient[] = [];
    let beats: ReturnType<typeof setInterval> | undefined;
    const retries = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/snowfire_cluster_submit_retries_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    try {
      await t.step("a person's submits keep their order while one is retried", async () => {
        const scene = "order-keeper";
        // A scene whose lease someone else holds: no node here takes it over.
        await standInScene(link, scene, owner);
        // The stand-in's heartbeats keep the edge's sky live (it pauses after 600 ms without).
        beats = setInterval(
          () => nc.publish(beatSubject(scene), JSON.stringify({ n: 1, seq: 0, w: 0 })),
          100,
        );
        const { client } = await TestClient.join(server.url, scene);
        clients.push(client);
        const settings: EventBody = { type: "settings", settings: { windSpeed: 4 } };
        const launch: EventBody = { type: "launch", x: 1, z: 2 };
        for (let attempt = 1;; attempt++) {
          const before = await retries();
          const from = client.messages.length;
          client.submit(settings);
          // Nobody answered it: the edge will ask again.
          await eventually(
            "the edge retries the settings change",
            async () => await retries() > before,
            10_000,
          );
          // The stand-in answers from now on; then the person launches.
          const heard: string[] = [];
          const sub = nc.subscribe(submitSubject(scene), {
            callback: (_err: Error | null, msg: Msg) => {
              const request = msg.json<{ body?: EventBody }>();
              heard.push(request.body?.type ?? "?");
              msg.respond(JSON.stringify({ ok: true, seq: heard.length, owner }));
            },
          });
          await nc.flush();
          client.submit(launch);
          const refused = () => client.messages.slice(from).some((m) => m.t === "error");
          await eventually(
            "the stand-in heard both submits, or one was refused",
            () => heard.length >= 2 || refused(),
            10_000,
          );
          sub.unsubscribe();
          await nc.flush();
          if (!refused()) {
            assert.deepEqual(heard, ["settings", "launch"], "in the order the person made them");
            break;
          }
          // The edge gave the settings change up (8 retries, 2 s) before the stand-in listened:
          // a slow machine. Again, from a scene with no one answering.
          assert.ok(attempt < 3, `refused each time: ${JSON.stringify(client.errors())}`);
        }
        clearInterval(beats);
      });

      await t.step(
        "an edge that never heard an owner holds a launch until one answers",
        async () => {
          const scene = "first-owner";
          // The lease is held, but no heartbeat comes yet: an owner still starting.
          await standInScene(link, scene, owner);
          const { client } = await TestClient.join(server.url, scene);
          clients.push(client);
          // Past 600 ms without a heartbeat the edge tells its clients the sky is paused.
          await client.waitFor((m) => m.t === "status" && m.sky === "paused", 10_000);
          const before = await retries();
          client.submit({ type: "launch", x: 3, z: 4 });
          const refused = () => client.messages.some((m) => m.t === "error");
          // (Refused at once before: the edge was paused, though no owner had ever been heard.)
          await eventually(
            "the edge asks again for the launch, or refuses it",
            async () => refused() || await retries() > before,
            10_000,
          );
          assert.deepEqual(client.errors(), [], "not refused while the first owner starts");
          // The owner comes up and answers: the launch reaches it.
          const heard: string[] = [];
          const sub = nc.subscribe(submitSubject(scene), {
            callback: (_err: Error | null, msg: Msg) => {
              heard.push(msg.json<{ body?: EventBody }>().body?.type ?? "?");
              msg.respond(JSON.stringify({ ok: true, seq: 1, owner }));
            },
          });
          await nc.flush();
          await eventually(
            "the owner heard the launch, or it was refused",
            () => heard.length > 0 || refused(),
            10_000,
          );
          sub.unsubscribe();
          assert.deepEqual(client.errors(), []);
          assert.deepEqual(heard, ["launch"]);
        },
      );
    } finally {
      clearInterval(beats);
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
      await nc.close();
      await link.close();
      await nats.stop();
    }
  },
});
