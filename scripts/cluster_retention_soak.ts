/**
 * Cluster retention soak: three NATS servers (loopback, replicas 3) and two nodes in this process
 * on an injected clock `--speed` times real time (default 10×). `--slots` scenes are watched at a
 * time, each by one client stamping a wind change every scene second, for `--session` scene
 * seconds (on schedule: a slow moment's events go out at once after it); then its client leaves and a new scene takes the slot, so scenes keep being created
 * and abandoned. Retention `--retain-minutes` of the scene (default 1) and at most
 * `--events-per-scene` events. Every `--report` real seconds it prints the log stream's entries and
 * bytes, the scenes bucket's records and bytes, scenes created and removed, events stamped, and
 * the late joins checked so far: before a session ends, a client joins its scene on the other
 * node and its welcome must rebuild the same world hash as the veteran's events.
 *
 * ```sh
 * nice -n 10 deno run -A scripts/cluster_retention_soak.ts                 # 180 s real, 30 min of scenes
 * nice -n 10 deno run -A scripts/cluster_retention_soak.ts --seconds 60 --speed 20
 * ```
 */
import { parseArgs } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { ServerMessage } from "../shared/protocol.ts";
import type { SceneEvent } from "../shared/types.ts";
import { worldFromWindow } from "../shared/world.ts";
import { LOG_STREAM, SCENE_BUCKET } from "../server/cluster/subjects.ts";
import { startNatsCluster } from "../testing/nats_cluster.ts";
import { fastClock } from "../testing/fast_clock.ts";
import { TestClient } from "../testing/test_client.ts";
import { startTestServer } from "../testing/test_server.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "180" },
    speed: { type: "string", default: "10" },
    slots: { type: "string", default: "12" },
    session: { type: "string", default: "150" },
    "retain-minutes": { type: "string", default: "1" },
    "events-per-scene": { type: "string", default: "100000" },
    report: { type: "string", default: "15" },
    /** Appends the nodes' log lines (with real seconds since start) to this file. */
    log: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const speed = Number(values.speed);
const slots = Number(values.slots);
const sessionS = Number(values.session);
const reportMs = Number(values.report) * 1000;
const clock = fastClock(speed);
/** Real ms of `s` scene seconds. */
const real = (s: number) => (s * 1000) / speed;
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

const nats = await startNatsCluster({ size: 3 });
const cluster = (nodeId: string) => nats.nodeOptions(nodeId, 60_000);
const FAST = { perSecond: 50, burst: 50 };
const options = {
  ...clock,
  retention: {
    hours: Number(values["retain-minutes"]) / 60,
    eventsPerScene: Number(values["events-per-scene"]),
  },
  retentionPassMs: 5000,
  roomIdleMs: 2000,
  helloTimeoutMs: 10_000 * speed,
  rateLimits: { launch: FAST, settings: FAST, gun: FAST },
};
const t0 = performance.now();
const logFile = values.log
  ? await Deno.open(values.log, { write: true, create: true, append: true })
  : null;
const logTo = (node: string) => (msg: string) => {
  logFile?.writeSync(
    new TextEncoder().encode(`${((performance.now() - t0) / 1000).toFixed(2)} ${node} ${msg}\n`),
  );
};
const nodes = [
  await startTestServer({ ...options, log: logTo("a"), cluster: cluster("soak-a") }),
  await startTestServer({ ...options, log: logTo("b"), cluster: cluster("soak-b") }),
];
const nc = await connect({ servers: nats.urls, ...nats.auth });
const jsm = await jetstreamManager(nc);

let created = 0;
let sent = 0;
let lateJoins = 0;
/** Joins that got no welcome in time (closed and tried again). */
let slowJoins = 0;
const lateMismatches: string[] = [];
/** Real ms at which each scene's veteran left; scene seconds from eligible to removed. */
const leftAt = new Map<string, number>();
const removalLags: number[] = [];
const retainS = Number(values["retain-minutes"]) * 60;
const strip = ({ t: _t, ...e }: SceneEvent & { t?: string }) => e as SceneEvent;

/**
 * Joins `scene` on `url`; a join with no welcome within 20 s (this machine is slow at times) is
 * closed and tried again, so no socket is left holding a scene open.
 */
async function join(url: string, scene: string) {
  for (;;) {
    const client = await TestClient.connect(url, scene);
    client.send({ t: "hello" });
    try {
      const welcome = await client.waitFor((m) => m.t === "welcome", 20_000);
      return { client, welcome: welcome as Extract<ServerMessage, { t: "welcome" }> };
    } catch (e) {
      await client.close();
      if (++slowJoins > 50) throw e;
    }
  }
}

