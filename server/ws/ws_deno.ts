/**
 * The `deno` WebSocket engine: `Deno.serve` for HTTP and `Deno.upgradeWebSocket` for sockets.
 * Fast and lean, but the runtime buffers a whole message (up to 64 MiB) before the server sees its
 * size (denoland/deno#15809), and a socket cannot be dropped without the peer's close reply. The
 * `ws` engine (`ws_node.ts`) is the default for that reason; this one stays for comparison.
 */
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

  get bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }

  send(text: string): void {
    const state = this.#ws.readyState;
    if (state === OPEN) this.#ws.send(text);
    else if (state === CONNECTING) this.#whenOpen(() => this.#ws.send(text));
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

/** Serves `fetch` with `Deno.serve`; upgrades with `Deno.upgradeWebSocket`. */
export function listenDeno(fetch: FetchHandler, options: ListenOptions): Promise<Listener> {
  const abort = new AbortController();
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const upgrade = (request: Request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    return { socket: new DenoConnSocket(socket), response };
  };
  const server = Deno.serve({
    port: options.port,
    hostname: options.hostname,
    signal: abort.signal,
    onListen: (addr) => listening.resolve(addr),
  }, (request, info) => fetch(request, { remoteAddress: info.remoteAddr.hostname, upgrade }));
  return listening.promise.then((addr) => ({
    engine: "deno",
    port: addr.port,
    async close() {
      abort.abort();
      await server.finished;
    },
  }));
}
