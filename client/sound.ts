/**
 * Firework sound, synthesised with Web Audio (no samples): a launch thump with a short whistle,
 * a burst boom that arrives distance / 343 m/s after the flash and is quieter and duller far
 * away, and crackle for crackling kinds. The AudioContext is created only inside the first user
 * gesture (so the browser never warns about autoplay); every voice goes through a compressor
 * acting as a limiter, and at most MAX_VOICES play at once (the oldest is faded out to make room),
 * so a sky full of bursts neither clips nor stutters.
 */

/** Speed of sound in air, m/s. */
export const SPEED_OF_SOUND = 343;
/** Voices that may sound at once; a new one beyond this steals the oldest. */
export const MAX_VOICES = 24;
/** Below this distance (metres) a sound plays at full level; beyond, it falls off as 1 / d. */
const REFERENCE_DISTANCE = 45;

interface Voice {
  /** AudioContext time the voice ends. */
  end: number;
  gain: GainNode;
  sources: AudioScheduledSourceNode[];
}

/** Distance attenuation for a sound `distance` metres away (1 near, falling as 1 / d). */
export function distanceGain(distance: number): number {
  return distance <= REFERENCE_DISTANCE ? 1 : REFERENCE_DISTANCE / distance;
}

/** Seconds for sound to travel `distance` metres. */
export function soundDelay(distance: number): number {
  return Math.max(0, distance) / SPEED_OF_SOUND;
}

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
  private master: GainNode | null = null;
  private noise: AudioBuffer | null = null;
  private crackleBuffer: AudioBuffer | null = null;
  private voices: Voice[] = [];
  private isMuted = false;
  private readonly abort = new AbortController();

  /** True when the sound is muted (the page remembers the choice). */
  get muted(): boolean {
    return this.isMuted;
  }

  set muted(on: boolean) {
    this.isMuted = on;
    const context = this.context;
    if (context && this.master) {
      this.master.gain.setTargetAtTime(on ? 0 : 1, context.currentTime, 0.03);
    }
  }

  /** True once the audio context runs (after a user gesture). */
  get running(): boolean {
    return this.context?.state === "running";
  }

  /** Voices sounding now (for tests and the curious). */
  get activeVoices(): number {
    this.prune();
    return this.voices.length;
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
    const context = this.context;
    if (!context || !this.ready()) return;
    const at = context.currentTime + soundDelay(distance);
    const level = distanceGain(distance) * 0.35;
    const voice = this.voice(at, 1.0, level);
    if (!voice) return;
    const thump = context.createOscillator();
    thump.type = "sine";
    thump.frequency.setValueAtTime(110, at);
    thump.frequency.exponentialRampToValueAtTime(40, at + 0.18);
    const thumpGain = context.createGain();
    envelope(thumpGain.gain, at, 0.005, 0.22, 1);
    thump.connect(thumpGain).connect(voice.gain);
    const whistle = context.createOscillator();
    whistle.type = "triangle";
    whistle.frequency.setValueAtTime(900, at + 0.05);
    whistle.frequency.exponentialRampToValueAtTime(2100, at + 0.9);
    const whistleGain = context.createGain();
    whistleGain.gain.setValueAtTime(0, at);
    whistleGain.gain.linearRampToValueAtTime(0.12, at + 0.15);
    whistleGain.gain.exponentialRampToValueAtTime(0.0001, at + 0.95);
    whistle.connect(whistleGain).connect(voice.gain);
    this.play(voice, [thump, whistle], at, 1.0);
  }

  /**
   * A burst `distance` metres away, heard distance / 343 s from now: a boom (duller and quieter
   * with distance), and for crackling kinds a second of crackle after it. `size` (about 0.5–1.5)
   * scales the boom.
   */
  burst(distance: number, options: { crackle: boolean; size: number }): void {
    const context = this.context;
    if (!context || !this.ready() || !this.noise) return;
    const at = context.currentTime + soundDelay(distance);
    const level = distanceGain(distance) * Math.min(1.5, Math.max(0.3, options.size));
    const length = 1.8;
    const voice = this.voice(at, length, level);
    if (!voice) return;
    const rumble = context.createBufferSource();
    rumble.buffer = this.noise;
    const filter = context.createBiquadFilter();
    filter.type = "lowpass";
    // Air takes the highs of far bangs.
    const cutoff = 2400 / (1 + distance / 60);
    filter.frequency.setValueAtTime(cutoff, at);
    filter.frequency.exponentialRampToValueAtTime(Math.max(60, cutoff * 0.15), at + 1.2);
    const rumbleGain = context.createGain();
    envelope(rumbleGain.gain, at, 0.004, 1.4, 0.9);
    rumble.connect(filter).connect(rumbleGain).connect(voice.gain);
    const body = context.createOscillator();
    body.type = "sine";
    body.frequency.setValueAtTime(70, at);
    body.frequency.exponentialRampToValueAtTime(32, at + 0.5);
    const bodyGain = context.createGain();
    envelope(bodyGain.gain, at, 0.003, 0.6, 0.8);
    body.connect(bodyGain).connect(voice.gain);
    const sources: AudioScheduledSourceNode[] = [rumble, body];
    if (options.crackle && this.crackleBuffer) {
      const crackle = context.createBufferSource();
      crackle.buffer = this.crackleBuffer;
      const crackleGain = context.createGain();
      crackleGain.gain.value = 0.5;
      crackle.connect(crackleGain).connect(voice.gain);
      crackle.start(at + 0.35);
      crackle.stop(at + length);
      voice.sources.push(crackle);
    }
    this.play(voice, sources, at, length);
  }

  /** Stops every voice and closes the audio context. */
  dispose(): void {
    this.abort.abort();
    for (const voice of this.voices) stopVoice(voice, 0);
    this.voices = [];
    void this.context?.close();
    this.context = null;
  }

  private start(): void {
    if (!this.context) {
      const context = new AudioContext();
      this.context = context;
      const limiter = context.createDynamicsCompressor();
      limiter.threshold.value = -14;
      limiter.knee.value = 8;
      limiter.ratio.value = 16;
      limiter.attack.value = 0.003;
      limiter.release.value = 0.25;
      limiter.connect(context.destination);
      this.master = context.createGain();
      this.master.gain.value = this.isMuted ? 0 : 1;
      this.master.connect(limiter);
      this.noise = noiseBuffer(context, 2);
      this.crackleBuffer = crackleBuffer(context, 1.4);
    }
    if (this.context.state === "suspended") void this.context.resume();
  }

  /** True when sounds should be made (context running, not muted). */
  private ready(): boolean {
    return this.context?.state === "running" && !this.isMuted;
  }

  /** A new voice (gain node into the master) for a sound from `at` lasting `length` seconds. */
  private voice(at: number, length: number, level: number): Voice | null {
    const context = this.context, master = this.master;
    if (!context || !master || level <= 0.005) return null;
    this.prune();
    while (this.voices.length >= MAX_VOICES) {
      // Steal the voice that ends first: it has the least left to say.
      let oldest = 0;
      for (let i = 1; i < this.voices.length; i++) {
        if (this.voices[i].end < this.voices[oldest].end) oldest = i;
      }
      stopVoice(this.voices[oldest], context.currentTime);
      this.voices.splice(oldest, 1);
    }
    const gain = context.createGain();
    gain.gain.value = level;
    gain.connect(master);
    return { end: at + length, gain, sources: [] };
  }

  private play(voice: Voice, sources: AudioScheduledSourceNode[], at: number, length: number) {
    for (const source of sources) {
      source.start(at);
      source.stop(at + length);
      voice.sources.push(source);
    }
    voice.sources[voice.sources.length - 1].onended = () => voice.gain.disconnect();
    this.voices.push(voice);
  }

  private prune(): void {
    const now = this.context?.currentTime ?? 0;
    this.voices = this.voices.filter((voice) => voice.end > now);
  }
}

