/**
 * `ConnectionGuard`: how many TCP connections are open, in total and per client address (IPv6
 * by /64), and whether one more may be. The listener asks before it hands a fresh connection to
 * HTTP; one refused is closed at once, so a flood from one address cannot take the file
 * descriptors everyone else needs.
 *
 * The total never exceeds the open-file limit minus `FD_RESERVE`: accepting with no descriptor
 * left breaks Deno 2.9.6's listeners (see `ws_node.ts`), and the database, NATS and static files
 * need some too.
 */
import { AddressCounts } from "../scene/address_counts.ts";

/** Descriptors kept for everything that is not a client connection (database, NATS, files). */
export const FD_RESERVE = 64;

/** Why a connection was refused, if it was. */
export type GuardRefusal = "address_full" | "server_full";

/** Counts open connections; refuses beyond the caps. */
export class ConnectionGuard {
  readonly perAddress: number;
  readonly total: number;
  readonly #open = new AddressCounts();
  /** Connections refused so far, by reason. */
  readonly refused = { address_full: 0, server_full: 0 };

  /**
   * @param total most connections at once (lowered to `fdSoftLimit - FD_RESERVE` when known)
   * @param perAddress most connections one address holds at once
   *
   * @example
   * ```ts
   * const guard = new ConnectionGuard(1000, 2);
   * guard.admit("10.0.0.1"); // null: admitted
   * guard.admit("10.0.0.1"); // null
   * guard.admit("10.0.0.1"); // "address_full"
   * guard.release("10.0.0.1");
   * ```
   */
  constructor(total: number, perAddress: number, fdSoftLimit?: number) {
    const fdRoom = fdSoftLimit === undefined || fdSoftLimit === Infinity
      ? Infinity
      : Math.max(1, fdSoftLimit - FD_RESERVE);
    this.total = Math.min(total, fdRoom);
    this.perAddress = perAddress;
  }

  /** Open connections. */
  get size(): number {
    return this.#open.total;
  }

  /** Open connections of `address`. */
  of(address: string): number {
    return this.#open.of(address);
  }

  /** Counts a new connection from `address`, or says why it may not be (then nothing counted). */
  admit(address: string): GuardRefusal | null {
    if (this.#open.total >= this.total) {
      this.refused.server_full++;
      return "server_full";
    }
    if (this.#open.of(address) >= this.perAddress) {
      this.refused.address_full++;
      return "address_full";
    }
    this.#open.add(address);
    return null;
  }

  /** A connection admitted for `address` closed. */
  release(address: string): void {
    this.#open.remove(address);
  }
}
