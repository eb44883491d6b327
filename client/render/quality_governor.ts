/**
 * Keeps the frame rate up on weak GPUs by rendering fewer pixels: over windows of about two
 * seconds it lowers the pixel ratio when frames are slow and raises it again, carefully, when
 * they are comfortably fast. The simulation is unaffected; only sharpness changes. It never goes
 * below SHARPNESS_FLOOR device pixels per CSS pixel: at 0.5 a phone showed a blocky quarter
 * resolution, which costs more in looks than it saves in time (the bloom and the sparks' fill,
 * not the pixel count, dominate a slow frame).
 */

/** Length of one measurement window, ms. */
const WINDOW_MS = 2_000;
/** Below this average fps the resolution drops. */
const SLOW_FPS = 40;
/** Above this average fps for several windows the resolution rises. */
const FAST_FPS = 57;
/** Consecutive fast windows needed before raising (avoids see-sawing). */
const FAST_WINDOWS = 3;
/** Lowest pixel ratio the governor picks, whatever its options allow (unless the device's is lower). */
export const SHARPNESS_FLOOR = 0.75;
/** Intervals longer than this are hiccups or a hidden tab, not rendering cost. */
const HICCUP_MS = 1_000;

/** Options for {@link QualityGovernor}. */
export interface QualityOptions {
  /** Highest pixel ratio (the device's, capped). */
  maxPixelRatio: number;
  /** Lowest pixel ratio it may go to (raised to SHARPNESS_FLOOR). */
  minPixelRatio: number;
}

/** Chooses the renderer's pixel ratio from measured frame intervals. */
export class QualityGovernor {
  private ratio: number;
  private readonly options: QualityOptions;
  private windowMs = 0;
  private windowFrames = 0;
  private fastWindows = 0;

  constructor(options: QualityOptions) {
    const floor = Math.min(options.maxPixelRatio, Math.max(options.minPixelRatio, SHARPNESS_FLOOR));
    this.options = { maxPixelRatio: options.maxPixelRatio, minPixelRatio: floor };
    this.ratio = options.maxPixelRatio;
  }

  /** The pixel ratio to render at. */
  get pixelRatio(): number {
    return this.ratio;
  }

  /** Records one frame interval; returns true when the pixel ratio changed. */
  frame(intervalMs: number): boolean {
    if (!(intervalMs > 0) || intervalMs > HICCUP_MS) return false;
    this.windowMs += intervalMs;
    this.windowFrames++;
    if (this.windowMs < WINDOW_MS) return false;
    const fps = (this.windowFrames * 1000) / this.windowMs;
    this.windowMs = 0;
    this.windowFrames = 0;
    const { minPixelRatio, maxPixelRatio } = this.options;
    if (fps < SLOW_FPS) {
      this.fastWindows = 0;
      const lower = Math.max(minPixelRatio, this.ratio * 0.8);
      if (lower === this.ratio) return false;
      this.ratio = lower;
      return true;
    }
    if (fps > FAST_FPS && this.ratio < maxPixelRatio) {
      this.fastWindows++;
      if (this.fastWindows < FAST_WINDOWS) return false;
      this.fastWindows = 0;
      this.ratio = Math.min(maxPixelRatio, this.ratio * 1.15);
      return true;
    }
    this.fastWindows = 0;
    return false;
  }
}
