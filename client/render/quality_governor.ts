/**
 * Quality "Auto": keeps the frame rate up on weak GPUs by drawing less. Over windows of about two
 * seconds it lowers the pixel ratio when frames are slow; once the ratio is at its floor and
 * frames are still slow, it switches the glow off, then draws fewer flakes. When frames are
 * comfortably fast for several windows it gives them back in the reverse order, one step at a
 * time. The simulation is unaffected; only what this page draws changes. The ratio never goes
 * below SHARPNESS_FLOOR device pixels per CSS pixel: at 0.5 a phone showed a blocky quarter
 * resolution, which costs more in looks than it saves in time (the bloom and the sparks' fill,
 * not the pixel count, dominate a slow frame).
 */
import { LOW_FLAKE_SHARE, type QualityLevel, SHARPNESS_FLOOR } from "./quality.ts";

export { SHARPNESS_FLOOR };

/**
 * How Auto judges frames, over windows of `ms`: below `slowFps` on average the resolution drops;
 * above `fastFps` for `fastWindows` windows in a row (no see-sawing) it rises. Intervals longer
 * than `hiccupMs` are hiccups or a hidden tab, not rendering cost: software GL draws a 1280×720
 * page at 1–4 fps, and those frames (up to a second or two) are what Auto must see.
 */
const WINDOW = { ms: 2_000, slowFps: 40, fastFps: 57, fastWindows: 3, hiccupMs: 3_000 } as const;

/** Options for {@link QualityGovernor}. */
export interface QualityOptions {
  /** Highest pixel ratio (the device's, capped). */
  maxPixelRatio: number;
  /** Lowest pixel ratio it may go to (raised to SHARPNESS_FLOOR). */
  minPixelRatio: number;
}

/** Chooses the renderer's pixel ratio, glow and flake share from measured frame intervals. */
export class QualityGovernor {
  private ratio: number;
  /** Steps taken below the full effects: 1 = no glow, 2 = no glow and fewer flakes. */
  private effectsDown = 0;
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

  /** Whether the glow is drawn. */
  get glow(): boolean {
    return this.effectsDown < 1;
  }

  /** Share of the flakes drawn. */
  get flakeShare(): number {
    return this.effectsDown < 2 ? 1 : LOW_FLAKE_SHARE;
  }

  /** Everything it chose, as one level. */
  get level(): QualityLevel {
    return { pixelRatio: this.ratio, glow: this.glow, flakeShare: this.flakeShare };
  }

  /** Records one frame interval; returns true when anything it chooses changed. */
  frame(intervalMs: number): boolean {
    if (!(intervalMs > 0) || intervalMs > WINDOW.hiccupMs) return false;
    this.windowMs += intervalMs;
    this.windowFrames++;
    if (this.windowMs < WINDOW.ms) return false;
    const fps = (this.windowFrames * 1000) / this.windowMs;
    this.windowMs = 0;
    this.windowFrames = 0;
    const { minPixelRatio, maxPixelRatio } = this.options;
    if (fps < WINDOW.slowFps) {
      this.fastWindows = 0;
      const lower = Math.max(minPixelRatio, this.ratio * 0.8);
      if (lower !== this.ratio) {
        this.ratio = lower;
        return true;
      }
      if (this.effectsDown >= 2) return false;
      this.effectsDown++;
      return true;
    }
    if (fps > WINDOW.fastFps && (this.effectsDown > 0 || this.ratio < maxPixelRatio)) {
      this.fastWindows++;
      if (this.fastWindows < WINDOW.fastWindows) return false;
      this.fastWindows = 0;
      if (this.effectsDown > 0) this.effectsDown--;
      else this.ratio = Math.min(maxPixelRatio, this.ratio * 1.15);
      return true;
    }
    this.fastWindows = 0;
    return false;
  }
}
