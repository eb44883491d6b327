/**
 * In-page frame benchmark (bundled by bench/browser/run.ts, not part of the app): a local
 * World with heavy snow (100k flakes) kept at about 50k visible firework particles, drawn by the
 * real SceneRenderer. Each animation frame steps one tick (a 60 Hz display) and records the CPU
 * time of simulation, of preparing the buffers, and of the WebGL upload + draw calls. Now and
 * then a frame is drawn again with and without the glow, waiting for the GPU each time, to
 * measure what the glow costs.
 */
import { initialSnapshot } from "../../shared/settings.ts";
import { eventCost } from "../../shared/budget.ts";
import { DEFAULT_SKY_CAP, MAX_FLAKES } from "../../shared/constants.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { World } from "../../shared/world.ts";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { SceneRenderer } from "../../client/render/renderer.ts";

/** What to measure. */
export interface FrameBenchOptions {
  /** Visible firework particles to maintain. */
  fireworks: number;
  /** Frames measured after warm-up. */
  frames: number;
  /** Ticks stepped (without drawing) before measuring, so the sky reaches its target. */
  warmup: number;
  /**
   * Glow on/off pairs: spread evenly over the measured frames, each pair draws that frame
   * `repeats` times with the glow and as often without, alternating, each time waiting for the
   * GPU, and keeps the fastest of each side (the least disturbed by other work on the machine).
   */
  pairs: number;
  repeats: number;
}

/** One frame drawn with and without the glow, waiting for the GPU: the fastest ms of each. */
export interface GlowPair {
  on: number;
  off: number;
}

/** Per-frame timings in ms, in frame order. */
export interface FrameBenchResult {
  /** Stepping the world one tick. */
  simulate: number[];
  /**
   * Moving the snow (uniforms; the closed form only at a rebase, every 240 ticks) and packing and
   * marking the live attribute ranges (our CPU work before WebGL).
   */
  prepare: number[];
  /** three.js render: bufferSubData of the marked ranges and the draw calls (with SwiftShader this
   * includes waiting for the software GPU process when its command buffer is full). */
  draw: number[];
  /** Animation frames per second over the measured frames (wall clock). */
  fps: number;
  /**
   * The glow's cost: the same frame drawn with and without it, each draw followed by a 1-pixel
   * readback that waits until the GPU has finished it (after a readback that drained the queue).
   */
  glowPairs: GlowPair[];
  /**
   * The glow passes alone: an empty scene (every layer hidden) drawn with and without the glow,
   * waiting for the GPU, alternating.
   */
  emptyPairs: GlowPair[];
  /** Whether `EXT_disjoint_timer_query_webgl2` (GPU timer queries) exists here. */
  timerQueries: boolean;
  flakes: number;
  /** Mean visible firework particles over the measured frames. */
  fireworkParticles: number;
  renderer: string;
}

/** Visible (alpha > 0) particles in the world's firework view. */
function visibleFireworks(world: World): number {
  const view = world.fireworks;
  let visible = 0;
  for (let i = 0; i < view.count; i++) if (view.color[i * 4 + 3] > 0) visible++;
  return visible;
}

