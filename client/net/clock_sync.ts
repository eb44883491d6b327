/**
 * Estimates the server's tick clock from ping/pong round trips, trusting the sample with the
 * smallest round-trip time among the recent ones: queueing delay only ever adds latency, so the
 * fastest exchange is the one whose midpoint best matches the server's answer.
 */
import { TICK_MS } from "../../shared/constants.ts";

/** How many recent samples the min-RTT filter keeps. */
const SAMPLE_WINDOW = 16;

/** One ping/pong exchange. */
interface ClockSample {
  rttMs: number;
  /** Server tick minus local ticks (`localMs / TICK_MS`) at the exchange's midpoint. */
  offsetTicks: number;
}

/** Server clock estimate from ping/pong pairs, with a min-RTT filter over a sliding window. */
export class ClockSync {
  private readonly samples: ClockSample[] = [];
  private bestOffsetTicks = 0;
  private bestRttMs = Infinity;
  private synced = false;

  /** True once at least one pong (or a coarse hint) has set the clock. */
  get isSynced(): boolean {
    return this.synced;
  }

  /** Round-trip time (ms) of the sample the estimate currently trusts; `Infinity` before any pong. */
  get rttMs(): number {
    return this.bestRttMs;
  }

  /**
   * Coarse estimate before any pong: the server was at `serverTick` around `localMs`.
   * Ignored once real samples exist.
   */
  hint(serverTick: number, localMs: number): void {
    if (this.samples.length > 0) return;
    this.bestOffsetTicks = serverTick - localMs / TICK_MS;
    this.synced = true;
  }

  /**
   * Records a pong: the ping left at `sentMs`, the pong arrived at `receivedMs` (both local
   * monotonic ms), and the server's fractional tick when it answered was `serverTick`.
   */
  addSample(sentMs: number, receivedMs: number, serverTick: number): void {
    const rttMs = Math.max(0, receivedMs - sentMs);
    const midpointMs = sentMs + rttMs / 2;
    const sample = { rttMs, offsetTicks: serverTick - midpointMs / TICK_MS };
    this.samples.push(sample);
    if (this.samples.length > SAMPLE_WINDOW) this.samples.shift();
    let best = this.samples[0];
    for (const candidate of this.samples) {
      if (candidate.rttMs < best.rttMs) best = candidate;
    }
    this.bestOffsetTicks = best.offsetTicks;
    this.bestRttMs = best.rttMs;
    this.synced = true;
  }

  /** The server's fractional tick at local monotonic time `localMs`. */
  serverTick(localMs: number): number {
    return localMs / TICK_MS + this.bestOffsetTicks;
  }
}