/** Attack to `peak` in `attack` s from `at`, then an exponential decay over `decay` s. */
function envelope(param: AudioParam, at: number, attack: number, decay: number, peak: number) {
  param.setValueAtTime(0.0001, at);
  param.exponentialRampToValueAtTime(peak, at + attack);
  param.exponentialRampToValueAtTime(0.0001, at + attack + decay);
}

/** Fades a voice out in 30 ms from `now` and stops its sources. */
function stopVoice(voice: Voice, now: number): void {
  voice.gain.gain.cancelScheduledValues(now);
  voice.gain.gain.setTargetAtTime(0, now, 0.01);
  for (const source of voice.sources) {
    try {
      source.stop(now + 0.05);
    } catch {
      // Not started yet or already stopped: nothing to stop.
    }
  }
}

/** `seconds` of white noise (a fixed generator: the same bang everywhere). */
function noiseBuffer(context: BaseAudioContext, seconds: number): AudioBuffer {
  const buffer = context.createBuffer(
    1,
    Math.floor(context.sampleRate * seconds),
    context.sampleRate,
  );
  const data = buffer.getChannelData(0);
  let state = 0x9e3779b9;
  for (let i = 0; i < data.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    data[i] = ((state >>> 0) / 4294967296) * 2 - 1;
  }
  return buffer;
}

/** `seconds` of crackle: a few hundred sharp pops of random loudness, thinning out. */
function crackleBuffer(context: BaseAudioContext, seconds: number): AudioBuffer {
  const rate = context.sampleRate;
  const buffer = context.createBuffer(1, Math.floor(rate * seconds), rate);
  const data = buffer.getChannelData(0);
  let state = 0x2545f491;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const pops = 260;
  for (let k = 0; k < pops; k++) {
    // More pops early, fewer late.
    const t = seconds * random() ** 1.6;
    const start = Math.floor(t * rate);
    const length = Math.floor(rate * (0.002 + random() * 0.004));
    const loud = 0.3 + random() * 0.7;
    for (let i = 0; i < length && start + i < data.length; i++) {
      const decay = 1 - i / length;
      data[start + i] += (random() * 2 - 1) * loud * decay * decay;
    }
  }
  return buffer;
}
