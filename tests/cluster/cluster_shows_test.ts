/**
 * Shows in cluster mode, with real processes: a host on node a lets a person on node b compose;
 * the shared draft crosses nodes both ways; the composer's show, stamped from node b, expands to
 * the same launches for a page on node a and one on node b (equal hashes at a checkpoint inside
 * the show, which differ without it); the composer coming back on node a (same browser token)
 * gets the right again there, and loses it everywhere after the host's `on: false`.
 */
import assert from "node:assert/strict";
import { CHECKPOINT_TICKS } from "../../shared/constants.ts";
import type { ServerMessage, ShowCue, WelcomeMessage } from "../../shared/protocol.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { worldFromWindow } from "../../shared/world.ts";
import { requireNats, startNatsCluster, startSnowfireNode } from "../../testing/nats_cluster.ts";
import { TestClient } from "../../testing/test_client.ts";
import { eventually } from "../../testing/wait.ts";

type Event = Extract<ServerMessage, { t: "event" }>;
type Refusal = Extract<ServerMessage, { t: "error" }>;

const TIMEOUT = 10_000;
const BO = "bo-cluster-browser-token-0001";
const cues: ShowCue[] = Array.from({ length: 7 }, (_, i) => ({ at: i * 20, x: i * 4 - 12, z: -8 }));

const isShow = (m: ServerMessage): m is Event => m.t === "event" && m.body.type === "show";
const composeFor = (peer: string, on: boolean) => (m: ServerMessage): boolean =>
  m.t === "event" && m.body.type === "rules" && m.body.do === "compose" &&
  m.body.peer === peer && m.body.on === on;
const draftBy = (peer: string) => (m: ServerMessage): boolean => m.t === "draft" && m.by === peer;
const isError = (m: ServerMessage): m is Refusal => m.t === "error";

/** A page's world hash at `tick`, from its welcome and the events it got since. */
function hashAt(welcome: WelcomeMessage, client: TestClient, tick: number, skip = -1): string {
  const events = [...welcome.events, ...client.events().map(({ t: _t, ...e }) => e as SceneEvent)]
    .filter((e) => e.tick < tick && e.seq !== skip);
  return worldFromWindow({ seed: welcome.seed, snapshot: welcome.snapshot, events, tick }).hash();
}

/** The highest tick a client was promised so far (heartbeats and events). */
function horizon(client: TestClient): number {
  let n = 0;
  for (const m of client.messages) {
    if (m.t === "tick") n = Math.max(n, m.n);
    else if (m.t === "event") n = Math.max(n, m.tick);
  }
  return n;
}

Deno.test({
  name: "cluster shows: a show stamped on one node expands alike on the other; drafts cross",
  ignore: !requireNats("cluster shows test"),
  async fn(t) {
    const nats = await startNatsCluster({ size: 1 });
    const a = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "shows-a" });
    const b = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "shows-b" });
    const clients: TestClient[] = [];
    try {
      const scene = "cluster-shows-1";
      const ana = await TestClient.join(a.url, scene);
      clients.push(ana.client);
      await ana.client.waitFor((m) => m.t === "host", TIMEOUT);
      // Only this test's launches in the sky (asked again, twice a second at most, until the
      // owner is there to stamp it).
      let askedMs = -Infinity;
      await eventually("the seeded show is off", () => {
        if (ana.client.events().some((e) => e.body.type === "settings")) return true;
        if (performance.now() - askedMs >= 500) {
          askedMs = performance.now();
          ana.client.submit({ type: "settings", settings: { show: false } });
        }
        return false;
      }, 15_000);
      const bo = await TestClient.join(b.url, scene, { person: BO });
      clients.push(bo.client);
      const boId = bo.welcome.you.id;
      // Node a knows bo's token hash once it announced bo: the grant carries it.
      await ana.client.waitFor((m) => m.t === "presence" && m.peer.id === boId, TIMEOUT);

      await t.step("a host on a lets a person on b compose; drafts cross both ways", async () => {
        ana.client.send({ t: "host", action: { do: "compose", peer: boId, on: true } });
        await bo.client.waitFor((m) => m.t === "draft-state", TIMEOUT);
        ana.client.send({ t: "draft", edits: [{ do: "title", title: "Across" }] });
        await bo.client.waitFor(draftBy(ana.welcome.you.id), TIMEOUT);
        bo.client.send({ t: "draft", edits: [{ do: "cue", id: "c1", cue: cues[0] }] });
        await ana.client.waitFor(draftBy(boId), TIMEOUT);
      });

      await t.step("a show stamped from b expands to the same launches on a and b", async () => {
        const start = horizon(bo.client) + 90;
        bo.client.send({ t: "submit", body: { type: "show", title: "Across", cues, start } });
        const show = await ana.client.waitFor(isShow, TIMEOUT) as Event;
        await bo.client.waitFor(isShow, TIMEOUT);
        assert.equal(show.by, boId);
        const checkpoint = Math.ceil((start + 130) / CHECKPOINT_TICKS) * CHECKPOINT_TICKS;
        for (const c of [ana.client, bo.client]) {
          await c.waitFor((m) => m.t === "tick" && m.n > checkpoint, 15_000);
        }
        const onA = hashAt(ana.welcome, ana.client, checkpoint);
        const onB = hashAt(bo.welcome, bo.client, checkpoint);
        assert.equal(onB, onA, "the same sky on both nodes' pages");
        assert.notEqual(hashAt(ana.welcome, ana.client, checkpoint, show.seq), onA, "cues flew");
      });

      await t.step("the composer back on node a has the right, until on:false", async () => {
        await bo.client.close();
        const back = await TestClient.join(a.url, scene, { person: BO });
        clients.push(back.client);
        const backId = back.welcome.you.id;
        await ana.client.waitFor(composeFor(backId, true), TIMEOUT);
        await back.client.waitFor((m) => m.t === "draft-state", TIMEOUT);
        back.client.send({ t: "draft", edits: [{ do: "title", title: "Back" }] });
        await ana.client.waitFor(draftBy(backId), TIMEOUT);
        ana.client.send({ t: "host", action: { do: "compose", peer: backId, on: false } });
        await back.client.waitFor(composeFor(backId, false), TIMEOUT);
        back.client.send({ t: "draft", edits: [{ do: "title", title: "Mine?" }] });
        const refused = await back.client.waitFor(isError, TIMEOUT) as Refusal;
        assert.equal(refused.code, "forbidden");
      });
    } finally {
      for (const client of clients) await client.close();
      await a.stop();
      await b.stop();
      await nats.stop();
    }
  },
});
