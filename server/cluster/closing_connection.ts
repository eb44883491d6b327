/**
 * A NATS connection that refuses new requests once its close has begun.
 *
 * `@nats-io/nats-core` 3.4.0's `close()` ends the pending requests, then awaits its status
 * listeners and only then counts itself closed. A request made in between (a reader or a scene
 * reacting to the close with a KV get) is accepted, never answered, and keeps its 2–5 s timeout
 * timer running after the close: the timer a cluster test's leak check caught (stop 26's CI;
 * `Bucket.get` → `RequestOne`). Everything the node builds on the connection (JetStream, the KV
 * buckets) is given this wrapper, so such a request fails at once with the library's own
 * `ClosedConnectionError`, as it would a moment later, and leaves no timer behind.
 */
import { ClosedConnectionError, type NatsConnection } from "@nats-io/transport-node";

/** The calls that start a request-reply and its timeout timer. */
const REQUESTS: ReadonlySet<PropertyKey> = new Set(["request", "requestMany"]);
/** The calls that begin the connection's end. */
const ENDINGS: ReadonlySet<PropertyKey> = new Set(["close", "drain"]);

/** A connection that can be told to refuse new requests (`refusingWhileClosing`). */
export interface ClosingConnection {
  /** The connection, through its public interface. */
  readonly nc: NatsConnection;
  /** From now on `request` and `requestMany` reject at once (the owner has begun to close). */
  refuseRequests(): void;
}

/**
 * Wraps `nc`: the same connection through its public interface, except that `request` and
 * `requestMany` reject with `ClosedConnectionError` from the moment `close()` or `drain()` is
 * called on the wrapper, or `refuseRequests()` (an owner that stops other work before it closes
 * the connection).
 *
 * @example
 * ```ts ignore
 * const { nc } = refusingWhileClosing(await connect({ servers: "127.0.0.1:4222" }));
 * const closing = nc.close();
 * await nc.request("any.subject").catch((e) => e); // ClosedConnectionError, no timer left
 * await closing;
 * ```
 */
export function refusingWhileClosing(nc: NatsConnection): ClosingConnection {
  let ending = false;
  // Bound once: a method read through the wrapper on every publish must not allocate.
  const bound = new Map<PropertyKey, unknown>();
  const refused = () => Promise.reject(new ClosedConnectionError());
  const wrapped = new Proxy(nc, {
    get(target, key) {
      if (ending && REQUESTS.has(key)) return refused;
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      let method = bound.get(key);
      if (method === undefined) {
        const fn = value.bind(target);
        method = ENDINGS.has(key)
          ? (...args: unknown[]) => {
            ending = true;
            return fn(...args);
          }
          : fn;
        bound.set(key, method);
      }
      return method;
    },
  });
  return { nc: wrapped, refuseRequests: () => ending = true };
}
