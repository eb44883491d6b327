/**
 * Browser entry: wires the network link, the simulation, the three.js renderer, input, HUD,
 * launch picker and settings panel together and runs the frame loop. Also exposes
 * `window.snowfire`, a small read-only debug hook the end-to-end tests use.
 *
 * Order matters and is kept simple: everything a callback uses is declared before the callback.
 * The one cycle (the link's handlers drive the simulation; the simulation's checkpoint hashes go
 * out on the link) is broken by a queue the frame loop sends.
 */
import { MAX_FLAKES, PROTOCOL_VERSION, TICK_RATE, WINDOW_TICKS } from "../shared/constants.ts";
import { FIREWORK_KINDS } from "../shared/firework_kinds.ts";
import { REACTIONS } from "../shared/protocol.ts";
import type { World } from "../shared/world.ts";
import { z } from "zod";
import { type DebugObserved, exposeDebugHook } from "./debug/debug_hook.ts";
import { cleanName } from "./hud/display_name.ts";
import { element } from "./hud/dom.ts";
import { FrameStats } from "./debug/frame_stats.ts";
import { FrameTimings } from "./debug/frame_timings.ts";
import { Hud } from "./hud/hud.ts";
import { Input } from "./input/input.ts";
import { ViewGestures } from "./input/view_gestures.ts";
import { Invite, sceneLink } from "./hud/invite.ts";
import { LaunchPicker } from "./hud/launch_picker.ts";
import { Net } from "./net/net.ts";
import { Playout } from "./net/playout.ts";
import { QualityGovernor } from "./render/quality_governor.ts";
import { fixedQuality, type QualityChoice, storedQuality, storeQuality } from "./render/quality.ts";
import { HelpPanel } from "./hud/help_panel.ts";
import { showEmbedView } from "./hud/embed_view.ts";
import { QualityMenu } from "./hud/quality_menu.ts";
import { SceneRenderer } from "./render/renderer.ts";
import { sceneIdFromPath, sceneSocketUrl } from "./scene_id.ts";
import { SettingsPanel } from "./hud/settings_panel.ts";
import { CountdownDisplay } from "./hud/countdown_display.ts";
import { hostKeyStorageName, hostLink, HostPanel } from "./hud/host_panel.ts";
import { SceneRules } from "./hud/scene_rules.ts";
import { Sim } from "./sim.ts";
import { FireworkSound } from "./audio/sound.ts";
import { SoundCues } from "./audio/sound_cues.ts";
import { ShowMusic } from "./audio/show_music.ts";
import { ShowMusicList } from "./audio/show_music_list.ts";
import { ReplayMode } from "./replay/replay_mode.ts";
import { BurstLabels } from "./hud/burst_labels.ts";
import { CountdownVoice } from "./hud/countdown_voice.ts";
import { personToken } from "./hud/person_token.ts";
import { reactionButtons, ReactionFloats } from "./hud/reaction_floats.ts";
import { burstCues } from "./audio/sound_cues.ts";
import { mountComposer } from "./hud/composer/mount.ts";

/**
 * Wall-time budget for simulation within one frame: at least this many ms, or half the last frame
 * interval when frames are slow, so stepping keeps up with real time on a slow machine too.
 */
const MIN_STEP_BUDGET_MS = 8;
const MAX_STEP_BUDGET_MS = 100;
/** Where a name typed in the HUD is remembered. */
const NAME_KEY = "snowfire.name";
/** How often the HUD's numbers refresh, ms. */
const HUD_INTERVAL_MS = 250;
/** Where the page's switches are remembered: names by bursts (on unless "off"), spoken numbers. */
const LABELS_KEY = "snowfire.burstLabels";
const SPEAK_KEY = "snowfire.speakCountdown";

/** A page switch's remembered value (`fallback` when none, or storage is off). */
function storedSwitch(key: string, fallback: boolean): boolean {
  try {
    const value = localStorage.getItem(key);
    return value === null ? fallback : value === "on";
  } catch {
    return fallback;
  }
}

/** Binds a checkbox to a remembered page switch; `apply` gets its value now and on change. */
function pageSwitch(id: string, key: string, fallback: boolean, apply: (on: boolean) => void) {
  const box = element<HTMLInputElement>(id);
  box.checked = storedSwitch(key, fallback);
  apply(box.checked);
  box.addEventListener("change", () => {
    apply(box.checked);
    try {
      localStorage.setItem(key, box.checked ? "on" : "off");
    } catch { /* storage unavailable: the switch holds for this page */ }
  });
}

