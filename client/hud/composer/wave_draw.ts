/**
 * Draws the music behind the composer's cues: the waveform (one peak per column) and the
 * detected beats as thin lines, on a canvas as wide as the time line.
 */
import { TICK_RATE } from "../../../shared/constants.ts";

/** A track's loudness over time: `peaks[i]` (0–1) spans `durationS / peaks.length` seconds. */
export interface Waveform {
  peaks: ArrayLike<number>;
  durationS: number;
}

/** Where the time line puts tick 0, how wide a tick is, and where the cue rows begin (px). */
export interface WaveLayout {
  padX: number;
  pxPerTick: number;
  top: number;
}

/**
 * Draws `wave` and `beats` (show ticks) onto `canvas`, sized to its CSS box.
 *
 * @example
 * ```ts
 * drawWave(canvas, { peaks: [0.2, 0.9, 0.4], durationS: 3 }, [60, 120], {
 *   padX: 12,
 *   pxPerTick: 0.5,
 *   top: 30,
 * });
 * ```
 */
export function drawWave(
  canvas: HTMLCanvasElement,
  wave: Waveform | null,
  beats: readonly number[],
  layout: WaveLayout,
): void {
  const ratio = Math.min(2, globalThis.devicePixelRatio || 1);
  const w = Math.max(1, Math.round(parseFloat(canvas.style.width) * ratio));
  const h = Math.max(1, Math.round(parseFloat(canvas.style.height) * ratio));
  // A very long show at a high zoom: the canvas stays within what browsers allow.
  canvas.width = Math.min(w, 16_384);
  canvas.height = h;
  const g = canvas.getContext("2d");
  if (!g) return;
  g.setTransform((canvas.width / w) * ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, w, h);
  const cssH = h / ratio;
  const top = layout.top;
  const mid = (top + cssH) / 2;
  const half = (cssH - top) / 2 - 2;
  if (wave && wave.peaks.length > 0) {
    const n = wave.peaks.length;
    const ticksPerPeak = (wave.durationS * TICK_RATE) / n;
    g.fillStyle = "rgba(150, 180, 255, 0.5)";
    const cssW = w / ratio;
    // One bar per pixel column: the loudest peak that falls in it.
    let column = -1, loud = 0;
    for (let i = 0; i <= n; i++) {
      const x = i < n ? Math.floor(layout.padX + i * ticksPerPeak * layout.pxPerTick) : Infinity;
      if (x !== column) {
        if (column >= 0 && column < cssW) {
          const a = Math.max(1, loud * half);
          g.fillRect(column, mid - a, 1, 2 * a);
        }
        column = x;
        loud = 0;
      }
      if (i < n) loud = Math.max(loud, wave.peaks[i]);
    }
  }
  if (beats.length > 0) {
    g.fillStyle = "rgba(255, 194, 122, 0.45)";
    let last = -Infinity;
    for (const beat of beats) {
      const x = layout.padX + beat * layout.pxPerTick;
      // Beats closer than 3 px draw as one line (zoomed far out).
      if (x - last < 3) continue;
      last = x;
      g.fillRect(Math.round(x), top, 1, cssH - top);
    }
  }
}
