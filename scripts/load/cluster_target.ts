/**
 * The cluster under test: a 3-server NATS JetStream cluster (the test harness's
 * `startNatsCluster`) and several Snowfire nodes in cluster mode, all on loopback. Load clients are
 * spread over the nodes; CPU is read per node and for the NATS servers together, and the NATS
 * servers' message and byte counters (`/varz`, `/connz`) are read around each measure window.
 */
import { startNatsCluster } from "../../testing/nats_cluster.ts";
import type { NatsCluster } from "../../testing/nats_cluster.ts";
import { startTarget } from "./target.ts";
import type { Target } from "./target.ts";

/** A process of the cluster whose CPU is measured. */
export interface ClusterProcess {
  /** `node-1`, …, `nats-1`, … */
  label: string;
  kind: "node" | "nats";
  pid: number;
}

/** NATS traffic counters, summed over the servers. */
export interface NatsCounters {
  /** All messages and bytes the servers received and sent (clients, routes and JetStream's own
   * replication and acks included): `/varz`. */
  inMsgs: number;
  outMsgs: number;
  inBytes: number;
  outBytes: number;
  /** Only the Snowfire nodes' connections (`/connz`, connections named `snowfire-*`): what the
   * nodes publish into NATS (`in`) and receive from it (`out`). */
  nodeInMsgs: number;
  nodeOutMsgs: number;
  nodeInBytes: number;
  nodeOutBytes: number;
}

/** Options of {@link startClusterTarget}. */
export interface ClusterTargetOptions {
  /** Snowfire nodes (default 2). */
  nodes: number;
  /** Environment for every node (on top of the load defaults and the cluster variables). */
  env: Record<string, string>;
  /** Extra `deno run` flags for the nodes. */
  denoFlags: string[];
}

/** A running cluster, usable wherever a {@link Target} is. `pid`/`wsUrl` are node 1's. */
export interface ClusterTarget extends Target {
  readonly nats: NatsCluster;
  readonly nodes: Target[];
  /** Every node's WebSocket base URL; clients are spread over them. */
  readonly wsUrls: string[];
  /** Every process whose CPU the report shows. */
  readonly processes: ClusterProcess[];
  /** Current NATS counters (sum over the servers). */
  natsCounters(): Promise<NatsCounters>;
}

/** Starts 3 NATS servers and `nodes` Snowfire nodes (`NATS_REPLICAS=3`). */
export async function startClusterTarget(options: ClusterTargetOptions): Promise<ClusterTarget> {
  const nats = await startNatsCluster({ size: 3 });
  const nodes: Target[] = [];
  try {
    // One after the other: the first creates the stream and buckets.
    for (let i = 0; i < options.nodes; i++) {
      nodes.push(
        await startTarget("snowfire", {
          NATS_URL: nats.urls.join(","),
          // The harness's NATS admits only its users: the nodes connect as Snowfire's.
          NATS_USER: nats.auth.user,
          NATS_PASSWORD: nats.auth.pass,
          NODE_ID: `node-${i + 1}`,
          NATS_REPLICAS: "3",
          ...options.env,
        }, options.denoFlags),
      );
    }
  } catch (e) {
    for (const node of nodes) await node.stop();
    await nats.stop();
    throw e;
  }
  const processes: ClusterProcess[] = [
    ...nodes.map((node, i) => ({ label: `node-${i + 1}`, kind: "node" as const, pid: node.pid })),
    ...nats.servers.map((s, i) => ({ label: `nats-${i + 1}`, kind: "nats" as const, pid: s.pid })),
  ];
  const natsCounters = async (): Promise<NatsCounters> => {
    const total: NatsCounters = {
      inMsgs: 0,
      outMsgs: 0,
      inBytes: 0,
      outBytes: 0,
      nodeInMsgs: 0,
      nodeOutMsgs: 0,
      nodeInBytes: 0,
      nodeOutBytes: 0,
    };
    for (let i = 0; i < nats.servers.length; i++) {
      const varz = await nats.monitor(i, "varz");
      total.inMsgs += Number(varz.in_msgs);
      total.outMsgs += Number(varz.out_msgs);
      total.inBytes += Number(varz.in_bytes);
      total.outBytes += Number(varz.out_bytes);
      const connz = await nats.monitor(i, "connz?limit=1024");
      const connections = (connz.connections ?? []) as {
        name?: string;
        in_msgs: number;
        out_msgs: number;
        in_bytes: number;
        out_bytes: number;
      }[];
      for (const c of connections) {
        if (!c.name?.startsWith("snowfire")) continue;
        total.nodeInMsgs += c.in_msgs;
        total.nodeOutMsgs += c.out_msgs;
        total.nodeInBytes += c.in_bytes;
        total.nodeOutBytes += c.out_bytes;
      }
    }
    return total;
  };
  const first = nodes[0];
  return {
    name: "cluster",
    pid: first.pid,
    port: first.port,
    wsUrl: first.wsUrl,
    env: { ...first.env, NODE_ID: `node-1..node-${nodes.length}` },
    logPath: nodes.map((n) => n.logPath).join(" "),
    nats,
    nodes,
    wsUrls: nodes.map((n) => n.wsUrl),
    processes,
    natsCounters,
    async stop() {
      // What the nodes said about ownership, step-downs and stalled log readers explains outliers.
      for (const [i, node] of nodes.entries()) {
        const text = await Deno.readTextFile(node.logPath).catch(() => "");
        for (const line of text.split("\n")) {
          if (line.startsWith("cluster:") && !line.includes("connected to NATS")) {
            console.log(`[cluster] node-${i + 1}: ${line}`);
          }
        }
      }
      let code = 0;
      for (const node of nodes) code = Math.max(code, await node.stop());
      await nats.stop();
      return code;
    },
  };
}

/** `after - before`, field by field. */
export function natsDelta(before: NatsCounters, after: NatsCounters): NatsCounters {
  const delta = { ...after };
  for (const key of Object.keys(delta) as (keyof NatsCounters)[]) delta[key] -= before[key];
  return delta;
}
