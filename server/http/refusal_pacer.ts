/**
 * `RefusalPacer`: when a refused HTTP read is answered. Each refusal waits its pause (how long
 * until the client may try again, at most {@link REFUSAL_PAUSE_MS}), and one client address
 * (IPv6 by /64) gets its refusals one after another, at most `perSecond` a second. A client
 * looping on refusals over many keep-alive connections thus costs the server's thread a bounded
 * number of answers a second (each ~0.5 ms of parsing, routing and writing), whatever its number
 * of connections, and the answers come spread out instead of all at once when the pauses started
 * together (20 readers refused in one instant came back together: ~10 ms of the thread in one go).
 */
import { addressKey } from "../scene/ratelimit.ts";

/** Longest pause of one refusal, before pacing: the client may try again by then. */
export const REFUSAL_PAUSE_MS = 1000;

/** Refusals answered per address per second at most (while held ones do not wait too long). */
export const REFUSALS_PER_SECOND = 10;

/** A refusal is never held longer than this, however many the address has waiting. */
export const REFUSAL_HOLD_MAX_MS = 10_000;

/** Addresses whose pacing is over are forgotten this often at most. */
const SWEEP_MS = 10_000;

/** Options of a {@link RefusalPacer}. */
export interface RefusalPacerOptions {
  /** Refusals answered per address per second. Default {@link REFUSALS_PER_SECOND}. */
  perSecond?: number;
  /** Longest hold of one refusal. Default {@link REFUSAL_HOLD_MAX_MS}. */
  maxHoldMs?: number;
  /** Real time, ms (the holds are timers): `performance.now` unless a test says. */
  now?: () => number;
}

/** Spaces the refusals of each address. */
export class RefusalPacer {
  readonly #gapMs: number;
  readonly #maxHoldMs: number;
  readonly #now: () => number;
  /** Per address: the earliest time its next refusal may be answered. */
  readonly #next = new Map<string, number>();
  #sweptMs = -Infinity;

  /**
   * @example
   * ```ts
   * const pacer = new RefusalPacer({ perSecond: 10, now: () => 0 });
   * pacer.delay("10.0.0.1", 1000); // 1000
   * pacer.delay("10.0.0.1", 1000); // 1100: a tenth of a second after the first
   * pacer.delay("10.0.0.2", 1000); // 1000: another address is paced on its own
   * ```
   */
  constructor(options: RefusalPacerOptions = {}) {
    this.#gapMs = 1000 / (options.perSecond ?? REFUSALS_PER_SECOND);
    this.#maxHoldMs = options.maxHoldMs ?? REFUSAL_HOLD_MAX_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Addresses with refusals still being paced. */
  get size(): number {
    return this.#next.size;
  }

  /**
   * How long from now the refusal of a request from `address` is held: its pause (`waitMs`, at
   * most {@link REFUSAL_PAUSE_MS}), later when the address's previous refusals are still being
   * answered, never more than the longest hold.
   */
  delay(address: string, waitMs: number): number {
    const now = this.#now();
    this.#sweep(now);
    const key = addressKey(address);
    const pause = Math.min(Math.max(0, waitMs), REFUSAL_PAUSE_MS);
    const earliest = Math.max(now + pause, this.#next.get(key) ?? -Infinity);
    const at = Math.min(earliest, now + this.#maxHoldMs);
    this.#next.set(key, at + this.#gapMs);
    return at - now;
  }

  /** Waits {@link delay}. */
  hold(address: string, waitMs: number): Promise<void> {
    const ms = this.delay(address, waitMs);
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  #sweep(now: number): void {
    if (now - this.#sweptMs < SWEEP_MS) return;
    this.#sweptMs = now;
    for (const [key, next] of this.#next) if (next <= now) this.#next.delete(key);
  }
}
