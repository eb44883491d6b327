/**
 * A track's waveform and beats, for the show composer to draw and snap cues to: a pure function
 * of decoded PCM (no DOM, no clock), so tests feed it generated clicks and tones.
 *
 * - {@link waveform}: the envelope, peak and RMS per column.
 * - {@link onsets}: note onsets by **spectral flux** (the summed rise of log-magnitude spectra
 *   between frames, 2048-sample frames, hop 512 at 44.1 kHz scaled to the rate) picked against an
 *   **adaptive threshold** (the local mean of the flux over ±0.25 s, plus a margin): a peak must be
 *   the largest within ±50 ms and clear the threshold (and a floor a steady tone never reaches).
 * - {@link beats}: a tempo from the autocorrelation of the flux (60–180 BPM) and the beat grid at
 *   the phase the onsets agree on best, ready for {@link snapToBeat}.
 *
 * @example
 * ```ts
 * import { beats, snapToBeat } from "./beats.ts";
 * const rate = 8000;
 * const pcm = new Float32Array(4 * rate);
 * for (let s = 0; s < 4; s += 0.5) pcm[Math.round(s * rate)] = 1; // clicks at 120 BPM
 * const found = beats(pcm, rate);
 * console.log(Math.round(found.bpm)); // 120
 * console.log(snapToBeat(1.04, found.beats, 0.1)); // ~1.0
 * ```
 */

/** A track's envelope: for each of `columns` equal slices, its peak and RMS (0–1). */
export interface Waveform {
  peaks: Float32Array;
  rms: Float32Array;
  /** Seconds each column covers. */
  secondsPerColumn: number;
}

/** The envelope of `samples` in `columns` slices (mono; mix channels first). */
export function waveform(samples: Float32Array, sampleRate: number, columns: number): Waveform {
  const n = Math.max(1, Math.floor(columns));
  const peaks = new Float32Array(n);
  const rms = new Float32Array(n);
  const per = samples.length / n;
  for (let c = 0; c < n; c++) {
    const from = Math.floor(c * per);
    const to = Math.max(from + 1, Math.floor((c + 1) * per));
    let peak = 0;
    let sum = 0;
    for (let i = from; i < to && i < samples.length; i++) {
      const v = Math.abs(samples[i]);
      if (v > peak) peak = v;
      sum += v * v;
    }
    peaks[c] = Math.min(1, peak);
    rms[c] = Math.min(1, Math.sqrt(sum / (to - from)));
  }
  return { peaks, rms, secondsPerColumn: samples.length / sampleRate / n };
}

/** The onset detection function: spectral flux per frame, and the seconds between frames. */
export interface Flux {
  values: Float32Array;
  hopSeconds: number;
  /** Frequency bins summed per frame (the frame's half length). */
  bins: number;
}

/** Frame and hop lengths for `sampleRate` (2048 and 512 at 44.1 kHz, powers of two). */
function frameSizes(sampleRate: number): { frame: number; hop: number } {
  let frame = 256;
  while (frame * 2 <= (2048 * sampleRate) / 44100 + 1) frame *= 2;
  return { frame, hop: frame / 4 };
}

/**
 * Spectral flux of `samples`: for each hop, the sum over frequency bins of the rise (never the
 * fall) of `log(1 + 100·|X|)` since the previous frame, under a Hann window.
 */
export function spectralFlux(samples: Float32Array, sampleRate: number): Flux {
  const { frame, hop } = frameSizes(sampleRate);
  const frames = Math.max(0, Math.floor((samples.length - frame) / hop) + 1);
  const values = new Float32Array(frames);
  const re = new Float64Array(frame);
  const im = new Float64Array(frame);
  const window = new Float64Array(frame);
  for (let i = 0; i < frame; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / frame);
  const half = frame / 2;
  let previous = new Float64Array(half);
  let current = new Float64Array(half);
  for (let f = 0; f < frames; f++) {
    const at = f * hop;
    for (let i = 0; i < frame; i++) {
      re[i] = samples[at + i] * window[i];
      im[i] = 0;
    }
    fft(re, im);
    let flux = 0;
    for (let k = 0; k < half; k++) {
      const magnitude = Math.log1p(100 * Math.sqrt(re[k] * re[k] + im[k] * im[k]));
      current[k] = magnitude;
      const rise = magnitude - previous[k];
      if (f > 0 && rise > 0) flux += rise;
    }
    values[f] = flux;
    const swap = previous;
    previous = current;
    current = swap;
  }
  return { values, hopSeconds: hop / sampleRate, bins: half };
}

/** Options of {@link onsets}. */
export interface OnsetOptions {
  /** Seconds either side the adaptive threshold averages over. Default 0.25. */
  thresholdSeconds?: number;
  /** The threshold's margin, as a part of the whole flux's standard deviation. Default 0.5. */
  margin?: number;
  /** Onsets closer than this (s) are one. Default 0.05. */
  minGapSeconds?: number;
  /**
   * The least flux an onset has, as a mean rise per bin (log-magnitude units): a steady tone's
   * window leakage stays far below it. Default 0.02.
   */
  floorPerBin?: number;
}

/**
 * Onset times (seconds, ascending; each the start of the frame whose flux peaked, so about a
 * frame early at worst) of `samples`.
 */
export function onsets(
  samples: Float32Array,
  sampleRate: number,
  options: OnsetOptions = {},
): number[] {
  const flux = spectralFlux(samples, sampleRate);
  return pickOnsets(flux, options).map((f) => onsetSeconds(flux, f));
}