function storedName(): string | undefined {
  try {
    const stored = localStorage.getItem(NAME_KEY);
    const name = cleanName(stored);
    // A name saved by an older page may be one the server refuses: keep only its clean form.
    if (stored !== null && name !== stored) {
      if (name) localStorage.setItem(NAME_KEY, name);
      else localStorage.removeItem(NAME_KEY);
    }
    return name;
  } catch {
    return undefined;
  }
}

function storeName(name: string | undefined): void {
  try {
    if (name) localStorage.setItem(NAME_KEY, name);
    else localStorage.removeItem(NAME_KEY);
  } catch {
    // Storage may be off (private mode); the name still holds for this page.
  }
}

function start(): void {
  // The page's CSP allows no eval: without this zod would probe `new Function` on first parse,
  // which the browser reports as a CSP violation (it then falls back to this mode anyway).
  z.config({ jitless: true });
  const sceneId = sceneIdFromPath(location.pathname);
  const canvas = element<HTMLCanvasElement>("scene");
  const params = new URLSearchParams(location.search);
  const hud = new Hud(sceneId ?? "no scene");
  if (!sceneId) {
    hud.showBanner("This page is not a scene. Open /s/your-scene-name to join one.");
    return;
  }
  // `?name=` names this visit only: it is not saved, and it leaves the address bar so a link
  // copied from there does not make a friend join under this name.
  const name = params.has("name") ? cleanName(params.get("name")) : storedName();
  if (params.has("name")) {
    params.delete("name");
    const query = params.toString();
    // (The fragment stays: a host link's key is read from it below.)
    history.replaceState(
      null,
      "",
      `${location.pathname}${query ? `?${query}` : ""}${location.hash}`,
    );
  }
  const motionQuery = matchMedia("(prefers-reduced-motion: reduce)");
  const reducedMotion = motionQuery.matches;
  const touch = matchMedia("(pointer: coarse)").matches;
  showEmbedView(params, sceneId, touch);
  canvas.setAttribute(
    "aria-label",
    touch
      ? "Night scene. Tap the sky to launch a firework, long-press for the particle gun."
      : "Night scene. Click or press F to launch a firework, G to fire the particle gun, " +
        "arrow keys or drag to look around.",
  );

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

  // Tests of the page's state alone skip the GPU draw (see SceneRenderer.drawing).
  renderer.drawing = !(params.has("test") && params.has("nodraw"));

  // Sound starts with the first gesture; the mute choice is the page's (FireworkSound.muted).
  const sound = new FireworkSound();
  sound.resumeOnGesture();
  const cues = new SoundCues(sound);
  // A show's music, in step with the scene clock (none while replaying the past).
  const musicList = new ShowMusicList();
  const noMusic = new ShowMusicList();
  const music = new ShowMusic({
    scene: sceneId,
    audio: () => sound.audio,
    muted: () => sound.muted,
    serverTick: (ms) => net.clock.serverTick(ms),
  });
  const playout = new Playout();
  const timings = new FrameTimings();
  const observed: DebugObserved = { you: "", errors: [], invalidFrames: 0 };
  /** Checkpoint hashes waiting for the frame loop to send them. */
  const hashes: { tick: number; h: string }[] = [];
  const sim = new Sim({
    checkpoint: (tick, hash) => hashes.push({ tick, h: hash }),
    // (A show previewed in the composer keeps the screen until it stops.)
    rebuilt: (world: World) => composer.previewing || replay.liveRebuilt(world),
  });
  // Replay, moment links and clips (client/replay/); the live scene keeps running underneath.
  const replay: ReplayMode = new ReplayMode({
    sceneId,
    canvas,
    renderer,
    sound,
    toast: (text, options) => hud.toast(text, options),
    liveWorld: () => sim.world,
    liveHorizon: () => sim.horizon,
    liveTime: () => playout.renderTime,
  });

  // Host rights: a host link (`#host=KEY`) is kept in this browser and taken out of the address
  // bar; a kept key is proven after every welcome.
  const keyName = hostKeyStorageName(sceneId);
  const linked = /^#host=([A-Za-z0-9_-]{32})$/.exec(location.hash)?.[1];
  if (linked) {
    try {
      localStorage.setItem(keyName, linked);
    } catch { /* private mode: the key lasts this visit */ }
    history.replaceState(null, "", location.pathname + location.search);
  }
  let hostKey: string | undefined = linked;
  try {
    hostKey ??= localStorage.getItem(keyName) ?? undefined;
  } catch { /* storage unavailable */ }
  const rules = new SceneRules();
  // The show composer (client/hud/composer/): panel, shared draft, preview, Play for everyone.
  const composer = mountComposer({
    sceneId,
    kinds: FIREWORK_KINDS,
    hud,
    rules,
    replay,
    renderer,
    sound,
    net: () => net,
    liveWorld: () => sim.world,
    you: () => observed.you,
    hostKey: () => hostKey,
  });
  const showEvents: { seq: number; tick: number; x: number; z: number }[] = [];
  const countdown = new CountdownDisplay();
  const voice = new CountdownVoice();
  const labels = new BurstLabels();
  const floats = new ReactionFloats();
  pageSwitch("pref-labels", LABELS_KEY, true, (on) => {
    labels.enabled = on;
    if (!on) labels.clear();
  });
  pageSwitch("pref-speak", SPEAK_KEY, false, (on) => (voice.enabled = on));
  if (!CountdownVoice.available) {
    const speak = element<HTMLInputElement>("pref-speak");
    speak.disabled = true;
    speak.checked = false;
    voice.enabled = false;
    speak.closest("label")!.title = "This browser cannot speak";
  }

  const net: Net = new Net({
    url: sceneSocketUrl(location, sceneId),
    name,
    person: personToken(),
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
        observed.you = message.you.id;
        rules.welcome(message);
        musicList.welcome(message.snapshot.shows, message.events);
        hostPanel.setPeers(message.you, message.peers);
        if (hostKey && !rules.isHost(message.you.id)) {
          net.hostAction({ do: "claim", key: hostKey });
        }
      },
      heartbeat: (horizon) => sim.heartbeat(horizon),
      event(event) {
        const fault = sim.receiveEvent(event);
        if (fault) {
          net.restartFresh();
          return;
        }
        if (!replay.active) cues.add(sim.seed, event);
        rules.event(event);
        musicList.event(event);
        composer.event(event);
        if (event.by === "show") {
          if (event.body.type === "launch") {
            showEvents.push({ seq: event.seq, tick: event.tick, x: event.body.x, z: event.body.z });
            if (showEvents.length > 500) showEvents.shift();
          }
          return;
        }
        hud.eventToast(event.by, event.body, sim.world?.settings.theme ?? "auto");
        // Whose burst: the launcher's name by it, in their colour (see BurstLabels).
        if (event.body.type === "launch" && labels.enabled && !replay.active) {
          const burst = burstCues(sim.seed, event);
          if (burst) {
            labels.add(
              burst.ticks[0],
              burst.x,
              burst.y,
              burst.z,
              event.by === observed.you ? "You" : hud.nameOf(event.by),
              hud.colorOf(event.by) ?? "#ffffff",
            );
          }
        }
      },
      reactions(message) {
        for (const { by, emoji } of message.by) {
          floats.show(
            emoji,
            by === observed.you ? "You" : hud.nameOf(by),
            hud.colorOf(by) ?? "#ffffff",
          );
        }
        // The others of a busy quarter second, counted: one float per reaction, "×n" under it.
        message.more?.forEach((n, i) => {
          if (n > 0) floats.show(REACTIONS[i], `×${n}`, "#ffffff");
        });
      },
      presence(message) {
        if (message.kind === "leave") hostPanel.removePeer(message.peer);
        else hostPanel.addPeer(message.peer);
        if (message.kind === "join") {
          hud.addPeer(message.peer);
          hud.toast(`${message.peer.name} joined`, { color: message.peer.color });
        } else if (message.kind === "rename") {
          const self = message.peer.id === observed.you;
          hud.renamePeer(message.peer);
          const was = message.was ?? "Someone";
          hud.toast(
            self ? `You are now ${message.peer.name}` : `${was} is now ${message.peer.name}`,
            { color: message.peer.color },
          );
        } else {
          hud.removePeer(message.peer);
          hud.toast(`${message.peer.name} left`, { color: message.peer.color });
        }
      },
      draft: (message) => composer.relayed(message.by, message.edits),
      draftState: (message) => composer.draftState(message.draft),
      preparing: (message) => composer.preparing(message.on, message.message),
      error(message) {
        observed.errors.push(message.code);
        hud.refusal(message);
        if (message.cue !== undefined) composer.refusedCue(message.cue);
        if (message.code === "removed") {
          // Coming back would be refused again (this browser is known): stop trying.
          net.close();
          hud.showBanner("A host removed you from this scene.");
        }
      },
      nameRefused(refused, reason) {
        if (storedName() === refused) storeName(undefined);
        hud.toast(`The name “${refused}” was refused (${reason}); you joined with a new one.`, {
          error: true,
        });
      },
      host(message) {
        if (!message.key) {
          hud.toast(message.message);
          return;
        }
        // Who made this page a host is said by the rules event ("Ana made you a host"); the key
        // comes with where its link is kept.
        hud.toast(
          "Your host link is in Settings › Host: keep it to steer this scene from any device.",
        );
        hostKey = message.key;
        try {
          localStorage.setItem(keyName, message.key);
        } catch { /* storage unavailable: the link below still works */ }
        hostPanel.showHostLink(hostLink(location.origin, sceneId, message.key));
      },
      resync(message) {
        hud.toast(`Re-syncing with the scene (${message.message})`);
      },
      status(message) {
        if (message.sky === "paused") hud.showBanner(`The sky is paused: ${message.message}.`);
        else hud.hideBanner();
      },
      state: (state, info) => hud.setConnection(state, info),
      invalid(reason) {
        observed.invalidFrames++;
        hud.toast(`Ignored a malformed message from the server: ${reason}`, { error: true });
      },
    },
  });
  hud.onReconnectNow(() => net.reconnectNow());
  hud.onRename((raw) => {
    const next = cleanName(raw);
    if (next === net.name) return;
    storeName(next);
    net.rename(next);
  });

  hud.sheets.addButton(element("open-picker"), element("picker-panel"));
  hud.sheets.addButton(element("open-react"), element("react-panel"));
  hud.sheets.addButton(element("open-help"), element("help-panel"));
  hud.sheets.addDetails(element<HTMLDetailsElement>("settings"));
  hud.addEscapeFallback(hud.sheets);
  // With no panel open, Escape closes the replay bar (back to live).
  hud.addEscapeFallback(replay);
  // A tap in the sky closes an open panel, and still launches (Input acts on its release).
  canvas.addEventListener("pointerdown", () => hud.sheets.close());
  const invite = new Invite(sceneLink(location.origin, sceneId), (text) => hud.toast(text));
  hud.addEscapeTarget(invite);
  const picker = new LaunchPicker(FIREWORK_KINDS);
  const notConnected = () =>
    hud.toast("Not connected right now; try again in a moment.", { error: true });
  reactionButtons(element("react-buttons"), (emoji) => {
    if (!net.react(emoji)) notConnected();
  });
  const input = new Input({
    canvas,
    camera: renderer.camera,
    focus: renderer.controls.target,
    actions: {
      // (x, z) is the ground point the shell rises from, y the height it bursts at (aim.ts);
      // the picker adds the chosen kind and colours.
      launch(x, z, y) {
        if (composer.takeLaunch(x, z, y)) return;
        if (hud.holdLaunch() || replay.holdLaunch()) return;
        if (!net.submit({ type: "launch", x, z, y, ...picker.choice() })) return notConnected();
        renderer.markLaunch(x, z);
        hud.launched();
      },
      gun: (origin, direction) =>
        replay.holdLaunch() || net.submit({ type: "gun", origin, direction }) || notConnected(),
      resetView: () => renderer.fitView(),
      zoom: (scale) => renderer.zoomAt(0, 0, scale),
    },
  });
  const gestures = new ViewGestures(canvas, renderer);
  // Reset view is offered once the view has moved (the bar is full on a phone).
  const resetView = element<HTMLButtonElement>("reset-view");
  resetView.addEventListener("click", () => {
    renderer.fitView();
    resetView.hidden = true;
    if (document.activeElement === resetView) canvas.focus({ preventScroll: true });
  });
  // A change made while offline waits in the panel and goes out once connected.
  const panel = new SettingsPanel((change) => net.submit({ type: "settings", settings: change }));
  hud.addEscapeTarget(panel);
  const hostPanel = new HostPanel(
    (action) => net.hostAction(action) || (notConnected(), false),
    (text) => hud.toast(text),
  );
  // The mute button and M key drive the sound; the choice is remembered by the HUD.
  hud.onMuteChange((muted) => (sound.muted = muted));
  const stats = new FrameStats();
  // Quality (this browser's choice): Auto lets the governor step down on slow frames. Test
  // pages read pixels at a fixed resolution, so they start at High unless a test chooses.
  const deviceRatio = renderer.pixelRatio;
  let qualityChoice = storedQuality(params.has("test") ? "high" : "auto");
  let governor: QualityGovernor | null = null;
  const applyQuality = (choice: QualityChoice) => {
    qualityChoice = choice;
    if (choice === "auto") {
      governor = new QualityGovernor({
        maxPixelRatio: deviceRatio,
        minPixelRatio: Math.min(deviceRatio, 0.5),
      });
      renderer.applyQuality(governor.level);
    } else {
      governor = null;
      renderer.applyQuality(fixedQuality(choice, deviceRatio));
    }
    qualityMenu.show(choice, renderer.qualityLevel);
  };
  const qualityMenu = new QualityMenu(qualityChoice, (choice) => {
    storeQuality(choice);
    applyQuality(choice);
  });
  applyQuality(qualityChoice);
  const help = new HelpPanel();
  // Reduced motion is followed live, not only at load.
  motionQuery.addEventListener("change", (event) => renderer.setReducedMotion(event.matches));
  const hook = exposeDebugHook({ sim, net, renderer, playout, timings, sound }, observed);
  Object.assign(hook, {
    /** The host rules as this page knows them (no key hashes ever reach a page). */
    rules: () => rules.current,
    showEvents: () => [...showEvents],
    /** Where the show's music is (the sample leaving the speakers now), or null. */
    music: () => music.position(),
    /** Live burst labels: name, colour, burst tick, showing now, pixel position. */
    burstLabels: () => labels.shown(),
    /** Reactions shown on this page, oldest first. */
    reactions: () => [...floats.seen],
    /** A person's colour as this page knows it from presence. */
    colorOf: (id: string) => hud.colorOf(id),
    /** This browser's quality choice and what the page draws now. */
    quality: () => ({ choice: qualityChoice, ...renderer.qualityLevel }),
    /** Whether the renderer follows reduced motion now. */
    reducedMotion: () => renderer.reducedMotion,
    /** Whole seconds the countdown shows now, or null. */
    countdownLeft: () =>
      CountdownDisplay.remaining(rules.current.countdown, net.clock.serverTick(performance.now())),
  });

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
    for (const { tick, h } of hashes) net.send({ t: "hash", tick, h });
    hashes.length = 0;
    const replayed = replay.frame(
      nowMs,
      Math.min(MAX_STEP_BUDGET_MS, Math.max(MIN_STEP_BUDGET_MS, interval / 2)),
      clock,
    );
    const previewed = replayed === null
      ? composer.frame(nowMs, MIN_STEP_BUDGET_MS, clock, time)
      : (composer.stopPreview(), null);
    const shown = replayed ?? previewed ?? time;
    const simulated = performance.now();
    // (While a replay seek loads, the frame shown stays: see ReplayMode.holdFrame.)
    if (replay.holdFrame()) renderer.prepare(shown, nowMs / 1000);
    else {
      renderer.render(shown, nowMs / 1000);
      if (renderer.drawing) replay.drew();
    }
    if (replayed === null && previewed === null) {
      cues.update(time, renderer.camera.position);
      labels.update(time, renderer.camera, canvas.clientWidth, canvas.clientHeight);
    } else labels.clear();
    timings.record(simulated - started, performance.now() - simulated);
    if (sim.world) panel.display(sim.world.settings);
    hostPanel.display(rules);
    const serverTick = net.clock.serverTick(performance.now());
    music.update(performance.now(), replay.active ? noMusic : musicList);
    countdown.update(rules.current.countdown, serverTick);
    voice.update(CountdownDisplay.remaining(rules.current.countdown, serverTick));
    stats.frame(nowMs);
    if (governor?.frame(interval)) {
      renderer.applyQuality(governor.level);
      qualityMenu.show(qualityChoice, governor.level);
    }
    // Text for the HUD is made a few times a second, not every frame.
    if (nowMs - lastHudMs >= HUD_INTERVAL_MS) {
      lastHudMs = nowMs;
      const current = sim.world;
      hud.setStats(
        stats.fps,
        current ? current.expectedParticles() + Math.min(current.snow.count, MAX_FLAKES) : 0,
      );
      hud.setLatency(net.latencyMs);
      if (resetView.hidden === renderer.viewMoved) resetView.hidden = !renderer.viewMoved;
      hud.update();
    }
  };
  requestAnimationFrame(frame);
  net.connect();

  globalThis.addEventListener("pagehide", () => {
    net.close();
    input.dispose();
    gestures.dispose();
    help.dispose();
    music.dispose();
    sound.dispose();
    renderer.dispose();
  });
}

start();
