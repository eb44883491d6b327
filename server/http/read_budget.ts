/**
 * `readBudget`: Hono middleware that spends one token of the client address's budget per request
 * to a route that reads the database (scene pages, the JSON API, health, metrics). Past the
 * budget the answer is 429 `rate_limited` with `Retry-After`, before any database work, and it
 * comes only after a pause, paced per address ({@link RefusalPacer}): a client looping on
 * refusals over keep-alive connections made the server answer thousands a second (~0.5 ms of its
 * thread each); paused and paced, an address gets a few a second, however many connections it
 * holds.
 */
import type { MiddlewareHandler } from "hono";
import { HttpError } from "../scene/errors.ts";
import type { AddressBudgets } from "../scene/ratelimit.ts";
import type { ServerEnv } from "../ws/ws_types.ts";
import { RefusalPacer } from "./refusal_pacer.ts";

export { REFUSAL_PAUSE_MS } from "./refusal_pacer.ts";

/** What the middleware needs. */
export interface ReadBudgetOptions {
  /** One bucket per address (IPv6 by /64). */
  budgets: AddressBudgets;
  /** Monotonic clock in ms. */
  monotonic: () => number;
  /** Counts a refusal (the server's metrics). */
  refuse?: (code: string) => void;
  /** When refusals are answered (shared with `readSlots`); one of its own by default. */
  pacer?: RefusalPacer;
}

/**
 * Tokens one request costs: 1, and a log page 1 more per 250 events asked for (its work grows
 * with its size: a 5000-event page costs the page reader ~11 ms and the server's thread ~1.2 ms
 * to hand over and write, a refusal ~0.5 ms; at 21 tokens, an address sustains one such page a
 * second).
 *
 * @example
 * ```ts
 * requestCost(new URL("http://x/api/scenes/a/log?limit=5000")); // 21
 * requestCost(new URL("http://x/api/scenes/a/log")); // 5 (the default page: 1000)
 * requestCost(new URL("http://x/healthz")); // 1
 * ```
 */
export function requestCost(url: URL): number {
  if (!url.pathname.endsWith("/log")) return 1;
  const limit = Number(url.searchParams.get("limit") ?? "1000");
  const events = Number.isFinite(limit) ? Math.min(Math.max(limit, 0), 10_000) : 1000;
  return 1 + Math.ceil(events / 250);
}

/**
 * Refuses a request whose address spent its read budget.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { AddressBudgets } from "../scene/ratelimit.ts";
 * const app = new Hono<{ Bindings: ServerEnv }>();
 * const budgets = new AddressBudgets({ perSecond: 20, burst: 100 });
 * app.use("/api/*", readBudget({ budgets, monotonic: () => performance.now() }));
 * ```
 */
export function readBudget(
  options: ReadBudgetOptions,
): MiddlewareHandler<{ Bindings: ServerEnv }> {
  const pacer = options.pacer ?? new RefusalPacer();
  return async (c, next) => {
    const nowMs = options.monotonic();
    options.budgets.sweep(nowMs);
    const cost = requestCost(new URL(c.req.url));
    const address = c.env?.remoteAddress ?? "";
    const wait = options.budgets.take(address, nowMs, false, cost);
    if (wait > 0) {
      options.refuse?.("rate_limited");
      await pacer.hold(address, wait);
      throw new HttpError(
        429,
        "rate_limited",
        `too many requests from your address; try again in ${Math.ceil(wait / 1000)} s`,
        { "retry-after": String(Math.ceil(wait / 1000)) },
      );
    }
    await next();
  };
}
