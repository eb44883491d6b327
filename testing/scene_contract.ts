/**
 * The scene engine's contract, one set of tests run against every `SceneLog` backend: the single
 * node's SQLite store (tests/unit/server_scene_contract_test.ts) and the cluster's JetStream log
 * (tests/cluster/cluster_scene_contract_test.ts). Each test drives a real `SceneSequencer` over the
 * backend with an injected clock and checks what the backend stored and what a reload from it
 * gives back: stamping order, sky admission, derived launches (the show and the finale store
 * nothing and are priced ahead), resume, snapshot advance, desync judging, and a failed append.
 *
 * @example
 * ```ts
 * Deno.test("scene contract: my log", async (t) => {
 *   await runSceneContract(t, myBackend);
 * });
 * ```
 */
import assert from "node:assert/strict";
import { TICK_MS, WINDOW_TICKS } from "../shared/constants.ts";
import { eventCost } from "../shared/budget.ts";
import type { ErrorMessage } from "../shared/protocol.ts";
import { advanceSnapshot, initialSnapshot } from "../shared/settings.ts";
import { DERIVED_BY, derivedLaunches, type DerivedSources, sourcesOf } from "../shared/derived.ts";
import { finaleEnd, finaleLaunches } from "../shared/finale.ts";
import { foundedSnapshot, isHost } from "../shared/rules.ts";
import type { HostAction } from "../shared/types.ts";
import { hashHostKey, mintHostKey } from "../server/scene/host_keys.ts";
import type { ClientBody, SceneEvent, WorldSnapshot } from "../shared/types.ts";
import { worldFromWindow } from "../shared/world.ts";
import { ServerClock } from "../server/scene/clock.ts";
import { DEFAULT_DESYNC_LIMITS, type DesyncAction, DesyncJudge } from "../server/scene/desync.ts";
import { RESUME_MARGIN_TICKS, SNAPSHOT_STEP_TICKS } from "../server/scene/event_window.ts";
import type { LoadedScene, SceneLog } from "../server/scene/scene_log.ts";
import { PLAN_LEAD_TICKS, SceneSequencer, type Submitted } from "../server/scene/sequencer.ts";
import { eventually } from "./wait.ts";

/** Wall ms of every contract scene's tick 0 (the injected wall clock starts there). */
const EPOCH = 1_700_000_000_000;

/** One scene in a backend under test. */
export interface ContractScene {
  /** Opens the scene's log as a sequencer would (a cluster owner: a takeover). */
  load(): Promise<{ log: SceneLog; loaded: LoadedScene }>;
  /** Every stored event, in seq order. */
  stored(): Promise<SceneEvent[]>;
  /** The stored snapshot. */
  storedSnapshot(): Promise<WorldSnapshot>;
  /** Another writer appends to the log (the next append of ours at that position must fail). */
  intrude(): Promise<void>;
}

/** A log backend under test. */
export interface ContractBackend {
  /** Creates scene `id` with `seed`, tick 0 at `epoch`, starting from `snapshot`. */
  create(id: string, seed: number, epoch: number, snapshot: WorldSnapshot): Promise<ContractScene>;
}

/** A sequencer over a backend's scene, with everything it did recorded. */
class Harness {
  mono = 0;
  readonly clock = new ServerClock(() => EPOCH, () => this.mono);
  readonly heard: SceneEvent[] = [];
  readonly beats: [number, number][] = [];
  readonly failures: unknown[] = [];
  readonly stats = { eventsClient: 0, eventsShow: 0, showSkippedSkyFull: 0 };
  sequencer!: SceneSequencer;
  log!: SceneLog;

  constructor(readonly scene: ContractScene, readonly skyCap = 1e9) {}

  /** Sets the clock to the middle of `tick`. */
  at(tick: number): this {
    this.mono = (tick + 0.5) * TICK_MS;
    return this;
  }

