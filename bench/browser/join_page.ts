/**
 * In-page late-join benchmark (bundled by bench/browser/join_run.ts, not part of the app). A
 * "veteran" page holds a sky of `target` live sparks, a tick a frame as a client steps it (the
 * checkpoint worked on in the frame's time left, client/checkpoint_spread.ts), drawing every
 * `drawEvery`-th frame, and records when each animation frame ran. A "joiner" page builds the same
 * scene at a later tick from the window (`worldFromWindow`, as a late joiner's client does), binds
 * a renderer, hashes its first checkpoint and steps `frames` frames. The runner compares the
 * veteran's longest frame gap while the joiner joins with its longest before.
 */
import { CHECKPOINT_TICKS, WINDOW_TICKS } from "../../shared/constants.ts";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { World, worldFromWindow } from "../../shared/world.ts";
import type { CheckpointHash } from "../../shared/checkpoint_hash.ts";
import { SceneRenderer } from "../../client/render/renderer.ts";
import { workCheckpoint } from "../../client/checkpoint_spread.ts";

const SEED = 20_261_201;
/** Live sparks per launch per tick of cadence at steady state (as bench/browser/sky_page.ts). */
const LIVE_PER_LAUNCH_RATE = 176_000;
const SNAPSHOT = initialSnapshot({ snow: 1, windSpeed: 3, windDirection: 40, show: false });

/** The scene's launches before `until`: `target` live sparks at steady state, every kind. */
function sceneEvents(target: number, until: number): SceneEvent[] {
  const rate = target / LIVE_PER_LAUNCH_RATE;
  const events: SceneEvent[] = [];
  let seq = 0, credit = 0;
  for (let tick = 0; tick < until; tick++) {
    credit += rate;
    while (credit >= 1) {
      credit--;
      seq++;
      events.push({
        seq,
        tick,
        by: "bench",
        body: {
          type: "launch",
          x: ((seq * 37) % 80) - 40,
          z: ((seq * 53) % 80) - 40,
          kind: FIREWORK_KINDS[seq % FIREWORK_KINDS.length],
        },
      });
    }
  }
  return events;
}

/** A world's frame as a client makes it: a tick, the renderer's prepare, the checkpoint. */
function frameOf(world: World, renderer: SceneRenderer, events: SceneEvent[], drawEvery: number) {
  let pending: CheckpointHash | null = null;
  let next = events.findIndex((e) => e.tick >= world.tick);
  if (next < 0) next = events.length;
  let frame = 0;
  return (now: number) => {
    const started = performance.now();
    while (next < events.length && events[next].tick === world.tick) world.apply(events[next++]);
    world.step();
    if (world.tick % CHECKPOINT_TICKS === 0) {
      pending?.finish();
      pending = world.beginCheckpoint();
    }
    renderer.prepare(world.tick - 0.5, now / 1000);
    // Drawn every `drawEvery`-th frame, never the first (0: never): a software GPU takes minutes
    // to draw a million streaks, and a frame waiting on it is the GPU's, not the page's.
    if (drawEvery > 0 && ++frame % drawEvery === 0) renderer.draw();
    const clock = () => performance.now();
    if (pending && workCheckpoint(pending, started + 8, clock) !== null) pending = null;
  };
}

/**
 * The veteran: holds the sky from tick 0 (stepped without drawing until `warmup`), then runs a
 * frame per animation frame until `stop()`, recording each frame's start (ms).
 */
export function holdSky(target: number, warmup: number, ticks: number, drawEvery: number) {
  const canvas = document.getElementById("scene") as HTMLCanvasElement;
  const renderer = new SceneRenderer({ canvas, reducedMotion: false });
  const events = sceneEvents(target, ticks);
  const world = new World({ seed: SEED, snapshot: SNAPSHOT, capacity: 4_000_000 });
  renderer.bindWorld(world);
  let next = 0;
  for (let i = 0; i < warmup; i++) {
    while (next < events.length && events[next].tick === world.tick) world.apply(events[next++]);
    world.step();
    if (world.tick % CHECKPOINT_TICKS === 0) world.checkpointHash();
  }
  const frame = frameOf(world, renderer, events, drawEvery);
  const starts: number[] = [];
  let running = true;
  const run = (now: number) => {
    if (!running) return;
    starts.push(performance.now());
    frame(now);
    requestAnimationFrame(run);
  };
  requestAnimationFrame(run);
  return {
    starts,
    tick: () => world.tick,
    live: () => world.fireworkSystem.expectedLive(),
    stop: () => {
      running = false;
      renderer.dispose();
    },
  };
}

/**
 * The joiner: builds the scene at tick `at` from the window, binds a renderer, hashes its first
 * checkpoint, then runs `frames` frames. Resolves with the join's and the first checkpoint's ms.
 */
export function joinSky(
  target: number,
  at: number,
  frames: number,
  drawEvery: number,
): Promise<{ joinMs: number; checkpointMs: number }> {
  const canvas = document.getElementById("scene") as HTMLCanvasElement;
  const events = sceneEvents(target, at + frames + 1);
  const from = at - WINDOW_TICKS;
  const t0 = performance.now();
  const world = worldFromWindow({
    seed: SEED,
    snapshot: advanceSnapshot(SNAPSHOT, events, from),
    events: events.filter((e) => e.tick >= from && e.tick < at),
    tick: at,
    capacity: 4_000_000,
  });
  const renderer = new SceneRenderer({ canvas, reducedMotion: false });
  renderer.bindWorld(world);
  const t1 = performance.now();
  world.checkpointHash();
  const t2 = performance.now();
  const frame = frameOf(world, renderer, events, drawEvery);
  return new Promise((resolve) => {
    let left = frames;
    const run = (now: number) => {
      frame(now);
      if (--left > 0) {
        requestAnimationFrame(run);
        return;
      }
      renderer.dispose();
      resolve({ joinMs: t1 - t0, checkpointMs: t2 - t1 });
    };
    requestAnimationFrame(run);
  });
}

(globalThis as unknown as { holdSky: typeof holdSky; joinSky: typeof joinSky }).holdSky = holdSky;
(globalThis as unknown as { joinSky: typeof joinSky }).joinSky = joinSky;
