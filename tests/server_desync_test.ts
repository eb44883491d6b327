/**
 * Desync arbitration the server can trust: when checkpoint hashes disagree the server computes
 * the true hash itself, resyncs only the peers that are wrong, disconnects peers that keep
 * lying, and rate-limits both its computations and each peer's resyncs.
 */
import assert from "node:assert/strict";
import type { ServerMessage } from "../shared/protocol.ts";
import type { SceneEvent } from "../shared/types.ts";
import { worldFromWindow } from "../shared/world.ts";
import { Sim } from "../client/sim.ts";
import { DEFAULT_DESYNC_LIMITS, type DesyncAction, DesyncJudge } from "../server/desync.ts";
import { CLOSE_WRONG_HASHES } from "../server/room.ts";
import { eventually, sleep, TestClient, withServer } from "./helpers/server_harness.ts";

type Welcome = Extract<ServerMessage, { t: "welcome" }>;

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not come within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The true hash at `tick` from what `client` received since `welcome` (every event < tick). */
function trueHash(client: TestClient, welcome: Welcome, tick: number): string {
  const seen = new Map<number, SceneEvent>();
  for (const e of welcome.events) seen.set(e.seq, e);
  for (const { t: _t, ...e } of client.events()) seen.set(e.seq, e);
  const events = [...seen.values()].filter((e) => e.tick < tick).sort((a, b) => a.seq - b.seq);
  return worldFromWindow({
    seed: welcome.seed,
    snapshot: welcome.snapshot,
    events,
    tick,
    capacity: welcome.skyCap,
  }).hash();
}

/** A client that runs the real simulation (client/sim.ts) and reports its checkpoint hashes. */
async function honestClient(url: string, scene: string): Promise<TestClient> {
  const client = await TestClient.connect(url, scene);
  const sim = new Sim({
    checkpoint: (tick, h) => client.send({ t: "hash", tick, h }),
    rebuilt: () => {},
  });
  client.socket.addEventListener("message", (e) => {
    const m = JSON.parse(e.data as string) as ServerMessage;
    if (m.t === "welcome") sim.welcome(m);
    else if (m.t === "event") {
      const { t: _t, ...event } = m;
      sim.receiveEvent(event);
    } else if (m.t === "tick") sim.heartbeat(m.n);
    if (m.t === "tick" || m.t === "event") sim.advance(sim.horizon, 1000, () => performance.now());
  });
  client.send({ t: "hello", name: "Honest" });
  await client.waitFor((m) => m.t === "welcome");
  return client;
}

/** A client that reports `lie` at every checkpoint the heartbeats pass. */
async function liar(url: string, scene: string, lie: string): Promise<TestClient> {
  const { client, welcome } = await TestClient.join(url, scene, { name: "Liar" });
  let next = Math.ceil((welcome.horizon + 1) / 60) * 60;
  client.socket.addEventListener("message", (e) => {
    const m = JSON.parse(e.data as string) as ServerMessage;
    while (m.t === "tick" && m.n > next && client.socket.readyState === WebSocket.OPEN) {
      client.send({ t: "hash", tick: next, h: lie });
      next += 60;
    }
  });
  return client;
}