  async open(): Promise<this> {
    const { log, loaded } = await this.scene.load();
    this.log = log;
    this.sequencer = new SceneSequencer(loaded, {
      log,
      clock: this.clock,
      stats: this.stats,
      skyCap: this.skyCap,
      onEvent: (event) => this.heard.push(event),
      onHeartbeat: (n, seq) => this.beats.push([n, seq]),
      onFailure: (e) => this.failures.push(e),
    });
    return this;
  }

  /**
   * A host action from `by`, waited for until stored (or refused); its target counts as in the
   * scene unless `present` says otherwise.
   */
  async host(by: string, action: HostAction, present = true): Promise<ErrorMessage | null> {
    return await settle(this.sequencer.host(by, action, { present }).outcome);
  }

  /** Submits and waits until the event is stored (or refused). */
  async submit(by: string, body: ClientBody): Promise<ErrorMessage | null> {
    return await settle(this.sequencer.submit(by, body));
  }
}

/** A submit's outcome once the write is done. */
async function settle(submitted: Submitted): Promise<ErrorMessage | null> {
  if (submitted instanceof Promise) {
    await submitted;
    return null;
  }
  return submitted;
}

/** Slots the derived launches of `sources` hold at `tick` (all launched by then, none skipped). */
function derivedAt(seed: number, sources: DerivedSources, tick: number): number {
  let slots = 0;
  for (const launch of derivedLaunches(seed, sources, tick - WINDOW_TICKS, tick + 1)) {
    const event = { seq: launch.seq, tick: launch.tick, by: DERIVED_BY, body: launch.body };
    const cost = eventCost(seed, event);
    if (cost.endTick > tick) slots += cost.particles;
  }
  return slots;
}

const strip = (e: SceneEvent): SceneEvent => ({ seq: e.seq, tick: e.tick, by: e.by, body: e.body });

let scenes = 0;

