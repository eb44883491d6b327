/**
 * The load test's second baseline: the same minimal broadcast server as `raw_server.ts`, on npm
 * `ws` over `node:http` — what Snowfire's default engine is built from — with nothing of
 * Snowfire's. Plain JavaScript so that Node itself runs it (`node scripts/raw_ws_server.mjs`,
 * the load test's `raw-node` target); `deno run -A scripts/raw_ws_server.mjs` runs it too.
 *
 * - `GET /s/:scene/ws` upgrades; every scene is a room (a plain array of sockets).
 * - A `hello` frame gets a small `welcome` frame back (so clients run the same handshake).
 * - A `submit` frame with a `launch` body is broadcast to everybody in the room as an `event`
 *   frame of the same shape and size as Snowfire's (`ws.send(text)` per socket, as a `ws` server
 *   is usually written).
 * - Every room gets a `{"t":"tick","n":N}` heartbeat on Snowfire's schedule, as in `raw_server.ts`
 *   (a pass every 45 ms; a room whose last event went out at this tick or the one before skips it).
 * - `GET /healthz` answers `ok`.
 *
 * Environment: `PORT` (default 8002), `HOST` (default 127.0.0.1).
 */
import http from "node:http";
import process from "node:process";
import { WebSocketServer } from "ws";

/** Ticks per second, as in Snowfire. */
const TICK_RATE = 60;
/** The heartbeat pass's period in milliseconds: Snowfire's default `heartbeatMs`. */
const HEARTBEAT_MS = 45;
/** A room skips a pass's heartbeat when its last frame promised a tick at most this stale. */
const COVERED_TICKS = 1;
const OPEN = 1;
const SCENE_PATH = /^\/s\/([a-z0-9-]{1,64})\/ws$/;

/** @type {Map<string, {sockets: import("ws").WebSocket[], seq: number, promised: number}>} */
const rooms = new Map();
const start = performance.now();
let peerCounter = 0;
const tickNow = () => Math.floor((performance.now() - start) * TICK_RATE / 1000);

const wss = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  clientTracking: false,
});
const server = http.createServer((req, res) => {
  if (req.url === "/healthz") res.end("ok");
  else {
    res.statusCode = 404;
    res.end("not found");
  }
});

server.on("upgrade", (req, tcp, head) => {
  const match = SCENE_PATH.exec(req.url ?? "");
  if (!match) return tcp.destroy();
  wss.handleUpgrade(req, tcp, head, (socket) => join(match[1], socket, `p${++peerCounter}`));
});

/**
 * @param {string} sceneId
 * @param {import("ws").WebSocket} socket
 * @param {string} peerId
 */
function join(sceneId, socket, peerId) {
  let room = rooms.get(sceneId);
  if (!room) {
    room = { sockets: [], seq: 0, promised: 0 };
    rooms.set(sceneId, room);
  }
  const joined = room;
  joined.sockets.push(socket);
  socket.on("message", (data, isBinary) => {
    if (isBinary) return;
    let frame;
    try {
      frame = JSON.parse(data.toString());
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
      for (const peer of joined.sockets) if (peer.readyState === OPEN) peer.send(event);
    }
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    const index = joined.sockets.indexOf(socket);
    if (index >= 0) joined.sockets.splice(index, 1);
    if (joined.sockets.length === 0) rooms.delete(sceneId);
  });
}

let nextBeat = performance.now() + HEARTBEAT_MS;
/** @type {ReturnType<typeof setTimeout>} */
let heartbeatTimer;
const beat = () => {
  const tick = tickNow();
  const frame = `{"t":"tick","n":${tick}}`;
  for (const room of rooms.values()) {
    if (tick - room.promised <= COVERED_TICKS) continue;
    room.promised = tick;
    for (const socket of room.sockets) if (socket.readyState === OPEN) socket.send(frame);
  }
  // Re-arm against the monotonic clock so timer lateness does not accumulate.
  nextBeat += HEARTBEAT_MS;
  const now = performance.now();
  if (nextBeat < now) nextBeat = now + HEARTBEAT_MS;
  heartbeatTimer = setTimeout(beat, nextBeat - now);
};
heartbeatTimer = setTimeout(beat, HEARTBEAT_MS);

const host = process.env.HOST ?? "127.0.0.1";
server.listen(Number(process.env.PORT ?? 8002), host, () => {
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  console.log(`raw ws server listening on http://${host}:${port} (pid ${process.pid})`);
});

const stop = () => {
  clearTimeout(heartbeatTimer);
  for (const room of rooms.values()) for (const socket of room.sockets) socket.terminate();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
