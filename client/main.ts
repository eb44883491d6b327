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
import { REACTIONS, type SceneEvent } from "../shared/protocol.ts";
import type { World } from "../shared/world.ts";
import { z } from "zod";
import { type DebugObserved, exposeDebugHook } from "./debug/debug_hook.ts";
import { cleanName } from "./hud/display_name.ts";
import { LABELS_KEY, pageSwitch, SPEAK_KEY, storedName, storeName } from "./hud/page_memory.ts";
import { element } from "./hud/dom.ts";
import { FrameStats } from "./debug/frame_stats.ts";
import { FrameTimings } from "./debug/frame_timings.ts";
import { Hud } from "./hud/hud.ts";
import { Input } from "./input/input.ts";
import { ViewGestures } from "./input/view_gestures.ts";
import { Invite, sceneLink } from "./hud/invite.ts";
import { LaunchPicker } from "./hud/launch_picker.ts";
import { Net, type NetHandlers } from "./net/net.ts";
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
 * Wall-time budget for simulation within one frame, ms: at least `min`, or half the last frame
 * interval when frames are slow (up to `max`), so stepping keeps up with real time on a slow
 * machine too.
 */
const STEP_BUDGET_MS = { min: 8, max: 100 } as const;
/**
 * How often the HUD's numbers refresh (`textMs`), and how often its particle count is worked out
 * (`particleCountMs`): the count's fireworks' part visits every launch (~1 ms at a million live
 * sparks), so once a second, not with each refresh.
 */
const HUD_REFRESH = { textMs: 250, particleCountMs: 1000 } as const;
/** What the page reads from its address and the device before anything starts. */
interface PageSetup {
  sceneId: string;
  canvas: HTMLCanvasElement;
  params: URLSearchParams;
  hud: Hud;
  /** This visit's name: `?name=` (not saved) or the remembered one. */
  name: string | undefined;
  motionQuery: MediaQueryList;
  touch: boolean;
}

/** The parts of a scene page that live as long as it does. */
interface ScenePage extends PageSetup {
  renderer: SceneRenderer;
  sound: FireworkSound;
  cues: SoundCues;
  /** The shows with music, from the welcome and the events. */
  musicList: ShowMusicList;
  playout: Playout;
  timings: FrameTimings;
  observed: DebugObserved;
  /** Checkpoint hashes waiting for the frame loop to send them. */
  hashes: { tick: number; h: string }[];
  sim: Sim;
  replay: ReplayMode;
  rules: SceneRules;
  /** The show's launches seen, newest last (at most 500). */
  showEvents: { seq: number; tick: number; x: number; z: number }[];
  /**
   * The live world's rebuilds (welcome, resync, fast-forward), at most 100: the world went from
   * tick `from` (−1: none before) to `to` without stepping, so no derived launch in between was
   * seen applied (`showEvents`), though the rebuilt world holds them.
   */
  rebuilds: { from: number; to: number }[];
  countdown: CountdownDisplay;
  voice: CountdownVoice;
  labels: BurstLabels;
  floats: ReactionFloats;
  host: HostKey;
  /** The show composer (client/hud/composer/): panel, shared draft, preview, Play for everyone. */
  composer: ReturnType<typeof mountComposer>;
}

/** This browser's host key for the scene and where it is kept. */
interface HostKey {
  storageName: string;
  key: string | undefined;
}

/** The panels whose actions go out on the link. */
interface LinkedPanels {
  settings: SettingsPanel;
  host: HostPanel;
}

/**
 * Step 1: the scene id, the HUD and what the address and device say; null (after saying so on
 * the page) when the address names no scene. `?name=` leaves the address bar here.
 */
