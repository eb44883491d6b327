/**
 * The client's simulation driver, playout clock and clock sync, run in Deno against the real
 * World: horizon discipline, stream faults, resume, deterministic fast-forward after a pause.
 */
import assert from "node:assert/strict";
import { Sim } from "../../client/sim.ts";
import {
  CHECKPOINT_SLICE_MS,
  CHECKPOINT_SLICE_SLOTS,
  workCheckpoint,
} from "../../client/checkpoint_spread.ts";
import { Playout } from "../../client/net/playout.ts";
import { ClockSync } from "../../client/net/clock_sync.ts";
import { CHECKPOINT_TICKS, DEFAULT_SKY_CAP, WINDOW_TICKS } from "../../shared/constants.ts";
import type { WelcomeMessage } from "../../shared/protocol.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { World } from "../../shared/world.ts";

const SEED = 4242;

function welcome(horizon: number, events: SceneEvent[], resumed = false): WelcomeMessage {
  return {
    t: "welcome",
    v: 1,
    scene: "test",
    seed: SEED,
    tickRate: 60,
    windowTicks: WINDOW_TICKS,
    checkpointTicks: CHECKPOINT_TICKS,
    skyCap: DEFAULT_SKY_CAP,
    you: { id: "p1", name: "Ana", color: "#fff" },
    horizon,
    snapshot: initialSnapshot(),
    events,
    lastSeq: events.length === 0 ? 0 : events[events.length - 1].seq,
    peers: [],
    resumed,
  };
}

function launch(seq: number, tick: number): SceneEvent {
  return { seq, tick, by: "p2", body: { type: "launch", x: seq * 3 - 20, z: 10 - seq * 2 } };
}

const noClock = () => 0;

function newSim(checkpoints: [number, string][] = []) {
  return new Sim({ checkpoint: (tick, hash) => checkpoints.push([tick, hash]), rebuilt: () => {} });
}

Deno.test("sim never steps at or after the horizon", () => {
  const sim = newSim();
  sim.welcome(welcome(10, []));
  assert.equal(sim.world?.tick, 10);
  sim.advance(100, Infinity, noClock);
  assert.equal(sim.world?.tick, 10, "stuck at the horizon");
  sim.heartbeat(25);
  sim.advance(100, Infinity, noClock);
  assert.equal(sim.world?.tick, 25);
  sim.heartbeat(20);
  assert.equal(sim.horizon, 25, "an older heartbeat does not move the horizon back");
});

Deno.test("sim takes an event's tick as a horizon, like a heartbeat", () => {
  const sim = newSim();
  sim.welcome(welcome(10, []));
  assert.equal(sim.receiveEvent(launch(1, 40)), null);
  assert.equal(sim.horizon, 40, "events before tick 40 have all been sent");
  sim.advance(100, Infinity, noClock);
  assert.equal(sim.world?.tick, 40, "steps up to the event's tick, not into it");
});

Deno.test("sim applies events in order and matches a world fed the same stream", () => {
  const checkpoints: [number, string][] = [];
  const sim = newSim(checkpoints);
  sim.welcome(welcome(5, [launch(1, 2)]));
  assert.equal(sim.receiveEvent(launch(2, 30)), null);
  assert.equal(sim.receiveEvent(launch(3, 30)), null);
  sim.heartbeat(200);
  sim.advance(200, Infinity, noClock);
  const reference = new World({ seed: SEED });
  for (const event of [launch(1, 2), launch(2, 30), launch(3, 30)]) reference.apply(event);
  reference.advanceTo(200);
  assert.equal(sim.world?.hash(), reference.hash());
  assert.deepEqual(checkpoints.map(([tick]) => tick), [60, 120, 180]);
  assert.equal(sim.hashAt(180), checkpoints[2][1]);
});

