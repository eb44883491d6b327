/**
 * The synthesised firework sounds as a Web Audio graph on any `BaseAudioContext` — the page's
 * `AudioContext`, or an `OfflineAudioContext` a test renders and measures. No samples: a launch
 * thump with a short rising whistle, a burst boom (filtered noise and a falling sine) that arrives
 * distance / 343 m/s late and is quieter and duller far away, and crackle for crackling kinds.
 *
 * Every voice goes through one master gain, a compressor acting as a limiter and a soft clipper
 * (a `WaveShaperNode` that can never output more than {@link OUTPUT_CEILING}), and at most
 * {@link MAX_VOICES} sound at once: a new voice beyond that fades out the one closest to its end.
 * So a sky full of bursts neither clips nor piles up hundreds of nodes.
 */

/** Speed of sound in air, m/s. */
export const SPEED_OF_SOUND = 343;
/** Voices that may sound at once; a new one beyond this steals the one closest to its end. */
export const MAX_VOICES = 24;
/** The largest sample the graph can output (the soft clipper's ceiling). */
export const OUTPUT_CEILING = 0.98;
/** Below this distance (metres) a sound plays at full level; beyond, it falls off as 1 / d. */
const REFERENCE_DISTANCE = 45;
/** The soft clipper is linear for small signals and saturates towards the ceiling by this input. */
const CLIPPER_RANGE = 4;

/** Distance attenuation for a sound `distance` metres away (1 near, falling as 1 / d). */
export function distanceGain(distance: number): number {
  return distance <= REFERENCE_DISTANCE ? 1 : REFERENCE_DISTANCE / distance;
}

/** Seconds for sound to travel `distance` metres. */
export function soundDelay(distance: number): number {
  return Math.max(0, distance) / SPEED_OF_SOUND;
}

/** Options of a burst sound. */
export interface BurstSound {
  /** Crackling kinds add a second of crackle after the boom. */
  crackle: boolean;
  /** About 0.5–1.5: scales the boom. */
  size: number;
}

interface Voice {
  /** Context time the voice ends. */
  end: number;
  gain: GainNode;
  sources: AudioScheduledSourceNode[];
}

/**
 * The firework sound graph on one audio context. Times are the context's: a sound asked for now
 * starts at `currentTime` plus its travel delay.
 *
 * @example
 * ```ts
 * const context = new OfflineAudioContext(1, 48_000 * 3, 48_000);
 * const voices = new FireworkVoices(context);
 * voices.launch(30);
 * voices.burst(120, { crackle: true, size: 1 });
 * const rendered = await context.startRendering();
 * ```
 */
export class FireworkVoices {
  private readonly context: BaseAudioContext;
  private readonly master: GainNode;
  private readonly limiter: DynamicsCompressorNode;
  private readonly clipIn: GainNode;
  private readonly clipper: WaveShaperNode;
  private readonly noise: AudioBuffer;
  private readonly crackleBuffer: AudioBuffer;
  private voices: Voice[] = [];

  constructor(context: BaseAudioContext, destination: AudioNode = context.destination) {
    this.context = context;
    this.limiter = context.createDynamicsCompressor();
    this.limiter.threshold.value = -14;
    this.limiter.knee.value = 8;
    this.limiter.ratio.value = 16;
    this.limiter.attack.value = 0.003;
    this.limiter.release.value = 0.25;
    // The compressor reacts in milliseconds and adds make-up gain; the clipper after it catches
    // what gets through, so the output never exceeds OUTPUT_CEILING.
    this.clipIn = context.createGain();
    this.clipIn.gain.value = 1 / CLIPPER_RANGE;
    this.clipper = context.createWaveShaper();
    this.clipper.curve = softClipCurve();
    this.clipper.oversample = "2x";
    this.master = context.createGain();
    this.master.connect(this.limiter).connect(this.clipIn).connect(this.clipper).connect(
      destination,
    );
    this.noise = noiseBuffer(context, 2);
    this.crackleBuffer = crackleBuffer(context, 1.4);
  }

  /** Voices sounding or scheduled now. */
  get activeVoices(): number {
    this.prune();
    return this.voices.length;
  }

  /** Fades everything out (30 ms) or back in: the mute switch. */
  setMuted(muted: boolean): void {
    this.master.gain.setTargetAtTime(muted ? 0 : 1, this.context.currentTime, 0.01);
  }

  /** A launch `distance` metres away, heard distance / 343 s from now: a thump and a whistle. */
  launch(distance: number): void {
    const context = this.context;
    const at = context.currentTime + soundDelay(distance);
    const length = 1.0;
    const voice = this.voice(at, length, distanceGain(distance) * 0.35);
    if (!voice) return;
    const thump = fallingSine(context, voice.gain, at, [110, 40, 0.18], [0.005, 0.22, 1]);
    const whistle = context.createOscillator();
    whistle.type = "triangle";
    whistle.frequency.setValueAtTime(900, at);
    whistle.frequency.setValueAtTime(900, at + 0.05);
    whistle.frequency.exponentialRampToValueAtTime(2100, at + 0.9);
    const whistleGain = context.createGain();
    whistleGain.gain.setValueAtTime(0, at);
    whistleGain.gain.linearRampToValueAtTime(0.12, at + 0.15);
    whistleGain.gain.exponentialRampToValueAtTime(0.0001, at + 0.95);
    whistle.connect(whistleGain).connect(voice.gain);
    this.play(voice, [thump, whistle], at, length);
  }

