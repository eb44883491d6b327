/**
 * How long a client's sky stood still: the moments its horizon moved (a heartbeat past the last
 * one, or an event), and the longest wait between two of them in a window. A failover's pause as
 * the client lives it.
 *
 * @example
 * ```ts ignore
 * const gaps = new SkyGaps(client);
 * const killedAt = performance.now();
 * // ... kill the owner, wait for the sky to move again ...
 * gaps.longest(killedAt - 1000, performance.now()); // ms
 * ```
 */
import type { ServerMessage } from "../shared/protocol.ts";
import type { TestClient } from "./test_client.ts";

export class SkyGaps {
  /** When (performance.now()) the horizon moved, in order. */
  readonly moved: number[] = [];
  #horizon = -1;

  constructor(client: TestClient) {
    client.socket.addEventListener("message", (e) => {
      const m = JSON.parse(e.data as string) as ServerMessage;
      const n = m.t === "tick" ? m.n : m.t === "event" ? m.tick + 1 : -1;
      if (n > this.#horizon) {
        this.#horizon = n;
        this.moved.push(performance.now());
      }
    });
  }

  /** The longest time between two moves (or a window's edge and a move) within [from, to]. */
  longest(from: number, to: number): number {
    let last = from;
    let longest = 0;
    for (const t of this.moved) {
      if (t < from) continue;
      if (t > to) break;
      longest = Math.max(longest, t - last);
      last = t;
    }
    return Math.max(longest, to - last);
  }
}
