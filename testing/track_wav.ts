/**
 * Generated WAV tracks for tests: 16-bit PCM mono, a tone with short clicks at chosen seconds (a
 * beat the ear and the onset detector both find), so a page's playback position can be checked
 * against what it plays.
 *
 * @example
 * ```ts
 * import { clickTrack } from "./track_wav.ts";
 * const wav = clickTrack({ seconds: 2, clicksAt: [0.5, 1, 1.5] });
 * console.log(new TextDecoder().decode(wav.subarray(0, 4))); // "RIFF"
 * ```
 */

/** What {@link clickTrack} makes. */
export interface ClickTrackOptions {
  /** Length in seconds. */
  seconds: number;
  /** Samples a second. Default 8000. */
  sampleRate?: number;
  /** Seconds at which a 10 ms click sounds. Default none. */
  clicksAt?: readonly number[];
  /** Frequency of a quiet background tone, Hz (0: silence between clicks). Default 220. */
  toneHz?: number;
}

/** A mono 16-bit PCM WAV file's bytes. */
export function wavBytes(samples: Float32Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const data = samples.length * 2;
  const out = new Uint8Array(44 + data);
  const view = new DataView(out.buffer);
  const text = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  text(0, "RIFF");
  view.setUint32(4, 36 + data, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  text(36, "data");
  view.setUint32(40, data, true);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    view.setInt16(44 + 2 * i, Math.round(s * 32767), true);
  }
  return out;
}

/** The samples of a tone with clicks (see {@link ClickTrackOptions}). */
export function clickSamples(options: ClickTrackOptions): Float32Array {
  const rate = options.sampleRate ?? 8000;
  const tone = options.toneHz ?? 220;
  const samples = new Float32Array(Math.round(options.seconds * rate));
  for (let i = 0; i < samples.length; i++) {
    samples[i] = tone > 0 ? 0.05 * Math.sin((2 * Math.PI * tone * i) / rate) : 0;
  }
  const clickLength = Math.round(0.01 * rate);
  for (const at of options.clicksAt ?? []) {
    const from = Math.round(at * rate);
    for (let i = 0; i < clickLength && from + i < samples.length; i++) {
      // A decaying 1 kHz burst.
      samples[from + i] = 0.9 * (1 - i / clickLength) * Math.sin((2 * Math.PI * 1000 * i) / rate);
    }
  }
  return samples;
}

/** A WAV track of a tone with clicks. */
export function clickTrack(options: ClickTrackOptions): Uint8Array<ArrayBuffer> {
  return wavBytes(clickSamples(options), options.sampleRate ?? 8000);
}
