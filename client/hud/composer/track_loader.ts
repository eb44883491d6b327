/**
 * The composer's music: uploading a track to the scene (`POST /s/<scene>/tracks`, a host's key),
 * fetching a named one (`GET /s/<scene>/tracks/<id>`), and reading its waveform and beats for
 * the time line (decoded in the page, never played here: playing is the show's business).
 */
import { TRACK_MIMES } from "../../../shared/protocol.ts";
import { beatTicks } from "./beat_snap.ts";
import type { TrackRef } from "./draft_state.ts";
import { analyseAudio } from "./track_analysis.ts";
import type { Waveform } from "./wave_draw.ts";

/** What the loader needs. */
export interface TrackLoaderDeps {
  sceneId: string;
  hostKey(): string | undefined;
  toast(text: string, options?: { error?: boolean }): void;
  /** A track was uploaded and is to be the show's. */
  chosen(track: TrackRef): void;
  /** The waveform and beats of the show's track are ready (or gone). */
  analysed(): void;
}

/** Uploads, fetches and reads tracks. */
export class TrackLoader {
  readonly #d: TrackLoaderDeps;
  readonly #bytes = new Map<string, Uint8Array<ArrayBuffer>>();
  #current: string | null = null;
  /** Beats of the show's track, as show ticks. */
  beats: number[] = [];
  wave: Waveform | null = null;
  durationS: number | null = null;

  constructor(deps: TrackLoaderDeps) {
    this.#d = deps;
  }

  /** Uploads a chosen file. */
  async upload(file: File): Promise<void> {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const ref = await this.uploadBytes(bytes, file.name);
    if (ref) this.#d.chosen(ref);
  }

  /** Stores `bytes` as a track of this scene; its reference, or null (said why). */
  async uploadBytes(bytes: Uint8Array<ArrayBuffer>, name: string): Promise<TrackRef | null> {
    const key = this.#d.hostKey();
    if (!key) {
      this.#d.toast("Only a host can add music to this scene.", { error: true });
      return null;
    }
    let response: Response;
    try {
      response = await fetch(`/s/${this.#d.sceneId}/tracks`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: bytes,
      });
    } catch {
      this.#d.toast("The music could not be sent: not connected.", { error: true });
      return null;
    }
    const answer = await response.json().catch(() => ({})) as {
      id?: string;
      mime?: string;
      bytes?: number;
      message?: string;
    };
    const mime = (TRACK_MIMES as readonly string[]).includes(answer.mime ?? "")
      ? answer.mime as TrackRef["mime"]
      : undefined;
    if (!response.ok || !answer.id || !mime) {
      this.#d.toast(`The music was refused: ${answer.message ?? response.statusText}.`, {
        error: true,
      });
      return null;
    }
    this.#bytes.set(answer.id, bytes);
    const analysed = await this.#analyse(answer.id, bytes);
    const ref: TrackRef = {
      id: answer.id,
      name: name.slice(0, 200) || "music",
      mime,
      bytes: answer.bytes ?? bytes.length,
    };
    if (analysed) ref.ms = Math.round(analysed * 1000);
    this.#d.toast(`Music added: ${ref.name}.`);
    return ref;
  }

  /** The bytes of a track of this scene (for saving a show with its music). */
  async bytesOf(ref: TrackRef): Promise<Uint8Array<ArrayBuffer> | null> {
    const kept = this.#bytes.get(ref.id);
    if (kept) return kept;
    const response = await fetch(`/s/${this.#d.sceneId}/tracks/${ref.id}`);
    if (!response.ok) return null;
    const bytes = new Uint8Array(await response.arrayBuffer());
    this.#bytes.set(ref.id, bytes);
    return bytes;
  }

  /** The show's track is now `ref`: its waveform and beats are read (once per track). */
  use(ref: TrackRef | null): void {
    if ((ref?.id ?? null) === this.#current) return;
    this.#current = ref?.id ?? null;
    this.beats = [];
    this.wave = null;
    this.durationS = null;
    this.#d.analysed();
    if (!ref) return;
    this.bytesOf(ref).then((bytes) => bytes && this.#analyse(ref.id, bytes)).catch(() => {
      this.#d.toast("The show's music could not be read here.", { error: true });
    });
  }

  /** Decodes and reads `bytes`; the track's length in seconds, or null. */
  async #analyse(id: string, bytes: Uint8Array<ArrayBuffer>): Promise<number | null> {
    let buffer: AudioBuffer;
    try {
      const context = new OfflineAudioContext(1, 1, 44_100);
      buffer = await context.decodeAudioData(bytes.slice().buffer);
    } catch {
      return null;
    }
    this.#current = id;
    const { peaks, beats } = analyseAudio(buffer.getChannelData(0), buffer.sampleRate);
    this.wave = { peaks, durationS: buffer.duration };
    this.beats = beatTicks(beats);
    this.durationS = buffer.duration;
    this.#d.analysed();
    return buffer.duration;
  }
}
