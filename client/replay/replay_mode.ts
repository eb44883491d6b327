/**
 * Replay on the page: the bar, the replay world's driver, moment links and clips, tied to the
 * live scene. The live scene keeps running underneath (its socket, its world, its checkpoint
 * hashes): going back to live only binds the live world for drawing again.
 *
 * Launches are off while replaying (a click says so and how to get back): a firework launched
 * from a moment in the past would burst in the live sky, which the replaying viewer does not
 * see, so the page does not pretend.
 */
import { TICK_MS } from "../../shared/constants.ts";
import type { World } from "../../shared/world.ts";
import { SoundCues } from "../audio/sound_cues.ts";
import type { FireworkSound } from "../audio/sound.ts";
import type { SceneRenderer } from "../render/renderer.ts";
import { clipFormats, ClipRecorder, downloadClip } from "./clip_recorder.ts";
import { LogClient } from "./log_client.ts";
import {
  clockText,
  friendlyTime,
  momentLink,
  momentText,
  parseMoment,
  tickTime,
} from "./moment.ts";
import { MomentGoneError, ReplayDriver } from "./replay_driver.ts";

declare global {
  /** The replay's debug hook (tests read it from inside the page). */
  var snowfireReplay: ReplayDebug;
}
import { Timeline } from "./timeline.ts";

/** What replay needs from the page. */
export interface ReplayModeOptions {
  sceneId: string;
  canvas: HTMLCanvasElement;
  renderer: SceneRenderer;
  sound: FireworkSound;
  toast(text: string, options?: { error?: boolean }): void;
  /** The live world (null before the first welcome). */
  liveWorld(): World | null;
  /** The live heartbeat horizon. */
  liveHorizon(): number;
  /** The live displayed (fractional) tick. */
  liveTime(): number;
  /** Where the bar goes. */
  parent?: HTMLElement;
}

/** A replay that catches up to within this many ticks of the live view becomes live. */
const CATCH_UP_TICKS = 6;
/** Where opening the bar starts a replay: this far back. */
const OPEN_BACK_TICKS = 600;
/** How often the bar's text and range refresh, ms. */
const BAR_INTERVAL_MS = 200;

/** `window.snowfireReplay`, for tests and the curious. */
export interface ReplayDebug {
  active(): boolean;
  loading(): boolean;
  tick(): number;
  time(): number;
  hashAt(tick: number): string | undefined;
  checkpoints(): number[];
  seek(tick: number): Promise<number | null>;
  live(): void;
  lastLink(): string;
  exactFromTick(): number;
  recording(): boolean;
  /** The replay tick the last frame drew (−1 when it drew the live scene). */
  shown(): number;
}

/**
 * Replay, moment links and clips for one scene page.
 *
 * @example
 * ```ts
 * const replay = new ReplayMode({ sceneId, canvas, renderer, sound, toast, liveWorld, ... });
 * // in the frame loop:
 * const shown = replay.frame(now, budget, clock) ?? liveTime;
 * ```
 */
export class ReplayMode {
  readonly #o: ReplayModeOptions;
  readonly #log: LogClient;
  readonly #driver: ReplayDriver;
  readonly #bar: Timeline;
  readonly #cues: SoundCues;
  readonly #recorder: ClipRecorder;
  #replaying = false;
  #loading = false;
  #paused = false;
  #speed = 1;
  #time = 0;
  #lastNow = NaN;
  #lastBarMs = -Infinity;
  /** A seek waiting for the one in flight. */
  #queued: number | null = null;
  #seeking = false;
  /** A seek ended and its frame has not been drawn yet (see {@link holdFrame}). */
  #owedFrame = false;
  /** What the last frame drew: a replay tick, or −1 for the live scene. */
  #shown = -1;
  /** The log's head (epoch, first kept tick) is being fetched. */
  #heading = false;
  /** `?at=` waiting for the live welcome. */
  #pendingAt: string | null;
  #lastLink = "";

