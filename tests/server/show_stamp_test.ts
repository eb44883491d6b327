/**
 * Host-composed shows over real WebSockets on a single node: a host's show is stamped as one
 * event and every page (two clients and a late joiner) expands it into the same launches (equal
 * hashes at checkpoints); a guest's show is `forbidden`; the limits (2,001 cues, past 20 minutes)
 * are refused; a show the sky cannot hold is refused naming its first cue that does not fit; a
 * cancel stops the cues after its tick.
 */
import assert from "node:assert/strict";
import { CHECKPOINT_TICKS } from "../../shared/constants.ts";
import type { ServerMessage, ShowCue, WelcomeMessage } from "../../shared/protocol.ts";
import { SHOW_MAX_CUES, SHOW_MAX_TICKS } from "../../shared/protocol.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { type World, worldFromWindow } from "../../shared/world.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

/** Scene time runs 4× faster than real time. */
const SPEED = 4;

type Event = Extract<ServerMessage, { t: "event" }>;
type Refusal = Extract<ServerMessage, { t: "error" }>;

function asEvent(m: Event): SceneEvent {
  const { t: _t, ...event } = m;
  return event;
}

/** A page's world at `tick`, from its welcome and the events it got since. */
function followed(welcome: WelcomeMessage, events: readonly SceneEvent[], tick: number): World {
  const all = [...welcome.events, ...events].filter((e) => e.tick < tick);
  return worldFromWindow({ seed: welcome.seed, snapshot: welcome.snapshot, events: all, tick });
}

const cues = (n: number, every: number, x = 0): ShowCue[] =>
  Array.from({ length: n }, (_, i) => ({ at: i * every, x: x + (i % 7) * 4 - 12, z: -10 }));

const isShow = (m: ServerMessage): m is Event => m.t === "event" && m.body.type === "show";

