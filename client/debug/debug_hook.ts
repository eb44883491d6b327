/**
 * `window.snowfire`: a small read-only window into the client for end-to-end tests and curious
 * people in the console. It never changes the world.
 */
import * as THREE from "three";
import type { EventBody, Rules, SceneEvent, Settings } from "../../shared/types.ts";
import type { FrameTimings } from "./frame_timings.ts";
import type { Net } from "../net/net.ts";
import type { Playout } from "../net/playout.ts";
import type { SceneRenderer } from "../render/renderer.ts";
import type { Sim } from "../sim.ts";
import type { Block } from "../../shared/particle_pool.ts";
import type { FireworkView } from "../../shared/views.ts";

declare global {
  /** The client's debug hook (tests read it from inside the page). */
  var snowfire: SnowfireDebug;
}
import type { FireworkSound } from "../audio/sound.ts";

/** An event as `window.snowfire` tells it: its stamp, its body and the body's type. */
export interface EventSummary {
  seq: number;
  tick: number;
  by: string;
  type: string;
  body: EventBody;
}

/** What `window.snowfire` offers. */
export interface SnowfireDebug {
  /** The world's current tick (−1 before the first welcome). */
  tick(): number;
  /** The world's state hash now. */
  hash(): string;
  /** The hash recorded at a recent checkpoint tick. */
  hashAt(tick: number): string | undefined;
  /** Checkpoint ticks with a recorded hash, oldest first. */
  checkpoints(): number[];
  /** Live firework, gun and fountain particles, counted exactly (O(slots): for tests). */
  live(): number;
  /** True while connected and welcomed. */
  connected(): boolean;
  /** The heartbeat horizon. */
  horizon(): number;
  /** The fractional tick being displayed. */
  renderTime(): number;
  /** The scene's seed. */
  seed(): number;
  /** Settings in force in the local world. */
  settings(): Settings | null;
  /** CSS-pixel position of a world point on the canvas, or null when behind the camera. */
  project(x: number, y: number, z: number): { x: number; y: number } | null;
  /**
   * The camera: position, orbit target, vertical field of view (degrees), and its up and right
   * directions in the world (a level horizon has right.y = 0).
   */
  view(): {
    position: [number, number, number];
    target: [number, number, number];
    fov: number;
    up: [number, number, number];
    right: [number, number, number];
  };
  /** Per-frame CPU ms (simulate + upload/draw) of the latest frames, oldest first. */
  frameTimes(): number[];
  /** Forgets the recorded frame times (start of a measurement). */
  clearFrameTimes(): void;
  /** Visible firework particles and their mean position (null when there are none). */
  fireworkCentroid(): { x: number; y: number; z: number; count: number } | null;
  /**
   * Per live launch (by seq): its visible particles and their mean position, for telling apart
   * simultaneous bursts.
   */
  fireworkCentroids(): { seq: number; x: number; y: number; z: number; count: number }[];
  /**
   * Launch `seq`'s horizontal extent on the canvas in CSS pixels: the 2nd and 98th percentiles
   * of its visible particles' projected x (stray sparks aside), the canvas width, and how many
   * particles; null when none is visible.
   */
  fireworkSpan(
    seq: number,
  ): { left: number; right: number; canvasWidth: number; count: number } | null;
  /** The host rules as the page knows them (set by main.ts; never any key hashes). */
  rules?(): Readonly<Rules>;
  /** The show's latest events (seq, tick, launch point), up to 500 (set by main.ts). */
  showEvents?(): { seq: number; tick: number; x: number; z: number }[];
  /**
   * The live world's latest rebuilds (welcome, resync, fast-forward after a stall): it went from
   * tick `from` to `to` without applying launches one by one, so `showEvents` lacks those between
   * (set by main.ts).
   */
  rebuilds?(): { from: number; to: number }[];
  /** This browser's quality choice and what the page draws now (set by main.ts). */
  quality?(): { choice: string; pixelRatio: number; glow: boolean; flakeShare: number };
  /** Whether the renderer follows reduced motion now (set by main.ts). */
  reducedMotion?(): boolean;
  /** Whole seconds the countdown shows now, or null (set by main.ts). */
  countdownLeft?(): number | null;
  /** Live burst labels (whose burst): name, colour, burst tick, showing now, pixel position. */
  burstLabels?(): {
    name: string;
    color: string;
    tick: number;
    visible: boolean;
    x: number;
    y: number;
  }[];
  /** Reactions shown on this page, oldest first. */
  reactions?(): { emoji: string; name: string }[];
  /** A person's colour as the page knows it from presence. */
  colorOf?(id: string): string | undefined;
  /** The latest event received from the server (`body` as received). */
  lastEvent(): EventSummary | null;
  /** Sound state: running after the first gesture, muted, voices sounding. */
  sound(): { running: boolean; muted: boolean; voices: number } | null;
  /** Flakes and firework sparks drawn in the last frame. */
  drawn(): { flakes: number; fireworks: number };
  /** Recent events (about the last two windows) as `{seq, tick, by, type, body}`. */
  recentEvents(): EventSummary[];
  /**
   * Holds the displayed time still (`true`), stops it at tick `held` when it gets there (a
   * number), or lets it run (`false`): one frame for pixel reads.
   */
  holdDisplay(held: boolean | number): void;
  /** Shows or hides a render layer (scenery, snow, fireworks, gun, fountain). */
  setLayerVisible(layer: string, visible: boolean): void;
  /**
   * Switches the GPU draw on or off (the world, camera and HUD keep running); a page opened with
   * `?test&nodraw` starts with it off.
   */
  setDrawing(on: boolean): void;
  /** Whether the page draws (see {@link SnowfireDebug.setDrawing}). */
  isDrawing(): boolean;
  /**
   * Asks for `ratio` device pixels per CSS pixel, as the quality governor does (it takes effect
   * at the start of the next frame).
   */
  setPixelRatio(ratio: number): void;
  /** This viewer's peer id. */
  you: string;
  /** Error codes received from the server, in order. */
  errors: string[];
  /** Server frames that failed validation. */
  invalidFrames: number;
}

