/**
 * The page's firework sound: owns the `AudioContext`, created only inside the first user gesture
 * (so the browser never warns about autoplay), and the mute switch. The sounds themselves are the
 * graph in `firework_voices.ts`, which tests render offline.
 */
import { type BurstSound, FireworkVoices } from "./firework_voices.ts";

export { distanceGain, MAX_VOICES, soundDelay, SPEED_OF_SOUND } from "./firework_voices.ts";

/**
 * The page's firework sound. Nothing is audible (or even created) before the first gesture;
 * calls before that are ignored.
 *
 * @example
 * ```ts
 * const sound = new FireworkSound();
 * sound.resumeOnGesture();
 * muteButton.onclick = () => sound.muted = !sound.muted;
 * sound.burst(80, { crackle: false, size: 1 });
 * ```
 */
export class FireworkSound {
  private context: AudioContext | null = null;
  private voices: FireworkVoices | null = null;
  private isMuted = false;
  private readonly abort = new AbortController();
  /** Everything audible passes here (so a clip can record it too). */
  private output: GainNode | null = null;
  private tap: MediaStreamAudioDestinationNode | null = null;

  /** True when the sound is muted (the page remembers the choice). */
  get muted(): boolean {
    return this.isMuted;
  }

  set muted(on: boolean) {
    this.isMuted = on;
    this.voices?.setMuted(on);
  }

  /** True once the audio context runs (after a user gesture). */
  get running(): boolean {
    return this.context?.state === "running";
  }

  /** True once a gesture created the audio context (it may still be starting). */
  get created(): boolean {
    return this.context !== null;
  }

  /**
   * The running audio context and the node everything audible passes (a show's music plays
   * through it, so clips record it too), or null before a gesture started the context.
   */
  get audio(): { context: AudioContext; output: GainNode } | null {
    if (this.context?.state !== "running" || !this.output) return null;
    return { context: this.context, output: this.output };
  }

  /** Voices sounding now (for tests and the curious). */
  get activeVoices(): number {
    return this.voices?.activeVoices ?? 0;
  }

  /**
   * Creates (or resumes) the audio context inside the first user gesture on `target`: a click,
   * tap or key press. Browsers allow audio only from such a gesture.
   */
  resumeOnGesture(target: EventTarget = document): void {
    const start = () => {
      this.start();
      if (this.context?.state === "running") this.abort.abort();
    };
    const signal = this.abort.signal;
    for (const type of ["pointerup", "keydown", "touchend", "click"]) {
      target.addEventListener(type, start, { signal, capture: true });
    }
  }

  /** A launch `distance` metres away: a low thump and a short rising whistle. */
  launch(distance: number): void {
    if (this.ready()) this.voices?.launch(distance);
  }

  /**
   * A burst `distance` metres away, heard distance / 343 s from now: a boom (duller and quieter
   * with distance), and for crackling kinds crackle after it.
   */
  burst(distance: number, options: BurstSound): void {
    if (this.ready()) this.voices?.burst(distance, options);
  }

  /**
   * A stream of what the page sounds (for recording a clip), or null while the audio context is
   * not running (before a gesture started it, or where Web Audio cannot): a recorder given the
   * track of a suspended context waits for samples that never come and writes an empty file.
   */
  captureStream(): MediaStream | null {
    this.start();
    if (!this.context || !this.output || this.context.state !== "running") return null;
    if (!this.tap) {
      this.tap = this.context.createMediaStreamDestination();
      this.output.connect(this.tap);
    }
    return this.tap.stream;
  }

  /** Stops every voice and closes the audio context. */
  dispose(): void {
    this.abort.abort();
    this.voices?.dispose();
    this.voices = null;
    void this.context?.close();
    this.context = null;
    this.output = null;
    this.tap = null;
  }

  private start(): void {
    if (!this.context) {
      this.context = new AudioContext();
      this.output = this.context.createGain();
      this.output.connect(this.context.destination);
      this.voices = new FireworkVoices(this.context, this.output);
      this.voices.setMuted(this.isMuted);
    }
    if (this.context.state === "suspended") void this.context.resume();
  }

  /** True when sounds should be made (context running, not muted). */
  private ready(): boolean {
    return this.context?.state === "running" && !this.isMuted;
  }
}