/** One slot: scenes one after another, each watched for a session, then abandoned. */
async function slot(index: number, until: number): Promise<void> {
  while (performance.now() < until - real(sessionS) / 2) {
    const scene = `soak-${index}-${created++}`;
    const home = nodes[created % 2];
    const other = nodes[(created + 1) % 2];
    const veteran = await join(home.url, scene);
    veteran.client.submit({ type: "settings", settings: { show: false } });
    const begin = performance.now();
    const end = begin + real(sessionS);
    let n = 0;
    let lateDone = false;
    while (performance.now() < end) {
      // One event per scene second on schedule (those a slow moment delayed go out at once).
      const due = Math.floor((performance.now() - begin) / real(1));
      for (; n < due; n++) {
        sent++;
        veteran.client.submit({
          type: "settings",
          settings: { windSpeed: n % 10, windDirection: (n * 35) % 360 },
        });
      }
      await new Promise((r) => setTimeout(r, real(1)));
      if (!lateDone && performance.now() >= begin + real(sessionS * 0.8)) {
        lateDone = true;
        // A late joiner on the other node: its welcome rebuilds the veteran's world.
        const late = await join(other.url, scene);
        const lw = late.welcome;
        await late.client.close();
        const deadline = performance.now() + 20_000;
        while (
          performance.now() < deadline && lw.lastSeq > 0 &&
          !veteran.client.events().some((e) => e.seq >= lw.lastSeq)
        ) await new Promise((r) => setTimeout(r, 20));
        const T = lw.horizon;
        const events = [...veteran.welcome.events, ...veteran.client.events()].map(strip)
          .filter((e) => e.seq <= lw.lastSeq && e.tick < T);
        const a = worldFromWindow({
          seed: lw.seed,
          capacity: lw.skyCap,
          snapshot: veteran.welcome.snapshot,
          events,
          tick: T,
        }).hash();
        const b = worldFromWindow({
          seed: lw.seed,
          capacity: lw.skyCap,
          snapshot: lw.snapshot,
          events: lw.events.map(strip),
          tick: T,
        }).hash();
        lateJoins++;
        if (a !== b) {
          // Why: had the veteran got every event the late joiner's welcome covers? was it sent
          // another welcome (a resync) meanwhile?
          const caughtUp = veteran.client.events().some((e) => e.seq >= lw.lastSeq);
          const welcomes = veteran.client.messages.filter((m) => m.t === "welcome").length;
          lateMismatches.push(
            `${scene}@${T} (veteran caught up: ${caughtUp}, welcomes: ${welcomes})`,
          );
          const seqs = (es: { seq: number; tick: number }[]) =>
            es.length
              ? `${es[0].seq}@${es[0].tick}..${es.at(-1)!.seq}@${es.at(-1)!.tick} (${es.length})`
              : "none";
          const lateSeqs = new Set(lw.events.map((e) => e.seq));
          const missing = events.filter((e) => e.tick >= lw.snapshot.tick && !lateSeqs.has(e.seq));
          logTo("soak")(
            `MISMATCH ${scene} T=${T} seed ${lw.seed}/${veteran.welcome.seed} late lastSeq ${lw.lastSeq} ` +
              `snapshot tick ${lw.snapshot.tick} events ${
                seqs(lw.events)
              }; veteran snapshot tick ` +
              `${veteran.welcome.snapshot.tick} events ${
                seqs(events)
              }; veteran events at or after the ` +
              `late snapshot missing from the late welcome: ${seqs(missing)}`,
          );
        }
      }
    }
    await veteran.client.close();
    leftAt.set(scene, performance.now());
  }
}

async function streamFigures() {
  const log = await jsm.streams.info(LOG_STREAM);
  const kv = await jsm.streams.info(`KV_${SCENE_BUCKET}`);
  return {
    entries: log.state.messages,
    bytes: log.state.bytes,
    records: kv.state.messages,
    recordBytes: kv.state.bytes,
  };
}

/** A counter summed over both nodes' `/metrics`. */
async function counter(name: string): Promise<number> {
  return (await perNode(name)).reduce((a, b) => a + b, 0);
}