Deno.test("sim reports a gap or a stale event and applies nothing", () => {
  const sim = newSim();
  sim.welcome(welcome(50, [launch(1, 2)]));
  assert.equal(sim.receiveEvent(launch(3, 60)), "gap");
  assert.equal(sim.receiveEvent(launch(2, 40)), "stale_event");
  assert.equal(sim.lastSeq, 1);
});

Deno.test("sim resumes from a resumed welcome with only the missed events", () => {
  const sim = newSim();
  sim.welcome(welcome(20, [launch(1, 5)]));
  sim.advance(20, Infinity, noClock);
  assert.equal(sim.welcome(welcome(40, [launch(2, 25), launch(3, 30)], true)), null);
  assert.equal(sim.lastSeq, 3);
  assert.equal(sim.horizon, 40);
  assert.equal(sim.welcome(welcome(40, [launch(5, 45)], true)), "gap", "seq 4 is missing");
  const claimsMore = { ...welcome(40, [], true), lastSeq: 9 };
  assert.equal(sim.welcome(claimsMore), "gap", "the server sent seqs this client never got");
  assert.equal(newSim().welcome(welcome(40, [launch(1, 5)], true)), "gap", "nothing to resume");
});

Deno.test("sim fast-forward after a long pause equals stepping every tick", () => {
  const events = [launch(1, 10), launch(2, 400), launch(3, 900), launch(4, 1290)];
  let rebuilds = 0;
  const paused = new Sim({ checkpoint: () => {}, rebuilt: () => rebuilds++ });
  paused.welcome(welcome(5, [events[0]]));
  for (const event of events.slice(1)) paused.receiveEvent(event);
  paused.heartbeat(1400);
  paused.advance(1380, Infinity, noClock);
  assert.equal(paused.world?.tick, 1380);
  const stepped = newSim();
  stepped.welcome(welcome(5, [events[0]]));
  for (const event of events.slice(1)) stepped.receiveEvent(event);
  stepped.heartbeat(1400);
  for (let tick = 6; tick <= 1380; tick++) stepped.advance(tick, Infinity, noClock);
  assert.equal(rebuilds, 2, "the welcome, then the fast-forward rebuilt the world");
  assert.equal(paused.world?.hash(), stepped.world?.hash());
});

Deno.test("sim stops stepping when the frame budget is spent", () => {
  const sim = newSim();
  sim.welcome(welcome(0, []));
  sim.heartbeat(300);
  let now = 0;
  const stepped = sim.advance(300, 5, () => now++);
  assert.ok(stepped > 0 && stepped < 10, `stepped ${stepped}`);
});

Deno.test("playout never passes the horizon and never runs backwards", () => {
  const playout = new Playout();
  let previous = -Infinity;
  for (let frame = 0; frame < 600; frame++) {
    const localMs = frame * 16.7;
    const serverTick = 1000 + localMs / (1000 / 60) + Math.sin(frame) * 0.5;
    const horizon = Math.floor(serverTick / 3) * 3 - 1;
    const time = playout.update(localMs, serverTick, horizon);
    assert.ok(time <= horizon, `frame ${frame}: ${time} > ${horizon}`);
    assert.ok(time >= previous, `frame ${frame}: ${time} < ${previous}`);
    previous = time;
  }
  assert.ok(playout.delayTicks > 2 && playout.delayTicks < 6, `delay ${playout.delayTicks}`);
});

Deno.test("clock sync trusts the sample with the smallest round trip", () => {
  const clock = new ClockSync();
  assert.equal(clock.isSynced, false);
  // A slow exchange (queued 200 ms on the way back) and a fast one: the fast one wins.
  clock.addSample(0, 300, 600 + 50 / (1000 / 60));
  clock.addSample(1000, 1020, 600 + 1010 / (1000 / 60));
  assert.equal(clock.rttMs, 20);
  assert.ok(Math.abs(clock.serverTick(1010) - (600 + 1010 / (1000 / 60))) < 1e-9);
});

