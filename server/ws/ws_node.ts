/**
 * The `ws` WebSocket engine (default): Deno's `node:http` serves the Hono app (through
 * `@hono/node-server`'s request listener) and npm `ws` takes the upgrades. `ws` reads each frame's
 * header first and closes with 1009 when the announced length exceeds `maxPayload`, so an
 * oversized frame is refused before it is buffered; the rest is never parsed, and the TCP
 * connection is dropped shortly after the close frame (see `close(…, hard)`). Idle sockets are pinged every 30 s and dropped when they never
 * answered the previous ping (a vanished client would otherwise hold its slot for good).
 */
import http from "node:http";
import process from "node:process";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import { type WebSocket, WebSocketServer } from "ws";
import type { SharedFrame } from "../scene/shared_frame.ts";
import type { ConnSocket, ConnSocketHandlers } from "./ws_socket.ts";
import { textFrame } from "./text_frame.ts";
import { closeReason } from "./ws_socket.ts";
import type { FetchHandler, Listener, ListenOptions, Upgrade } from "./ws_types.ts";
import { GuardedListener } from "./guarded_listener.ts";
import { ConnectionGuard } from "./conn_guard.ts";

/** A live socket that did not answer the last ping within this long is dropped. */
export const KEEPALIVE_MS = 30_000;

/** The keepalive runs this often (at most), over a slice of the sockets. */
const KEEPALIVE_SLICE_MS = 1000;

/** After a hard close, the TCP connection is dropped this long after the close frame. */
const HARD_CLOSE_GRACE_MS = 100;

/** After a hard close, a peer that sends more than this is cut at once (a close reply is tiny). */
const HARD_CLOSE_DISCARD_BYTES = 64 * 1024;

/** At shutdown, sockets get this long to finish their closing handshake. */
const SHUTDOWN_GRACE_MS = 1000;

const OPEN = 1;

/**
 * Past this many bytes sent and not confirmed, a socket asks its peer to confirm (one ping at a
 * time, below the slow-reader floor so a reading peer confirms before it is judged).
 */
export const CONFIRM_AFTER_BYTES = 16 * 1024;

/** An `npm:ws` socket as a `ConnSocket`; it exists (and may be used) before the handshake ends. */
export class NodeConnSocket implements ConnSocket {
  #ws: WebSocket | undefined;
  /** The TCP connection, as the `upgrade` event handed it over. */
  #tcp: Duplex | undefined;
  #handlers: ConnSocketHandlers | undefined;
  /** Frames sent before the handshake finished (created only when that happens). */
  #early: string[] | undefined;
  #pendingClose: [number, string, boolean] | undefined;
  #ended = false;
  /** False once pinged; a pong sets it again. */
  alive = true;
  /** Characters sent (≈ bytes: frames are mostly ASCII JSON). */
  #sent = 0;
  /** Characters the peer confirmed reading (by answering a drain ping). */
  #confirmed = 0;
  /** The `#sent` mark a drain ping in flight carries, or -1. */
  #probe = -1;
  /** Called once when the socket ends (the engine's bookkeeping). */
  onEnd: (() => void) | undefined;

  get readyState(): number {
    return this.#ws ? this.#ws.readyState : this.#ended ? 3 : 0;
  }

  /**
   * What `ws` and the TCP stream still hold in the process (`ws.bufferedAmount` is the stream's
   * `writableLength` plus the sender's queue); not what the kernel holds.
   */
  get bufferedAmount(): number {
    return this.#ws?.bufferedAmount ?? 0;
  }