function readPage(): PageSetup | null {
  const sceneId = sceneIdFromPath(location.pathname);
  const canvas = element<HTMLCanvasElement>("scene");
  const params = new URLSearchParams(location.search);
  const hud = new Hud(sceneId ?? "no scene");
  if (!sceneId) {
    hud.showBanner("This page is not a scene. Open /s/your-scene-name to join one.");
    return null;
  }
  // `?name=` names this visit only: it is not saved, and it leaves the address bar so a link
  // copied from there does not make a friend join under this name.
  const name = params.has("name") ? cleanName(params.get("name")) : storedName();
  if (params.has("name")) {
    params.delete("name");
    const query = params.toString();
    // (The fragment stays: a host link's key is read from it later.)
    history.replaceState(
      null,
      "",
      `${location.pathname}${query ? `?${query}` : ""}${location.hash}`,
    );
  }
  const motionQuery = matchMedia("(prefers-reduced-motion: reduce)");
  const touch = matchMedia("(pointer: coarse)").matches;
  showEmbedView(params, sceneId, touch);
  canvas.setAttribute(
    "aria-label",
    touch
      ? "Night scene. Tap the sky to launch a firework, long-press for the particle gun."
      : "Night scene. Click or press F to launch a firework, G to fire the particle gun, " +
        "arrow keys or drag to look around.",
  );
  return { sceneId, canvas, params, hud, name, motionQuery, touch };
}

/** Step 2: the three.js renderer, or a banner saying WebGL is missing (and the error thrown). */
function createRenderer({ canvas, params, hud, motionQuery }: PageSetup): SceneRenderer {
  let renderer: SceneRenderer;
  try {
    renderer = new SceneRenderer({
      canvas,
      reducedMotion: motionQuery.matches,
      preserveDrawingBuffer: params.has("test"),
    });
  } catch (error) {
    hud.showBanner("Snowfire needs WebGL, and this browser could not provide it.");
    throw error;
  }
  // Tests of the page's state alone skip the GPU draw (see SceneRenderer.drawing).
  renderer.drawing = !(params.has("test") && params.has("nodraw"));
  return renderer;
}

/**
 * Host rights: a host link (`#host=KEY`) is kept in this browser and taken out of the address
 * bar; a kept key is proven after every welcome.
 */
function readHostKey(sceneId: string): HostKey {
  const storageName = hostKeyStorageName(sceneId);
  const linked = /^#host=([A-Za-z0-9_-]{32})$/.exec(location.hash)?.[1];
  if (linked) {
    try {
      localStorage.setItem(storageName, linked);
    } catch { /* private mode: the key lasts this visit */ }
    history.replaceState(null, "", location.pathname + location.search);
  }
  let key: string | undefined = linked;
  try {
    key ??= localStorage.getItem(storageName) ?? undefined;
  } catch { /* storage unavailable */ }
  return { storageName, key };
}

/**
 * Step 3: the simulation, sound, replay, the composer and what the HUD shows beside the scene.
 * `link` is the scene's link (made later; the composer reads it when it sends).
 */
function createScene(setup: PageSetup, renderer: SceneRenderer, link: () => Net): ScenePage {
  // Sound starts with the first gesture; the mute choice is the page's (FireworkSound.muted).
  const sound = new FireworkSound();
  sound.resumeOnGesture();
  const playout = new Playout();
  const hashes: ScenePage["hashes"] = [];
  const cues = new SoundCues(sound);
  const showEvents: ScenePage["showEvents"] = [];
  /** A derived launch (show, finale, cue list) the live world applied: no event comes for it. */
  const derivedLaunch = (event: SceneEvent): void => {
    if (!replay.active) cues.add(sim.seed, event);
    if (event.body.type !== "launch") return;
    showEvents.push({ seq: event.seq, tick: event.tick, x: event.body.x, z: event.body.z });
    if (showEvents.length > 500) showEvents.shift();
  };
  /** The live world before the latest rebuild: how far it had got says which ticks were skipped. */
  let lastWorld: World | null = null;
  const rebuilds: ScenePage["rebuilds"] = [];
  const sim = new Sim({
    checkpoint: (tick, hash) => hashes.push({ tick, h: hash }),
    rebuilt: (world: World) => {
      world.onDerived = derivedLaunch;
      rebuilds.push({ from: lastWorld?.tick ?? -1, to: world.tick });
      if (rebuilds.length > 100) rebuilds.shift();
      lastWorld = world;
      // (A show previewed in the composer keeps the screen until it stops.)
      return composer.previewing || replay.liveRebuilt(world);
    },
  });
  // Replay, moment links and clips (client/replay/); the live scene keeps running underneath.
  const replay: ReplayMode = new ReplayMode({
    sceneId: setup.sceneId,
    canvas: setup.canvas,
    renderer,
    sound,
    toast: (text, options) => setup.hud.toast(text, options),
    liveWorld: () => sim.world,
    liveHorizon: () => sim.horizon,
    liveTime: () => playout.renderTime,
  });
  const observed: DebugObserved = { you: "", errors: [], invalidFrames: 0 };
  const host = readHostKey(setup.sceneId);
  const rules = new SceneRules();
  const composer = mountComposer({
    sceneId: setup.sceneId,
    kinds: FIREWORK_KINDS,
    hud: setup.hud,
    rules,
    replay,
    renderer,
    sound,
    net: link,
    liveWorld: () => sim.world,
    you: () => observed.you,
    hostKey: () => host.key,
  });
  return {
    ...setup,
    renderer,
    sound,
    cues,
    musicList: new ShowMusicList(),
    playout,
    timings: new FrameTimings(),
    observed,
    hashes,
    sim,
    replay,
    rules,
    showEvents,
    rebuilds,
    countdown: new CountdownDisplay(),
    voice: new CountdownVoice(),
    labels: new BurstLabels(),
    floats: new ReactionFloats(),
    host,
    composer,
  };
}

