/**
 * Browser entry: wires the network link, the simulation, the three.js renderer, input, HUD and
 * settings panel together and runs the frame loop. Also exposes `window.snowfire`, a small
 * read-only debug hook the end-to-end tests use.
 */
import { MAX_FLAKES, PROTOCOL_VERSION, TICK_RATE, WINDOW_TICKS } from "../shared/constants.ts";
import type { World } from "../shared/world.ts";
import { z } from "zod";
import { describeError, describeEvent } from "./event_text.ts";
import { Hud } from "./hud.ts";
import { Input } from "./input.ts";
import { Net } from "./net.ts";
import { Playout } from "./playout.ts";
import { QualityGovernor } from "./quality_governor.ts";
import { SceneRenderer } from "./renderer.ts";
import { sceneIdFromPath, sceneSocketUrl } from "./scene_id.ts";
import { SettingsPanel } from "./settings_panel.ts";
import { Sim } from "./sim.ts";
import { exposeDebugHook } from "./debug_hook.ts";
import { FrameStats } from "./frame_stats.ts";
import { FrameTimings } from "./frame_timings.ts";
import { FireworkSound } from "./sound.ts";
import { SoundCues } from "./sound_cues.ts";

/**
 * Wall-time budget for simulation within one frame: at least this many ms, or half the last frame
 * interval when frames are slow, so stepping keeps up with real time on a slow machine too.
 */
const MIN_STEP_BUDGET_MS = 8;
const MAX_STEP_BUDGET_MS = 100;
const NAME_KEY = "snowfire.name";
/** How often the HUD's numbers refresh, ms. */
const HUD_INTERVAL_MS = 250;