  /**
   * Bytes sent that the peer has not confirmed reading: in the process, in kernel buffers on
   * either side, or in flight. The confirmation is a ping carrying the count sent before it; a
   * peer's WebSocket answers it only once it has read every frame before it (RFC 6455 keeps
   * order), and a pong that does not echo the mark exactly confirms nothing.
   */
  undrained(): { bytes: number; confirmed: number } {
    const bytes = this.#sent - this.#confirmed;
    const ws = this.#ws;
    if (bytes > CONFIRM_AFTER_BYTES && this.#probe < 0 && ws?.readyState === OPEN) {
      this.#probe = this.#sent;
      try {
        ws.ping(String(this.#probe));
      } catch {
        this.#probe = -1;
      }
    }
    return { bytes, confirmed: this.#confirmed };
  }

  send(text: string): void {
    this.#sent += text.length;
    const ws = this.#ws;
    if (ws) {
      if (ws.readyState === OPEN) ws.send(text);
    } else if (!this.#ended && !this.#pendingClose) (this.#early ??= []).push(text);
  }

  /**
   * Writes the frame's bytes, built once for every socket (`textFrame`), straight to the TCP
   * connection: what `ws.send` would write, without encoding and framing the text again per
   * socket (measured: a third of the CPU of a 1000-peer fan-out). Safe beside `ws`'s own writes
   * because its sender writes each frame whole and synchronously and never queues (no
   * compression, no Blobs here); nothing is written once `ws` is closing.
   */
  sendShared(frame: SharedFrame): void {
    const ws = this.#ws;
    const tcp = this.#tcp;
    if (!ws || !tcp) return this.send(frame.text);
    if (ws.readyState !== OPEN) return;
    this.#sent += frame.text.length;
    tcp.write(frame.wire ??= textFrame(frame.text));
  }

  close(code: number, reason: string, hard = false): void {
    const ws = this.#ws;
    if (!ws) {
      this.#pendingClose ??= [code, reason, hard];
      return;
    }
    if (ws.readyState === OPEN) ws.close(code, closeReason(reason));
    if (hard && !this.#ended) {
      // Stop reading what an abuser still sends; the close frame gets a moment to leave.
      stopReading(ws);
      ws.pause();
      // Once the close frame has left for the kernel the write side is shut (FIN, so a polite
      // client reads the close frame and closes); the connection is cut at the grace, or at once
      // when the peer keeps sending past a small budget (DESIGN.md saw Deno's node:net deliver
      // reads to a paused socket). Cutting before the FIN resets the connection, and the client
      // may then lose the close frame (seen in CI as code 0 instead of 1009).
      const deadline = performance.now() + HARD_CLOSE_GRACE_MS;
      const socket = this.#tcp;
      // What it still sends is read (the runtime does) but never parsed: parsing a backlog of
      // tiny frames held the event loop for hundreds of ms per abuser.
      let discarded = 0;
      socket?.removeAllListeners("data");
      socket?.on("data", (chunk) => {
        discarded += chunk.length;
        if (discarded > HARD_CLOSE_DISCARD_BYTES && !this.#ended) ws.terminate();
      });
      let shut = false;
      const check = () => {
        if (this.#ended) return;
        if (performance.now() >= deadline) ws.terminate();
        else {
          if (!shut && (socket?.writableLength ?? 0) === 0) {
            shut = true;
            socket?.end();
          }
          setTimeout(check, shut ? 10 : 1);
        }
      };
      setTimeout(check, 0);
    }
  }

  listen(handlers: ConnSocketHandlers): void {
    this.#handlers = handlers;
  }

  /** Drops the TCP connection now. */
  terminate(): void {
    if (this.#ws) this.#ws.terminate();
    else this.fail();
  }

  /** Sends a keepalive ping; false when the previous one went unanswered (then it is dropped). */
  ping(): boolean {
    if (!this.alive) {
      this.terminate();
      return false;
    }
    this.alive = false;
    try {
      this.#ws?.ping();
    } catch {
      // Not open: the close event follows.
    }
    return true;
  }

  /**
   * The handshake finished: wires `ws` (over `tcp`, the connection the `upgrade` event handed
   * over) and delivers what was sent or asked for meanwhile.
   */
  attach(ws: WebSocket, tcp: Duplex): void {
    this.#ws = ws;
    this.#tcp = tcp;
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      // A socket nobody listens to (refused at the door) is closing hard: nothing to parse.
      const handlers = this.#handlers;
      if (!handlers) return stopReading(ws);
      if (isBinary) handlers.message(null, data.length);
      else handlers.message(data.toString(), data.length);
    });
    ws.on("pong", (data: Buffer) => {
      this.alive = true;
      if (this.#probe >= 0 && data.length > 0 && data.toString() === String(this.#probe)) {
        this.#confirmed = this.#probe;
        this.#probe = -1;
      }
    });
    // A protocol error (oversized frame: 1009, bad UTF-8: 1007, bad opcode: 1002): `ws` already
    // sent the close frame; an abuser gets no more reading.
    ws.on("error", (e: Error & { code?: string }) => {
      if (e.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") this.#handlers?.oversized();
      // `ws` resumes the socket on the next tick to read the peer's close reply; an abuser's
      // reply is not worth reading (the rest of a 60 MiB frame would be): pause after that.
      process.nextTick(() => this.close(1002, "protocol error", true));
    });
    ws.on("close", () => this.#end());
    if (this.#early) {
      for (const text of this.#early) ws.send(text);
      this.#early = undefined;
    }
    if (this.#pendingClose) this.close(...this.#pendingClose);
  }

  /** The handshake never finished (the client left or sent a bad handshake). */
  fail(): void {
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#early = undefined;
    this.onEnd?.();
    this.#handlers?.close();
  }
}

/**
 * The one private part of `ws` this engine touches (pinned version: 8.23): the receiver's parse
 * loop flag and its buffered input, which `stopReading` clears. `wsReceiver` checks their shape,
 * so a `ws` upgrade that changes them fails its test (tests/server/server_ws_internals_test.ts) instead
 * of silently parsing an abuser's backlog again.
 */
interface WsReceiver {
  _loop: boolean;
  _buffers: unknown[];
  _bufferedBytes: number;
}

/** `ws`'s receiver of a socket, or an error saying what no longer matches. */
export function wsReceiver(ws: WebSocket): WsReceiver | Error {
  const receiver = (ws as unknown as { _receiver?: Partial<WsReceiver> })._receiver;
  if (!receiver) return new Error("ws: a socket has no _receiver");
  if (typeof receiver._loop !== "boolean") return new Error("ws: _receiver._loop is no boolean");
  if (!Array.isArray(receiver._buffers)) return new Error("ws: _receiver._buffers is no array");
  if (typeof receiver._bufferedBytes !== "number") {
    return new Error("ws: _receiver._bufferedBytes is no number");
  }
  return receiver as WsReceiver;
}

/**
 * Makes `ws` stop parsing what it already read: one 64 KiB read holds up to 8192 tiny frames, and
 * `ws` would parse and dispatch all of them even after the first twenty got the socket closed
 * (measured: 7 ms of CPU per flooding connection, against 2 ms without the rest).
 */
function stopReading(ws: WebSocket): void {
  const receiver = wsReceiver(ws);
  if (receiver instanceof Error) return;
  receiver._loop = false;
  receiver._buffers = [];
  receiver._bufferedBytes = 0;
}

/** Serves `fetch` on `node:http`; upgrades with npm `ws` (`maxPayload` = the frame limit). */
export function listenNode(fetch: FetchHandler, options: ListenOptions): Promise<Listener> {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const live = new Set<NodeConnSocket>();
  const listener = getRequestListener(
    (request, env) => fetch(request, { remoteAddress: env.incoming.socket?.remoteAddress ?? "" }),
    { overrideGlobalObjects: false },
  );
  const server = http.createServer(listener);
  // The TCP listener is ours: it counts connections per address and in total, times out silent
  // ones and listens again if the runtime's accept loop dies (see guarded_listener.ts).
  const guard = options.guard ??
    new ConnectionGuard(
      options.maxConnections ?? Infinity,
      options.maxConnectionsPerAddress ?? Infinity,
    );
  const tcpSockets = new Set<Duplex>();
  const front = new GuardedListener({
    port: options.port,
    hostname: options.hostname,
    guard,
    idleMs: options.httpIdleMs ?? 30_000,
    headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
    log: options.log,
  }, (socket) => {
    tcpSockets.add(socket);
    socket.once("close", () => tcpSockets.delete(socket));
    server.emit("connection", socket);
  });
  // `node:http` keeps a connection alive only while its server says it is listening; this one
  // never listens itself (the front does), and without this every request cost a fresh TCP
  // connection, reset after one or two answers (Deno 2.9.6: 1–2 of 20 keep-alive requests
  // answered on a connection handed over with `emit("connection")`, 20 of 20 with this).
  Object.defineProperty(server, "listening", { get: () => front.listening });
  server.on("request", (req: http.IncomingMessage) => front.requestArrived(req.socket));
  server.on("upgrade", (req: http.IncomingMessage, tcp: Duplex, head: Buffer) => {
    front.upgraded(req.socket);
    tcp.on("error", () => {});
    upgradeNode(req, tcp, head, wss, live, fetch, options.log);
  });
  // Every socket is pinged once per keepalive period, a slice each second: pinging thousands in
  // one go would hold up the heartbeats of every scene.
  const period = options.keepaliveMs ?? KEEPALIVE_MS;
  const sliceMs = Math.min(KEEPALIVE_SLICE_MS, period / 4);
  let round: NodeConnSocket[] = [];
  let next = 0;
  let roundStarted = -Infinity;
  const slices = period / sliceMs;
  const keepalive = setInterval(() => {
    if (next >= round.length) {
      // A new round starts once the last one is a period old, however few sockets it had.
      if (performance.now() - roundStarted < period - sliceMs / 2) return;
      roundStarted = performance.now();
      round = [...live];
      next = 0;
    }
    const end = Math.min(round.length, next + Math.ceil(round.length / slices));
    for (; next < end; next++) if (live.has(round[next])) round[next].ping();
  }, sliceMs);
  Deno.unrefTimer(keepalive);

  return front.listen().catch((e) => {
    clearInterval(keepalive);
    throw e;
  }).then((port) => ({
    engine: "ws",
    port,
    async close() {
      clearInterval(keepalive);
      const closed = front.close();
      server.closeIdleConnections?.();
      const deadline = Date.now() + SHUTDOWN_GRACE_MS;
      while (live.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      for (const socket of live) socket.terminate();
      server.closeAllConnections?.();
      for (const tcp of tcpSockets) tcp.destroy();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        closed,
        new Promise<void>((resolve) => timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)),
      ]);
      clearTimeout(timer);
      wss.close();
    },
  }));
}

/**
 * Runs an upgrade request through the app. When its route accepted (called `env.upgrade`), `ws`
 * finishes the handshake; otherwise the app's response (403, 404, 503 …) is written as is.
 */
async function upgradeNode(
  req: http.IncomingMessage,
  tcp: Duplex,
  head: Buffer,
  wss: WebSocketServer,
  live: Set<NodeConnSocket>,
  fetch: FetchHandler,
  log: (msg: string) => void,
): Promise<void> {
  let accepted: NodeConnSocket | undefined;
  const accept: Upgrade = () => {
    accepted = new NodeConnSocket();
    // Placeholder: the engine writes the real 101 itself once the handshake checks pass.
    return { socket: accepted, response: new Response(null, { status: 200 }) };
  };
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`;
  let response: Response;
  try {
    response = await fetch(new Request(url, { method: req.method, headers }), {
      remoteAddress: req.socket?.remoteAddress ?? "",
      upgrade: accept,
    });
  } catch (e) {
    log(`error: upgrade ${req.url}: ${(e as Error).stack ?? e}`);
    response = new Response("internal error", { status: 500 });
  }
  const socket = accepted as NodeConnSocket | undefined;
  if (!socket) {
    await writeResponse(tcp, response);
    return;
  }
  if (tcp.destroyed) {
    socket.fail();
    return;
  }
  live.add(socket);
  socket.onEnd = () => live.delete(socket);
  // ws answers a bad handshake (say a wrong key) with 400 and destroys the socket without
  // calling back: the connection then ends here.
  const unfinished = () => socket.fail();
  tcp.once("close", unfinished);
  wss.handleUpgrade(req, tcp, head, (ws) => {
    tcp.off("close", unfinished);
    socket.attach(ws, tcp);
  });
}

/** Writes a refusal to a socket that asked for an upgrade, then ends the connection. */
async function writeResponse(tcp: Duplex, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  if (tcp.destroyed) return;
  let head = `HTTP/1.1 ${response.status} ${http.STATUS_CODES[response.status] ?? ""}\r\n`;
  response.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "connection") head += `${name}: ${value}\r\n`;
  });
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  tcp.write(head);
  tcp.end(body);
}
