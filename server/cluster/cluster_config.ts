/**
 * Cluster-mode settings: `NATS_URL` (comma-separated servers) switches a node to cluster mode;
 * `NODE_ID`, `NATS_REPLICAS` and `LEASE_TTL_MS` tune it; `NATS_USER`/`NATS_PASSWORD`,
 * `NATS_TLS_CA` and `NATS_ALLOW_UNAUTHENTICATED` say how it talks to NATS (deploy/README.md).
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
  /** NATS user name and password (`NATS_USER`, `NATS_PASSWORD`). */
  user?: string;
  pass?: string;
  /** PEM file of the CA that signed the NATS servers' certificates (`NATS_TLS_CA`): TLS on. */
  tlsCaFile?: string;
  /**
   * Start even when a NATS server outside loopback requires no authentication
   * (`NATS_ALLOW_UNAUTHENTICATED=1`). Without it such a node refuses to start: anyone who can
   * reach that NATS could stamp events in any scene.
   */
  allowUnauthenticated?: boolean;
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
  const user = env("NATS_USER") || undefined;
  const pass = env("NATS_PASSWORD") || undefined;
  if ((user === undefined) !== (pass === undefined)) {
    throw new RangeError("NATS_USER and NATS_PASSWORD go together: set both or neither");
  }
  return {
    natsUrls: urls,
    nodeId,
    replicas,
    leaseTtlMs: ttl,
    ...(user ? { user, pass } : {}),
    ...(env("NATS_TLS_CA") ? { tlsCaFile: env("NATS_TLS_CA") } : {}),
    ...(env("NATS_ALLOW_UNAUTHENTICATED") === "1" ? { allowUnauthenticated: true } : {}),
  };
}

/** True when `url`'s host is a loopback address (or `localhost`). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url.includes("://") ? url : `nats://${url}`).hostname;
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}
