/**
 * A show's music, played on every page in step with the scene clock. The track is fetched once
 * (its URL is immutable), decoded with `decodeAudioData` and played by an `AudioBufferSourceNode`
 * started at an exact context time and offset: position = (T − start) / 60 s, T being the scene
 * tick the page's clock estimate (`client/net/clock_sync.ts`) gives for the moment that sample
 * leaves the speakers (`AudioContext.getOutputTimestamp`, else the context's latencies). So a page
 * that joins mid-show starts at the right place, and two pages play the same sample at the same
 * moment as closely as their clock estimates agree. Four times a second the position is checked
 * against the clock: off by more than {@link NUDGE_SECONDS}, the playback rate is nudged (at most
 * 0.5 %) until the gap closes; off by more than {@link RESEEK_SECONDS} twice running, it is
 * started again at the right offset. It stops at a cancel, at the track's end or when no show plays; muted, it
 * keeps its place silently, so unmuting is in time.
 *
 * @example
 * ```ts
 * const music = new ShowMusic({
 *   scene: "quiet-pine",
 *   audio: () => sound.audio,
 *   muted: () => sound.muted,
 *   serverTick: (ms) => net.clock.serverTick(ms),
 * });
 * // every frame:
 * music.update(performance.now(), list);
 * ```
 */
import { TICK_RATE } from "../../shared/constants.ts";
import type { MusicShow, ShowMusicList } from "./show_music_list.ts";

/**
 * Off by more than this (s), twice running, the music is started again at the right place: below
 * the 40 ms two pages may differ by (it was 50 ms, which a page could sit just under for seconds
 * while a nudge of at most 0.5 % closed it), above the clock estimate's usual jitter.
 */
export const RESEEK_SECONDS = 0.03;
/** Off by more than this (s), the playback rate is nudged to close the gap. */
export const NUDGE_SECONDS = 0.003;
/** The most the rate is nudged (0.5 %: a gap of 20 ms closes in 4 s, the pitch barely moves). */
const MAX_NUDGE = 0.005;
/** A nudge aims to close the gap in this many seconds (less when the rate would pass MAX_NUDGE). */
const NUDGE_OVER_SECONDS = 2;
/** Ticks before a show's start at which its track is fetched and its start scheduled. */
const LEAD_TICKS = 10 * TICK_RATE;
/** How far ahead (s) a start is scheduled on the audio clock. */
const SCHEDULE_AHEAD = 0.1;
/** The position is checked this often (ms). */
const CHECK_MS = 250;
/** The music's level under the page's output (fireworks stay audible over it). */
const MUSIC_GAIN = 0.7;

/** What the player needs from the page. */
export interface ShowMusicDeps {
  /** The scene (tracks are served at `/s/<scene>/tracks/<id>`). */
  scene: string;
  /** The running audio context and the node everything audible goes through, or null. */
  audio(): { context: AudioContext; output: AudioNode } | null;
  /** Whether the page's sound is muted. */
  muted(): boolean;
  /** The scene's fractional tick at local monotonic time `ms` (performance.now()). */
  serverTick(ms: number): number;
  /** Fetches a track's bytes (default: `fetch`). */
  load?(url: string): Promise<ArrayBuffer>;
}

/** Where the music is, for tests and the curious ({@link ShowMusic.position}). */
export interface MusicPosition {
  /** The playing show's seq and track id. */
  show: number;
  track: string;
  /** Seconds into the track of the sample leaving the speakers at `wallMs`. */
  seconds: number;
  /** Where the page's clock says the track should be then (s). */
  expected: number;
  /** Wall-clock ms (performance.timeOrigin + performance.now()) of that moment. */
  wallMs: number;
  /** Scene tick the page's clock estimate gives for that moment. */
  tick: number;
  /** Times the player started again to correct its place. */
  reseeks: number;
  /** The playback rate now (1, or nudged by at most 0.5 %). */
  rate: number;
}

interface Playing {
  show: MusicShow;
  source: AudioBufferSourceNode;
  gain: GainNode;
  /** Context time at which track second `offset` plays, and the rate since. */
  when: number;
  offset: number;
  rate: number;
  context: AudioContext;
}

/** Plays the music of the show that plays now. */
export class ShowMusic {
  readonly #deps: ShowMusicDeps;
  /** Decoded tracks (and decodes under way), by track id. */
  readonly #buffers = new Map<string, Promise<AudioBuffer | null>>();
  readonly #ready = new Map<string, AudioBuffer>();
  #playing: Playing | null = null;
  #lastCheckMs = -Infinity;
  #strikes = 0;
  #reseeks = 0;
  #failed = new Set<string>();

  constructor(deps: ShowMusicDeps) {
    this.#deps = deps;
  }

