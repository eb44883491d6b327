/**
 * Reads a decoded track for the composer's time line, pure: its waveform (the loudest sample of
 * each 10 ms) and its beats. Beats: an onset strength per 256-sample hop (the rise of the
 * hop's energy over the mean of the last 20 hops), the tempo with the strongest autocorrelation
 * of that strength between 70 and 180 beats a minute, and beats at that tempo laid where the
 * onsets are strongest, each following the onset the last one landed on.
 */

/** Peaks per second of the waveform. */
const PEAKS_PER_SECOND = 100;
const HOP = 256;
const HISTORY = 20;

/** A track's waveform (0–1 peaks, `PEAKS_PER_SECOND`) and beat times (seconds). */
export interface TrackAnalysis {
  peaks: Float32Array;
  beats: number[];
  /** Beats a minute, or 0 when none was found. */
  bpm: number;
}

/**
 * Waveform and beats of mono `samples` at `rate` Hz.
 *
 * @example
 * ```ts
 * import { analyseAudio } from "./track_analysis.ts";
 *
 * const rate = 8000, samples = new Float32Array(rate * 8);
 * for (let b = 0; b < 16; b++) samples.fill(0.9, b * rate / 2, b * rate / 2 + 400); // 120 bpm
 * analyseAudio(samples, rate).bpm; // ≈ 120
 * ```
 */
export function analyseAudio(samples: Float32Array, rate: number): TrackAnalysis {
  const per = Math.max(1, Math.round(rate / PEAKS_PER_SECOND));
  const peaks = new Float32Array(Math.ceil(samples.length / per));
  for (let i = 0; i < peaks.length; i++) {
    let loud = 0;
    const end = Math.min(samples.length, (i + 1) * per);
    for (let s = i * per; s < end; s++) loud = Math.max(loud, Math.abs(samples[s]));
    peaks[i] = Math.min(1, loud);
  }
  // Onset strength per hop.
  const hops = Math.floor(samples.length / HOP);
  const energy = new Float32Array(hops);
  for (let h = 0; h < hops; h++) {
    let sum = 0;
    for (let s = h * HOP; s < (h + 1) * HOP; s++) sum += samples[s] * samples[s];
    energy[h] = Math.sqrt(sum / HOP);
  }
  const onset = new Float32Array(hops);
  let run = 0;
  for (let h = 0; h < hops; h++) {
    const mean = h > 0 ? run / Math.min(h, HISTORY) : 0;
    onset[h] = Math.max(0, energy[h] - mean);
    run += energy[h];
    if (h >= HISTORY) run -= energy[h - HISTORY];
  }
  const hopS = HOP / rate;
  // Tempo: the lag (70–180 bpm) whose autocorrelation is strongest.
  const minLag = Math.max(1, Math.round(60 / 180 / hopS));
  const maxLag = Math.round(60 / 70 / hopS);
  const corr = new Float32Array(maxLag + 2);
  let bestLag = 0, best = 0;
  for (let lag = minLag; lag <= maxLag + 1 && lag < hops; lag++) {
    let sum = 0;
    for (let h = lag; h < hops; h++) sum += onset[h] * onset[h - lag];
    corr[lag] = sum / (hops - lag);
    if (lag <= maxLag && corr[lag] > best * 1.0001) best = corr[lag], bestLag = lag;
  }
  if (bestLag === 0 || best <= 0) return { peaks, beats: [], bpm: 0 };
  // The period between hops: the peak of a parabola through the best lag and its neighbours.
  const a = corr[bestLag - 1] ?? 0, b = corr[bestLag], c = corr[bestLag + 1] ?? 0;
  const bend = a - 2 * b + c;
  const period = bestLag + (bend < 0 ? Math.max(-0.5, Math.min(0.5, (a - c) / (2 * bend))) : 0);
  // Phase: the grid offset that collects the most onset strength.
  let bestPhase = 0, collected = -1;
  for (let phase = 0; phase < bestLag; phase++) {
    let sum = 0;
    for (let h = phase; h < hops; h += period) sum += onset[Math.round(h)] ?? 0;
    if (sum > collected) collected = sum, bestPhase = phase;
  }
  // Each beat sits on the strongest onset within two hops of where the last one predicts.
  const beats: number[] = [];
  for (let pos = bestPhase; pos < hops;) {
    const h = Math.round(pos);
    let at = h, strongest = -1;
    for (let k = Math.max(0, h - 2); k <= Math.min(hops - 1, h + 2); k++) {
      if (onset[k] > strongest) strongest = onset[k], at = k;
    }
    beats.push(Math.round(at * hopS * 1000) / 1000);
    pos = (strongest > 0 ? at : pos) + period;
  }
  return { peaks, beats, bpm: Math.round((60 / (period * hopS)) * 10) / 10 };
}
