/**
 * The types every WebSocket engine and the Hono app share: engine names, what a request carries
 * besides itself (`ServerEnv`), and how a listener is started and stopped. This module imports
 * no engine, so the engines (`ws_deno.ts`, `ws_node.ts`) and `ws_engine.ts`, which picks one,
 * import it without an import circle.
 */
import type { ConnectionGuard } from "./conn_guard.ts";
import type { ConnSocket } from "./ws_socket.ts";

/** Engine names, as in `WS_ENGINE`. */
export const WS_ENGINES = ["ws", "deno"] as const;
export type WsEngine = typeof WS_ENGINES[number];

/** Turns an upgrade request into a socket and the response that completes the upgrade. */
export type Upgrade = (request: Request) => { socket: ConnSocket; response: Response };

/** What every request carries besides itself (Hono's `c.env`). */
export interface ServerEnv {
  /** The TCP peer's address (per-address budgets key on it). */
  remoteAddress: string;
  /** Present on requests that may be upgraded to a WebSocket. */
  upgrade?: Upgrade;
}

/** The app's entry point. */
export type FetchHandler = (request: Request, env: ServerEnv) => Response | Promise<Response>;

/** Where and how to listen. */
export interface ListenOptions {
  port: number;
  hostname: string;
  /** Largest WebSocket message accepted, bytes (engines that can enforce it early do). */
  maxFrameBytes: number;
  /** `ws` engine: idle sockets are pinged this often; no pong by the next ping: dropped. */
  keepaliveMs?: number;
  /** Most TCP connections at once (lowered to fit the open-file limit). */
  maxConnections?: number;
  /** Most TCP connections one address holds at once. */
  maxConnectionsPerAddress?: number;
  /** A plain HTTP connection silent this long is closed. */
  httpIdleMs?: number;
  /** A connection whose request headers are not in this long after opening is closed. */
  headersTimeoutMs?: number;
  /** The counter of open connections (made from the caps above when absent). */
  guard?: ConnectionGuard;
  log: (msg: string) => void;
}

/** A listening server. */
export interface Listener {
  readonly engine: WsEngine;
  readonly port: number;
  /** Stops accepting, lets open sockets finish closing (bounded), and resolves when done. */
  close(): Promise<void>;
}
