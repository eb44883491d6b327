/** The sequencer on its own, over an in-memory SceneLog: stamping, ordering, durability, reload. */
import assert from "node:assert/strict";
import { TICK_MS } from "../../shared/constants.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";
import { ServerClock } from "../../server/scene/clock.ts";
import type { LoadedScene, SceneLog } from "../../server/scene/scene_log.ts";
import { SceneSequencer } from "../../server/scene/sequencer.ts";

/** A SceneLog in memory, recording the order of calls. */
class MemoryLog implements SceneLog {
  readonly events: SceneEvent[] = [];
  readonly calls: string[] = [];
  progress: [number, number] | undefined;
  snapshot: WorldSnapshot | undefined;

  append(event: SceneEvent): void {
    if (this.events.some((e) => e.seq === event.seq)) throw new Error(`seq ${event.seq} taken`);
    this.events.push(event);
    this.calls.push(`append ${event.seq}`);
  }
  /** The scene as a sequencer loads it (the store's floor rule: last promise + 30). */
  load(base: Omit<LoadedScene, "events" | "lastSeq" | "lastTick" | "promised" | "floor">) {
    const last = this.events.at(-1);
    const promised = this.progress?.[0] ?? 0;
    return {
      ...base,
      showCursor: this.progress?.[1] ?? base.showCursor,
      events: this.events.filter((e) => e.tick >= base.snapshot.tick),
      lastSeq: last?.seq ?? 0,
      lastTick: last?.tick ?? 0,
      promised,
      floor: promised > 0 ? promised + 30 : 0,
    };
  }
  saveProgress(lastTick: number, showCursor: number): void {
    this.progress = [lastTick, showCursor];
  }
  saveSnapshot(snapshot: WorldSnapshot): void {
    this.snapshot = snapshot;
  }
}

function setup(log = new MemoryLog(), skyCap = 1e9) {
  let mono = 0;
  const clock = new ServerClock(() => 0, () => mono);
  const state = log.load({
    seed: 7,
    epoch: 0,
    snapshot: initialSnapshot({ show: false }),
    showCursor: 0,
  });
  const heard: SceneEvent[] = [];
  const beats: number[] = [];
  const stats = { eventsClient: 0, eventsShow: 0, showSkippedSkyFull: 0 };
  const sequencer = new SceneSequencer(state, {
    log,
    clock,
    stats,
    skyCap,
    onEvent: (event) => {
      log.calls.push(`heard ${event.seq}`);
      heard.push(event);
    },
    onHeartbeat: (n) => beats.push(n),
  });
  return { sequencer, log, heard, beats, stats, state, setMs: (ms: number) => mono = ms };
}

Deno.test("sequencer stamps bodies with gap-free seqs and the current tick", async (t) => {
  const { sequencer, log, heard, beats, stats, setMs } = setup();
  const body = { type: "launch", x: 1, z: 2, y: 30 } as const;
  setMs(10.5 * TICK_MS);
  assert.equal(sequencer.submit("ana", body), null);
  setMs(12.5 * TICK_MS);
  assert.equal(sequencer.submit("bo", { type: "settings", settings: { snow: 0.5 } }), null);

  await t.step("each event is logged before anyone hears it", () => {
    assert.deepEqual(log.calls, ["append 1", "heard 1", "append 2", "heard 2"]);
  });
  await t.step("seq, tick and sender are stamped; the body is the one submitted", () => {
    assert.deepEqual(heard.map((e) => [e.seq, e.tick, e.by]), [[1, 10, "ana"], [2, 12, "bo"]]);
    assert.equal(heard[0].body, body);
    assert.equal(stats.eventsClient, 2);
    assert.equal(sequencer.settings.snow, 0.5);
    assert.equal(sequencer.promised, 12);
  });
  await t.step("a heartbeat is due only once the last promise is stale", () => {
    sequencer.pass(13);
    assert.deepEqual(beats, []);
    sequencer.pass(14);
    assert.deepEqual(beats, [14]);
    assert.equal(sequencer.promised, 14);
  });
  await t.step("a welcome window resumes after a seq still in memory", () => {
    setMs(20.5 * TICK_MS);
    const resumed = sequencer.welcomeWindow(1);
    assert.equal(resumed.resumed, true);
    assert.deepEqual(resumed.events.map((e) => e.seq), [2]);
    const fresh = sequencer.welcomeWindow(undefined);
    assert.equal(fresh.resumed, false);
    assert.equal(fresh.horizon, 20);
    assert.deepEqual(fresh.events.map((e) => e.seq), [1, 2]);
  });
});