/** Runs every contract test against `backend`, each on a fresh scene. */
export async function runSceneContract(
  t: Deno.TestContext,
  backend: ContractBackend,
): Promise<void> {
  const fresh = (show = false, seed = 7) =>
    backend.create(
      `contract-${++scenes}-${Date.now() % 1e6}`,
      seed,
      EPOCH,
      initialSnapshot({ show }),
    );
  /** A scene created by "ana" (its host), and ana's key. */
  const hosted = async (seed = 7) => {
    const key = mintHostKey();
    const snapshot = foundedSnapshot(initialSnapshot({ show: false }), "ana", hashHostKey(key));
    const scene = await backend.create(
      `contract-${++scenes}-${Date.now() % 1e6}`,
      seed,
      EPOCH,
      snapshot,
    );
    return { scene, key };
  };

  await t.step("events are stamped in seq order and heard only once stored", async () => {
    const h = await new Harness(await fresh()).open();
    h.at(10);
    const first = h.sequencer.submit("ana", { type: "launch", x: 1, z: 2 });
    h.at(12);
    const second = h.sequencer.submit("bo", { type: "settings", settings: { snow: 0.5 } });
    const third = h.sequencer.submit("cy", { type: "launch", x: -1, z: 0 });
    assert.equal(h.sequencer.lastSeq, 3, "stamped at once");
    for (const s of [first, second, third]) assert.equal(await settle(s), null);
    assert.deepEqual(h.heard.map((e) => [e.seq, e.tick, e.by]), [
      [1, 10, "ana"],
      [2, 12, "bo"],
      [3, 12, "cy"],
    ]);
    assert.deepEqual((await h.scene.stored()).map(strip), h.heard.map(strip));
    assert.equal(h.sequencer.settings.snow, 0.5);
    assert.equal(h.stats.eventsClient, 3);
    h.at(13).sequencer.pass();
    assert.deepEqual(h.beats, [], "tick 13 is covered by the events at 12");
    h.at(20).sequencer.pass();
    assert.deepEqual(h.beats, [[20, 3]], "a heartbeat names the last seq it covers");
  });

  await t.step("the sky admits up to its cap and says when to retry", async () => {
    const probe: SceneEvent = { seq: 1, tick: 10, by: "x", body: { type: "launch", x: 0, z: 0 } };
    const { particles, endTick } = eventCost(7, probe);
    const h = await new Harness(await fresh(), Math.ceil(particles * 1.5)).open();
    h.at(10);
    assert.equal(await h.submit("ana", { type: "launch", x: 0, z: 0 }), null);
    const refused = await h.submit("bo", { type: "launch", x: 0, z: 0 });
    assert.equal(refused?.code, "sky_full");
    assert.ok((refused?.retryAfterMs ?? 0) > 0, "it says when to retry");
    const huge = await new Harness(await fresh(), 10).open();
    assert.equal(
      (await huge.at(10).submit("cy", { type: "launch", x: 0, z: 0 }))?.retryAfterMs,
      undefined,
      "a launch larger than the sky never fits: no retry time",
    );
    h.at(endTick + 1);
    assert.equal(await h.submit("bo", { type: "launch", x: 0, z: 0 }), null, "room again");
    assert.deepEqual((await h.scene.stored()).map((e) => e.seq), [1, 2], "refusals store nothing");
  });

  await t.step("the show stores nothing: its launches are derived and priced ahead", async () => {
    // Issue 33, failure 4: 20 silent held scenes stored 14.7 show events a second.
    const seed = 11;
    const h = await new Harness(await fresh(true, seed)).at(1000).open();
    const sources = sourcesOf(initialSnapshot({ show: true }));
    // Ten minutes of scene time, a pass every 3 ticks as the scheduler makes them.
    for (let tick = 1000; tick <= 1000 + 36_000; tick += 3) h.at(tick).sequencer.pass();
    h.sequencer.persist();
    assert.deepEqual(await h.scene.stored(), [], "an idle scene with the show on stores no event");
    assert.equal(h.stats.eventsShow, 0);
    assert.equal(h.stats.showSkippedSkyFull, 0);
    const now = h.sequencer.now();
    for (const tick of [now, now + 100, now + PLAN_LEAD_TICKS]) {
      assert.equal(h.sequencer.skyAt(tick), derivedAt(seed, sources, tick), `sky at ${tick}`);
    }
    // A reload (restart, takeover) prices the same launches.
    const again = await new Harness(h.scene).at(now).open();
    const from = again.sequencer.now();
    assert.equal(again.sequencer.skyAt(from), derivedAt(seed, sources, from), "alive at load");
    assert.equal(again.sequencer.skyAt(from + 200), derivedAt(seed, sources, from + 200));
  });

  await t.step("a click that would crowd a planned show launch out is refused", async () => {
    const seed = 11;
    const sources = sourcesOf(initialSnapshot({ show: true }));
    const click: ClientBody = { type: "launch", x: 0, z: 0, kind: "willow", breaks: 3 };
    const cost = eventCost(seed, { seq: 1, tick: 1000, by: "bo", body: click });
    // The most the show holds at once over the click's life, planned when it comes.
    let peak = 0;
    for (let tick = 1000; tick < cost.endTick; tick++) {
      peak = Math.max(peak, derivedAt(seed, sources, tick));
    }
    assert.ok(peak > 0, "the show flies over the click's life");
    const tight = await new Harness(await fresh(true, seed), peak + cost.particles - 1).at(1000)
      .open();
    const refused = await tight.submit("bo", click);
    assert.equal(refused?.code, "sky_full", "the show has priority over a click");
    assert.ok((refused?.retryAfterMs ?? 0) > 0);
    assert.equal(tight.stats.showSkippedSkyFull, 0, "no show launch was given up");
    const room = await new Harness(await fresh(true, seed), peak + cost.particles).at(1000).open();
    assert.equal(await room.submit("bo", click), null, "one slot more and it fits beside them");
  });

  await t.step(
    "the show cannot start while clicks fill its room; show off always can",
    async () => {
      const seed = 11;
      const sources = sourcesOf(initialSnapshot({ show: true }));
      const click: ClientBody = { type: "launch", x: 0, z: 0, kind: "willow", breaks: 3 };
      const cost = eventCost(seed, { seq: 1, tick: 1000, by: "bo", body: click });
      // Room for the show alone once the clicks are gone, not beside two of them.
      let cap = 0;
      for (let tick = cost.endTick; tick < cost.endTick + 2 * WINDOW_TICKS; tick++) {
        cap = Math.max(cap, derivedAt(seed, sources, tick));
      }
      assert.ok(2 * cost.particles <= cap && 3 * cost.particles > cap);
      const h = await new Harness(await fresh(false, seed), cap).at(1000).open();
      assert.equal(await h.submit("bo", click), null);
      assert.equal(await h.submit("cy", click), null, "two clicks fill most of the sky");
      const on = await h.at(1001).submit("ana", { type: "settings", settings: { show: true } });
      assert.equal(on?.code, "sky_full", "the show's next launches would not fit beside them");
      assert.ok((on?.retryAfterMs ?? 0) > 0);
      assert.equal(h.sequencer.settings.show, false);
      assert.deepEqual(
        (await h.scene.stored()).map((e) => e.seq),
        [1, 2],
        "the refusal stores nothing",
      );
      const show = (on: boolean) => ({ type: "settings", settings: { show: on } }) as const;
      assert.equal(await h.at(cost.endTick).submit("ana", show(true)), null, "once they are gone");
      assert.ok(h.sequencer.skyAt(cost.endTick + 400) > 0, "the show is planned");
      assert.equal(await h.at(cost.endTick + 1).submit("ana", show(false)), null);
      assert.equal(h.sequencer.skyAt(cost.endTick + 400), 0, "show off: nothing planned");
      assert.equal(h.stats.showSkippedSkyFull, 0);
    },
  );

  await t.step("a reloaded scene resumes: seq continues, memory serves resumes", async () => {
    const scene = await fresh();
    const h = await new Harness(scene).open();
    for (let i = 1; i <= 5; i++) {
      await h.at(i * 10).submit("ana", { type: "settings", settings: { windSpeed: i } });
    }
    h.sequencer.persist();
    const again = await new Harness(scene).at(60).open();
    assert.equal(again.sequencer.lastSeq, 5);
    assert.equal(again.sequencer.settings.windSpeed, 5);
    const resumed = again.sequencer.welcomeWindow(2);
    assert.equal(resumed.resumed, true);
    assert.deepEqual(resumed.events.map((e) => e.seq), [3, 4, 5]);
    const full = again.sequencer.welcomeWindow(undefined);
    assert.equal(full.resumed, false);
    assert.deepEqual(full.events.map((e) => e.seq), [1, 2, 3, 4, 5]);
    assert.equal(again.sequencer.welcomeWindow(9).resumed, false, "a seq never stamped");
    assert.ok(again.sequencer.clock.tick() >= 50, "the clock never goes below stored events");
    assert.equal(await again.submit("bo", { type: "launch", x: 0, z: 0 }), null);
    assert.deepEqual((await scene.stored()).map((e) => e.seq), [1, 2, 3, 4, 5, 6]);
  });

  await t.step("the stored snapshot moves forward and a reload starts from it", async () => {
    const scene = await fresh();
    const h = await new Harness(scene).open();
    await h.at(100).submit("ana", { type: "settings", settings: { windSpeed: 3 } });
    await h.at(200).submit("ana", { type: "settings", settings: { snow: 0.25 } });
    const now = 200 + WINDOW_TICKS + RESUME_MARGIN_TICKS + SNAPSHOT_STEP_TICKS;
    await h.at(now - 1).submit("bo", { type: "settings", settings: { theme: "blue-silver" } });
    h.at(now).sequencer.persist();
    const target = now - WINDOW_TICKS - RESUME_MARGIN_TICKS;
    await eventually(
      "the snapshot is stored",
      async () => (await scene.storedSnapshot()).tick === target,
    );
    const all = await scene.stored();
    const start = initialSnapshot({ show: false });
    assert.deepEqual(await scene.storedSnapshot(), advanceSnapshot(start, all, target));
    const again = await new Harness(scene).at(now + 1).open();
    const welcome = again.sequencer.welcomeWindow(undefined);
    assert.ok(welcome.horizon >= now + 1);
    assert.deepEqual(welcome.snapshot, advanceSnapshot(start, all, welcome.horizon - WINDOW_TICKS));
    assert.deepEqual(welcome.events.map((e) => e.seq), [3], "only what the window needs");
    assert.equal(again.sequencer.welcomeWindow(1).resumed, false, "seq 1 is behind the snapshot");
    assert.equal(again.sequencer.settings.theme, "blue-silver");
  });

  await t.step("desync judging computes the truth from the window, loaded or live", async () => {
    const seed = 5;
    const scene = await fresh(false, seed);
    const h = await new Harness(scene).open();
    for (let i = 0; i < 4; i++) {
      await h.at(30 + i * 40).submit("ana", { type: "launch", x: i * 5 - 10, z: 3 });
    }
    const tick = 240;
    h.at(tick + 5);
    const truthOf = (sequencer: SceneSequencer) => {
      const window = sequencer.windowAt(tick);
      assert.ok(window, "memory reaches back to the window");
      return worldFromWindow({ seed, capacity: 1e9, tick, ...window }).hash();
    };
    const truth = truthOf(h.sequencer);
    const again = await new Harness(scene).at(tick + 5).open();
    assert.equal(truthOf(again.sequencer), truth, "a reload computes the same truth");
    const acted: DesyncAction[][] = [];
    const judge = new DesyncJudge(
      DEFAULT_DESYNC_LIMITS,
      () => Promise.resolve(truthOf(again.sequencer)),
    );
    judge.report(tick, "honest", truth, 0);
    judge.report(tick, "liar1", "0000000000000000", 0);
    judge.report(tick, "liar2", "0000000000000000", 0);
    judge.decide(10, () => 3, (actions) => acted.push(actions));
    await eventually("the verdict", () => acted.length > 0);
    assert.deepEqual(acted, [[
      { kind: "resync", peer: "liar1", tick },
      { kind: "resync", peer: "liar2", tick },
    ]]);
  });

  await t.step("the creator is the host: settings locked to hosts refuse a guest", async () => {
    const { scene, key } = await hosted();
    const h = await new Harness(scene).at(10).open();
    assert.ok(isHost(h.sequencer.rules, "ana"));
    const refused = await h.submit("bo", { type: "settings", settings: { snow: 1 } });
    assert.equal(refused?.code, "forbidden");
    assert.match(refused!.message, /only hosts/);
    assert.equal(await h.submit("ana", { type: "settings", settings: { snow: 1 } }), null);
    assert.equal((await h.host("bo", { do: "lock", lock: "everyone" }))?.code, "forbidden");
    assert.equal(await h.host("ana", { do: "lock", lock: "everyone" }), null);
    assert.equal(await h.submit("bo", { type: "settings", settings: { snow: 0.2 } }), null);
    const stored = JSON.stringify([await scene.stored(), await scene.storedSnapshot()]);
    assert.ok(!stored.includes(key), "the key itself is never stored");
    assert.ok(stored.includes(hashHostKey(key)), "its SHA-256 is");
    assert.deepEqual((await scene.stored()).map((e) => e.by), ["ana", "ana", "bo"]);
  });

  await t.step("muted, removed and paused peers are refused; hosts' launches go", async () => {
    const h = await new Harness((await hosted()).scene).at(10).open();
    const launch = { type: "launch", x: 0, z: 0 } as const;
    assert.equal((await h.host("bo", { do: "mute", peer: "cy", on: true }))?.code, "forbidden");
    assert.equal(await h.host("ana", { do: "mute", peer: "cy", on: true }), null);
    assert.equal((await h.submit("cy", launch))?.code, "muted");
    assert.equal((await h.host("ana", { do: "mute", peer: "ana", on: true }))?.code, "forbidden");
    assert.equal(await h.host("ana", { do: "mute", peer: "cy", on: false }), null);
    assert.equal(await h.submit("cy", launch), null, "unmuted");
    assert.equal(await h.host("ana", { do: "remove", peer: "dee" }), null);
    assert.equal((await h.submit("dee", launch))?.code, "removed");
    assert.equal((await h.submit("dee", { type: "settings", settings: {} }))?.code, "removed");
    assert.equal((await h.host("ana", { do: "grant", peer: "dee" }))?.code, "forbidden");
    assert.equal(await h.host("ana", { do: "pause", on: true }), null);
    assert.equal((await h.submit("cy", launch))?.code, "launches_paused");
    assert.equal(await h.submit("ana", launch), null, "a host's launch goes while paused");
    assert.equal(await h.host("ana", { do: "pause", on: false }), null);
    assert.equal(await h.submit("cy", launch), null);
  });

  await t.step("hosts hand over rights; keys prove them again after a reload", async () => {
    const { scene, key: anaKey } = await hosted();
    const h = await new Harness(scene).at(10).open();
    const absent = await h.host("ana", { do: "grant", peer: "made-up" }, false);
    assert.equal(absent?.code, "forbidden", "only a person in the scene can be made a host");
    const granted = h.sequencer.host("ana", { do: "grant", peer: "bo" }, { present: true });
    assert.equal(await settle(granted.outcome), null);
    assert.equal(granted.keyFor, "bo");
    assert.ok(granted.key && granted.key !== anaKey, "a key of its own");
    assert.ok(granted.key.length >= 22, "at least 128 bits");
    assert.ok(isHost(h.sequencer.rules, "bo"), "several hosts");
    assert.equal(await h.host("bo", { do: "lock", lock: "everyone" }), null);
    h.at(20).sequencer.persist();
    // A restart (or, in a cluster, a new owner): connections are new peers; keys prove rights.
    const again = await new Harness(scene).at(40).open();
    assert.equal(again.sequencer.rules.lock, "everyone", "host state survives the reload");
    assert.equal((await again.host("ana2", { do: "lock", lock: "hosts" }))?.code, "forbidden");
    const wrong = await again.host("ana2", { do: "claim", key: "A".repeat(32) });
    assert.equal(wrong?.code, "forbidden");
    assert.equal(await again.host("ana2", { do: "claim", key: anaKey }), null);
    assert.equal(await again.host("bo2", { do: "claim", key: granted.key }), null);
    assert.ok(isHost(again.sequencer.rules, "ana2") && isHost(again.sequencer.rules, "bo2"));
    assert.equal(await again.host("ana2", { do: "lock", lock: "hosts" }), null);
    assert.equal(
      (await again.submit("cy", { type: "settings", settings: { snow: 1 } }))?.code,
      "forbidden",
    );
  });

  await t.step("host state survives the snapshot moving past its events", async () => {
    const { scene, key } = await hosted();
    const h = await new Harness(scene).at(10).open();
    await h.host("ana", { do: "mute", peer: "cy", on: true });
    const now = 10 + WINDOW_TICKS + RESUME_MARGIN_TICKS + SNAPSHOT_STEP_TICKS;
    await h.at(now).submit("ana", { type: "launch", x: 1, z: 1 });
    h.sequencer.persist();
    await eventually(
      "the snapshot is stored past the rules events",
      async () => (await scene.storedSnapshot()).tick > 10,
    );
    const again = await new Harness(scene).at(now + 5).open();
    assert.equal((await again.submit("cy", { type: "launch", x: 0, z: 0 }))?.code, "muted");
    assert.equal(await again.host("ana3", { do: "claim", key }), null);
    const welcome = again.sequencer.welcomeWindow(undefined);
    assert.equal(welcome.snapshot.rules?.muted[0], "cy", "the snapshot carries the rules");
  });

  await t.step("a countdown's finale stores one event; reload and cancel price it", async () => {
    // Issue 33, failure 4: one address's 20 countdown finales stored 112 events/s.
    const seed = 11;
    const { scene } = await hosted(seed);
    const h = await new Harness(scene).at(100).open();
    assert.equal(await h.host("ana", { do: "countdown", in: 5, seconds: 5, intensity: 2 }), null);
    const countdown = h.sequencer.rules.countdown!;
    assert.deepEqual(countdown, { tick: 400, seconds: 5, intensity: 2 });
    const sources = sourcesOf({ ...initialSnapshot({ show: false }), rules: h.sequencer.rules });
    const end = finaleEnd(countdown);
    const half = countdown.tick + 150;
    for (let tick = 100; tick <= half; tick += 3) h.at(tick).sequencer.pass();
    assert.ok(derivedAt(seed, sources, half) > 0, "the finale flies");
    for (const tick of [half, half + 100, end - 1]) {
      assert.equal(h.sequencer.skyAt(tick), derivedAt(seed, sources, tick), `sky at ${tick}`);
    }
    // A reload in the middle of the finale (restart, failover) prices the same launches.
    const again = await new Harness(scene).at(half).open();
    const resumed = again.sequencer.now();
    assert.ok(resumed < half + 90);
    for (const tick of [resumed, resumed + 100]) {
      assert.equal(again.sequencer.skyAt(tick), derivedAt(seed, sources, tick), `reloaded ${tick}`);
    }
    for (let tick = resumed; tick <= end + 600; tick += 3) again.at(tick).sequencer.pass();
    const stored = await scene.stored();
    assert.deepEqual(stored.map((e) => e.body.type), ["rules"], "only the countdown is stored");
    assert.ok(finaleLaunches(seed, countdown, 0, end, "auto").length >= 5 * 3, "a dense barrage");
    // A cancelled countdown gives its planned launches back.
    const c = await new Harness((await hosted(seed)).scene).at(100).open();
    await c.host("ana", { do: "countdown", in: 2, seconds: 5, intensity: 5 });
    const planned = c.sequencer.rules.countdown!;
    assert.ok(c.sequencer.skyAt(planned.tick + 60) > 0, "the finale is priced ahead");
    assert.equal(await c.at(200).host("ana", { do: "cancel" }), null);
    assert.equal(c.sequencer.rules.countdown, null);
    assert.equal(c.sequencer.skyAt(planned.tick + 60), 0, "cancelled: nothing planned");
    c.at(1000).sequencer.pass();
    assert.deepEqual((await c.scene.stored()).map((e) => e.body.type), ["rules", "rules"]);
    assert.equal((await c.host("ana", { do: "cancel" }))?.code, "bad_message");
  });

  await t.step(
    "a failed append is heard by nobody and gives its sky room back at once",
    async () => {
      const scene = await fresh();
      const h = await new Harness(scene).open();
      h.at(10);
      assert.equal(await h.submit("ana", { type: "launch", x: 0, z: 0 }), null);
      const before = h.sequencer.skyUsed();
      await scene.intrude();
      // A synchronous log throws from submit; an asynchronous one rejects what it returns.
      const failed = await Promise.resolve().then(() =>
        settle(h.sequencer.submit("bo", { type: "launch", x: 5, z: 5 }))
      ).then(() => false, () => true);
      assert.equal(failed, true, "the append failed");
      assert.equal(h.sequencer.skyUsed(), before, "its reservation is gone at once");
      assert.deepEqual(h.heard.map((e) => e.seq), [1]);
      const stored = (await scene.stored()).filter((e) => e.by !== "intruder");
      assert.deepEqual(stored.map((e) => [e.seq, e.by]), [[1, "ana"]], "nothing of it stored");
      // An asynchronous log is lost for good (its owner steps down); a synchronous one is not.
      if (h.failures.length > 0) assert.equal(h.sequencer.failed, true);
    },
  );
}
