/**
 * The room benchmark's hot paths (stamp + store + fan out one launch to 1000 peers; a heartbeat
 * pass over 1000 peers) for two checkouts in one process, alternating rounds, so that both run
 * under the same load, heap and CPU state. Separate `deno bench` runs on a shared 2-core machine
 * differ by ±20 % run to run, more than the difference this is meant to show.
 *
 * Run from the newer checkout (its deno.json maps the imports of both):
 *
 * ```sh
 * git worktree add /tmp/before 1b60ea0
 * chrt -r 10 deno run -A scripts/room_before_after.ts /tmp/before [submit|pass]
 * ```
 *
 * Checkouts from before the role folders (`server/room.ts`) and after (`server/local/room.ts`)
 * both work.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PEERS = 1000;
const ROUNDS = 30;
const WARMUP_ROUNDS = 5;
const PER_ROUND = 2000;

type Bench = { submit(): void; pass(): void };

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** A room of 1000 counting fake peers built from the checkout at `root`. */
async function roomOf(root: string): Promise<Bench> {
  const roles = await exists(join(root, "server", "local", "room.ts"));
  const at = (role: string, file: string) => join(root, "server", roles ? role : "", file);
  const { DEFAULT_RATE_LIMITS } = await import(join(root, "server", "config.ts"));
  const { ServerClock } = await import(at("scene", "clock.ts"));
  const { Metrics } = await import(join(root, "server", "metrics.ts"));
  const { Peer } = await import(at("scene", "peer.ts"));
  const { Room } = await import(at("local", "room.ts"));
  const { SceneStore } = await import(at("local", "store.ts"));
  const { initialSnapshot } = await import(join(root, "shared", "settings.ts"));
  const dir = Deno.makeTempDirSync({ prefix: "snowfire-ab-" });
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  const store = new SceneStore(dir);
  const metrics = new Metrics();
  let nowMs = 0;
  const clock = new ServerClock(() => 1_000_000, () => nowMs);
  const snapshot = initialSnapshot();
  store.createScene("bench", 42, 1_000_000, {
    ...snapshot,
    settings: { ...snapshot.settings, show: false },
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
  const peers = Array.from({ length: PEERS }, (_, i) =>
    new Peer({
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
    }));
  for (const peer of peers) {
    room.admit(peer);
    room.hello(peer, undefined, undefined);
  }
  let x = 0;
  return {
    submit() {
      nowMs += 20;
      x = (x + 7) % 80;
      room.submit(peers[0], { type: "launch", x: x - 40, z: 0 });
    },
    pass() {
      nowMs += 40;
      room.pass(nowMs);
    },
  };
}

const before = Deno.args[0];
const mode = (Deno.args[1] ?? "submit") as keyof Bench;
if (!before || (mode !== "submit" && mode !== "pass")) {
  console.error("usage: room_before_after.ts <other checkout> [submit|pass]");
  Deno.exit(2);
}
const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const sides: [string, Bench][] = [["this", await roomOf(here)], [before, await roomOf(before)]];
const times = sides.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  sides.forEach(([, bench], side) => {
    const t0 = performance.now();
    for (let i = 0; i < PER_ROUND; i++) bench[mode]();
    if (round >= WARMUP_ROUNDS) times[side].push((performance.now() - t0) * 1000 / PER_ROUND);
  });
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
sides.forEach(([name], side) => {
  console.log(
    `${mode} ${name}: median ${median(times[side]).toFixed(1)} µs, min ${
      Math.min(...times[side]).toFixed(1)
    } µs`,
  );
});
console.log(`ratio (this / other, medians): ${(median(times[0]) / median(times[1])).toFixed(3)}`);
