/**
 * `GuardedListener`: the TCP listener in front of `node:http` (the `ws` engine). Each accepted
 * connection is counted by a `ConnectionGuard` (refused at once beyond the per-address or total
 * cap, with a one-line 503), gets a header deadline and an idle timeout, and is then handed to
 * HTTP with `emit("connection")`.
 *
 * The idle timeout is a sweep over the connections not yet upgraded (no bytes read or written
 * for `idleMs`: closed), not `socket.setTimeout`: a socket that ever had a `setTimeout` keeps the
 * cleared timer after `ws` sets 0 on upgrade, and Deno 2.9.6's `node:net` then refreshes it on
 * every write and read (`_unrefTimer`: a `Date.now()` and a walk per frame; measured 0.3 µs of
 * JavaScript per frame sent, 3 % of the server's CPU in a 1000-peer fan-out).
 *
 * What Deno 2.9.6 does when descriptors run out (measured with `prlimit --nofile=100`, 200
 * connections, then all closed): a `node:net` server whose `accept` fails with EMFILE never
 * accepts again, with no `error` event (0 of 3 probes answered after the attacker left), and
 * `server.maxConnections` stops accepting for good once reached; `Deno.serve` rejects
 * `finished` with "Too many open files" (the process exits if nobody catches it). The
 * workaround here: the guard keeps connections below the descriptor limit, and a watchdog
 * notices a listener that stopped accepting (a connection to itself that never arrives while
 * nothing else arrived either) and listens anew on the same port; the old connections live on.
 * Handing connections to `node:http` this way needs its server to report `listening` (see
 * {@link GuardedListener.listening} and `ws_node.ts`): otherwise it keeps none alive.
 */
import net from "node:net";
import type { ConnectionGuard } from "./conn_guard.ts";

/** Where to listen, the caps and the timeouts. */
export interface GuardedListenerOptions {
  port: number;
  hostname: string;
  guard: ConnectionGuard;
  /** A connection not upgraded to a WebSocket is closed once it moved no byte for this long. */
  idleMs: number;
  /** A connection whose first request has not been handed over this long after opening is closed. */
  headersTimeoutMs: number;
  log: (msg: string) => void;
}

/** How often the watchdog looks at the listener. */
export const WATCHDOG_MS = 1000;

/**
 * A quiet listener (nothing but the watchdog's own connections accepted) is probed ever less
 * often, down to once every this many looks; any other connection brings it back to every look.
 * A probe costs the process ~3 ms of CPU (a connection accepted, handed to HTTP and closed): 1 %
 * of a 1000-peer scene's fan-out when it ran every second. A listener dies only when an accept
 * fails (descriptors ran out as a connection arrived), and a flood keeps it looking every second.
 */
export const WATCHDOG_MAX_SKIP = 8;

/** How long the watchdog's own connection may take to arrive before the listener counts as dead. */
const PROBE_GRACE_MS = 300;

/** After a refusal is written, the connection is dropped this long later at most. */
const REFUSAL_LINGER_MS = 200;

/** Accepts, counts and hands over connections; re-listens when the runtime's accept loop died. */
export class GuardedListener {
  readonly #options: GuardedListenerOptions;
  readonly #onConnection: (socket: net.Socket) => void;
  #server: net.Server | undefined;
  #port = 0;
  #accepted = 0;
  /** `#accepted` when the watchdog last looked (its own probe's connection included). */
  #acceptedAtLook = 0;
  /** Looks between probes while the listener is quiet (1 … WATCHDOG_MAX_SKIP), and looks since. */
  #probeEvery = 1;
  #looksSinceProbe = 0;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  /** The watchdog's look in progress: stops it (close calls it). */
  #stopProbe: (() => void) | undefined;
  /** Connections whose first request has not arrived yet, with their deadline timers. */
  readonly #waiting = new Map<net.Socket, ReturnType<typeof setTimeout>>();
  /** Connections not upgraded, with the bytes they had moved and when that last changed. */
  readonly #idle = new Map<net.Socket, { bytes: number; sinceMs: number }>();
  #idleSweep: ReturnType<typeof setInterval> | undefined;
  /** Times the listener was found dead and opened again. */
  relistens = 0;

  constructor(options: GuardedListenerOptions, onConnection: (socket: net.Socket) => void) {
    this.#options = options;
    this.#onConnection = onConnection;
  }

  /** The bound port. */
  get port(): number {
    return this.#port;
  }

  /** True from `listen` until `close`. */
  get listening(): boolean {
    return this.#server !== undefined && !this.#closed;
  }