  constructor(options: ReplayModeOptions) {
    this.#o = options;
    this.#log = new LogClient(options.sceneId);
    this.#cues = new SoundCues(options.sound);
    this.#driver = new ReplayDriver({
      log: this.#log,
      liveHorizon: options.liveHorizon,
      rebuilt: (world) => {
        if (this.#replaying) this.#o.renderer.bindWorld(world);
      },
      due: (seed, event) => this.#cues.add(seed, event),
    });
    this.#recorder = new ClipRecorder(options.canvas, () => options.sound.captureStream());
    const parent = options.parent ?? document.querySelector<HTMLElement>(".hud-middle") ??
      document.body;
    this.#bar = new Timeline(parent, clipFormats(), {
      seek: (tick, final) => this.seek(tick, final),
      // Back from near the start of what is kept lands on its start (not on a "no longer kept").
      jump: (ticks) =>
        this.seek(
          Math.max(
            this.#driver.exactFromTick,
            (this.#replaying ? this.#time : options.liveTime()) + ticks,
          ),
          true,
        ),
      playPause: () => this.#togglePause(),
      speed: (speed) => (this.#speed = speed),
      live: () => this.goLive(),
      share: () => this.#share(),
      record: (seconds, format) => this.#record(seconds, format),
      stopRecording: () => this.#recorder.stop(),
      close: () => this.close(),
      earliest: () => this.seek(this.#driver.exactFromTick, true),
    });
    this.#pendingAt = new URLSearchParams(location.search).get("at");
    if (this.#pendingAt !== null) this.#bar.open();
    document.addEventListener("keydown", (event) => this.#onKey(event));
    document.getElementById("replay-open")?.addEventListener("click", () => this.toggle());
    this.#syncOpener();
    globalThis.snowfireReplay = this.#debug();
  }

  /** True while the page shows a replay (or is loading one). */
  get active(): boolean {
    return this.#replaying;
  }

  /**
   * True while a seek loads (asked once a frame): the page keeps showing the frame it last drew
   * instead of drawing new ones. On a software renderer a frame takes 0.5–1.5 s of the CPU the seek needs (seeks that
   * took 0.3 s with the drawing held took 3–5.5 s with it running, at 1280×720 here); a GPU
   * draws nearly for free, and the hold lasts the seek's few hundred milliseconds.
   */
  holdFrame(): boolean {
    // A clip being recorded needs every frame drawn.
    if (!this.#loading || !this.#replaying || this.#recorder.recording) return false;
    // A seek that just ended is drawn once before the next one (a scrub queues them) holds again.
    if (this.#owedFrame) {
      this.#owedFrame = false;
      return false;
    }
    return true;
  }

  /** True while the replay bar is open (Escape closes it). */
  get isOpen(): boolean {
    return this.#bar.isOpen;
  }

  /** Closes the bar: back to live. */
  close(): void {
    this.goLive();
    this.#bar.close();
    this.#syncOpener();
  }

  /** The page drew a frame (a clip being recorded takes it). */
  drew(): void {
    this.#recorder.frame();
  }

  /** Opens the bar at a moment 10 s back, or closes it (back to live). */
  toggle(): void {
    if (this.#bar.isOpen) {
      this.goLive();
      this.#bar.close();
    } else {
      this.#bar.open();
      this.seek(Math.max(this.#driver.exactFromTick, this.#o.liveTime() - OPEN_BACK_TICKS), true);
    }
    this.#syncOpener();
  }

  /**
   * A launch while replaying is not sent: returns true (and says why) then.
   */
  holdLaunch(): boolean {
    if (!this.#replaying) return false;
    this.#o.toast("You are watching a replay: launches are off. Press L or Live to go back.");
    return true;
  }

  /** The live world was rebuilt: draw it unless a replay is shown. */
  liveRebuilt(world: World): void {
    if (!this.#replaying || !this.#driver.world) this.#o.renderer.bindWorld(world);
  }

  /** Shows the replay from `tick` (back to live when it is at or past the live view). */
  seek(tick: number, final = true): void {
    const live = this.#o.liveTime();
    if (tick >= live - CATCH_UP_TICKS) {
      if (final) this.goLive();
      return;
    }
    this.#setMessage(null);
    this.#replaying = true;
    this.#bar.open();
    if (this.#seeking) {
      this.#queued = tick;
      return;
    }
    this.#seeking = true;
    this.#loading = true;
    this.#driver.seek(tick).then((at) => {
      if (at !== null && this.#replaying) {
        this.#time = at;
        this.#lastNow = NaN;
        this.#owedFrame = true;
      }
    }).catch((e) => {
      if (e instanceof MomentGoneError) {
        this.#setGone(tickTime(this.#driver.epoch, Math.max(0, Math.floor(tick))), e.exactFromTick);
      } else {
        this.#o.toast(`Could not load the replay: ${(e as Error).message}`, { error: true });
      }
      this.goLive(false);
    }).finally(() => {
      this.#seeking = false;
      this.#loading = false;
      const queued = this.#queued;
      this.#queued = null;
      if (queued !== null && this.#replaying) this.seek(queued, true);
    });
  }

  /** Back to the live scene at once (same socket, same world). */
  goLive(clearMessage = true): void {
    const wasReplaying = this.#replaying;
    this.#replaying = false;
    this.#queued = null;
    this.#driver.stop();
    if (clearMessage) this.#setMessage(null);
    const live = this.#o.liveWorld();
    if (live && wasReplaying) this.#o.renderer.bindWorld(live);
    if (new URLSearchParams(location.search).has("at")) {
      history.replaceState(null, "", location.pathname);
    }
    this.#refreshBar(performance.now(), true);
  }

  /**
   * One frame: moves the replay's time and world. Returns the tick to draw, or null when the
   * live scene is shown.
   */
  frame(nowMs: number, budgetMs: number, clock: () => number): number | null {
    if (this.#pendingAt !== null && this.#o.liveWorld()) this.#openMoment(this.#pendingAt);
    const world = this.#driver.world;
    if (!this.#replaying || !world) {
      this.#lastNow = nowMs;
      this.#refreshBar(nowMs);
      this.#shown = -1;
      return null;
    }
    const elapsed = Number.isNaN(this.#lastNow) ? 0 : nowMs - this.#lastNow;
    this.#lastNow = nowMs;
    if (!this.#paused && !this.#seeking) {
      this.#time += (this.#speed * elapsed) / TICK_MS;
      if (this.#time >= this.#o.liveTime() - CATCH_UP_TICKS) {
        this.goLive();
        this.#o.toast("The replay caught up: you are live.");
        return null;
      }
    }
    const reached = this.#driver.advance(Math.ceil(this.#time), budgetMs, clock);
    if (this.#time > reached) this.#time = reached;
    this.#cues.update(this.#time, this.#o.renderer.camera.position);
    this.#refreshBar(nowMs);
    this.#shown = this.#time;
    return this.#time;
  }

  #openMoment(at: string): void {
    this.#pendingAt = null;
    this.#log.head().then((head) => {
      this.#driver.learn(head);
      const parsed = parseMoment(at, head.epoch);
      if ("error" in parsed) {
        const ms = Date.parse(at);
        this.#setMessage(
          /before this scene began/.test(parsed.error)
            ? `That moment (${friendlyTime(ms, Date.now())}) is from before this scene began.`
            : `${parsed.error}.`,
        );
        return;
      }
      if (parsed.tick < head.exactFromTick) {
        this.#setGone(tickTime(head.epoch, parsed.tick), head.exactFromTick);
        return;
      }
      this.#paused = true;
      this.seek(parsed.tick, true);
    }).catch((e) => this.#setMessage(`Could not open that moment: ${(e as Error).message}`));
  }

  #togglePause(): void {
    if (!this.#replaying) return;
    this.#paused = !this.#paused;
    this.#refreshBar(performance.now(), true);
  }

  #shownTick(): number {
    return Math.floor(this.#replaying && this.#driver.world ? this.#time : this.#o.liveTime());
  }

  async #share(): Promise<void> {
    if (this.#driver.epoch === 0) this.#driver.learn(await this.#log.head());
    const link = momentLink(
      location.origin,
      this.#o.sceneId,
      this.#driver.epoch,
      this.#shownTick(),
    );
    this.#lastLink = link;
    try {
      await navigator.clipboard.writeText(link);
      this.#o.toast(`Link to this moment copied: ${link}`);
    } catch {
      this.#o.toast(`Link to this moment: ${link}`);
    }
  }

  #record(seconds: number, format: Parameters<ClipRecorder["start"]>[1]): void {
    const epoch = this.#driver.epoch;
    const name = `snowfire-${this.#o.sceneId}-${
      momentText(epoch, this.#shownTick()).replace(/[:]/g, "")
    }`;
    this.#bar.setRecording(0, seconds);
    this.#recorder.start(seconds, format, {
      progress: (s) => this.#bar.setRecording(s, seconds),
      done: (clip) => {
        this.#bar.setRecording(null);
        downloadClip(clip, name);
        this.#o.toast(`Clip saved (${clip.seconds.toFixed(1)} s, ${clip.format.label}).`);
      },
      failed: (message) => {
        this.#bar.setRecording(null);
        this.#o.toast(`No clip saved: ${message}.`, { error: true });
      },
    });
  }

  #setMessage(text: string | null, earliest = false): void {
    this.#bar.setMessage(text, earliest);
    if (text !== null) this.#bar.open();
    this.#syncOpener();
  }

  /** A moment (wall time `ms`) older than what the scene keeps: say so, offer the oldest kept. */
  #setGone(ms: number, exactFromTick: number): void {
    const now = Date.now();
    const oldest = friendlyTime(tickTime(this.#driver.epoch, exactFromTick), now);
    this.#setMessage(
      `That moment (${friendlyTime(ms, now)}) is no longer kept. This scene's replay starts ` +
        `${oldest}.`,
      true,
    );
  }

  #refreshBar(nowMs: number, force = false): void {
    if (!this.#bar.isOpen || (!force && nowMs - this.#lastBarMs < BAR_INTERVAL_MS)) return;
    this.#lastBarMs = nowMs;
    if (this.#driver.epoch === 0 && !this.#heading) {
      this.#heading = true;
      this.#log.head().then((head) => this.#driver.learn(head)).catch(() => {}).finally(() =>
        this.#heading = false
      );
    }
    const epoch = this.#driver.epoch;
    const live = this.#o.liveTime();
    const shown = this.#shownTick();
    const first = this.#driver.exactFromTick;
    this.#bar.setRange(first, Math.floor(live), epoch ? clockText(epoch, first) : "");
    this.#bar.setPosition(shown);
    this.#bar.setState({
      replaying: this.#replaying,
      paused: this.#paused,
      clock: epoch ? clockText(epoch, shown) : "",
      loading: this.#loading,
    });
    this.#bar.setSpeed(this.#speed);
  }

  #syncOpener(): void {
    document.getElementById("replay-open")?.setAttribute("aria-expanded", String(this.#bar.isOpen));
  }

  #onKey(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Typing in a text field or choosing in a list keeps its letters.
    const target = event.target as HTMLElement | null;
    if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return;
    if (target instanceof HTMLInputElement && !/^(range|checkbox|radio)$/.test(target.type)) return;
    if ((event.key === "l" || event.key === "L") && this.#replaying) {
      this.goLive();
      event.preventDefault();
    } else if ((event.key === "k" || event.key === "K") && this.#replaying) {
      this.#togglePause();
      event.preventDefault();
    } else if (event.key === "r" || event.key === "R") {
      this.toggle();
      event.preventDefault();
    }
  }

  #debug(): ReplayDebug {
    return {
      active: () => this.#replaying && this.#driver.world !== null,
      loading: () => this.#loading || this.#seeking,
      tick: () => this.#driver.world?.tick ?? -1,
      time: () => this.#time,
      hashAt: (tick) => this.#driver.hashAt(tick),
      checkpoints: () => this.#driver.checkpointTicks(),
      seek: async (tick) => {
        this.#paused = true;
        this.#replaying = true;
        this.#bar.open();
        this.#loading = true;
        try {
          const at = await this.#driver.seek(tick);
          if (at !== null) this.#time = at;
          return at;
        } finally {
          this.#loading = false;
        }
      },
      live: () => this.goLive(),
      lastLink: () => this.#lastLink,
      exactFromTick: () => this.#driver.exactFromTick,
      recording: () => this.#recorder.recording,
      shown: () => this.#shown,
    };
  }
}
