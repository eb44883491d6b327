/**
 * `startServer`: the scene server listening with the configured WebSocket engine (`ws_engine.ts`)
 * — the scenes' home (`open_scene_host.ts`: the local store, or NATS in cluster mode), the shared
 * scheduler and the Hono app — and its graceful shutdown (sockets closed with 1001, progress
 * flushed, storage closed).
 */
import { describeConfig, resolveConfig, type ServerOptions } from "./config.ts";
import { createApp } from "./http/app.ts";
import { HelloDeadlines } from "./ws/connection.ts";
import { AddressBudgets } from "./scene/ratelimit.ts";
import { listen, type Listener } from "./ws/ws_engine.ts";
import { ServerClock } from "./scene/clock.ts";
import { HashArbiter } from "./scene/hash_arbiter.ts";
import { Metrics } from "./scene/metrics.ts";
import type { PeerSocket } from "./scene/peer.ts";
import { PassScheduler } from "./scene/scheduler.ts";
import { openSceneHost } from "./open_scene_host.ts";
import { CLOSE_GOING_AWAY } from "./ws/ws_socket.ts";

export type { ServerOptions } from "./config.ts";

/** A started server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8000` (loopback when listening on every interface). */
  url: string;
  port: number;
  /** Closes sockets with 1001 ("going away"), persists every scene and stops listening. */
  shutdown(): Promise<void>;
}

/** Close code sent to every connection at shutdown ("going away"). */
export { CLOSE_GOING_AWAY } from "./ws/ws_socket.ts";

/**
 * Opens the scenes' home (the store under `dataDir`; with `cluster`, NATS JetStream, this node
 * one of many edges and owners: see server/cluster/), starts the scheduler and listens.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const config = resolveConfig(options);
  const metrics = new Metrics();
  const clock = new ServerClock(config.now, config.monotonic);
  // Computes true state hashes (on a worker) when clients' checkpoint hashes disagree.
  const arbiter = new HashArbiter();
  let scenes;
  try {
    scenes = await openSceneHost({ config, metrics, clock, arbiter }, options.cluster);
  } catch (e) {
    await arbiter.close();
    throw e;
  }
  const deadlines = new HelloDeadlines(config.helloTimeoutMs);
  const connectionBudget = new AddressBudgets(config.connections);
  const scheduler = new PassScheduler(config.heartbeatMs, config.monotonic, (nowMs) => {
    scenes.pass(nowMs);
    deadlines.sweep(nowMs);
    connectionBudget.sweep(nowMs);
    metrics.pass(nowMs, config.monotonic());
  });
  let accepting = true;
  const app = createApp({
    config,
    scenes,
    metrics,
    startedMs: config.monotonic(),
    accepting: () => accepting,
    deadlines,
    connectionBudget,
  });

  let server: Listener;
  try {
    server = await listen(config.wsEngine, app.fetch, {
      port: config.port,
      hostname: config.hostname,
      // The transport's limit is the longest frame anyone may send (a show); the connection
      // refuses a frame over maxFrameBytes from anyone but a host or composer.
      maxFrameBytes: Math.max(config.maxFrameBytes, config.maxShowFrameBytes),
      keepaliveMs: config.keepaliveMs,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
      httpIdleMs: config.httpIdleMs,
      headersTimeoutMs: config.headersTimeoutMs,
      log: config.log,
    });
  } catch (e) {
    await scenes.close();
    await arbiter.close();
    throw e;
  }
  const addr = { port: server.port };
  scheduler.start();
  const host = config.hostname === "0.0.0.0" || config.hostname === "::"
    ? "127.0.0.1"
    : config.hostname;
  const url = `http://${host}:${addr.port}`;
  config.log(`${describeConfig({ ...config, port: addr.port })}\nlistening on ${url}`);

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: addr.port,
    shutdown() {
      stopping ??= (async () => {
        accepting = false;
        scheduler.stop();
        const sockets = scenes.closeAll(CLOSE_GOING_AWAY, "server shutting down");
        // The close frames are only queued: exiting now would cut them off (in 5 of 13 runs with
        // 200 clients, ~70 got none). Wait for the handshakes, bounded for peers that never answer.
        const open = await closedWithin(sockets, CLOSE_FLUSH_DEADLINE_MS);
        if (open > 0) {
          config.log(`shutdown: ${open} connections did not finish closing within the deadline`);
        }
        await server.close();
        await arbiter.close();
        await scenes.close();
      })();
      return stopping;
    },
  };
}

/** How long shutdown waits for clients to answer the close frame (peers that never read). */
export const CLOSE_FLUSH_DEADLINE_MS = 3000;

const CLOSED = 3;

/** Waits until every socket is closed or `deadlineMs` passed; returns how many are still open. */
async function closedWithin(sockets: PeerSocket[], deadlineMs: number): Promise<number> {
  const deadline = performance.now() + deadlineMs;
  let open = sockets.filter((s) => s.readyState !== CLOSED);
  while (open.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    open = open.filter((s) => s.readyState !== CLOSED);
  }
  return open.length;
}
