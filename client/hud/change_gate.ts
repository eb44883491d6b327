/**
 * Calms a stream of partial changes (a slider dragged with arrow keys, radios stepped through):
 * changes merge into one pending change that is sent after a quiet spell, and never sooner than
 * a minimum gap after the previous send, so one person sends at most one change per gap.
 */

/** Timers the gate uses; tests pass their own. */
export interface GateTimers {
  now(): number;
  schedule(callback: () => void, delayMs: number): unknown;
  cancel(handle: unknown): void;
}

/** Options for {@link ChangeGate}. */
export interface ChangeGateOptions {
  /** Send after this long without a new change, ms. */
  quietMs?: number;
  /** Never send twice within this many ms. */
  minGapMs?: number;
  timers?: GateTimers;
}

const browserTimers: GateTimers = {
  now: () => performance.now(),
  schedule: (callback, delayMs) => setTimeout(callback, delayMs),
  cancel: (handle) => clearTimeout(handle as number),
};

/**
 * Merges changes and sends them calmly.
 *
 * @example
 * ```ts
 * const gate = new ChangeGate<{ wind: number }>((change) => send(change));
 * gate.push({ wind: 2 }); // arrow key
 * gate.push({ wind: 3 }); // arrow key: one send of { wind: 3 } after the quiet spell
 * gate.flush(); // slider released: send as soon as the gap allows
 * ```
 */
export class ChangeGate<T extends object> {
  private readonly send: (change: Partial<T>) => boolean | void;
  private readonly quietMs: number;
  private readonly minGapMs: number;
  private readonly timers: GateTimers;
  private pendingChange: Partial<T> | null = null;
  private lastSentMs = -Infinity;
  private timer: unknown = undefined;

  /**
   * `send` returns false when it could not send (not connected): the change then stays pending
   * and is tried again a gap later, merged with anything newer.
   */
  constructor(send: (change: Partial<T>) => boolean | void, options: ChangeGateOptions = {}) {
    this.send = send;
    this.quietMs = options.quietMs ?? 600;
    this.minGapMs = options.minGapMs ?? 1000;
    this.timers = options.timers ?? browserTimers;
  }

  /** The change waiting to be sent, if any. */
  get pending(): Readonly<Partial<T>> | null {
    return this.pendingChange;
  }

  /** Adds a change; it goes out after the quiet spell (and the gap). */
  push(change: Partial<T>): void {
    this.pendingChange = { ...this.pendingChange, ...change };
    this.arm(this.timers.now() + this.quietMs);
  }

  /** Adds a change (optional) and sends as soon as the gap allows: a release, a tick, a pick. */
  flush(change?: Partial<T>): void {
    if (change) this.pendingChange = { ...this.pendingChange, ...change };
    if (this.pendingChange) this.arm(this.timers.now());
  }

  /** Drops any pending change and its timer. */
  dispose(): void {
    this.timers.cancel(this.timer);
    this.pendingChange = null;
  }

  private arm(wantedMs: number): void {
    this.timers.cancel(this.timer);
    const nowMs = this.timers.now();
    const at = Math.max(wantedMs, this.lastSentMs + this.minGapMs);
    this.timer = this.timers.schedule(() => this.fire(), Math.max(0, at - nowMs));
  }

  private fire(): void {
    this.timer = undefined;
    const change = this.pendingChange;
    if (!change) return;
    this.pendingChange = null;
    this.lastSentMs = this.timers.now();
    if (this.send(change) === false) {
      // Anything pushed meanwhile is newer than the change that failed.
      const newer = this.pendingChange as Partial<T> | null;
      this.pendingChange = { ...change, ...newer };
      this.arm(this.timers.now());
    }
  }
}
