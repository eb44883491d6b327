/**
 * The load test's baseline: the smallest `Deno.upgradeWebSocket` broadcast server that carries the
 * same traffic shape as the Snowfire reflector, so every load figure can be compared with what
 * the bare platform does on this machine.
 *
 * - `GET /s/:scene/ws` upgrades; every scene is a room (a plain array of sockets).
 * - A `hello` frame gets a small `welcome` frame back (so clients run the same handshake).
 * - A `submit` frame with a `launch` body is parsed and broadcast to everybody in the room as an
 *   `event` frame of the same shape and size as Snowfire's: `seq` (per room, gap-free) and the
 *   current `tick`.
 * - Every room gets a `{"t":"tick","n":N}` heartbeat on Snowfire's schedule: a pass every 45 ms
 *   (monotonic, no drift) that skips the room when an event went out at this tick or the one
 *   before (`COVERED_TICKS` in server/scene/sequencer.ts). The clients then receive the same
 *   frames from both servers, so CPU per frame compares the same work. (Until 2026-12-04 the
 *   baselines sent a heartbeat every 50 ms regardless: 30 frames a second per client in scenario
 *   b against Snowfire's ~26, which spread their fixed costs over 15 % more frames.)
 * - `GET /healthz` answers `ok` (readiness probe).
 *
 * No validation, no limits, no persistence: that is the point of a baseline.
 *
 * Run: `deno run -A scripts/raw_server.ts` with `PORT` (default 8001) and `HOST` (default
 * 127.0.0.1).
 */

/** Ticks per second, as in Snowfire. */
const TICK_RATE = 60;
/** The heartbeat pass's period in milliseconds: Snowfire's default `heartbeatMs`. */
const HEARTBEAT_MS = 45;
/** A room skips a pass's heartbeat when its last frame promised a tick at most this stale. */
const COVERED_TICKS = 1;

/** One broadcast room. */
interface Room {
  readonly sockets: WebSocket[];
  seq: number;
  /** The last tick an event or heartbeat told the room. */
  promised: number;
}

/** Options for {@link startRawServer}. */
export interface RawServerOptions {
  port: number;
  hostname: string;
  signal?: AbortSignal;
}

/** A running raw server. */
export interface RawServer {
  readonly port: number;
  /** Resolves when the server has stopped (after `signal` aborted). */
  readonly finished: Promise<void>;
}

const SCENE_PATH = /^\/s\/([a-z0-9-]{1,64})\/ws$/;

/** Starts the raw broadcast server; it stops when `signal` aborts. */
export function startRawServer(options: RawServerOptions): Promise<RawServer> {
  const rooms = new Map<string, Room>();
  const start = performance.now();
  let peerCounter = 0;
  const tickNow = () => Math.floor((performance.now() - start) * TICK_RATE / 1000);

  let heartbeatTimer: ReturnType<typeof setTimeout>;
  let nextBeat = performance.now() + HEARTBEAT_MS;
  const beat = () => {
    const tick = tickNow();
    const frame = `{"t":"tick","n":${tick}}`;
    for (const room of rooms.values()) {
      if (tick - room.promised <= COVERED_TICKS) continue;
      room.promised = tick;
      for (const socket of room.sockets) {
        if (socket.readyState === WebSocket.OPEN) socket.send(frame);
      }
    }
    // Re-arm against the monotonic clock so timer lateness does not accumulate.
    nextBeat += HEARTBEAT_MS;
    const now = performance.now();
    if (nextBeat < now) nextBeat = now + HEARTBEAT_MS;
    heartbeatTimer = setTimeout(beat, nextBeat - now);
  };
  heartbeatTimer = setTimeout(beat, HEARTBEAT_MS);

  const join = (sceneId: string, socket: WebSocket, peerId: string) => {
    let room = rooms.get(sceneId);
    if (!room) {
      room = { sockets: [], seq: 0, promised: 0 };
      rooms.set(sceneId, room);
    }
    const joined = room;
    socket.onmessage = (message) => {
      if (typeof message.data !== "string") return;
      let frame: { t?: unknown; body?: { type?: unknown; x?: unknown; z?: unknown } };
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.t === "hello") {
        socket.send(
          `{"t":"welcome","v":2,"scene":"${sceneId}","you":{"id":"${peerId}"},"horizon":${tickNow()},` +
            `"lastSeq":${joined.seq},"events":[],"peers":[],"resumed":false}`,
        );
      } else if (frame.t === "submit" && frame.body?.type === "launch") {
        joined.seq++;
        const tick = tickNow();
        if (tick > joined.promised) joined.promised = tick;
        const event = `{"t":"event","seq":${joined.seq},"tick":${tick},"by":"${peerId}",` +
          `"body":{"type":"launch","x":${Number(frame.body.x)},"z":${Number(frame.body.z)}}}`;
        for (const peer of joined.sockets) {
          if (peer.readyState === WebSocket.OPEN) peer.send(event);
        }
      }
    };
    socket.onopen = () => joined.sockets.push(socket);
    socket.onclose = () => {
      const index = joined.sockets.indexOf(socket);
      if (index >= 0) joined.sockets.splice(index, 1);
      if (joined.sockets.length === 0) rooms.delete(sceneId);
    };
  };

  const { promise: ready, resolve: onReady } = Promise.withResolvers<number>();
  const server = Deno.serve({
    port: options.port,
    hostname: options.hostname,
    signal: options.signal,
    onListen: (address) => onReady(address.port),
  }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const match = SCENE_PATH.exec(url.pathname);
    if (!match || request.headers.get("upgrade") !== "websocket") {
      return new Response("not found", { status: 404 });
    }
    const { socket, response } = Deno.upgradeWebSocket(request);
    join(match[1], socket, `p${++peerCounter}`);
    return response;
  });

  const finished = server.finished.then(() => {
    clearTimeout(heartbeatTimer);
    for (const room of rooms.values()) {
      for (const socket of room.sockets) socket.close(1001, "server stopping");
    }
  });
  return ready.then((port) => ({ port, finished }));
}

if (import.meta.main) {
  const controller = new AbortController();
  const hostname = Deno.env.get("HOST") ?? "127.0.0.1";
  const server = await startRawServer({
    port: Number(Deno.env.get("PORT") ?? 8001),
    hostname,
    signal: controller.signal,
  });
  console.log(`raw server listening on http://${hostname}:${server.port} (pid ${Deno.pid})`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => controller.abort());
  }
  await server.finished;
  // The signal listeners would keep the process alive.
  Deno.exit(0);
}
