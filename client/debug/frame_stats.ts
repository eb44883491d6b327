/** Frame-rate meter: an exponential moving average of frame intervals. */

/** Weight of the newest interval in the average. */
const SMOOTHING = 0.05;

/** Measures frames per second from animation-frame timestamps. */
export class FrameStats {
  private lastMs = NaN;
  private averageMs = 1000 / 60;

  /** Frames per second, smoothed over roughly the last second. */
  get fps(): number {
    return 1000 / this.averageMs;
  }

  /** Records a frame at `nowMs` (the animation-frame timestamp). */
  frame(nowMs: number): void {
    if (!Number.isNaN(this.lastMs)) {
      // A hidden tab's long gap would poison the average: cap one interval at a second.
      const interval = Math.min(1000, Math.max(0.1, nowMs - this.lastMs));
      this.averageMs += (interval - this.averageMs) * SMOOTHING;
    }
    this.lastMs = nowMs;
  }
}