Deno.test("sequencer refuses what does not fit the sky and logs nothing for it", () => {
  const { sequencer, log, heard } = setup(new MemoryLog(), 10);
  const refusal = sequencer.submit("ana", { type: "launch", x: 0, z: 0 });
  assert.equal((refusal as ErrorMessage | null)?.code, "sky_full");
  assert.deepEqual(log.events, []);
  assert.deepEqual(heard, []);
  assert.equal(sequencer.lastSeq, 0);
});

Deno.test("sequencer reloaded from its log continues the seq and keeps the settings", () => {
  const first = setup();
  first.setMs(5.5 * TICK_MS);
  first.sequencer.submit("ana", { type: "settings", settings: { windSpeed: 9 } });
  first.sequencer.submit("ana", { type: "launch", x: 3, z: 3 });
  first.sequencer.persist();
  // The promise; the show cursor stays as loaded (the show is derived, nothing moves it).
  assert.deepEqual(first.log.progress, [5, 0]);

  const again = setup(first.log);
  again.setMs(6.5 * TICK_MS);
  assert.equal(again.sequencer.lastSeq, 2);
  assert.equal(again.sequencer.settings.windSpeed, 9);
  again.sequencer.submit("bo", { type: "launch", x: -3, z: -3 });
  assert.deepEqual(first.log.events.map((e) => e.seq), [1, 2, 3]);
});

/** A SceneLog whose appends complete when the test says so (as JetStream's do, in order). */
class AsyncLog extends MemoryLog {
  readonly pending: PromiseWithResolvers<void>[] = [];
  override append(event: SceneEvent): Promise<void> {
    super.append(event);
    const done = Promise.withResolvers<void>();
    this.pending.push(done);
    return done.promise;
  }
}

Deno.test("sequencer over an asynchronous log: heard once stored, heartbeats wait", async (t) => {
  const log = new AsyncLog();
  const { sequencer, heard, beats, stats, setMs } = setup(log);
  setMs(10.5 * TICK_MS);
  const first = sequencer.submit("ana", { type: "launch", x: 0, z: 0 });
  const second = sequencer.submit("bo", { type: "launch", x: 1, z: 0 });
  assert.ok(first instanceof Promise && second instanceof Promise);

  await t.step("stamping is immediate, hearing waits for the write", () => {
    assert.equal(sequencer.lastSeq, 2);
    assert.deepEqual(heard, []);
    assert.equal(stats.eventsClient, 0);
  });
  await t.step("a heartbeat due meanwhile goes out once every append is stored", async () => {
    setMs(20.5 * TICK_MS);
    sequencer.pass();
    assert.deepEqual(beats, []);
    log.pending[0].resolve();
    await first;
    assert.deepEqual(heard.map((e) => e.seq), [1]);
    assert.deepEqual(beats, [], "seq 2 is still being written");
    log.pending[1].resolve();
    await second;
    assert.deepEqual(heard.map((e) => e.seq), [1, 2]);
    assert.deepEqual(beats, [20]);
    assert.equal(stats.eventsClient, 2);
  });
});

Deno.test("sequencer over an asynchronous log stops at a failed write and gives the room back", async () => {
  const log = new AsyncLog();
  const failures: unknown[] = [];
  const { sequencer, heard, setMs } = setup(log);
  // (setup's deps have no onFailure: watch the flag and the rejections instead.)
  setMs(10.5 * TICK_MS);
  const doomed = sequencer.submit("ana", { type: "launch", x: 0, z: 0 }) as Promise<void>;
  const used = sequencer.skyUsed();
  assert.ok(used > 0, "reserved while it is written");
  log.pending[0].reject(new Error("fenced"));
  await doomed.catch((e) => failures.push(e));
  assert.equal(failures.length, 1);
  assert.equal(sequencer.skyUsed(), 0, "released at once, not when the launch would end");
  assert.equal(sequencer.failed, true);
  assert.deepEqual(heard, []);
  await assert.rejects(
    sequencer.submit("bo", { type: "launch", x: 1, z: 0 }) as Promise<void>,
    /fenced/,
    "nothing more is stamped",
  );
});
