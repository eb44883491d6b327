/**
 * Server hot paths without the network: stamping + storing + fanning out one launch to 1000
 * peers, one heartbeat pass over 1000 peers, and a late joiner's welcome. Sockets are fakes
 * whose `send` only counts, so the figures are the server's own cost per event.
 * Targets (2-core machine): fan-out to 1000 peers ≤ 1 ms of server JS (avg); heartbeat pass over
 * 1000 peers ≤ 0.5 ms (avg); welcome ≤ 0.2 ms (avg).
 */
import { DEFAULT_RATE_LIMITS } from "../server/config.ts";
import { ServerClock } from "../server/scene/clock.ts";
import { Metrics } from "../server/scene/metrics.ts";
import { Peer } from "../server/scene/peer.ts";
import { Room } from "../server/local/room.ts";
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
const peers = Array.from({ length: PEERS }, (_, i) => fakePeer(i));
for (const peer of peers) {
  room.admit(peer);
  room.hello(peer, undefined, undefined);
}

let x = 0;
Deno.bench("room stamps, stores and fans out one launch to 1000 peers", () => {
  fakeMs += 20;
  x = (x + 7) % 80;
  room.submit(peers[0], { type: "launch", x: x - 40, z: 0 });
});

Deno.bench("room heartbeat pass over 1000 peers", () => {
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
  void store.close();
  Deno.removeSync(dir, { recursive: true });
});
