/**
 * In-page sky benchmark (bundled by bench/browser/sky_run.ts, not part of the app): for each
 * target of live firework sparks (0, 100k, 300k, 1M by default) a fresh local World is filled by
 * launches of every kind at a steady cadence, then each animation frame steps one tick and
 * records the CPU time of simulating it (`world.step`), of preparing the frame
 * (`SceneRenderer.prepare`: snow uniforms, writing and uploading the rows and slot references of
 * the launches made since the last frame, the gun and fountain packing) and of the upload + draw
 * calls (three's render: the packed gun and fountain).
 * And the checkpoint hash as a client pays it: begun every CHECKPOINT_TICKS ticks and worked on
 * in the frame's time left (`client/checkpoint_spread.ts`). With
 * `pairWithEmpty`, an empty sky runs beside each level above 0 on a second canvas ("empty"), its
 * frame timed in the same animation frames as the level's.
 */
import { initialSnapshot } from "../../shared/settings.ts";
import { World } from "../../shared/world.ts";
import { skyKeeper } from "../sky_keeper.ts";
import { SceneRenderer } from "../../client/render/renderer.ts";
import { workCheckpoint } from "../../client/checkpoint_spread.ts";
import type { CheckpointHash } from "../../shared/checkpoint_hash.ts";
import { CHECKPOINT_TICKS } from "../../shared/constants.ts";

/** What to measure. */
export interface SkyBenchOptions {
  /** Live firework sparks to hold, one run each. */
  targets: number[];
  /** Frames measured per target. */
  frames: number;
  /** Ticks stepped (without drawing) before measuring. */
  warmup: number;
  /**
   * Draw every n-th measured frame (1: all). The others simulate and prepare (new launches
   * written and uploaded) without a draw: on a software GPU drawing a million streaks takes minutes a frame.
   */
  drawEvery: number;
  /**
   * Profile the measured frames (frame 1 on) of each target with `console.profile` (the runner
   * collects it over the DevTools protocol); default false.
   */
  profile?: boolean;
  /**
   * Measure an empty sky beside each level above 0, in the same animation frames (a second
   * canvas, world and renderer), so that a level's ratio to the empty sky does not move with
   * the machine's load between levels; default false.
   */
  pairWithEmpty?: boolean;
}

/** One target's per-frame timings (ms, in frame order) and what the sky held. */
export interface SkyLevel {
  target: number;
  simulate: number[];
  prepare: number[];
  draw: number[];
  /** The checkpoint hash's part of each frame (0 in frames with none under way). */
  checkpoint: number[];
  /** Firework slots the last checkpoint begun evaluated. */
  checkpointSlots: number;
  /** Mean live firework sparks over the measured frames (expected: Fireworks.expectedLive). */
  live: number;
  /** Live firework sparks counted exactly after the last measured frame. */
  liveExact: number;
  /** Mean reserved slots over the measured frames. */
  slots: number;
  /** Mean firework rows written to the GPU per frame (a new launch's launch row and breaks). */
  written: number;
  /**
   * Bytes of the sky's big arrays at the end: the firework pool's buffer, the renderer's GPU
   * buffer of slot references and its row table (on the GPU and the CPU) and staging array.
   */
  bytes: number;
  /** Bytes of the renderer's GPU buffers and textures for the fireworks, at the end. */
  gpuBytes: number;
  /** Ticks stepped between the level's `skyMark` start and end (its measured frames). */
  ticks: number;
  /**
   * With `pairWithEmpty`: an empty sky's simulate and prepare (ms), measured in the same
   * animation frames as this level's (the two in turns first).
   */
  paired?: { simulate: number[]; prepare: number[] };
}

/** The whole run. */
export interface SkyBenchResult {
  levels: SkyLevel[];
  renderer: string;
  /** Whether the page was cross-origin isolated: performance.now() then counts in µs, not 100 µs. */
  isolated: boolean;
}

/** Frames between the HUD's particle counts (client/main.ts: once a second, 60 frames at 60 Hz). */
const COUNT_EVERY = 60;

/** Warm-up ticks at the end of which the renderer prepares each tick, as a measured frame does. */
const WARM_FRAMES = 120;

/** Reserved slots per live spark at steady state (measured: ~3.1). */
const SLOTS_PER_LIVE = 3.1;

/** One sky being measured: its world, its renderer and what its frames took. */
interface Sky {
  world: World;
  renderer: SceneRenderer;
  level: SkyLevel;
  /** Launches what keeps the sky at its target (as the server's admission would). */
  keepSky(): void;
  /** The checkpoint under way (a big sky's is evaluated a part per frame). */
  pending: CheckpointHash | null;
  /** Frames measured so far (frame 0 writes every live spark: kept out of the figures). */
  frame: number;
}

