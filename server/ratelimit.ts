/** Token buckets: per-connection rate limits, the abuse budget, per-address scene budgets. */
import type { RateLimit } from "./config.ts";

/** A token bucket refilled continuously at `perSecond`, holding at most `burst` tokens. */
export class TokenBucket {
  readonly #perMs: number;
  readonly #burst: number;
  #tokens: number;
  #lastMs: number;

  constructor(limit: RateLimit, nowMs: number) {
    this.#perMs = limit.perSecond / 1000;
    this.#burst = limit.burst;
    this.#tokens = limit.burst;
    this.#lastMs = nowMs;
  }

  /** Like `take` without taking: 0 when a token is there, else the ms until one will be. */
  peek(nowMs: number): number {
    const tokens = Math.min(
      this.#burst,
      this.#tokens + Math.max(0, nowMs - this.#lastMs) * this.#perMs,
    );
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.#perMs));
  }

  /** True when the bucket has refilled completely (it then remembers nothing). */
  full(nowMs: number): boolean {
    return this.#tokens + Math.max(0, nowMs - this.#lastMs) * this.#perMs >= this.#burst;
  }

  /** Takes one token: returns 0 when granted, else the ms until one will be available. */
  take(nowMs: number): number {
    const elapsed = nowMs - this.#lastMs;
    if (elapsed > 0) {
      this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#perMs);
      this.#lastMs = nowMs;
    }
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.#tokens) / this.#perMs));
  }
}