  /**
   * A burst `distance` metres away, heard distance / 343 s from now: a boom (duller and quieter
   * with distance), and for crackling kinds crackle after it.
   */
  burst(distance: number, options: BurstSound): void {
    const context = this.context;
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
    const body = fallingSine(context, voice.gain, at, [70, 32, 0.5], [0.003, 0.6, 0.8]);
    const sources: AudioScheduledSourceNode[] = [rumble, body];
    if (options.crackle) {
      const crackle = context.createBufferSource();
      crackle.buffer = this.crackleBuffer;
      const crackleGain = context.createGain();
      // Far crackle loses its edge like the boom does.
      const crackleFilter = context.createBiquadFilter();
      crackleFilter.type = "lowpass";
      crackleFilter.frequency.value = Math.min(12_000, 4 * cutoff + 2000);
      crackleGain.gain.value = 0.5;
      crackle.connect(crackleFilter).connect(crackleGain).connect(voice.gain);
      crackle.start(at + 0.35);
      crackle.stop(at + length);
      voice.sources.push(crackle);
    }
    this.play(voice, sources, at, length);
  }

  /** Stops every voice and disconnects the graph. */
  dispose(): void {
    const now = this.context.currentTime;
    for (const voice of this.voices) stopVoice(voice, now);
    this.voices = [];
    this.master.disconnect();
    this.clipper.disconnect();
  }

  /** A new voice (gain node into the master) for a sound from `at` lasting `length` seconds. */
  private voice(at: number, length: number, level: number): Voice | null {
    if (level <= 0.005) return null;
    const now = this.context.currentTime;
    this.prune();
    while (this.voices.length >= MAX_VOICES) {
      // Steal the voice that ends first: it has the least left to say.
      let oldest = 0;
      for (let i = 1; i < this.voices.length; i++) {
        if (this.voices[i].end < this.voices[oldest].end) oldest = i;
      }
      stopVoice(this.voices[oldest], now);
      this.voices.splice(oldest, 1);
    }
    const gain = this.context.createGain();
    gain.gain.value = level;
    gain.connect(this.master);
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
    const now = this.context.currentTime;
    this.voices = this.voices.filter((voice) => voice.end > now);
  }
}

/**
 * A sine falling from `from` to `to` Hz over `sweep` s, through an `envelope` of its own, into
 * `out` (the launch thump and the boom's body): the oscillator, for the caller to start and stop.
 */
function fallingSine(
  context: BaseAudioContext,
  out: AudioNode,
  at: number,
  [from, to, sweep]: [number, number, number],
  [attack, decay, peak]: [number, number, number],
): OscillatorNode {
  const sine = context.createOscillator();
  sine.type = "sine";
  sine.frequency.setValueAtTime(from, at);
  sine.frequency.exponentialRampToValueAtTime(to, at + sweep);
  const gain = context.createGain();
  envelope(gain.gain, at, attack, decay, peak);
  sine.connect(gain).connect(out);
  return sine;
}

/** Attack to `peak` in `attack` s from `at`, then an exponential decay over `decay` s. */
function envelope(param: AudioParam, at: number, attack: number, decay: number, peak: number) {
  param.setValueAtTime(0.0001, at);
  param.exponentialRampToValueAtTime(peak, at + attack);
  param.exponentialRampToValueAtTime(0.0001, at + attack + decay);
}

/** Fades a voice out (time constant 10 ms) from `now` and stops its sources 60 ms later. */
function stopVoice(voice: Voice, now: number): void {
  voice.gain.gain.cancelScheduledValues(now);
  voice.gain.gain.setValueAtTime(voice.gain.gain.value, now);
  voice.gain.gain.setTargetAtTime(0, now, 0.01);
  for (const source of voice.sources) {
    try {
      source.stop(now + 0.06);
    } catch {
      // Already stopped: nothing to stop.
    }
  }
}

/**
 * The clipper's transfer curve over inputs −1…1 (the signal is scaled by 1 / CLIPPER_RANGE before
 * it): `c·tanh(x / c)` of the unscaled signal x, nearly the identity below 0.5 and never above
 * the ceiling c.
 */
function softClipCurve(): Float32Array<ArrayBuffer> {
  const size = 4097;
  const curve = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    const x = ((i / (size - 1)) * 2 - 1) * CLIPPER_RANGE;
    curve[i] = OUTPUT_CEILING * Math.tanh(x / OUTPUT_CEILING);
  }
  return curve;
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