/** Where onset frame `f` begins sounding: the frame's centre, nudged back by a hop. */
function onsetSeconds(flux: Flux, f: number): number {
  // The flux jumps at the first frame whose window reaches the sound; its window's last hop
  // holds it: the frame starts 3 hops before that hop.
  return Math.max(0, (f + 3) * flux.hopSeconds);
}

/** Frame indices of onsets in `flux` (local maxima over an adaptive threshold). */
export function pickOnsets(flux: Flux, options: OnsetOptions = {}): number[] {
  const { values, hopSeconds } = flux;
  const n = values.length;
  if (n === 0) return [];
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i];
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (values[i] - mean) ** 2;
  const deviation = Math.sqrt(variance / n);
  const reach = Math.max(1, Math.round((options.thresholdSeconds ?? 0.25) / hopSeconds));
  const margin = Math.max(
    (options.margin ?? 0.5) * deviation,
    (options.floorPerBin ?? 0.02) * flux.bins,
  );
  const gap = Math.max(1, Math.round((options.minGapSeconds ?? 0.05) / hopSeconds));
  // Running sums for the local mean.
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + values[i];
  const found: number[] = [];
  for (let i = 0; i < n; i++) {
    const from = Math.max(0, i - reach);
    const to = Math.min(n, i + reach + 1);
    const local = (prefix[to] - prefix[from]) / (to - from);
    if (values[i] <= local + margin || values[i] <= 1e-9) continue;
    let isPeak = true;
    for (let j = Math.max(0, i - gap); j <= Math.min(n - 1, i + gap); j++) {
      if (values[j] > values[i] || (values[j] === values[i] && j < i)) {
        isPeak = false;
        break;
      }
    }
    if (isPeak) found.push(i);
  }
  return found;
}

/** A track's beats: its onsets, tempo and the beat grid (all in seconds). */
export interface Beats {
  onsets: number[];
  /** Beats per minute (0 when no pulse was found). */
  bpm: number;
  /** The beat grid from the first beat to the end of the track. */
  beats: number[];
}

/** Onsets, tempo and beat grid of `samples` (mono). */
export function beats(samples: Float32Array, sampleRate: number): Beats {
  const flux = spectralFlux(samples, sampleRate);
  const picked = pickOnsets(flux);
  const found = picked.map((f) => onsetSeconds(flux, f));
  const duration = samples.length / sampleRate;
  if (picked.length < 2) return { onsets: found, bpm: 0, beats: [] };
  // An onset train (1 at each picked frame) autocorrelated over the lags of 60–180 BPM; each
  // lag's score is spread over ±1 frame (onsets land a frame apart from one beat to the next).
  const train = new Float32Array(flux.values.length);
  for (const f of picked) train[f] = 1;
  const minLag = Math.max(1, Math.floor(60 / 180 / flux.hopSeconds));
  const maxLag = Math.min(train.length - 1, Math.ceil(60 / 60 / flux.hopSeconds));
  let bestLag = 0;
  let bestScore = 0;
  for (let lag = minLag; lag <= maxLag; lag++) {
    let score = 0;
    for (const f of picked) {
      for (let d = -1; d <= 1; d++) {
        const j = f + lag + d;
        if (j >= 0 && j < train.length) score += train[j] * (d === 0 ? 1 : 0.5);
      }
    }
    // Slower tempos fit every other onset of a faster one as well: prefer the faster on ties.
    if (score > bestScore * 1.05) {
      bestScore = score;
      bestLag = lag;
    }
  }
  if (bestLag === 0 || bestScore < 2) return { onsets: found, bpm: 0, beats: [] };
  // Refine the period: the mean interval between onsets about one lag apart.
  let sum = 0;
  let count = 0;
  for (let i = 1; i < found.length; i++) {
    for (let j = i - 1; j >= 0; j--) {
      const interval = found[i] - found[j];
      if (Math.abs(interval - bestLag * flux.hopSeconds) <= 1.5 * flux.hopSeconds) {
        sum += interval;
        count++;
        break;
      }
      if (interval > (bestLag + 2) * flux.hopSeconds) break;
    }
  }
  const period = count > 0 ? sum / count : bestLag * flux.hopSeconds;
  // The phase: the onset that most other onsets fall on the grid of.
  let phase = found[0];
  let bestHits = -1;
  for (const candidate of found) {
    let hits = 0;
    for (const t of found) {
      const k = Math.round((t - candidate) / period);
      if (Math.abs(t - candidate - k * period) <= 0.035) hits++;
    }
    if (hits > bestHits) {
      bestHits = hits;
      phase = candidate;
    }
  }
  const first = phase - Math.floor(phase / period) * period;
  const grid: number[] = [];
  for (let t = first; t < duration; t += period) grid.push(t);
  return { onsets: found, bpm: 60 / period, beats: grid };
}

/**
 * `seconds` moved to the nearest of `beats` (ascending) when one is within `tolerance`, else
 * unchanged.
 */
export function snapToBeat(seconds: number, beats: readonly number[], tolerance: number): number {
  let lo = 0;
  let hi = beats.length - 1;
  if (hi < 0) return seconds;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (beats[mid] < seconds) lo = mid + 1;
    else hi = mid;
  }
  let best = beats[lo];
  if (lo > 0 && Math.abs(beats[lo - 1] - seconds) < Math.abs(best - seconds)) best = beats[lo - 1];
  return Math.abs(best - seconds) <= tolerance ? best : seconds;
}

/** In-place radix-2 FFT of (`re`, `im`), whose length is a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let start = 0; start < n; start += size) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < size / 2; k++) {
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b] * cr - im[b] * ci;
        const ti = re[b] * ci + im[b] * cr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
        const next = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = next;
      }
    }
  }
}