/** A metric's value on each node (labels or none). */
async function perNode(name: string): Promise<number[]> {
  const values: number[] = [];
  for (const node of nodes) {
    const text = await (await fetch(`${node.url}/metrics`)).text();
    values.push(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.]+)`, "m").exec(text)?.[1] ?? 0));
  }
  return values;
}
const removed = () => counter("snowfire_scenes_removed_total");

console.log(
  `load average at start: ${load()}; ${slots} scenes at a time, ${sessionS} s sessions, ` +
    `1 event per scene second, ${speed}× for ${seconds} s (${(seconds * speed / 60).toFixed(0)} ` +
    `scene minutes), retention ${values["retain-minutes"]} scene minute(s)`,
);
console.log(
  "  t_s  scene_min  log_entries  log_bytes  records  record_bytes  created  removed  sent  late_ok",
);
const started = performance.now();
const until = started + seconds * 1000;
const rows: Awaited<ReturnType<typeof streamFigures>>[] = [];
const report = async () => {
  const f = await streamFigures();
  rows.push(f);
  const t = (performance.now() - started) / 1000;
  console.log(
    `${t.toFixed(0).padStart(5)}  ${(t * speed / 60).toFixed(1).padStart(9)}  ` +
      `${String(f.entries).padStart(11)}  ${String(f.bytes).padStart(9)}  ` +
      `${String(f.records).padStart(7)}  ${String(f.recordBytes).padStart(12)}  ` +
      `${String(created).padStart(7)}  ${String(await removed()).padStart(7)}  ` +
      `${String(sent).padStart(5)}  ${lateJoins - lateMismatches.length}/${lateJoins}`,
  );
};
const reporter = setInterval(() => report().catch((e) => console.error(e)), reportMs);
/**
 * The sweep's lag: once a second, the scenes left whose records are gone; each one's lag is the
 * scene time from its veteran leaving plus the retention (when it became idle past it, give or
 * take the owner's one-second reservation) to the poll that found it gone.
 */
const watchRemovals = async () => {
  const kv = await jsm.streams.info(`KV_${SCENE_BUCKET}`, { subjects_filter: ">" });
  const ids = new Set(Object.keys(kv.state.subjects ?? {}).map((s) => s.split(".").pop()!));
  for (const [scene, at] of leftAt) {
    if (ids.has(scene)) continue;
    leftAt.delete(scene);
    removalLags.push(((performance.now() - at) * speed) / 1000 - retainS);
  }
};
const watcher = setInterval(() => watchRemovals().catch(() => {}), 1000);
try {
  await Promise.all(
    Array.from(
      { length: slots },
      (_, i) =>
        new Promise((r) => setTimeout(r, (i * real(sessionS)) / slots)).then(() => slot(i, until)),
    ),
  );
  // Everyone left: wait until the retention has removed every scene (bounded).
  const drainUntil = performance.now() + real(Number(values["retain-minutes"]) * 60 * 3) + 60_000;
  while (performance.now() < drainUntil && (await streamFigures()).records > 0) {
    await new Promise((r) => setTimeout(r, 500));
  }
  // What is left, and why (a lease held, an edge still reading).
  const kv = await jsm.streams.info(`KV_${SCENE_BUCKET}`, { subjects_filter: ">" });
  const left = Object.keys(kv.state.subjects ?? {}).map((s) => s.split(".").pop()!);
  if (left.length > 0) {
    const leases = await jsm.streams.info("KV_snowfire_leases", { subjects_filter: ">" });
    const consumers: string[] = [];
    for await (const c of jsm.consumers.list(LOG_STREAM)) {
      consumers.push(String(c.config.filter_subject ?? c.config.filter_subjects));
    }
    console.log(
      `left: ${left.join(", ")}; lease keys ${
        Object.keys(leases.state.subjects ?? {}).join(", ")
      }; ` +
        `log consumers ${consumers.join(", ")}`,
    );
  }
} finally {
  clearInterval(reporter);
  clearInterval(watcher);
  await report();
  const late = rows.slice(Math.floor(rows.length / 3), -1);
  if (late.length > 0) {
    const entries = late.map((r) => r.entries);
    const bytes = late.map((r) => r.bytes);
    console.log(
      `steady state (reports ${Math.floor(rows.length / 3) + 1}..${
        rows.length - 1
      }): log entries ` +
        `${Math.min(...entries)}..${Math.max(...entries)}, bytes ${Math.min(...bytes)}..` +
        `${Math.max(...bytes)}`,
    );
  }
  const lags = [...removalLags].sort((a, b) => a - b);
  const q = (p: number) => lags[Math.min(lags.length - 1, Math.floor(p * lags.length))];
  if (lags.length > 0) {
    console.log(
      `sweep lag (scene s from idle past the retention to removed, polled every ${speed} ` +
        `scene s): median ${q(0.5).toFixed(0)}, p90 ${q(0.9).toFixed(0)}, max ${
          lags.at(-1)!.toFixed(0)
        } over ${lags.length} scenes; longest sweep ${
          Math.max(...await perNode("snowfire_cluster_sweep_max_ms")) / 1000
        } scene s; ${await counter("snowfire_cluster_sweeps_total")} sweeps; ` +
        `edges that read the record again after a purge: ${await counter(
          "snowfire_cluster_reopened_after_prune_total",
        )}`,
    );
  }
  console.log(
    `load average at end: ${load()}; scenes created ${created} (by the nodes ${await counter(
      "snowfire_scenes_created_total",
    )}), removed ${await removed()}, ` +
      `events sent ${sent}, late joins exact ${lateJoins - lateMismatches.length}/${lateJoins}, ` +
      `joins tried again ${slowJoins}` +
      (lateMismatches.length ? ` (mismatches: ${lateMismatches.join(", ")})` : ""),
  );
  await nc.close();
  for (const node of nodes) {
    await node.shutdown();
    await Deno.remove(node.dataDir, { recursive: true });
  }
  logFile?.close();
  await nats.stop();
}