Deno.test("a host's show is one event every page expands alike; guests and limits refused", async (t) => {
  const server = await startTestServer({
    refusalNoticeMs: 0,
    skyCap: 60_000,
    monotonic: () => performance.now() * SPEED,
  });
  const scene = "show-party-1";
  const clients: TestClient[] = [];
  try {
    const { client: ana, welcome: wa } = await TestClient.join(server.url, scene);
    clients.push(ana);
    await ana.waitFor((m) => m.t === "host");
    const { client: bo, welcome: wb } = await TestClient.join(server.url, scene);
    clients.push(bo);
    // The seeded show off, so the sky holds only what this test puts there.
    ana.submit({ type: "settings", settings: { show: false } });
    await bo.waitFor((m) => m.t === "event" && m.body.type === "settings");

    await t.step("a guest's show and cancel are forbidden", async () => {
      bo.send({ t: "submit", body: { type: "show", title: "mine", cues: cues(3, 30) } });
      bo.send({ t: "submit", body: { type: "show-cancel", show: 1 } });
      const refused = await bo.waitForCount((m) => m.t === "error", 2) as Refusal[];
      assert.deepEqual(refused.map((r) => r.code), ["forbidden", "forbidden"]);
    });

    await t.step("2,001 cues or a cue past 20 minutes are refused", async () => {
      ana.send({
        t: "submit",
        body: { type: "show", title: "long", cues: cues(SHOW_MAX_CUES + 1, 30) },
      });
      const late = [{ at: SHOW_MAX_TICKS + 1, x: 0, z: 0 }];
      ana.send({ t: "submit", body: { type: "show", title: "late", cues: late } });
      const refused = await ana.waitForCount((m) => m.t === "error", 2) as Refusal[];
      assert.deepEqual(refused.map((r) => r.code), ["bad_message", "bad_message"]);
      assert.match(refused[0].message, /2000 cues/);
      assert.match(refused[1].message, /72000/);
    });

    await t.step("a show the sky cannot hold is refused naming its first cue", async () => {
      // Forty shells bursting together: far more than 60,000 particles.
      const crowd = Array.from({ length: 40 }, (_, i) => ({ at: 60, x: i - 20, z: 0 }));
      ana.send({ t: "submit", body: { type: "show", title: "crowd", cues: crowd } });
      const refused = await ana.waitForCount((m) => m.t === "error", 3) as Refusal[];
      const refusal = refused[2];
      assert.equal(refusal.code, "sky_full");
      assert.ok(refusal.cue !== undefined && refusal.cue > 0 && refusal.cue < 40, `${refusal.cue}`);
      assert.match(refusal.message, new RegExp(`cue ${refusal.cue! + 1} \\(at 1 s`));
      assert.ok(!ana.messages.some(isShow), "nothing was stamped");
    });

    let showEvent!: Event;
    await t.step("a host's show is stamped once, seen by both", async () => {
      ana.send({ t: "submit", body: { type: "show", title: "Duet", cues: cues(60, 20) } });
      showEvent = await bo.waitFor(isShow) as Event;
      await ana.waitFor(isShow);
      assert.equal(showEvent.by, wa.you.id);
      const body = showEvent.body as Extract<SceneEvent["body"], { type: "show" }>;
      assert.ok(body.start > showEvent.tick, "it starts after it is stamped");
      assert.equal(body.cues.length, 60);
    });

    const start = (showEvent.body as { start: number }).start;
    await t.step("every page expands it to the same launches, a late joiner too", async () => {
      // Well into the show (its stamp older than the window W), a third page joins.
      await ana.waitFor((m) => m.t === "tick" && m.n > start + 600, 20_000);
      const { client: cy, welcome: wc } = await TestClient.join(server.url, scene);
      clients.push(cy);
      assert.ok(wc.snapshot.shows?.some((s) => s.seq === showEvent.seq), "in the snapshot");
      assert.ok(!wc.events.some((e) => e.seq === showEvent.seq), "not in the window");
      const checkpoint = Math.ceil((wc.horizon + 1) / CHECKPOINT_TICKS) * CHECKPOINT_TICKS;
      await ana.waitFor((m) => m.t === "tick" && m.n > checkpoint, 20_000);
      await bo.waitFor((m) => m.t === "tick" && m.n > checkpoint, 20_000);
      const evA = ana.events().map(asEvent), evB = bo.events().map(asEvent);
      assert.deepEqual(evA.map((e) => e.seq), evB.map((e) => e.seq));
      const worldA = followed(wa, evA, checkpoint), worldB = followed(wb, evB, checkpoint);
      const worldC = worldFromWindow({
        seed: wc.seed,
        snapshot: wc.snapshot,
        events: [...wc.events, ...cy.events().map(asEvent)].filter((e) => e.tick < checkpoint),
        tick: checkpoint,
      });
      assert.equal(worldA.hash(), worldB.hash());
      assert.equal(worldC.hash(), worldA.hash(), "the late joiner's hash");
      // The show's cues are in that sky: without its event the hash differs.
      const without = followed(wa, evA.filter((e) => e.seq !== showEvent.seq), checkpoint);
      assert.notEqual(without.hash(), worldA.hash());
      assert.ok(worldA.liveParticles() > without.liveParticles());
    });

    await t.step("a cancel stops the cues after its tick", async () => {
      // A fresh heartbeat (the worlds above kept this loop busy), then a show well ahead.
      const isTick = (m: ServerMessage) => m.t === "tick";
      const beats = ana.messages.filter(isTick).length;
      const ticks = await ana.waitForCount(isTick, beats + 2) as { n: number }[];
      const begin = ticks[ticks.length - 1].n + 1200;
      ana.send({
        t: "submit",
        body: { type: "show", title: "Encore", cues: cues(10, 60), start: begin },
      });
      const encore = await ana.waitForCount(isShow, 2).then((s) => s[1] as Event);
      const encoreStart = (encore.body as { start: number }).start;
      ana.submit({ type: "show-cancel", show: encore.seq });
      const cancel = await bo.waitFor((m) =>
        m.t === "event" && m.body.type === "show-cancel"
      ) as Event;
      assert.ok(cancel.tick < encoreStart);
      ana.submit({ type: "show-cancel", show: encore.seq });
      const again = await ana.waitFor((m) => m.t === "error" && /not playing/.test(m.message));
      assert.equal((again as Refusal).code, "bad_message");
      // Past the encore's start, its cancelled cues put nothing in the sky.
      const tick = encoreStart + 200;
      const evA = ana.events().map(asEvent);
      const at = (events: SceneEvent[]) =>
        worldFromWindow({ seed: wa.seed, snapshot: wa.snapshot, events, tick });
      const withEncore = at(evA), noEncore = at(evA.filter((e) => e.seq < encore.seq));
      const uncancelled = at(evA.filter((e) => e.body.type !== "show-cancel"));
      assert.equal(withEncore.hash(), noEncore.hash());
      assert.notEqual(uncancelled.hash(), noEncore.hash(), "uncancelled, its cues would fly");
    });
  } finally {
    for (const client of clients) await client.close();
    await server.close();
  }
});