/** Runs the benchmark in this page; resolves when done. */
export function runFrameBench(options: FrameBenchOptions): Promise<FrameBenchResult> {
  const canvas = document.getElementById("scene") as HTMLCanvasElement;
  const renderer = new SceneRenderer({ canvas, reducedMotion: false });
  const seed = 20_261_129;
  const capacity = Math.max(DEFAULT_SKY_CAP, options.fireworks * 8);
  const world = new World({
    seed,
    snapshot: initialSnapshot({ snow: 1, windSpeed: 3, windDirection: 40, show: false }),
    capacity,
  });
  renderer.bindWorld(world);
  const gl = renderer.renderer.getContext();
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const rendererName = String(
    info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
  );

  let seq = 0;
  let visible = 0;
  let visibleSum = 0;
  const simulate: number[] = [];
  const prepare: number[] = [];
  const draw: number[] = [];
  const glowPairs: GlowPair[] = [];
  const timerQueries = gl.getExtension("EXT_disjoint_timer_query_webgl2") !== null;
  const pixel = new Uint8Array(4);
  let frame = 0;
  let measuredFrom = 0;
  /** Wall time spent in the glow pairs (left out of the frame rate). */
  let pairMs = 0;
  const measured = options.frames;
  /**
   * Launches at a steady cadence: at about 2,000 reserved slots per launch, of which about a
   * third are visible over a life of roughly 4 s, one launch every 3.4 ticks holds the sky near
   * 50k visible particles (scaled for other targets). Admission control as on the server: a launch
   * that would overfill the sky waits.
   */
  const launchesPerTick = options.fireworks / 168_000;
  let credit = 0;
  const keepSkyFull = () => {
    credit += launchesPerTick;
    if (credit < 1) return;
    const event: SceneEvent = {
      seq: seq + 1,
      tick: world.tick,
      by: "bench",
      body: {
        type: "launch",
        x: ((seq * 37) % 80) - 40,
        z: ((seq * 53) % 80) - 40,
        // Every kind in turn: the sky of a show, not only peonies.
        kind: FIREWORK_KINDS[seq % FIREWORK_KINDS.length],
      },
    };
    if (world.usedSlots() + eventCost(seed, event).particles > capacity) return;
    world.apply(event);
    seq++;
    credit -= 1;
  };

  // Warm up without drawing: fill the sky to its target and let the shells burst.
  for (let i = 0; i < options.warmup; i++) {
    keepSkyFull();
    world.step();
  }

  return new Promise((resolve, reject) => {
    const tickFrame = (now: number) => {
      try {
        runFrame(now);
      } catch (error) {
        renderer.dispose();
        reject(error);
      }
    };
    const pairEvery = Math.max(1, Math.floor(measured / Math.max(1, options.pairs)));
    /** Draws the prepared frame and waits for the GPU to finish it; returns the ms. */
    const drawWaited = (glow: boolean) => {
      renderer.bloom = glow;
      const started = performance.now();
      renderer.draw();
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
      return performance.now() - started;
    };
    const runFrame = (now: number) => {
      // Keep the sky near the target (counted outside the timed section).
      if (frame % 10 === 0) visible = visibleFireworks(world);
      keepSkyFull();
      const started = performance.now();
      world.step();
      const stepped = performance.now();
      renderer.prepare(world.tick - 0.5, now / 1000);
      const prepared = performance.now();
      renderer.draw();
      const drawn = performance.now();
      if (frame === 0) measuredFrom = now;
      simulate.push(stepped - started);
      prepare.push(prepared - stepped);
      draw.push(drawn - prepared);
      visibleSum += visible;
      if (frame % pairEvery === pairEvery - 1 && glowPairs.length < options.pairs) {
        // Drain the queue (this frame's draw), then the same frame with and without glow, in
        // alternating order so a drifting machine does not favour one side.
        const pairStarted = performance.now();
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        let on = Infinity, off = Infinity;
        for (let r = 0; r < options.repeats; r++) {
          const onFirst = (glowPairs.length + r) % 2 === 0;
          const first = drawWaited(onFirst);
          const second = drawWaited(!onFirst);
          on = Math.min(on, onFirst ? first : second);
          off = Math.min(off, onFirst ? second : first);
        }
        glowPairs.push({ on, off });
        renderer.bloom = true;
        pairMs += performance.now() - pairStarted;
      }
      frame++;
      if (frame < measured) {
        requestAnimationFrame(tickFrame);
        return;
      }
      // The glow passes alone: the same pipeline with every layer hidden (scene pass = clear),
      // with and without glow, alternating; what the glow adds does not depend on the content.
      const layers = Object.values(renderer.layers());
      for (const layer of layers) layer.visible = false;
      const emptyPairs: GlowPair[] = [];
      for (let r = 0; r < 4 * options.repeats; r++) {
        const onFirst = r % 2 === 0;
        const first = drawWaited(onFirst);
        const second = drawWaited(!onFirst);
        emptyPairs.push(onFirst ? { on: first, off: second } : { on: second, off: first });
      }
      renderer.dispose();
      resolve({
        emptyPairs,
        simulate,
        prepare,
        draw,
        fps: (measured - 1) / Math.max(1e-3, (now - measuredFrom - pairMs) / 1000),
        glowPairs,
        timerQueries,
        flakes: Math.min(world.snow.count, MAX_FLAKES),
        fireworkParticles: Math.round(visibleSum / measured),
        renderer: rendererName,
      });
    };
    requestAnimationFrame(tickFrame);
  });
}

(globalThis as unknown as { runFrameBench: typeof runFrameBench }).runFrameBench = runFrameBench;
