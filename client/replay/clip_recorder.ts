/**
 * Saves a clip: records the canvas (and the scene's sound, when it plays) with MediaRecorder for
 * a chosen length, then hands over the file. WebM where the browser can (every Chromium and
 * Firefox), MP4 where it offers that (Safari, newer Chromium).
 *
 * A canvas stream holds only the frames drawn after it starts: a page that draws none while it
 * records (drawing held, a background tab, a renderer that stopped) gave MediaRecorder nothing and
 * downloaded a 0-byte file. So the stream takes a frame each time the page says it drew one
 * ({@link ClipRecorder.frame}, `requestFrame`), the frames are counted, and a recording with none,
 * or no bytes, or a recorder error, is reported in words instead of saved.
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
  /** Frames the page drew into it. */
  frames: number;
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
  #track: CanvasCaptureMediaStreamTrack | null = null;
  #frames = 0;
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
    let recorder: MediaRecorder;
    try {
      // Frame rate 0: a frame is taken when the page draws one (see frame()).
      stream = this.#canvas.captureStream(0);
      for (const track of this.#audio()?.getAudioTracks() ?? []) stream.addTrack(track);
      recorder = new MediaRecorder(stream, {
        mimeType: format.mimeType,
        videoBitsPerSecond: 6_000_000,
      });
    } catch (e) {
      handlers.failed(`this browser cannot record the scene (${(e as Error).message})`);
      return;
    }
    this.#track = (stream.getVideoTracks()[0] ?? null) as CanvasCaptureMediaStreamTrack | null;
    this.#frames = 0;
    const chunks: Blob[] = [];
    const startedMs = performance.now();
    let error = "";
    recorder.ondataavailable = (e) => e.data.size > 0 && chunks.push(e.data);
    recorder.onerror = (e) => {
      error = (e as ErrorEvent).message || "the browser's recorder stopped with an error";
      this.stop();
    };
    recorder.onstop = () => {
      clearInterval(this.#timer);
      clearTimeout(this.#end);
      this.#recorder = null;
      this.#track = null;
      for (const track of stream.getVideoTracks()) track.stop();
      const recorded = (performance.now() - startedMs) / 1000;
      const blob = new Blob(chunks, { type: format.mimeType.split(";")[0] });
      if (error) handlers.failed(`${error}; nothing was saved`);
      else if (this.#frames === 0 || blob.size === 0) {
        handlers.failed(
          "the scene drew no pictures while recording, so there was nothing to save " +
            "(is drawing paused, or the tab hidden?)",
        );
      } else handlers.done({ blob, format, seconds: recorded, frames: this.#frames });
    };
    this.#recorder = recorder;
    recorder.start(1000);
    this.#timer = setInterval(() => {
      handlers.progress(Math.min((performance.now() - startedMs) / 1000, length));
    }, 250);
    // Its own timer, so the clip ends on time (not on the next progress tick).
    this.#end = setTimeout(() => this.stop(), length * 1000);
  }

  /** The page drew a frame: while recording, the stream takes it. */
  frame(): void {
    if (!this.#track || this.#recorder?.state !== "recording") return;
    this.#track.requestFrame();
    this.#frames++;
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