/** Parts of the client the hook reads. */
export interface DebugSources {
  sim: Sim;
  net: Net;
  renderer: SceneRenderer;
  playout: Playout;
  timings: FrameTimings;
  sound?: FireworkSound;
}

/** What the page observed, which the hook shows as `you`, `errors` and `invalidFrames`. */
export interface DebugObserved {
  you: string;
  errors: string[];
  invalidFrames: number;
}

/** Installs `window.snowfire` and returns it; `you`, `errors`, `invalidFrames` read `observed`. */
export function exposeDebugHook(
  sources: DebugSources,
  observed: DebugObserved = { you: "", errors: [], invalidFrames: 0 },
): SnowfireDebug {
  const { sim, net, renderer, playout, timings } = sources;
  const hook: SnowfireDebug = {
    tick: () => sim.world?.tick ?? -1,
    hash: () => sim.world?.hash() ?? "",
    hashAt: (tick) => sim.hashAt(tick),
    checkpoints: () => sim.checkpointTicks(),
    live: () => sim.world?.liveParticles() ?? 0,
    connected: () => net.connected,
    horizon: () => sim.horizon,
    renderTime: () => playout.renderTime,
    seed: () => sim.seed,
    settings: () => (sim.world ? { ...sim.world.settings } : null),
    project(x, y, z) {
      const point = new THREE.Vector3(x, y, z).project(renderer.camera);
      if (point.z > 1) return null;
      const rect = renderer.renderer.domElement.getBoundingClientRect();
      return {
        x: rect.left + ((point.x + 1) / 2) * rect.width,
        y: rect.top + ((1 - point.y) / 2) * rect.height,
      };
    },
    view() {
      const camera = renderer.camera;
      camera.updateMatrixWorld();
      const triple = (v: THREE.Vector3) => [v.x, v.y, v.z] as [number, number, number];
      const e = camera.matrixWorld.elements;
      return {
        position: triple(camera.position),
        target: triple(renderer.controls.target),
        fov: camera.fov,
        right: [e[0], e[1], e[2]],
        up: [e[4], e[5], e[6]],
      };
    },
    frameTimes: () => timings.totals(),
    clearFrameTimes: () => timings.clear(),
    fireworkCentroid() {
      const view = sim.world?.fireworks;
      return view ? litCentroid(view, 0, view.count) : null;
    },
    fireworkCentroids() {
      const view = sim.world?.fireworks;
      if (!view) return [];
      const out = [];
      for (const block of launchBlocks(view)) {
        const centroid = litCentroid(view, block.start, block.start + block.size);
        if (centroid) out.push({ seq: block.seq, ...centroid });
      }
      return out;
    },
    fireworkSpan(seq) {
      const view = sim.world?.fireworks;
      const block = view && launchBlocks(view).find((b) => b.seq === seq);
      if (!view || !block) return null;
      const xs: number[] = [];
      const point = new THREE.Vector3();
      for (let i = block.start; i < block.start + block.size && i < view.count; i++) {
        if (view.color[i * 4 + 3] <= 0) continue;
        point.fromArray(view.position, i * 3).project(renderer.camera);
        if (point.z <= 1) xs.push(point.x);
      }
      if (xs.length === 0) return null;
      xs.sort((a, b) => a - b);
      const rect = renderer.renderer.domElement.getBoundingClientRect();
      const css = (ndc: number) => rect.left + ((ndc + 1) / 2) * rect.width;
      return {
        left: css(xs[Math.floor(0.02 * (xs.length - 1))]),
        right: css(xs[Math.ceil(0.98 * (xs.length - 1))]),
        canvasWidth: rect.width,
        count: xs.length,
      };
    },
    lastEvent() {
      const event = sim.latestEvent;
      return event ? summary(event) : null;
    },
    sound: () =>
      sources.sound
        ? {
          running: sources.sound.running,
          muted: sources.sound.muted,
          voices: sources.sound.activeVoices,
        }
        : null,
    drawn: () => renderer.drawnCounts(),
    recentEvents: () => sim.recentEvents().map(summary),
    holdDisplay(held) {
      playout.hold(held);
    },
    setDrawing(on) {
      renderer.drawing = on;
    },
    isDrawing: () => renderer.drawing,
    setPixelRatio(ratio) {
      renderer.setPixelRatio(ratio);
    },
    setLayerVisible(layer, visible) {
      const object = renderer.layers()[layer];
      if (!object) throw new Error(`unknown_layer: no render layer named ${layer}`);
      object.visible = visible;
    },
    get you() {
      return observed.you;
    },
    errors: observed.errors,
    get invalidFrames() {
      return observed.invalidFrames;
    },
  };
  globalThis.snowfire = hook;
  return hook;
}

/**
 * The launches' slot blocks of the world's firework view: it is the firework pool's settled view,
 * whose per-launch blocks say which slots are whose.
 */
function launchBlocks(view: FireworkView): readonly Block[] {
  return (view as FireworkView & { blocks?: readonly Block[] }).blocks ?? [];
}

/** The mean position of the lit sparks in slots [from, to) of `view` and their count; null for none. */
function litCentroid(
  view: FireworkView,
  from: number,
  to: number,
): { x: number; y: number; z: number; count: number } | null {
  let x = 0, y = 0, z = 0, count = 0;
  for (let i = from; i < Math.min(to, view.count); i++) {
    if (view.color[i * 4 + 3] <= 0) continue;
    x += view.position[i * 3];
    y += view.position[i * 3 + 1];
    z += view.position[i * 3 + 2];
    count++;
  }
  return count === 0 ? null : { x: x / count, y: y / count, z: z / count, count };
}

/** `event` as the hook tells it (`lastEvent`, `recentEvents`). */
function summary(event: SceneEvent): EventSummary {
  return {
    seq: event.seq,
    tick: event.tick,
    by: event.by,
    type: event.body.type,
    body: event.body,
  };
}
