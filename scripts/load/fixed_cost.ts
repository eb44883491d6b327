/**
 * The fixed CPU cost of one scene: what a node spends per second on a scene with one client,
 * whatever the audience. On a cluster (3 nats-server processes, 2 nodes, one client on each;
 * node a owns the scene) it prints each node's CPU from /proc, each node's NATS messages per
 * second (the servers' connz) and every subject's messages per second (a wiretap); with
 * `--single`, the same for one single-node server. The load test's 500 clients per node cost about
 * 150 ms of CPU a second, so a few ms of fixed cost per scene shows in its CPU-per-frame ratio.
 *
 * ```sh
 * deno run -A scripts/load/fixed_cost.ts                 # 20 s, 10 launches/s, show off
 * deno run -A scripts/load/fixed_cost.ts --rate 0 --seconds 30
 * deno run -A scripts/load/fixed_cost.ts --single
 * ```
 */
import { parseArgs } from "node:util";
import { connect } from "@nats-io/transport-node";
import { startNatsCluster, startSnowfireNode } from "../../testing/nats_cluster.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { TestClient } from "../../testing/test_client.ts";
import { readCpuMs as cpuMs } from "./proc.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    rate: { type: "string", default: "10" },
    single: { type: "boolean", default: false },
    show: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
/** Launches per second over all clients (0: none). */
const rate = Number(values.rate);
const env = { SKY_CAP: "100000000" };
const SCENE = "fixed-cost";

/** Sends `rate` launches a second, rotating over `clients`, for `seconds`; seconds taken. */
async function drive(clients: TestClient[]): Promise<number> {
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < seconds * 1000) {
    if (rate > 0) {
      clients[i % clients.length].submit({ type: "launch", x: (i * 7) % 80 - 40, z: 0 });
    }
    i++;
    await new Promise((r) => setTimeout(r, rate > 0 ? 1000 / rate : 100));
  }
  return (performance.now() - t0) / 1000;
}

/** Turns the scene's show off through its founder (a host), so only the launches are stamped. */
async function silence(client: TestClient): Promise<void> {
  if (values.show) return;
  client.submit({ type: "settings", settings: { show: false } });
  await client.waitFor((m) => m.t === "event" && m.body.type === "settings", 5000);
}

const perSecond = (ms: number, el: number) => `${(ms / el).toFixed(1)} ms/s`;

if (values.single) {
  const server = await startTestServer({ process: true, env });
  const pid = server.child.pid;
  const { client } = await TestClient.join(server.url, SCENE);
  try {
    await silence(client);
    await new Promise((r) => setTimeout(r, 2000));
    const c0 = cpuMs(pid);
    const el = await drive([client]);
    console.log(`single node, ${rate} launches/s: ${perSecond(cpuMs(pid) - c0, el)}`);
  } finally {
    client.close();
    await server.close();
  }
} else {
  const nats = await startNatsCluster({ size: 3 });
  const a = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "a", env });
  const b = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "b", env });
  const tap = await connect({ servers: nats.urls, ...nats.admin, name: "tap" });
  const clients: TestClient[] = [];
  const bySubject = new Map<string, number>();
  let tapping = false;
  tap.subscribe(">", {
    callback: (_err, msg) => {
      if (!tapping) return;
      const key = msg.subject.replace(/_INBOX\..*/, "_INBOX.*").replace(
        /\$JS\.ACK\..*/,
        "$JS.ACK.*",
      );
      bySubject.set(key, (bySubject.get(key) ?? 0) + 1);
    },
  });
  const connz = async () => {
    const out = new Map<string, { in: number; out: number }>();
    for (let i = 0; i < nats.servers.length; i++) {
      const z = await nats.monitor(i, "connz?limit=1024") as {
        connections?: { name?: string; in_msgs: number; out_msgs: number }[];
      };
      for (const c of z.connections ?? []) {
        const counts = out.get(c.name ?? "?") ?? { in: 0, out: 0 };
        counts.in += c.in_msgs;
        counts.out += c.out_msgs;
        out.set(c.name ?? "?", counts);
      }
    }
    return out;
  };
  try {
    // The first client founds the scene on node a, whose edge then takes the lease.
    const { client: first } = await TestClient.join(a.url, SCENE);
    clients.push(first);
    const { client: second } = await TestClient.join(b.url, SCENE);
    clients.push(second);
    await new Promise((r) => setTimeout(r, 2000));
    await silence(first);
    await new Promise((r) => setTimeout(r, 1000));
    const z0 = await connz();
    const a0 = cpuMs(a.pid), b0 = cpuMs(b.pid);
    tapping = true;
    const el = await drive(clients);
    tapping = false;
    const a1 = cpuMs(a.pid), b1 = cpuMs(b.pid);
    const z1 = await connz();
    console.log(
      `cluster, ${rate} launches/s: node a (owner and edge) ${perSecond(a1 - a0, el)}; ` +
        `node b (edge) ${perSecond(b1 - b0, el)}`,
    );
    for (const [name, counts] of z1) {
      if (!name.startsWith("snowfire-")) continue;
      const before = z0.get(name) ?? { in: 0, out: 0 };
      console.log(
        `  ${name}: to NATS ${((counts.in - before.in) / el).toFixed(1)} msgs/s, ` +
          `from NATS ${((counts.out - before.out) / el).toFixed(1)} msgs/s`,
      );
    }
    console.log("  by subject (a consumer's deliveries count under the log subject):");
    for (const [subject, n] of [...bySubject].sort((x, y) => y[1] - x[1])) {
      if (n / el >= 0.1) console.log(`  ${(n / el).toFixed(1).padStart(7)}/s ${subject}`);
    }
  } finally {
    for (const client of clients) client.close();
    await tap.close();
    await a.stop();
    await b.stop();
    await nats.stop();
  }
}