/** Step 4: the page's remembered switches (names by bursts, spoken countdown). */
function bindPageSwitches({ labels, voice }: ScenePage): void {
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
}

/**
 * What the page does with each server message. `link` is the scene's link (made with these
 * handlers, so read when a message comes).
 */
function linkHandlers(scene: ScenePage, panels: LinkedPanels, link: () => Net): NetHandlers {
  const { hud, sim, observed, rules, replay, cues, labels, floats, host } = scene;
  const { musicList, composer, countdown } = scene;
  /** A stamped show counts down on every page like a finale; a cancel ends its countdown. */
  const showCountdown = (event: SceneEvent): void => {
    const body = event.body;
    if (body.type === "show") countdown.showAt(event.seq, body.start, body.title);
    else if (body.type === "show-cancel") countdown.showCancelled(body.show);
  };
  return {
    welcome(message) {
      const net = link();
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
      panels.host.setPeers(message.you, message.peers);
      composer.rightsChanged();
      if (!message.resumed) countdown.clearShows();
      for (const live of message.snapshot.shows ?? []) {
        if (live.cancel === undefined) countdown.showAt(live.seq, live.show.start, live.show.title);
      }
      for (const event of message.events) showCountdown(event);
      if (host.key && !rules.isHost(message.you.id)) {
        net.hostAction({ do: "claim", key: host.key });
      }
    },
    heartbeat: (horizon) => sim.heartbeat(horizon),
    event(event) {
      const fault = sim.receiveEvent(event);
      if (fault) {
        link().restartFresh();
        return;
      }
      if (!replay.active) cues.add(sim.seed, event);
      rules.event(event);
      musicList.event(event);
      composer.event(event);
      showCountdown(event);
      if (event.by === "show") return;
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
      if (message.kind === "leave") panels.host.removePeer(message.peer);
      else panels.host.addPeer(message.peer);
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
        link().close();
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
      host.key = message.key;
      try {
        localStorage.setItem(host.storageName, message.key);
      } catch { /* storage unavailable: the link below still works */ }
      panels.host.showHostLink(hostLink(location.origin, scene.sceneId, message.key));
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
  };
}

/**
 * Step 5: the settings and host panels, whose actions go out on the link (Escape reaches the
 * settings panel once step 7 binds it).
 */
function createPanels({ hud }: ScenePage, link: () => Net, notConnected: () => void): LinkedPanels {
  // A change made while offline waits in the panel and goes out once connected.
  const settings = new SettingsPanel((change) =>
    link().submit({ type: "settings", settings: change })
  );
  const host = new HostPanel(
    (action) => link().hostAction(action) || (notConnected(), false),
    (text) => hud.toast(text),
  );
  return { settings, host };
}

/** Step 6: the scene's link to the server (not connected yet). */
function createLink(scene: ScenePage, panels: LinkedPanels): Net {
  const { sceneId, name, sim, hud } = scene;
  const net: Net = new Net({
    url: sceneSocketUrl(location, sceneId),
    name,
    person: personToken(),
    resumeFrom: () => (sim.world ? sim.lastSeq : undefined),
    handlers: linkHandlers(scene, panels, () => net),
  });
  hud.onReconnectNow(() => net.reconnectNow());
  hud.onRename((raw) => {
    const next = cleanName(raw);
    if (next === net.name) return;
    storeName(next);
    net.rename(next);
  });
  return net;
}

/** What step 7 binds: disposed when the page goes. */
interface Controls {
  input: Input;
  gestures: ViewGestures;
  resetView: HTMLButtonElement;
}

/** Step 7: the bar's panels, the picker, reactions, the pointer and keys, the mute button. */
function bindControls(
  scene: ScenePage,
  net: Net,
  panels: LinkedPanels,
  notConnected: () => void,
): Controls {
  const { hud, canvas, renderer, replay, sceneId, sound, composer } = scene;
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
  // (Added after the invite: Escape closes the settings panel first when both are open.)
  hud.addEscapeTarget(panels.settings);
  const picker = new LaunchPicker(FIREWORK_KINDS);
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
  // The mute button and M key drive the sound; the choice is remembered by the HUD.
  hud.onMuteChange((muted) => (sound.muted = muted));
  return { input, gestures, resetView };
}

/** This browser's quality choice and, under Auto, the governor that steps it down. */
interface QualityControl {
  choice(): QualityChoice;
  /** After a frame of `interval` ms: steps the quality down under Auto when frames are slow. */
  frame(interval: number): void;
}

/**
 * Step 8: quality (this browser's choice): Auto lets the governor step down on slow frames. Test
 * pages read pixels at a fixed resolution, so they start at High unless a test chooses.
 */
function bindQuality({ renderer, params }: ScenePage): QualityControl {
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
  return {
    choice: () => qualityChoice,
    frame(interval) {
      if (!governor?.frame(interval)) return;
      renderer.applyQuality(governor.level);
      qualityMenu.show(qualityChoice, governor.level);
    },
  };
}

/** Step 9: a show's music, in step with the scene clock (none while replaying the past). */
function createMusic({ sceneId, sound }: ScenePage, net: Net): ShowMusic {
  return new ShowMusic({
    scene: sceneId,
    audio: () => sound.audio,
    muted: () => sound.muted,
    serverTick: (ms) => net.clock.serverTick(ms),
  });
}

/** Step 10: `window.snowfire`, the read-only debug hook the end-to-end tests use. */
function exposeHook(scene: ScenePage, net: Net, quality: QualityControl, music: ShowMusic): void {
  const { sim, renderer, playout, timings, sound, observed, rules, labels, floats, hud } = scene;
  const hook = exposeDebugHook({ sim, net, renderer, playout, timings, sound }, observed);
  Object.assign(hook, {
    /** The host rules as this page knows them (no key hashes ever reach a page). */
    rules: () => rules.current,
    showEvents: () => [...scene.showEvents],
    rebuilds: () => [...scene.rebuilds],
    /** Where the show's music is (the sample leaving the speakers now), or null. */
    music: () => music.position(),
    /** Live burst labels: name, colour, burst tick, showing now, pixel position. */
    burstLabels: () => labels.shown(),
    /** Reactions shown on this page, oldest first. */
    reactions: () => [...floats.seen],
    /** A person's colour as this page knows it from presence. */
    colorOf: (id: string) => hud.colorOf(id),
    /** This browser's quality choice and what the page draws now. */
    quality: () => ({ choice: quality.choice(), ...renderer.qualityLevel }),
    /** Whether the renderer follows reduced motion now. */
    reducedMotion: () => renderer.reducedMotion,
    /** Whole seconds the countdown shows now, or null. */
    countdownLeft: () =>
      CountdownDisplay.remaining(rules.current.countdown, net.clock.serverTick(performance.now())),
  });
}

/**
 * Step 11: the frame loop: steps the simulation within a time budget, sends the checkpoint
 * hashes, draws (live or replay), and refreshes the panels and, a few times a second, the HUD.
 */
function runFrames(
  scene: ScenePage,
  net: Net,
  panels: LinkedPanels,
  quality: QualityControl,
  resetView: HTMLButtonElement,
  music: ShowMusic,
): void {
  const { sim, playout, hashes, replay, renderer, cues, labels, canvas, timings, rules } = scene;
  const { countdown, voice, hud, composer } = scene;
  const noMusic = new ShowMusicList();
  const stats = new FrameStats();
  const clock = () => performance.now();
  let lastFrameMs = NaN;
  let lastHudMs = -Infinity;
  let lastCountMs = -Infinity, particleCount = 0;
  let countedWorld: World | null = null;
  const frame = (nowMs: number) => {
    requestAnimationFrame(frame);
    const started = performance.now();
    const interval = Number.isNaN(lastFrameMs) ? 16 : nowMs - lastFrameMs;
    lastFrameMs = nowMs;
    let time = 0;
    const budget = Math.min(STEP_BUDGET_MS.max, Math.max(STEP_BUDGET_MS.min, interval / 2));
    if (sim.world) {
      time = playout.update(started, net.clock.serverTick(started), sim.horizon);
      sim.advance(Math.ceil(time), budget, clock);
    }
    for (const { tick, h } of hashes) net.send({ t: "hash", tick, h });
    hashes.length = 0;
    const replayed = replay.frame(nowMs, budget, clock);
    const previewed = replayed === null
      ? composer.frame(nowMs, STEP_BUDGET_MS.min, clock, time)
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
    if (sim.world) panels.settings.display(sim.world.settings);
    panels.host.display(rules);
    const serverTick = net.clock.serverTick(performance.now());
    music.update(performance.now(), replay.active ? noMusic : scene.musicList);
    countdown.update(rules.current.countdown, serverTick);
    // The spoken count follows what the display counts: a finale's, or a show's start.
    voice.update(countdown.left);
    stats.frame(nowMs);
    quality.frame(interval);
    // Text for the HUD is made a few times a second, not every frame.
    if (nowMs - lastHudMs >= HUD_REFRESH.textMs) {
      lastHudMs = nowMs;
      const current = sim.world;
      // (At once for a world joined or replaced since the last count.)
      if (nowMs - lastCountMs >= HUD_REFRESH.particleCountMs || current !== countedWorld) {
        lastCountMs = nowMs;
        countedWorld = current;
        particleCount = current
          ? current.expectedParticles() + Math.min(current.snow.count, MAX_FLAKES)
          : 0;
      }
      hud.setStats(stats.fps, particleCount);
      hud.setLatency(net.latencyMs);
      if (resetView.hidden === renderer.viewMoved) resetView.hidden = !renderer.viewMoved;
      hud.update();
    }
  };
  requestAnimationFrame(frame);
}

/** Starts the scene page: each step in the order the next ones need it. */
function start(): void {
  // The page's CSP allows no eval: without this zod would probe `new Function` on first parse,
  // which the browser reports as a CSP violation (it then falls back to this mode anyway).
  z.config({ jitless: true });
  const setup = readPage();
  if (!setup) return;
  const scene = createScene(setup, createRenderer(setup), () => net);
  bindPageSwitches(scene);
  const notConnected = () =>
    scene.hud.toast("Not connected right now; try again in a moment.", { error: true });
  const panels = createPanels(scene, () => net, notConnected);
  const net = createLink(scene, panels);
  const controls = bindControls(scene, net, panels, notConnected);
  const quality = bindQuality(scene);
  const help = new HelpPanel();
  // Reduced motion is followed live, not only at load.
  setup.motionQuery.addEventListener(
    "change",
    (event) => scene.renderer.setReducedMotion(event.matches),
  );
  const music = createMusic(scene, net);
  exposeHook(scene, net, quality, music);
  runFrames(scene, net, panels, quality, controls.resetView, music);
  net.connect();

  globalThis.addEventListener("pagehide", () => {
    net.close();
    controls.input.dispose();
    controls.gestures.dispose();
    help.dispose();
    music.dispose();
    scene.sound.dispose();
    scene.renderer.dispose();
  });
}

start();
