/**
 * Objective measures of rendered audio (mono samples at a sample rate), for tests that cannot
 * listen: loudness in a window, when a sound starts, how much high-frequency edge it has, clicks
 * and DC offset.
 */

/** Mono samples and their rate. */
export interface Rendered {
  samples: Float32Array;
  rate: number;
}

/** Sample index range of the window [`from`, `to`) seconds, clamped to the signal. */
function range(signal: Rendered, from: number, to: number): [number, number] {
  const start = Math.max(0, Math.floor(from * signal.rate));
  const end = Math.min(signal.samples.length, Math.floor(to * signal.rate));
  return [start, Math.max(start, end)];
}

/** Root mean square level in [`from`, `to`) seconds (0 for an empty window). */
export function rms(signal: Rendered, from = 0, to = Infinity): number {
  const [start, end] = range(signal, from, to);
  let sum = 0;
  for (let i = start; i < end; i++) sum += signal.samples[i] * signal.samples[i];
  return end > start ? Math.sqrt(sum / (end - start)) : 0;
}

/** Largest absolute sample in [`from`, `to`) seconds. */
export function peak(signal: Rendered, from = 0, to = Infinity): number {
  const [start, end] = range(signal, from, to);
  let most = 0;
  for (let i = start; i < end; i++) most = Math.max(most, Math.abs(signal.samples[i]));
  return most;
}

/** Seconds of the first sample whose magnitude exceeds `threshold`, or NaN when none does. */
export function onset(signal: Rendered, threshold: number, from = 0): number {
  const [start] = range(signal, from, Infinity);
  for (let i = start; i < signal.samples.length; i++) {
    if (Math.abs(signal.samples[i]) > threshold) return i / signal.rate;
  }
  return NaN;
}

/**
 * RMS of the first difference x[i] − x[i−1] in a window: a crude high-pass, large for crackle,
 * hiss and clicks, small for low rumble.
 */
export function edge(signal: Rendered, from = 0, to = Infinity): number {
  const [start, end] = range(signal, from, to);
  let sum = 0;
  for (let i = Math.max(1, start); i < end; i++) {
    const d = signal.samples[i] - signal.samples[i - 1];
    sum += d * d;
  }
  return end - start > 1 ? Math.sqrt(sum / (end - start - 1)) : 0;
}

/** Largest jump between neighbouring samples in a window (a click is a big jump). */
export function largestStep(signal: Rendered, from = 0, to = Infinity): number {
  const [start, end] = range(signal, from, to);
  let most = 0;
  for (let i = Math.max(1, start); i < end; i++) {
    most = Math.max(most, Math.abs(signal.samples[i] - signal.samples[i - 1]));
  }
  return most;
}

/** Mean sample value in a window (a DC offset). */
export function mean(signal: Rendered, from = 0, to = Infinity): number {
  const [start, end] = range(signal, from, to);
  let sum = 0;
  for (let i = start; i < end; i++) sum += signal.samples[i];
  return end > start ? sum / (end - start) : 0;
}

/** Upward zero crossings per second in a window (the pitch of a tone-like sound). */
export function crossingRate(signal: Rendered, from: number, to: number): number {
  const [start, end] = range(signal, from, to);
  let crossings = 0;
  for (let i = Math.max(1, start); i < end; i++) {
    if (signal.samples[i - 1] < 0 && signal.samples[i] >= 0) crossings++;
  }
  return end > start ? crossings / ((end - start) / signal.rate) : 0;
}
