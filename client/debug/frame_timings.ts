/**
 * Per-frame CPU timings of the client's own work, kept in fixed ring buffers (no allocation):
 * `simulate` is stepping the world, `upload` is evaluating snow and handing the particle
 * attributes to WebGL plus issuing the draw calls. Read by the debug hook and the benchmark.
 */

/** Frames remembered. */
const FRAMES = 600;

/** Ring buffers of the latest frame timings in ms. */
export class FrameTimings {
  readonly simulate = new Float64Array(FRAMES);
  readonly upload = new Float64Array(FRAMES);
  private cursor = 0;
  private filled = 0;

  /** Records one frame. */
  record(simulateMs: number, uploadMs: number): void {
    this.simulate[this.cursor] = simulateMs;
    this.upload[this.cursor] = uploadMs;
    this.cursor = (this.cursor + 1) % FRAMES;
    if (this.filled < FRAMES) this.filled++;
  }

  /** Frames recorded (at most the ring's size). */
  get count(): number {
    return this.filled;
  }

  /** Forgets everything recorded so far. */
  clear(): void {
    this.cursor = 0;
    this.filled = 0;
  }

  /** Copies of the recorded simulate + upload totals per frame, oldest first (for reports). */
  totals(): number[] {
    const out: number[] = [];
    const start = this.filled < FRAMES ? 0 : this.cursor;
    for (let i = 0; i < this.filled; i++) {
      const at = (start + i) % FRAMES;
      out.push(this.simulate[at] + this.upload[at]);
    }
    return out;
  }
}