/** A fresh world filled towards `target` live sparks and warmed up, with its own renderer. */
function makeSky(canvas: HTMLCanvasElement, target: number, options: SkyBenchOptions): Sky {
  const renderer = new SceneRenderer({ canvas, reducedMotion: false });
  const seed = 20_261_201;
  const capacity = Math.max(1_000_000, Math.ceil(target * SLOTS_PER_LIVE * 1.3));
  const world = new World({
    seed,
    snapshot: initialSnapshot({ snow: 1, windSpeed: 3, windDirection: 40, show: false }),
    capacity,
  });
  renderer.bindWorld(world);
  const keepSky = skyKeeper(world, target);
  for (let i = 0; i < options.warmup; i++) {
    keepSky();
    world.step();
    // The frame's code warmed up too (compiled by the JIT before it is timed: the first level,
    // the empty sky, would otherwise time the renderer's first, slower tiers).
    if (i >= options.warmup - WARM_FRAMES) renderer.prepare(world.tick - 0.5, i / 60);
    // And the checkpoint's (a client hashes from its first checkpoint on).
    if (i >= options.warmup - WARM_FRAMES && world.tick % CHECKPOINT_TICKS === 0) {
      world.checkpointHash();
    }
    // And the HUD's count (a page counts once a second from its first: warm after a few). Read
    // only at the measured frames' cadence, it ran unoptimised there: ~3 ms a call at 1M in a
    // profile, against ~0.2 ms warm (bench/expected_live_run.ts).
    if (i >= options.warmup - WARM_FRAMES && i % 10 === 0) world.fireworkSystem.expectedLive();
  }
  const level: SkyLevel = {
    target,
    simulate: [],
    prepare: [],
    draw: [],
    checkpoint: [],
    checkpointSlots: 0,
    live: 0,
    liveExact: 0,
    slots: 0,
    written: 0,
    bytes: 0,
    gpuBytes: 0,
    ticks: 0,
  };
  return { world, renderer, level, keepSky, pending: null, frame: 0 };
}

/** One frame of `sky`: a tick simulated, prepared (and drawn every `drawEvery`), timed. */
function measureFrame(sky: Sky, now: number, options: SkyBenchOptions): void {
  const { world, renderer, level } = sky;
  const frame = sky.frame;
  sky.keepSky();
  const started = performance.now();
  world.step();
  const stepped = performance.now();
  renderer.prepare(world.tick - 0.5, now / 1000);
  const prepared = performance.now();
  // Every n-th frame counting from 1 (frame n − 1): with n above the frames measured, none, frame
  // 0 included. A software GPU draws a million streaks for ~50 s (measured with a readPixels
  // after it), its threads on the same cores as the page's main thread through the measured
  // frames: the level would pay for a draw no GPU makes it wait for.
  const draw = (frame + 1) % Math.max(1, options.drawEvery) === 0;
  if (draw) renderer.draw();
  const drawn = performance.now();
  // As client/sim.ts: a checkpoint begun at its tick, worked on in the frame's time left (the
  // client's least frame budget, 8 ms), a big one finished over later frames.
  if (world.tick % CHECKPOINT_TICKS === 0) {
    sky.pending?.finish();
    sky.pending = world.beginCheckpoint();
    level.checkpointSlots = sky.pending.slots;
  }
  const clock = () => performance.now();
  if (sky.pending && workCheckpoint(sky.pending, started + 8, clock) !== null) sky.pending = null;
  const hashed = performance.now();
  if (frame > 0) {
    level.simulate.push(stepped - started);
    level.prepare.push(prepared - stepped);
    if (draw) level.draw.push(drawn - prepared);
    level.checkpoint.push(hashed - drawn);
    // As often as the client's HUD counts it (once a second: every COUNT_EVERY frames at 60 Hz).
    if (frame % COUNT_EVERY === 1) level.live += world.fireworkSystem.expectedLive();
    level.slots += world.usedSlots();
    level.written += (renderer as unknown as { fireworks: { written: number } }).fireworks.written;
  }
  sky.frame++;
}

/** Its figures averaged over `frames` measured frames, its sizes, and its renderer freed. */
function finishSky(sky: Sky, frames: number): SkyLevel {
  const { world, renderer, level } = sky;
  level.live = Math.round(level.live / Math.ceil(frames / COUNT_EVERY));
  level.liveExact = world.fireworkSystem.live();
  level.slots = Math.round(level.slots / frames);
  level.written = Math.round(level.written / frames);
  const records = (renderer as unknown as { fireworks: { bytes: { gpu: number; cpu: number } } })
    .fireworks.bytes;
  level.bytes = world.fireworkSystem.pool.bytes + records.gpu + records.cpu;
  level.gpuBytes = records.gpu;
  renderer.dispose();
  return level;
}

