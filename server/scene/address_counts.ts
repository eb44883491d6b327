/**
 * `AddressCounts`: how many of something (open connections, reads in flight) each client address
 * holds, and all of them together. Addresses count by `addressKey` (an IPv6 client by its /64).
 *
 * @example
 * ```ts
 * import { AddressCounts } from "./address_counts.ts";
 * const counts = new AddressCounts();
 * counts.add("10.0.0.1");
 * counts.of("10.0.0.1"); // 1
 * counts.remove("10.0.0.1");
 * counts.total; // 0
 * ```
 */
import { addressKey } from "./ratelimit.ts";

/** Counts per client address, and their sum. */
export class AddressCounts {
  readonly #held = new Map<string, number>();
  #total = 0;

  /** The sum over every address. */
  get total(): number {
    return this.#total;
  }

  /** What `address` holds. */
  of(address: string): number {
    return this.#held.get(addressKey(address)) ?? 0;
  }

  /** One more for `address`. */
  add(address: string): void {
    const key = addressKey(address);
    this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
    this.#total++;
  }

  /** One less for `address` (nothing when it holds none). */
  remove(address: string): void {
    const key = addressKey(address);
    const held = this.#held.get(key);
    if (held === undefined) return;
    if (held <= 1) this.#held.delete(key);
    else this.#held.set(key, held - 1);
    this.#total--;
  }
}
