/**
 * Server hot paths over real sockets: stamping + storing + fanning out one launch to 1000 peers,
 * and one heartbeat pass over 1000 peers, each peer a real WebSocket on the default (`ws`)
 * engine, read by a client in another process (`peer_clients.ts`). A fan-out's writes are
 * synchronous system calls, so each figure is what the server's thread spends on it, the
 * kernel's side of the loopback sockets included. A late joiner's welcome is measured with a
 * counting fake socket (its cost is building the welcome, not sending it).
 * The load test (`deno task loadtest --scenario b --target baselines --repeat 3`) gives the same
 * cost as CPU per frame sent, against a raw `Deno.upgradeWebSocket` and a raw Node `ws` server.
 */
import { DEFAULT_RATE_LIMITS } from "../server/config.ts";
import { ServerClock } from "../server/scene/clock.ts";
import { Metrics } from "../server/scene/metrics.ts";
import { Peer } from "../server/scene/peer.ts";
import { Room } from "../server/local/room.ts";
import { listen } from "../server/ws/ws_engine.ts";
import { SceneStore } from "../server/local/store.ts";
import { initialSnapshot } from "../shared/settings.ts";

const PEERS = 1000;
const dir = Deno.makeTempDirSync({ prefix: "snowfire-bench-" });
const store = new SceneStore(dir);
const metrics = new Metrics();
let fakeMs = 0;
const clock = new ServerClock(() => 1_000_000, () => fakeMs);
store.createScene("bench", 42, 1_000_000, {
  ...initialSnapshot(),
  settings: { ...initialSnapshot().settings, show: false },
});
const room = new Room(store.getScene("bench")!, {
  store,
  metrics,
  clock,
  skyCap: 1e9,
  maxPeers: 10_000,
  desyncTimeoutMs: 3000,
  presenceLimit: 64,
  log: () => {},
});

let bytes = 0;
function fakePeer(i: number): Peer {
  return new Peer({
    id: `p${i}`,
    name: "Bench",
    color: "#ffffff",
    socket: {
      readyState: 1,
      bufferedAmount: 0,
      send: (s: string) => void (bytes += s.length),
      close() {},
    },
    limits: DEFAULT_RATE_LIMITS,
    maxBufferedBytes: 1 << 20,
    stats: metrics,
  });
}
// Real peers: each upgrade becomes a peer of the room, welcomed on its hello.
const peers: Peer[] = [];
const welcomed = Promise.withResolvers<void>();
const listener = await listen("ws", (request, env) => {
  const { socket, response } = env.upgrade!(request);
  const peer = new Peer({
    id: `p${peers.length}`,
    name: "Bench",
    color: "#ffffff",
    socket,
    limits: DEFAULT_RATE_LIMITS,
    maxBufferedBytes: 1 << 20,
    stats: metrics,
  });
  peers.push(peer);
  room.admit(peer);
  socket.listen({
    message() {
      room.hello(peer, undefined, undefined);
      if (room.welcomedPeers().length === PEERS) welcomed.resolve();
    },
    oversized() {},
    close: () => room.leave(peer),
  });
  return response;
}, { port: 0, hostname: "127.0.0.1", maxFrameBytes: 1 << 16, log: () => {} });
const clients = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    new URL("peer_clients.ts", import.meta.url).pathname,
    `ws://127.0.0.1:${listener.port}/s/bench/ws`,
    String(PEERS),
  ],
  stdin: "piped",
  stdout: "null",
}).spawn();
await welcomed.promise;

let x = 0;
Deno.bench("room stamps, stores and fans out one launch to 1000 peers over real sockets", () => {
  fakeMs += 20;
  x = (x + 7) % 80;
  room.submit(peers[0], { type: "launch", x: x - 40, z: 0 });
});

Deno.bench("room heartbeat pass over 1000 peers over real sockets", () => {
  fakeMs += 40;
  room.pass(fakeMs);
});

Deno.bench("welcome for a late joiner (busy window)", (b) => {
  const peer = fakePeer(PEERS + 1);
  room.admit(peer);
  b.start();
  room.hello(peer, undefined, undefined);
  b.end();
  room.leave(peer);
});

globalThis.addEventListener("unload", () => {
  // Closing its stdin ends the client process.
  void clients.stdin.close().catch(() => {});
  void listener.close();
  void store.close();
  Deno.removeSync(dir, { recursive: true });
});