  /** Called every frame (it does its work a few times a second). */
  update(nowMs: number, list: ShowMusicList): void {
    const audio = this.#deps.audio();
    if (!audio) {
      this.#stop();
      return;
    }
    const tick = this.#deps.serverTick(nowMs);
    const show = list.playing(tick, LEAD_TICKS);
    if (this.#playing && this.#playing.show !== show) this.#stop();
    if (this.#playing) this.#playing.gain.gain.value = this.#deps.muted() ? 0 : MUSIC_GAIN;
    if (!show) return;
    const buffer = this.#buffer(show, audio.context, list);
    if (!buffer) return;
    if (!this.#playing) {
      this.#start(show, buffer, audio.context, audio.output);
      return;
    }
    if (nowMs - this.#lastCheckMs < CHECK_MS) return;
    this.#lastCheckMs = nowMs;
    const where = this.position();
    if (!where || where.seconds < 0) return;
    const gap = where.seconds - where.expected;
    if (Math.abs(gap) > RESEEK_SECONDS) {
      // Far off (a start the page was too busy to schedule in time): at once; else on the
      // second look, so one late frame does not cost a seek.
      if (++this.#strikes >= 2 || Math.abs(gap) > 2 * RESEEK_SECONDS) {
        this.#strikes = 0;
        this.#reseeks++;
        this.#stop();
        this.#start(show, buffer, audio.context, audio.output);
      }
      return;
    }
    this.#strikes = 0;
    const nudge = Math.abs(gap) > NUDGE_SECONDS
      ? Math.max(-MAX_NUDGE, Math.min(MAX_NUDGE, gap / NUDGE_OVER_SECONDS))
      : 0;
    this.#setRate(1 - nudge);
  }

  /** Plays on at `rate` from now, keeping the position's bookkeeping exact. */
  #setRate(rate: number): void {
    const playing = this.#playing;
    if (!playing || playing.rate === rate) return;
    const now = playing.context.currentTime;
    if (now < playing.when) return;
    playing.offset += (now - playing.when) * playing.rate;
    playing.when = now;
    playing.rate = rate;
    playing.source.playbackRate.setValueAtTime(rate, now);
  }

  /**
   * Where the music is: the sample leaving the speakers now and where the clock says it should
   * be; null when nothing plays.
   */
  position(): MusicPosition | null {
    const playing = this.#playing;
    if (!playing) return null;
    const { contextTime, performanceTime } = outputTimestamp(playing.context);
    const tick = this.#deps.serverTick(performanceTime);
    return {
      show: playing.show.seq,
      track: playing.show.track.id,
      seconds: playing.offset + (contextTime - playing.when) * playing.rate,
      expected: (tick - playing.show.start) / TICK_RATE,
      wallMs: performance.timeOrigin + performanceTime,
      tick,
      reseeks: this.#reseeks,
      rate: playing.rate,
    };
  }

  /** Stops the music and forgets the decoded tracks. */
  dispose(): void {
    this.#stop();
    this.#buffers.clear();
    this.#ready.clear();
  }

  /** The decoded track, or null while it loads (the load is started here). */
  #buffer(show: MusicShow, context: AudioContext, list: ShowMusicList): AudioBuffer | null {
    const id = show.track.id;
    const ready = this.#ready.get(id);
    if (ready) return ready;
    if (this.#buffers.has(id) || this.#failed.has(id)) return null;
    const url = `/s/${encodeURIComponent(this.#deps.scene)}/tracks/${id}`;
    const load = this.#deps.load ??
      (async (u: string) => {
        const response = await fetch(u);
        if (!response.ok) throw new Error(`track ${id}: HTTP ${response.status}`);
        return await response.arrayBuffer();
      });
    const decoding = load(url).then((bytes) => context.decodeAudioData(bytes)).then(
      (buffer) => {
        this.#ready.set(id, buffer);
        list.setLength(id, buffer.duration * TICK_RATE);
        return buffer;
      },
      (e) => {
        console.warn(`show music: ${(e as Error).message}`);
        this.#failed.add(id);
        this.#buffers.delete(id);
        return null;
      },
    );
    this.#buffers.set(id, decoding);
    return null;
  }

  /** Starts `buffer` where the scene clock says it is at a context time a moment ahead. */
  #start(show: MusicShow, buffer: AudioBuffer, context: AudioContext, output: AudioNode): void {
    const when = context.currentTime + SCHEDULE_AHEAD;
    const { contextTime, performanceTime } = outputTimestamp(context);
    // The sample scheduled at `when` leaves the speakers at this local time:
    const heardMs = performanceTime + (when - contextTime) * 1000;
    const position = (this.#deps.serverTick(heardMs) - show.start) / TICK_RATE;
    if (position >= buffer.duration) return;
    const gain = context.createGain();
    gain.gain.value = this.#deps.muted() ? 0 : MUSIC_GAIN;
    gain.connect(output);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(gain);
    // Before the start: wait for it; after: begin part-way.
    const startAt = position < 0 ? when - position : when;
    const offset = Math.max(0, position);
    source.start(startAt, offset);
    this.#playing = { show, source, gain, when: startAt, offset, rate: 1, context };
    this.#lastCheckMs = -Infinity;
  }

  #stop(): void {
    const playing = this.#playing;
    if (!playing) return;
    this.#playing = null;
    this.#strikes = 0;
    try {
      playing.source.stop();
    } catch { /* never started */ }
    playing.source.disconnect();
    playing.gain.disconnect();
  }
}

/**
 * A context time and the local time (performance.now() ms) at which its sample leaves the
 * speakers: the browser's output timestamp when it gives one, else the current time plus the
 * context's latencies.
 */
function outputTimestamp(context: AudioContext): { contextTime: number; performanceTime: number } {
  const stamp = context.getOutputTimestamp?.();
  if (stamp?.contextTime && stamp.performanceTime) {
    return { contextTime: stamp.contextTime, performanceTime: stamp.performanceTime };
  }
  const latency = (context.baseLatency ?? 0) + (context.outputLatency ?? 0);
  return { contextTime: context.currentTime, performanceTime: performance.now() + latency * 1000 };
}