Deno.test("a disputed checkpoint resyncs only the peer whose hash is wrong", async () => {
  await withServer({}, async (server) => {
    const scene = "odd-one-out-2";
    const joined = [];
    for (let i = 0; i < 3; i++) joined.push(await TestClient.join(server.url, scene));
    const checkpoint = Math.ceil((Math.max(...joined.map((j) => j.welcome.horizon)) + 1) / 60) *
      60;
    const [a, b, c] = joined.map((j) => j.client);
    for (const { client } of joined) {
      await client.waitFor((m) => m.t === "tick" && m.n > checkpoint, 5000);
    }
    const truth = trueHash(a, joined[0].welcome, checkpoint);
    assert.equal(truth, trueHash(b, joined[1].welcome, checkpoint), "the test's own check");
    // Two agree on a lie, one tells the truth: a majority vote would resync the truthful one.
    a.send({ t: "hash", tick: checkpoint, h: "00aa" });
    b.send({ t: "hash", tick: checkpoint, h: "00aa" });
    c.send({ t: "hash", tick: checkpoint, h: truth });
    for (const liar of [a, b]) {
      // The first dispute also starts the hash worker: give a loaded machine time.
      const resync = await liar.waitFor((m) => m.t === "resync", 20_000);
      assert.equal(resync.t === "resync" && resync.tick, checkpoint);
      await liar.waitForCount((m) => m.t === "welcome", 2);
    }
    await sleep(100);
    assert.ok(!c.messages.some((m) => m.t === "resync"), "the truthful peer keeps its world");
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^snowfire_desyncs_total 2$/m);
    assert.match(metrics, /^snowfire_desync_arbitrations_total 1$/m);
    await Promise.all([a.close(), b.close(), c.close()]);
  });
});

Deno.test("two liars cannot make an honest client resync, and liars get disconnected", async () => {
  // Arbitrations every 300 ms instead of 2 s keep the test short; the logic is the same.
  await withServer({ desyncLimits: { arbitrationIntervalMs: 300 } }, async (server) => {
    const scene = "two-liars-1";
    const honest = await honestClient(server.url, scene);
    const liars = [
      await liar(server.url, scene, "0badc0de"),
      await liar(server.url, scene, "0badc0de"),
    ];
    const closes = await Promise.all(liars.map((l) => within(l.closed, 30_000, "a liar's close")));
    for (const close of closes) {
      assert.equal(close.code, CLOSE_WRONG_HASHES);
      assert.match(close.reason, /hashes keep disagreeing/);
    }
    assert.ok(honest.messages.filter((m) => m.t === "resync").length === 0, "never resynced");
    assert.equal(honest.messages.filter((m) => m.t === "welcome").length, 1, "one welcome only");
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^snowfire_desync_disconnects_total 2$/m);
    const arbitrations = Number(/^snowfire_desync_arbitrations_total (\d+)$/m.exec(metrics)![1]);
    assert.ok(arbitrations >= DEFAULT_DESYNC_LIMITS.strikesToDisconnect, `${arbitrations}`);
    // Each liar was resynced once (their first wrong hash) and then only struck.
    for (const l of liars) assert.equal(l.messages.filter((m) => m.t === "resync").length, 1);
    await eventually("the honest client is alone", async () => {
      const info = await (await fetch(`${server.url}/api/scenes/${scene}`)).json();
      return info.people.length === 1;
    });
    await honest.close();
  });
});