function start(): void {
  // The page's CSP allows no eval: without this zod would probe `new Function` on first parse,
  // which the browser reports as a CSP violation (it then falls back to this mode anyway).
  z.config({ jitless: true });
  const sceneId = sceneIdFromPath(location.pathname);
  const canvas = document.getElementById("scene") as HTMLCanvasElement | null;
  if (!canvas) throw new Error("missing_element: the page has no #scene canvas");
  const params = new URLSearchParams(location.search);
  const hud = new Hud(sceneId ?? "no scene");
  if (!sceneId) {
    hud.showBanner("This page is not a scene. Open /s/your-scene-name to join one.");
    return;
  }
  const name = params.get("name") ?? localStorage.getItem(NAME_KEY) ?? undefined;
  if (params.has("name") && name) localStorage.setItem(NAME_KEY, name);
  const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;

  let renderer: SceneRenderer;
  try {
    renderer = new SceneRenderer({
      canvas,
      reducedMotion,
      preserveDrawingBuffer: params.has("test"),
    });
  } catch (error) {
    hud.showBanner("Snowfire needs WebGL, and this browser could not provide it.");
    throw error;
  }

  // Sound starts with the first gesture; the mute choice is the page's (FireworkSound.muted).
  const sound = new FireworkSound();
  sound.resumeOnGesture();
  const cues = new SoundCues(sound);
  const playout = new Playout();
  const sim = new Sim({
    checkpoint: (tick, hash) => net.send({ t: "hash", tick, h: hash }),
    rebuilt: (world: World) => renderer.bindWorld(world),
  });
  const net: Net = new Net({
    url: sceneSocketUrl(location, sceneId),
    name,
    resumeFrom: () => (sim.world ? sim.lastSeq : undefined),
    handlers: {
      welcome(message) {
        if (
          message.v !== PROTOCOL_VERSION || message.tickRate !== TICK_RATE ||
          message.windowTicks !== WINDOW_TICKS
        ) {
          // Simulating with other constants than the server's would silently diverge.
          net.close();
          hud.showBanner("The server runs a different version of Snowfire. Reload the page.");
          return;
        }
        if (sim.welcome(message)) net.restartFresh();
        hud.setPeers(message.you, message.peers);
        debug.you = message.you.id;
      },
      heartbeat: (horizon) => sim.heartbeat(horizon),
      event(event) {
        const fault = sim.receiveEvent(event);
        if (fault) {
          net.restartFresh();
          return;
        }
        cues.add(sim.seed, event);
        if (event.by === "show") return;
        const world = sim.world;
        hud.toast(
          describeEvent(hud.nameOf(event.by), event.body, world?.settings.theme ?? "auto"),
          {
            color: hud.colorOf(event.by),
          },
        );
      },
      presence(message) {
        if (message.kind === "join") {
          hud.addPeer(message.peer);
          hud.toast(`${message.peer.name} joined`, { color: message.peer.color });
        } else {
          hud.removePeer(message.peer);
          hud.toast(`${message.peer.name} left`, { color: message.peer.color });
        }
      },
      error(message) {
        debug.errors.push(message.code);
        hud.toast(describeError(message), { error: true });
      },
      resync(message) {
        hud.toast(`Re-syncing with the scene (${message.message})`);
      },
      status(message) {
        if (message.sky === "paused") hud.showBanner(`The sky is paused: ${message.message}.`);
        else hud.hideBanner();
      },
      state: (state, detail) => hud.setConnection(state, detail),
      invalid(reason) {
        debug.invalidFrames++;
        hud.toast(`Ignored a malformed message from the server: ${reason}`, { error: true });
      },
    },
  });

  const notConnected = () =>
    hud.toast("Not connected right now; try again in a moment.", { error: true });
  const input = new Input({
    canvas,
    camera: renderer.camera,
    focus: renderer.controls.target,
    actions: {
      // (x, z) is the ground point the shell rises from, y the height it bursts at (aim.ts).
      launch(x, z, y) {
        if (!net.submit({ type: "launch", x, z, y })) return notConnected();
        renderer.markLaunch(x, z);
      },
      gun: (origin, direction) => net.submit({ type: "gun", origin, direction }) || notConnected(),
    },
  });
  const panel = new SettingsPanel((change) =>
    net.submit({ type: "settings", settings: change }) || notConnected()
  );
  const stats = new FrameStats();
  // Tests read pixels at a fixed resolution; everyone else gets a resolution that keeps up.
  const governor = params.has("test") ? null : new QualityGovernor({
    maxPixelRatio: renderer.pixelRatio,
    minPixelRatio: Math.min(renderer.pixelRatio, 0.5),
  });
  const timings = new FrameTimings();
  const debug = exposeDebugHook({ sim, net, renderer, playout, timings, sound });

  const clock = () => performance.now();
  let lastFrameMs = NaN;
  let lastHudMs = -Infinity;
  const frame = (nowMs: number) => {
    requestAnimationFrame(frame);
    const started = performance.now();
    const interval = Number.isNaN(lastFrameMs) ? 16 : nowMs - lastFrameMs;
    lastFrameMs = nowMs;
    let time = 0;
    if (sim.world) {
      time = playout.update(started, net.clock.serverTick(started), sim.horizon);
      const budget = Math.min(MAX_STEP_BUDGET_MS, Math.max(MIN_STEP_BUDGET_MS, interval / 2));
      sim.advance(Math.ceil(time), budget, clock);
    }
    const simulated = performance.now();
    renderer.render(time, nowMs / 1000);
    cues.update(time, renderer.camera.position);
    timings.record(simulated - started, performance.now() - simulated);
    if (sim.world) panel.display(sim.world.settings);
    stats.frame(nowMs);
    if (governor?.frame(interval)) renderer.setPixelRatio(governor.pixelRatio);
    // Text for the HUD is made a few times a second, not every frame.
    if (nowMs - lastHudMs >= HUD_INTERVAL_MS) {
      lastHudMs = nowMs;
      const current = sim.world;
      hud.setStats(
        stats.fps,
        current ? current.liveParticles() + Math.min(current.snow.count, MAX_FLAKES) : 0,
      );
      hud.setLatency(net.latencyMs);
    }
  };
  requestAnimationFrame(frame);
  net.connect();

  globalThis.addEventListener("pagehide", () => {
    net.close();
    input.dispose();
    sound.dispose();
    renderer.dispose();
  });
}

start();