/**
 * Runs one target in this page. With `emptyCanvas`, an empty sky is measured beside it, its
 * frame and the target's in the same animation frame (in turns, which goes first), so that
 * the two are compared under the same load of the machine: `paired`.
 */
function runLevel(
  canvas: HTMLCanvasElement,
  target: number,
  options: SkyBenchOptions,
  emptyCanvas: HTMLCanvasElement | null,
): Promise<SkyLevel> {
  const sky = makeSky(canvas, target, options);
  const empty = emptyCanvas ? makeSky(emptyCanvas, 0, options) : null;
  let startTick = sky.world.tick;
  return new Promise((resolve, reject) => {
    const run = (now: number) => {
      try {
        if (sky.frame === 1 && options.profile) console.profile(`sky ${target}`);
        if (empty && sky.frame % 2 === 1) measureFrame(empty, now, options);
        measureFrame(sky, now, options);
        if (empty && sky.frame % 2 === 1) measureFrame(empty, now, options);
        if (sky.frame === 1) {
          // Frame 0 writes (and draws) every live launch at once: the runner's marks begin after
          // it, with the measured frames.
          startTick = sky.world.tick;
          skyMark(`start ${target}`).then(() => requestAnimationFrame(run), reject);
          return;
        }
        if (sky.frame <= options.frames) {
          requestAnimationFrame(run);
          return;
        }
        if (options.profile) console.profileEnd(`sky ${target}`);
        sky.level.ticks = sky.world.tick - startTick;
        // The runner reads the page's whole main-thread CPU (and heap) here and at the start.
        skyMark(`end ${target}`).then(() => {
          const level = finishSky(sky, options.frames);
          if (empty) {
            const paired = finishSky(empty, options.frames);
            level.paired = { simulate: paired.simulate, prepare: paired.prepare };
          }
          resolve(level);
        }, reject);
      } catch (error) {
        sky.renderer.dispose();
        empty?.renderer.dispose();
        reject(error);
      }
    };
    requestAnimationFrame(run);
  });
}

/**
 * Tells the runner (bench/browser/sky_run.ts, a function it exposes to the page) where a level's
 * measured frames start and end, so that it reads the page's whole main-thread CPU
 * (`Performance.getMetrics` TaskDuration) and heap there; a no-op without a runner.
 */
function skyMark(label: string): Promise<void> {
  const mark = (globalThis as unknown as { skyMark?: (label: string) => Promise<void> }).skyMark;
  return mark ? mark(label) : Promise.resolve();
}

/** Runs every target in turn in this page. */
export async function runSkyBench(options: SkyBenchOptions): Promise<SkyBenchResult> {
  const canvas = document.getElementById("scene") as HTMLCanvasElement;
  const gl = canvas.getContext("webgl2");
  const info = gl?.getExtension("WEBGL_debug_renderer_info");
  const name = gl
    ? String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER))
    : "?";
  const levels: SkyLevel[] = [];
  for (const target of options.targets) {
    const second = options.pairWithEmpty && target > 0
      ? document.getElementById("empty") as HTMLCanvasElement | null
      : null;
    const level = await runLevel(canvas, target, options, second);
    levels.push(level);
    // Each level as it finishes, so a run cut short still reports what it measured.
    const median = (v: number[]) => v.length ? [...v].sort((a, b) => a - b)[v.length >> 1] : NaN;
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
    console.log(
      `level ${target}: live ${level.live} (exactly ${level.liveExact} at the end), slots ${level.slots}, rows/frame ${level.written}, ` +
        `simulate ${median(level.simulate).toFixed(2)} ms, prepare ${
          median(level.prepare).toFixed(2)
        } ms, sim+prep ${
          median(level.simulate.map((v, i) => v + level.prepare[i])).toFixed(2)
        } ms, draw calls ${
          median(level.draw).toFixed(2)
        } ms (medians); checkpoint (${level.checkpointSlots} slots) ${
          mean(level.checkpoint).toFixed(2)
        } ms a frame on average, ${Math.max(0, ...level.checkpoint).toFixed(1)} ms most; arrays ${
          (level.bytes / 1e6).toFixed(0)
        } MB (${level.live > 0 ? (level.bytes / level.live).toFixed(0) : "-"} B per live spark)`,
    );
  }
  return { levels, renderer: name, isolated: globalThis.crossOriginIsolated === true };
}

(globalThis as unknown as { runSkyBench: typeof runSkyBench }).runSkyBench = runSkyBench;
