/** Token buckets: per-connection rate limits, the abuse budget, per-address scene budgets. */

/** A token bucket: `perSecond` tokens refill each second, at most `burst` are banked. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** Per-connection limits, one bucket per kind of message. */
export interface RateLimits {
  launch: RateLimit;
  gun: RateLimit;
  settings: RateLimit;
  /** Quick reactions (relayed to everyone, never stored). */
  reaction: RateLimit;
  /** Every frame, whatever its kind: bounds the work one connection can cause. */
  frames: RateLimit;
  /**
   * The abuse budget: every invalid frame (binary, not JSON, failing the schema, before hello)
   * and every frame over the `frames` rate takes a token; a connection without tokens is closed
   * with 1008. Refusals of valid messages (a launch over its rate, a full sky) take none.
   */
  refused: RateLimit;
}

/** Limits generous enough for a person clicking fast, tight enough to stop a script. */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimits> = Object.freeze({
  launch: { perSecond: 4, burst: 8 },
  gun: { perSecond: 10, burst: 20 },
  settings: { perSecond: 2, burst: 6 },
  reaction: { perSecond: 2, burst: 6 },
  frames: { perSecond: 60, burst: 120 },
  refused: { perSecond: 1, burst: 20 },
});

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

  /**
   * Like `take` without taking: 0 when `cost` tokens (1 unless said; at most the burst) are
   * there, else the ms until they will be.
   */
  peek(nowMs: number, cost = 1): number {
    const tokens = Math.min(
      this.#burst,
      this.#tokens + Math.max(0, nowMs - this.#lastMs) * this.#perMs,
    );
    const need = Math.min(cost, this.#burst);
    return tokens >= need ? 0 : Math.max(1, Math.ceil((need - tokens) / this.#perMs));
  }

  /** True when the bucket has refilled completely (it then remembers nothing). */
  full(nowMs: number): boolean {
    return this.#tokens + Math.max(0, nowMs - this.#lastMs) * this.#perMs >= this.#burst;
  }

  /**
   * Takes `cost` tokens (1 unless said; at most the burst): returns 0 when granted, else the ms
   * until they will be available.
   */
  take(nowMs: number, cost = 1): number {
    const elapsed = nowMs - this.#lastMs;
    if (elapsed > 0) {
      this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#perMs);
      this.#lastMs = nowMs;
    }
    const need = Math.min(cost, this.#burst);
    if (this.#tokens >= need) {
      this.#tokens -= need;
      return 0;
    }
    return Math.max(1, Math.ceil((need - this.#tokens) / this.#perMs));
  }
}

/** Forgotten once full again: a full bucket remembers nothing. Swept at most this often. */
const ADDRESS_SWEEP_MS = 60_000;

/**
 * One token bucket per client address (IPv6 by /64), for budgets that follow a person across
 * connections: new WebSocket connections, new scenes, stored events; for the last two also one
 * per network (IPv4 /24), so that many addresses of one network cannot multiply them.
 */
export class AddressBudgets {
  readonly #limit: RateLimit;
  readonly #network: RateLimit | undefined;
  readonly #buckets = new Map<string, TokenBucket>();
  #lastSweepMs = -Infinity;

  /**
   * `limit` per address; with `network`, also that budget per network (IPv4 /24, IPv6 /64), so
   * many addresses of one network share it (see NETWORK_BUDGET_FACTOR).
   */
  constructor(limit: RateLimit, network?: RateLimit) {
    this.#limit = limit;
    this.#network = network;
  }

  /** Addresses (and networks) currently remembered. */
  get size(): number {
    return this.#buckets.size;
  }

  #bucket(key: string, limit: RateLimit, nowMs: number): TokenBucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(limit, nowMs);
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /**
   * Takes `cost` tokens for `address` (`peek`: only looks), and as many for its network when
   * budgeted by network; 0 when granted (both), else ms to wait (nothing is taken).
   */
  take(address: string, nowMs: number, peek = false, cost = 1): number {
    const own = this.#bucket(addressKey(address), this.#limit, nowMs);
    if (this.#network === undefined) return peek ? own.peek(nowMs, cost) : own.take(nowMs, cost);
    const network = this.#bucket(`net:${networkKey(address)}`, this.#network, nowMs);
    const wait = Math.max(own.peek(nowMs, cost), network.peek(nowMs, cost));
    if (peek || wait > 0) return wait;
    const ownWait = own.take(nowMs, cost);
    if (ownWait > 0) return ownWait;
    return network.take(nowMs, cost);
  }

  /** Forgets addresses whose buckets are full again (bounded memory). */
  sweep(nowMs: number): void {
    if (nowMs - this.#lastSweepMs < ADDRESS_SWEEP_MS) return;
    this.#lastSweepMs = nowMs;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.full(nowMs)) this.#buckets.delete(key);
    }
  }
}

/**
 * A network's budget (IPv4 /24, IPv6 /64) as a multiple of one address's: many addresses of one
 * network together spend at most twice what one address may.
 */
export const NETWORK_BUDGET_FACTOR = 2;

/** The budget of a network whose addresses each have `limit` (see NETWORK_BUDGET_FACTOR). */
export function networkBudget(limit: RateLimit): RateLimit {
  return {
    perSecond: limit.perSecond * NETWORK_BUDGET_FACTOR,
    burst: limit.burst * NETWORK_BUDGET_FACTOR,
  };
}

/**
 * The network a client address belongs to, for budgets by network: IPv4 by its /24, IPv6 by its
 * /64 (as `addressKey`); anything else (a test's made-up place) as it is.
 *
 * @example
 * ```ts
 * import { networkKey } from "./ratelimit.ts";
 * console.log(networkKey("192.0.2.77")); // "192.0.2.0/24"
 * ```
 */
export function networkKey(address: string): string {
  const key = addressKey(address);
  const v4 = /^(\d+\.\d+\.\d+)\.\d+$/.exec(key);
  return v4 ? `${v4[1]}.0/24` : key;
}

/** The key a client address is budgeted under: IPv4 as is, IPv6 by its /64 prefix. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(":")) return address;
  const [head, tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")).join(":") + "::/64";
}