Deno.test("desync judge: rate limits, consensus, late reports and strikes", async (t) => {
  const limits = {
    ...DEFAULT_DESYNC_LIMITS,
    timeoutMs: 100,
    arbitrationIntervalMs: 1000,
    resyncIntervalMs: 5000,
  };
  /** A judge whose "true hash" is `truth`, recording computations and actions. */
  const make = (truth = "aa") => {
    const computed: number[] = [];
    const actions: DesyncAction[] = [];
    const stats = { desyncArbitrations: 0, desyncUnsettled: 0 };
    const judge = new DesyncJudge(limits, (tick) => {
      computed.push(tick);
      return Promise.resolve(truth);
    }, stats);
    const decide = async (nowMs: number, eligible = 3) => {
      judge.decide(nowMs, () => eligible, (a) => actions.push(...a));
      await Promise.resolve();
      await Promise.resolve();
    };
    return { judge, computed, actions, stats, decide };
  };

  await t.step("agreement settles without computing", async () => {
    const { judge, computed, actions, decide } = make();
    for (const p of ["p1", "p2", "p3"]) judge.report(60, p, "bb", 0);
    await decide(1);
    assert.deepEqual(computed, []);
    assert.deepEqual(actions, []);
    assert.equal(judge.pending, false);
  });
  await t.step("a disagreement is computed; only the wrong peers are resynced", async () => {
    const { judge, computed, actions, decide } = make("aa");
    judge.report(60, "p1", "aa", 0);
    judge.report(60, "p2", "bb", 0);
    judge.report(60, "p3", "bb", 0);
    await decide(1);
    assert.deepEqual(computed, [60]);
    assert.deepEqual(actions, [
      { kind: "resync", peer: "p2", tick: 60 },
      { kind: "resync", peer: "p3", tick: 60 },
    ]);
  });
  await t.step("it waits for every eligible peer, or for the timeout", async () => {
    const { judge, computed, decide } = make();
    judge.report(60, "p1", "aa", 0);
    judge.report(60, "p2", "bb", 0);
    await decide(50);
    assert.deepEqual(computed, [], "one eligible peer has not reported yet");
    await decide(100);
    assert.deepEqual(computed, [60]);
  });
  await t.step(
    "computations are rate-limited per scene; an undecided dispute resyncs nobody",
    async () => {
      const { judge, computed, actions, stats, decide } = make("aa");
      judge.report(60, "p1", "aa", 0);
      judge.report(60, "p2", "bb", 0);
      await decide(0, 2);
      judge.report(120, "p1", "aa", 500);
      judge.report(120, "p2", "cc", 500);
      await decide(500, 2);
      assert.deepEqual(computed, [60]);
      assert.equal(stats.desyncUnsettled, 1);
      assert.equal(actions.length, 1, "only tick 60's verdict");
      judge.report(180, "p1", "aa", 1000);
      judge.report(180, "p2", "dd", 1000);
      await decide(1000, 2);
      assert.deepEqual(computed, [60, 180]);
    },
  );
  await t.step(
    "resyncs are rate-limited per peer, and repeated liars are disconnected",
    async () => {
      const { judge, actions, decide } = make("aa");
      for (let i = 0; i < 3; i++) {
        const tick = 60 * (i + 1);
        const now = i * 1000;
        judge.report(tick, "honest", "aa", now);
        judge.report(tick, "liar", "ff", now);
        await decide(now, 2);
      }
      assert.deepEqual(actions, [
        { kind: "resync", peer: "liar", tick: 60 },
        { kind: "disconnect", peer: "liar", tick: 180, strikes: 3 },
      ]);
    },
  );
  await t.step("strikes older than the window are forgiven", async () => {
    const { judge, actions, decide } = make("aa");
    const times = [0, limits.strikeWindowMs + 1, 2 * limits.strikeWindowMs + 2];
    for (const [i, now] of times.entries()) {
      judge.report(60 * (i + 1), "drifter", "ff", now);
      judge.report(60 * (i + 1), "other", "aa", now);
      await decide(now, 2);
    }
    assert.deepEqual(actions.map((a) => a.kind), ["resync", "resync", "resync"]);
  });
  await t.step("a late report against a consensus reopens it and the truth decides", async () => {
    const { judge, computed, actions, decide } = make("aa");
    judge.report(60, "liar1", "ff", 0);
    judge.report(60, "liar2", "ff", 0);
    await decide(200, 3);
    assert.deepEqual(computed, [], "the two agreed: a consensus, for now");
    judge.report(60, "honest", "aa", 300);
    await decide(300, 3);
    assert.deepEqual(computed, [60]);
    assert.deepEqual(actions.map((a) => a.peer).sort(), ["liar1", "liar2"]);
  });
  await t.step("a resynced peer's older pending reports are dropped", async () => {
    const { judge, actions, decide } = make("aa");
    judge.report(60, "p1", "aa", 0);
    judge.report(60, "p2", "bb", 0);
    judge.report(120, "p1", "aa", 0);
    judge.report(120, "p2", "bb", 0);
    await decide(0, 2);
    assert.deepEqual(actions, [{ kind: "resync", peer: "p2", tick: 60 }]);
    judge.resynced("p2");
    await decide(2000, 2);
    assert.deepEqual(actions.length, 1, "tick 120's report came from p2's old world");
  });
});
