/**
 * Saves a clip: records the canvas (and the scene's sound, when it plays) with MediaRecorder for
 * a chosen length, then hands over the file. WebM where the browser can (every Chromium and
 * Firefox), MP4 where it offers that (Safari, newer Chromium).
 */

/** A container the browser can record. */
export interface ClipFormat {
  label: string;
  mimeType: string;
  extension: string;
}

const CANDIDATES: readonly ClipFormat[] = [
  { label: "WebM", mimeType: "video/webm;codecs=vp9,opus", extension: "webm" },
  { label: "WebM", mimeType: "video/webm;codecs=vp8,opus", extension: "webm" },
  { label: "WebM", mimeType: "video/webm", extension: "webm" },
  { label: "MP4", mimeType: "video/mp4;codecs=avc1,mp4a.40.2", extension: "mp4" },
  { label: "MP4", mimeType: "video/mp4", extension: "mp4" },
];

/** Shortest and longest clip, seconds. */
export const CLIP_MIN_SECONDS = 5;
export const CLIP_MAX_SECONDS = 60;

/** The formats this browser records, best first, one per container. */
export function clipFormats(
  supported: (mime: string) => boolean = (mime) =>
    typeof MediaRecorder !== "undefined" && MediaRecorder.isTypeSupported(mime),
): ClipFormat[] {
  const out: ClipFormat[] = [];
  for (const format of CANDIDATES) {
    if (out.some((f) => f.label === format.label)) continue;
    if (supported(format.mimeType)) out.push(format);
  }
  return out;
}

/** A finished clip. */
export interface Clip {
  blob: Blob;
  format: ClipFormat;
  seconds: number;
}

/** Callbacks of a recording. */
export interface RecordingHandlers {
  /** Seconds recorded so far (about every quarter second). */
  progress(seconds: number): void;
  /** The clip is ready (also after an early stop). */
  done(clip: Clip): void;
  failed(message: string): void;
}

/**
 * Records one clip at a time.
 *
 * @example
 * ```ts
 * const recorder = new ClipRecorder(canvas, () => sound.captureStream());
 * recorder.start(10, clipFormats()[0], { progress, done: (clip) => download(clip), failed });
 * recorder.stop(); // early
 * ```
 */
export class ClipRecorder {
  readonly #canvas: HTMLCanvasElement;
  readonly #audio: () => MediaStream | null;
  #recorder: MediaRecorder | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #end: ReturnType<typeof setTimeout> | undefined;

  constructor(canvas: HTMLCanvasElement, audio: () => MediaStream | null) {
    this.#canvas = canvas;
    this.#audio = audio;
  }

  /** True while recording. */
  get recording(): boolean {
    return this.#recorder !== null;
  }

  /** Starts recording `seconds` (clamped to 5–60) in `format`. */
  start(seconds: number, format: ClipFormat, handlers: RecordingHandlers): void {
    if (this.#recorder) return;
    const length = Math.min(CLIP_MAX_SECONDS, Math.max(CLIP_MIN_SECONDS, seconds));
    let stream: MediaStream;
    try {
      stream = this.#canvas.captureStream(30);
      for (const track of this.#audio()?.getAudioTracks() ?? []) stream.addTrack(track);
    } catch (e) {
      handlers.failed(`this browser cannot record the scene (${(e as Error).message})`);
      return;
    }
    const recorder = new MediaRecorder(stream, {
      mimeType: format.mimeType,
      videoBitsPerSecond: 6_000_000,
    });
    const chunks: Blob[] = [];
    const startedMs = performance.now();
    recorder.ondataavailable = (e) => e.data.size > 0 && chunks.push(e.data);
    recorder.onerror = () => handlers.failed("recording failed");
    recorder.onstop = () => {
      clearInterval(this.#timer);
      clearTimeout(this.#end);
      this.#recorder = null;
      for (const track of stream.getVideoTracks()) track.stop();
      const recorded = (performance.now() - startedMs) / 1000;
      handlers.done({
        blob: new Blob(chunks, { type: format.mimeType.split(";")[0] }),
        format,
        seconds: recorded,
      });
    };
    this.#recorder = recorder;
    recorder.start(1000);
    this.#timer = setInterval(() => {
      handlers.progress(Math.min((performance.now() - startedMs) / 1000, length));
    }, 250);
    // Its own timer, so the clip ends on time (not on the next progress tick).
    this.#end = setTimeout(() => this.stop(), length * 1000);
  }

  /** Stops early; the clip so far is still handed over. */
  stop(): void {
    if (this.#recorder?.state === "recording") this.#recorder.stop();
  }
}

/** Offers `clip` as a download named `name`. */
export function downloadClip(clip: Clip, name: string): void {
  const url = URL.createObjectURL(clip.blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `${name}.${clip.format.extension}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