  /** Starts listening; resolves with the port. */
  async listen(): Promise<number> {
    this.#port = await this.#open(this.#options.port);
    const watchdog = setInterval(() => this.#check(), WATCHDOG_MS);
    Deno.unrefTimer(watchdog);
    this.#watchdog = watchdog;
    // A quarter of the idle time: a silent connection goes after 1 to 1.25 times it.
    const sweep = setInterval(() => this.#sweepIdle(), Math.max(10, this.#options.idleMs / 4));
    Deno.unrefTimer(sweep);
    this.#idleSweep = sweep;
    return this.#port;
  }

  /** The request on `socket` arrived (or it was upgraded): the header deadline no longer applies. */
  requestArrived(socket: net.Socket): void {
    const timer = this.#waiting.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#waiting.delete(socket);
  }

  /** `socket` was upgraded to a WebSocket: the idle timeout no longer applies (`ws` keeps it alive). */
  upgraded(socket: net.Socket): void {
    this.requestArrived(socket);
    this.#idle.delete(socket);
  }

  /** Closes the connections that moved no byte for `idleMs`. */
  #sweepIdle(): void {
    const now = performance.now();
    for (const [socket, seen] of this.#idle) {
      const bytes = socket.bytesRead + socket.bytesWritten;
      if (bytes !== seen.bytes) {
        seen.bytes = bytes;
        seen.sinceMs = now;
      } else if (now - seen.sinceMs >= this.#options.idleMs) {
        this.#idle.delete(socket);
        socket.destroy();
      }
    }
  }

  /** Stops listening (open connections are the caller's to close). */
  close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watchdog);
    clearInterval(this.#idleSweep);
    this.#idle.clear();
    this.#stopProbe?.();
    for (const timer of this.#waiting.values()) clearTimeout(timer);
    this.#waiting.clear();
    const server = this.#server;
    this.#server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  #open(port: number): Promise<number> {
    const server = net.createServer((socket) => this.#accept(socket));
    const bound = Promise.withResolvers<number>();
    server.once("error", (e) => bound.reject(e));
    server.listen(port, this.#options.hostname, () => {
      server.on("error", (e) => this.#options.log(`listener: ${e.message}`));
      bound.resolve((server.address() as net.AddressInfo).port);
    });
    this.#server = server;
    return bound.promise;
  }

  #accept(socket: net.Socket): void {
    this.#accepted++;
    socket.on("error", () => {});
    const address = socket.remoteAddress ?? "";
    const refusal = this.#options.guard.admit(address);
    if (refusal) {
      if (refusal === "server_full") {
        // Descriptors are what is short: give this one back now.
        socket.destroy();
        return;
      }
      const body = JSON.stringify({
        error: {
          code: "too_many_connections",
          message: "your address holds too many open connections; close some and try again",
        },
      });
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n` +
          `retry-after: 5\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      );
      const linger = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
      socket.once("close", () => clearTimeout(linger));
      return;
    }
    socket.once("close", () => {
      this.#options.guard.release(address);
      this.requestArrived(socket);
      this.#idle.delete(socket);
    });
    // Silent connections go (see the sweep); HTTP keep-alive adds its own timeout later.
    this.#idle.set(socket, { bytes: 0, sinceMs: performance.now() });
    const timer = setTimeout(() => {
      this.#waiting.delete(socket);
      socket.destroy();
    }, this.#options.headersTimeoutMs);
    this.#waiting.set(socket, timer);
    this.#onConnection(socket);
  }

  /**
   * Connects to itself (every look while connections arrive, less often while quiet); re-listens
   * when that connection never arrives.
   */
  #check(): void {
    if (this.#closed || this.#stopProbe) return;
    if (this.#accepted !== this.#acceptedAtLook) this.#probeEvery = 1;
    this.#acceptedAtLook = this.#accepted;
    if (++this.#looksSinceProbe < this.#probeEvery) return;
    this.#looksSinceProbe = 0;
    const before = this.#accepted;
    const host = this.#options.hostname === "0.0.0.0"
      ? "127.0.0.1"
      : this.#options.hostname === "::"
      ? "::1"
      : this.#options.hostname;
    const probe = net.connect(this.#port, host);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      probe.destroy();
      this.#stopProbe = undefined;
    };
    this.#stopProbe = done;
    // No descriptor for the probe: descriptors are short, nothing to learn yet.
    probe.once("error", done);
    probe.once("connect", () => {
      timer = setTimeout(() => {
        done();
        if (this.#closed) return;
        if (this.#accepted !== before) {
          // Alive. Only the probe arrived: quiet, so probe less often; others too: every look.
          this.#probeEvery = this.#accepted === before + 1
            ? Math.min(WATCHDOG_MAX_SKIP, this.#probeEvery * 2)
            : 1;
          this.#acceptedAtLook = this.#accepted;
          return;
        }
        this.#probeEvery = 1;
        this.#relisten();
      }, PROBE_GRACE_MS);
    });
  }

  #relisten(): void {
    const old = this.#server;
    this.relistens++;
    this.#options.log(
      `listener: stopped accepting (descriptors ran out?); listening again on port ${this.#port}`,
    );
    try {
      old?.close();
    } catch {
      // A dead listener may not close cleanly; it is dropped either way.
    }
    this.#open(this.#port).catch((e) => {
      this.#options.log(`listener: could not listen again yet: ${(e as Error).message}`);
    });
  }
}
