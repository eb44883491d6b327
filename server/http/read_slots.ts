/**
 * `readSlots`: Hono middleware bounding how many log pages are being read at once, per client
 * address (IPv6 by /64) and in total. One address past its share gets 429 `too_many_reads`, any
 * request past the total 503 `busy`, both with `Retry-After` and after a pause paced per address
 * (`RefusalPacer`): a flood of page reads waits in no queue longer than the total allows, and
 * one address costs the server a few small refusals a second, however many connections it holds.
 */
import type { MiddlewareHandler } from "hono";
import { HttpError } from "../scene/errors.ts";
import { AddressCounts } from "../scene/address_counts.ts";
import { REFUSAL_PAUSE_MS, RefusalPacer } from "./refusal_pacer.ts";
import type { ServerEnv } from "../ws/ws_types.ts";

/** How many reads may be in flight. */
export interface ReadSlotLimits {
  /** Per client address. */
  perAddress: number;
  /** In total (what waits for the page reader, and what it reads). */
  total: number;
}

/** Counts reads in flight; refuses past the limits. */
export class ReadSlots {
  readonly limits: ReadSlotLimits;
  readonly #held = new AddressCounts();

  /**
   * @example
   * ```ts
   * const slots = new ReadSlots({ perAddress: 1, total: 8 });
   * slots.take("10.0.0.1"); // null: a slot is held
   * slots.take("10.0.0.1"); // "too_many_reads"
   * slots.give("10.0.0.1");
   * ```
   */
  constructor(limits: ReadSlotLimits) {
    this.limits = limits;
  }

  /** Reads in flight. */
  get size(): number {
    return this.#held.total;
  }

  /** Takes a slot for `address`, or says why there is none (nothing taken then). */
  take(address: string): "too_many_reads" | "busy" | null {
    if (this.#held.of(address) >= this.limits.perAddress) return "too_many_reads";
    if (this.#held.total >= this.limits.total) return "busy";
    this.#held.add(address);
    return null;
  }

  /** Gives back a slot `take` granted to `address`. */
  give(address: string): void {
    this.#held.remove(address);
  }
}

/**
 * Holds a slot for the request's address while the handler runs (the response body is built in
 * full before the slot is given back).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * const app = new Hono<{ Bindings: ServerEnv }>();
 * app.use("/api/scenes/:id/log", readSlots(new ReadSlots({ perAddress: 2, total: 8 })));
 * ```
 */
export function readSlots(
  slots: ReadSlots,
  refuse?: (code: string) => void,
  pacer: RefusalPacer = new RefusalPacer(),
): MiddlewareHandler<{ Bindings: ServerEnv }> {
  return async (c, next) => {
    const address = c.env?.remoteAddress ?? "";
    const refusal = slots.take(address);
    if (refusal) {
      refuse?.(refusal);
      await pacer.hold(address, REFUSAL_PAUSE_MS);
    }
    if (refusal === "too_many_reads") {
      throw new HttpError(
        429,
        refusal,
        `your address is already reading ${slots.limits.perAddress} log pages; ` +
          "wait for one to finish and try again",
        { "retry-after": "1" },
      );
    }
    if (refusal === "busy") {
      throw new HttpError(
        503,
        refusal,
        "the server is reading as many log pages as it can at once; try again in a second",
        { "retry-after": "1" },
      );
    }
    try {
      await next();
    } finally {
      slots.give(address);
    }
  };
}
