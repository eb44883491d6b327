/**
 * Cluster-mode settings: `NATS_URL` (comma-separated servers) switches a node to cluster mode;
 * `NODE_ID`, `NATS_REPLICAS` and `LEASE_TTL_MS` tune it.
 */

/** What a node needs to join a cluster. */
export interface ClusterOptions {
  /** NATS servers, e.g. `["nats://127.0.0.1:4222"]`. */
  natsUrls: string[];
  /** This node's name in leases and metrics; unique per process. */
  nodeId: string;
  /** JetStream replicas of the log stream and KV buckets (1 for one server, 3 for a cluster). */
  replicas: number;
  /** How long a lease lives without renewal; an owner renews every third of it. */
  leaseTtlMs: number;
}

/** Default lease TTL: takeover well within the promised 5 s (TTL + one acquire period + setup). */
export const DEFAULT_LEASE_TTL_MS = 3000;

/** Reads cluster settings from the environment; null when `NATS_URL` is unset (embedded mode). */
export function clusterOptionsFromEnv(
  env: (name: string) => string | undefined,
): ClusterOptions | null {
  const urls = (env("NATS_URL") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (urls.length === 0) return null;
  const replicas = Number(env("NATS_REPLICAS") ?? "1");
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) {
    throw new RangeError(`NATS_REPLICAS must be an integer 1..5, got ${env("NATS_REPLICAS")}`);
  }
  const ttl = Number(env("LEASE_TTL_MS") ?? String(DEFAULT_LEASE_TTL_MS));
  if (!Number.isInteger(ttl) || ttl < 500 || ttl > 60_000) {
    throw new RangeError(`LEASE_TTL_MS must be an integer 500..60000, got ${env("LEASE_TTL_MS")}`);
  }
  const nodeId = env("NODE_ID") ||
    `${Deno.hostname()}-${Deno.pid}-${Math.floor(Math.random() * 0x10000).toString(36)}`;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(nodeId)) {
    throw new RangeError(`NODE_ID must be 1-64 chars of [A-Za-z0-9_-], got ${nodeId}`);
  }
  return { natsUrls: urls, nodeId, replicas, leaseTtlMs: ttl };
}
