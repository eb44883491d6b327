/**
 * Chooses the fractional tick to display. It follows the synced server clock minus a playout
 * delay just large enough that the heartbeat horizon is (almost) always ahead of it, so
 * motion never stalls waiting for the server, and it moves smoothly: small clock corrections
 * are blended in, never jumped.
 */
import { TICK_RATE } from "../../shared/constants.ts";

/** Lag samples kept (one per frame): about two seconds at 60 fps. */
const LAG_SAMPLES = 128;
/** Extra ticks of delay on top of the worst recent horizon lag. */
const SAFETY_TICKS = 0.75;
/** Further than this from the target, jump instead of blending (a hidden tab came back). */
const SNAP_TICKS = 30;
/** How fast (per second) the render time converges on its target. */
const CONVERGENCE_PER_SECOND = 2;

/** Render-time controller; `update` once per animation frame. */
export class Playout {
  private time = NaN;
  private lastLocalMs = NaN;
  private readonly lags = new Float64Array(LAG_SAMPLES);
  private lagCount = 0;
  private lagCursor = 0;
  /** A tick the display stays at (tests reading pixels of one still frame), or NaN. */
  private heldAt = NaN;

  /** The current playout delay in ticks (behind the estimated server tick). */
  get delayTicks(): number {
    if (this.lagCount === 0) return 4;
    let worst = 0;
    for (let i = 0; i < this.lagCount; i++) worst = Math.max(worst, this.lags[i]);
    return worst + SAFETY_TICKS;
  }

  /** The last render time returned by `update` (NaN before the first). */
  get renderTime(): number {
    return Number.isNaN(this.heldAt) ? this.time : Math.min(this.time, this.heldAt);
  }

  /**
   * Holds the display at the current render time (`true`), stops it when it reaches tick `held`
   * (a number; pages compared at the same tick), or lets it run again (`false`). Test pages read
   * pixels through several slow round trips; on software GL a burst could fade between them. The
   * clock keeps following the server while held, so release catches up.
   */
  hold(held: boolean | number): void {
    this.heldAt = typeof held === "number" ? held : held ? this.renderTime : NaN;
  }

  /**
   * Advances the render time to local time `localMs`, given the estimated server tick at that
   * moment and the horizon. Never returns more than `horizon` (nothing beyond it can be shown).
   */
  update(localMs: number, serverTick: number, horizon: number): number {
    this.lags[this.lagCursor] = Math.max(0, serverTick - horizon);
    this.lagCursor = (this.lagCursor + 1) % LAG_SAMPLES;
    if (this.lagCount < LAG_SAMPLES) this.lagCount++;

    const target = serverTick - this.delayTicks;
    const elapsedSeconds = Number.isNaN(this.lastLocalMs) ? 0 : (localMs - this.lastLocalMs) / 1000;
    this.lastLocalMs = localMs;
    if (Number.isNaN(this.time) || Math.abs(target - this.time) > SNAP_TICKS) {
      this.time = target;
    } else {
      const free = this.time + elapsedSeconds * TICK_RATE;
      const blend = Math.min(1, elapsedSeconds * CONVERGENCE_PER_SECOND);
      this.time = Math.max(this.time, free + (target - free) * blend);
    }
    this.time = Math.min(this.time, horizon);
    return this.renderTime;
  }

  /** Starts over (after the world was rebuilt at a different time). */
  reset(): void {
    this.time = NaN;
    this.lastLocalMs = NaN;
  }
}
