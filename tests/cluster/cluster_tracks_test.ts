/**
 * Music tracks in cluster mode, with real processes and the shipped NATS permissions: a host
 * connected to node a uploads a track to node b (its key checked against the rules b folds from
 * the log), and node a serves it, whole and by Range, from the JetStream object store; a guest's
 * upload is refused on either node.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { ServerMessage } from "../../shared/protocol.ts";
import { requireNats, startNatsCluster, startSnowfireNode } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { clickTrack } from "../../testing/track_wav.ts";

type HostFrame = Extract<ServerMessage, { t: "host" }>;

Deno.test({
  name: "cluster tracks: uploaded on one node, served from another",
  ignore: !requireNats("cluster tracks test"),
  async fn() {
    const nats = await startNatsCluster({ size: 1 });
    const a = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "tracks-a" });
    const b = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "tracks-b" });
    let host: TestClient | undefined;
    try {
      const scene = "cluster-tracks-1";
      const joined = await TestClient.join(a.url, scene);
      host = joined.client;
      const key = ((await host.waitFor((m) => m.t === "host" && !!m.key)) as HostFrame).key!;
      // Two seconds of audio: several object store chunks (128 KiB each) at 44.1 kHz.
      const wav = clickTrack({ seconds: 4, sampleRate: 44100, clicksAt: [1, 2, 3] });
      const id = createHash("sha256").update(wav).digest("hex");

      const guest = await fetch(`${a.url}/s/${scene}/tracks`, {
        method: "POST",
        body: wav,
        headers: { authorization: `Bearer ${"B".repeat(32)}` },
      });
      assert.equal(guest.status, 403);
      await guest.body?.cancel();

      const uploaded = await fetch(`${b.url}/s/${scene}/tracks`, {
        method: "POST",
        body: wav,
        headers: { authorization: `Bearer ${key}` },
      });
      const body = await uploaded.json();
      assert.equal(uploaded.status, 201, JSON.stringify(body));
      assert.equal(body.id, id);

      const whole = await fetch(`${a.url}/s/${scene}/tracks/${id}`);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), wav);

      // A range across a chunk boundary (131,072 bytes), from the node that did not store it.
      const from = 131_000;
      const to = 262_300;
      const ranged = await fetch(`${a.url}/s/${scene}/tracks/${id}`, {
        headers: { range: `bytes=${from}-${to}` },
      });
      assert.equal(ranged.status, 206);
      assert.equal(ranged.headers.get("content-range"), `bytes ${from}-${to}/${wav.length}`);
      assert.deepEqual(new Uint8Array(await ranged.arrayBuffer()), wav.subarray(from, to + 1));
      const past = await fetch(`${a.url}/s/${scene}/tracks/${id}`, {
        headers: { range: `bytes=${wav.length}-` },
      });
      assert.equal(past.status, 416);
      await past.body?.cancel();
      const elsewhere = await fetch(`${a.url}/s/other-scene/tracks/${id}`);
      assert.equal(elsewhere.status, 404);
      await elsewhere.body?.cancel();
    } finally {
      await host?.close();
      await a.stop();
      await b.stop();
      await nats.stop();
    }
  },
});
