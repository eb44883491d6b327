/**
 * The `deno` WebSocket engine: `Deno.serve` for HTTP and `Deno.upgradeWebSocket` for sockets.
 * Fast and lean, but the runtime buffers a whole message (up to 64 MiB) before the server sees its
 * size (denoland/deno#15809), and a socket cannot be dropped without the peer's close reply. The
 * `ws` engine (`ws_node.ts`) is the default for that reason; this one stays for comparison.
 */
import type { SharedFrame } from "../scene/shared_frame.ts";
import type { ConnSocket, ConnSocketHandlers } from "./ws_socket.ts";
import { closeReason } from "./ws_socket.ts";
import type { FetchHandler, Listener, ListenOptions } from "./ws_types.ts";

const CONNECTING = 0;
const OPEN = 1;

/** A `Deno.upgradeWebSocket` socket as a `ConnSocket`. */
export class DenoConnSocket implements ConnSocket {
  readonly #ws: WebSocket;
  /** Sends and closes asked for before the socket opened (created only when that happens). */
  #early: (() => void)[] | undefined;

  constructor(ws: WebSocket) {
    this.#ws = ws;
  }

  get readyState(): number {
    return this.#ws.readyState;
  }

  /**
   * What the runtime still holds for this socket; not what the kernel holds. Deno's server
   * WebSocket cannot send a ping of its own, so this engine has no `undrained`: a peer that
   * never reads is judged only once the kernel's buffers are full and the runtime holds the rest.
   */
  get bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }

  send(text: string): void {
    const state = this.#ws.readyState;
    if (state === OPEN) this.#ws.send(text);
    else if (state === CONNECTING) this.#whenOpen(() => this.#ws.send(text));
  }

  /** The runtime frames every send natively: a shared frame goes as its text. */
  sendShared(frame: SharedFrame): void {
    this.send(frame.text);
  }

  close(code: number, reason: string): void {
    if (this.#ws.readyState === CONNECTING) {
      this.#whenOpen(() => this.close(code, reason));
      return;
    }
    try {
      this.#ws.close(code, closeReason(reason));
    } catch {
      // Already closing.
    }
  }

  /** Runs `action` once the socket opens, after the ones queued before it. */
  #whenOpen(action: () => void): void {
    if (!this.#early) {
      this.#early = [];
      this.#ws.onopen = () => {
        const actions = this.#early!;
        this.#early = undefined;
        for (const run of actions) run();
      };
    }
    this.#early.push(action);
  }

  /** Runs `action` once the socket has closed (the engine's bookkeeping). */
  onClosed(action: () => void): void {
    if (this.#ws.readyState === 3) action();
    else this.#ws.addEventListener("close", action, { once: true });
  }

  listen(handlers: ConnSocketHandlers): void {
    this.#ws.onmessage = (e: MessageEvent) => {
      const data = e.data;
      if (typeof data === "string") handlers.message(data, data.length);
      else handlers.message(null, data instanceof ArrayBuffer ? data.byteLength : data.size ?? 0);
    };
    // No error listener: an error event is always followed by the close event.
    this.#ws.onclose = () => handlers.close();
  }
}

/**
 * Serves `fetch` with `Deno.serve`; upgrades with `Deno.upgradeWebSocket`.
 *
 * `Deno.serve` shows no TCP connections, so the guard counts what it can see: requests in flight
 * and open WebSockets, per address and in total (a refused one gets 503 `too_many_connections`).
 * When accepting fails for want of descriptors, Deno 2.9.6 ends the server (its `finished`
 * rejects with "Too many open files"; uncaught, the process exits): it is served anew on the
 * same port after a pause, again until descriptors are free.
 */
export function listenDeno(fetch: FetchHandler, options: ListenOptions): Promise<Listener> {
  const guard = options.guard;
  const upgrade = (request: Request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    return { socket: new DenoConnSocket(socket), response };
  };
  const handle = async (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
    const address = info.remoteAddr.hostname;
    const refusal = guard?.admit(address);
    if (refusal) {
      return Response.json({
        error: {
          code: "too_many_connections",
          message: refusal === "address_full"
            ? "your address holds too many open connections; close some and try again"
            : "the server holds as many connections as it can; try again shortly",
        },
      }, { status: 503, headers: { "retry-after": "5" } });
    }
    let upgraded: DenoConnSocket | undefined;
    const env = {
      remoteAddress: address,
      upgrade: (r: Request) => {
        const result = upgrade(r);
        upgraded = result.socket;
        return result;
      },
    };
    try {
      return await fetch(request, env);
    } finally {
      // A WebSocket holds its count until it closes; a plain request until it is answered.
      if (upgraded) upgraded.onClosed(() => guard?.release(address));
      else guard?.release(address);
    }
  };
  let abort = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  let stopped = false;
  let boundPort = options.port;
  const first = Promise.withResolvers<Deno.NetAddr>();
  const serve = (port: number): void => {
    abort = new AbortController();
    server = Deno.serve({
      port,
      hostname: options.hostname,
      signal: abort.signal,
      onListen: (addr) => {
        boundPort = addr.port;
        first.resolve(addr);
      },
    }, handle);
    server.finished.catch((e: Error) => {
      if (stopped) return;
      options.log(`listener: ${e.message}; serving again on port ${boundPort} in 1 s`);
      setTimeout(() => retry(boundPort), 1000);
    });
  };
  const retry = (port: number) => {
    if (stopped) return;
    try {
      serve(port);
    } catch (e) {
      options.log(`listener: could not serve again yet: ${(e as Error).message}`);
      setTimeout(() => retry(port), 1000);
    }
  };
  serve(options.port);
  return first.promise.then((addr) => ({
    engine: "deno",
    port: addr.port,
    async close() {
      stopped = true;
      abort.abort();
      await server?.finished.catch(() => {});
    },
  }));
}