Deno.test("sim hashes a big sky's checkpoint over the next frames, as the world at its tick", () => {
  // 120 launches in the first 30 ticks, trailing embers by the third checkpoint (tick 180): far
  // more firework slots than one frame should hash.
  const events = Array.from({ length: 120 }, (_, i) => launch(i + 1, Math.floor(i / 4)));
  const reference = new World({ seed: SEED });
  for (const event of events) reference.apply(event);
  const at = 3 * CHECKPOINT_TICKS;
  reference.advanceTo(at);
  const expected = reference.checkpointHash();
  const job = reference.beginCheckpoint();
  assert.ok(job.slots > 10 * CHECKPOINT_SLICE_SLOTS, `a big sky: ${job.slots} slots`);
  assert.equal(job.finish(), expected);

  /** Frames until the checkpoint at `at` is reported, stepping `ticks` ticks a frame. */
  const framesToReport = (ticks: number) => {
    const checkpoints: [number, string][] = [];
    const sim = newSim(checkpoints);
    sim.welcome(welcome(1, events.filter((e) => e.tick < 1)));
    for (const event of events.filter((e) => e.tick >= 1)) {
      assert.equal(sim.receiveEvent(event), null);
    }
    sim.heartbeat(1000);
    sim.advance(at - 1, Infinity, noClock);
    assert.equal(checkpoints.length, 2, "the smaller skies at ticks 60 and 120 were done at once");
    // A clock that moves 1 ms each time it is read: stepping and hashing both spend frame time.
    let now = 0;
    const clock = () => now++;
    let frames = 0;
    while (checkpoints.length === 2) {
      sim.advance(at + frames * ticks, 8, clock);
      if (frames++ === 0) assert.equal(sim.hashAt(at), undefined, "under way");
    }
    assert.deepEqual(checkpoints[2], [at, expected]);
    assert.equal(sim.hashAt(at), expected);
    return frames;
  };
  // The hash's part of a frame is time, not ticks: a frame stepping three ticks hashes no more.
  const oneTick = framesToReport(1);
  assert.ok(oneTick > 3, `over ${oneTick} frames`);
  assert.equal(framesToReport(3), oneTick);

  // The next one begun, then a fast-forward (far ahead) finishes it first.
  const checkpoints: [number, string][] = [];
  const sim = newSim(checkpoints);
  sim.welcome(welcome(1, events.filter((e) => e.tick < 1)));
  for (const event of events.filter((e) => e.tick >= 1)) sim.receiveEvent(event);
  sim.heartbeat(1000);
  const next = at + CHECKPOINT_TICKS;
  let now = 0;
  const clock = () => now++;
  sim.advance(next - 1, Infinity, noClock);
  sim.advance(next, 8, clock);
  assert.equal(sim.hashAt(next), undefined, "under way");
  sim.advance(next + WINDOW_TICKS + 2 * CHECKPOINT_TICKS, 8, clock);
  reference.advanceTo(next);
  assert.equal(sim.hashAt(next), reference.checkpointHash());
});

Deno.test("workCheckpoint works at least a slice and at most CHECKPOINT_SLICE_MS", () => {
  const events = Array.from({ length: 120 }, (_, i) => launch(i + 1, Math.floor(i / 4)));
  const world = new World({ seed: SEED });
  for (const event of events) world.apply(event);
  world.advanceTo(3 * CHECKPOINT_TICKS);
  const job = world.beginCheckpoint();
  let now = 0, reads = 0;
  const clock = () => (reads++, now);
  // A deadline already past: one slice.
  assert.equal(workCheckpoint(job, -1, clock), null);
  assert.equal(reads, 2, "read once to start, once after the slice");
  // Plenty of frame time left, but the clock moves 1 ms a read: CHECKPOINT_SLICE_MS of slices.
  reads = 0;
  assert.equal(workCheckpoint(job, 1000, () => (reads++, now++)), null);
  assert.equal(reads, CHECKPOINT_SLICE_MS + 1);
});
