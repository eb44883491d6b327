/**
 * Real-process harness for cluster tests: a 1- or 3-server `nats-server` cluster with JetStream on
 * free loopback ports and temporary storage, and Snowfire nodes (`server/main.ts` children) wired
 * to it. Everything is started by pid and stopped by pid; temp dirs are removed on `stop()`.
 *
 * @example
 * ```ts
 * Deno.test({ name: "scene survives", ignore: !requireNats("scene survives") }, async () => {
 *   const nats = await startNatsCluster({ size: 3 });
 *   const node = await startSnowfireNode({ natsUrls: nats.urls, nodeId: "a" });
 *   try {
 *     // ... WebSockets to node.url ...
 *   } finally {
 *     await node.stop();
 *     await nats.stop();
 *   }
 * });
 * ```
 */
import type { ClusterOptions } from "../server/cluster/cluster_config.ts";
import { startTestServer } from "./test_server.ts";
import { monitorPermissions, natsPermissions } from "../server/cluster/nats_permissions.ts";

/** One server of a {@link NatsCluster}. */
export interface NatsServer {
  /** Pid of the current process (changes on restart). */
  pid: number;
  /** Client port. */
  port: number;
  /** Client URL, `nats://127.0.0.1:PORT`. */
  url: string;
  /** Monitoring port (`/varz`, `/jsz`, `/healthz`). */
  monitorPort: number;
  /** Cluster route port (0 for a single server). */
  clusterPort: number;
  /** `server_name`, e.g. `n1`. */
  name: string;
}

/** A NATS user's name and password (the `user` and `pass` options of `connect`). */
export interface NatsAuth {
  user: string;
  pass: string;
}

/** A running `nats-server` cluster. */
export interface NatsCluster {
  /** Client URLs of every server, in order. */
  urls: string[];
  /**
   * The Snowfire nodes' credentials: the only user that may publish on Snowfire's subjects. Raw
   * clients in tests connect with `{ servers: urls, ...auth }`.
   */
  auth: NatsAuth;
  /**
   * The shipped `monitor` user (deploy/nats/): may listen to heartbeats, publish nothing, read
   * nothing else.
   */
  monitorUser: NatsAuth;
  /**
   * A user with every permission, for tests of NATS itself (the harness, the primitives cluster
   * mode relies on) on subjects and buckets of their own; no deploy/ config has one.
   */
  admin: NatsAuth;
  servers: NatsServer[];
  /**
   * A Snowfire node's cluster options against these servers: the node credentials, one replica
   * per server, and `leaseTtlMs` (default 3000) on the node's clock.
   */
  nodeOptions(nodeId: string, leaseTtlMs?: number): ClusterOptions;
  /**
   * Sends `signal` (default SIGKILL) to server `i`. For a signal that ends the process it resolves
   * once the process has exited; SIGSTOP/SIGCONT resolve at once.
   */
  kill(i: number, signal?: Deno.Signal): Promise<void>;
  /** Starts server `i` again on the same ports and storage (kills it first if it still runs) and
   * waits until it serves JetStream again. */
  restart(i: number): Promise<void>;
  /** Reads server `i`'s monitoring endpoint, e.g. `varz` or `jsz`, as JSON. */
  monitor(i: number, path: string): Promise<Record<string, unknown>>;
  /** Kills every server, waits for them and removes the temp dirs. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startNatsCluster}. */
export interface NatsClusterOptions {
  /** Number of servers: 1 (no routes) or 3 (a cluster with routes). Default 3. */
  size?: 1 | 3;
  /** How long to wait for JetStream to be ready. Default 20 s. */
  readyTimeoutMs?: number;
}

const SIGNALS_THAT_KEEP_RUNNING: ReadonlySet<Deno.Signal> = new Set(["SIGSTOP", "SIGCONT"]);

/** Path of the `nats-server` binary: `$NATS_SERVER`, Debian's `/usr/sbin/nats-server`, or `PATH`;
 * null when there is none. */
export function natsServerPath(): string | null {
  const candidates: string[] = [];
  const fromEnv = Deno.env.get("NATS_SERVER");
  if (fromEnv) candidates.push(fromEnv);
  candidates.push("/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server");
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir) candidates.push(`${dir}/nats-server`);
  }
  for (const path of candidates) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not there; try the next one.
    }
  }
  return null;
}

const skipped = new Set<string>();

/**
 * True when `nats-server` is available. Without it: with `CI=true` it throws (a CI run must not
 * silently skip the cluster tests); locally it prints one skip reason line and returns false.
 * Use it as `Deno.test({ name, ignore: !requireNats(name) }, ...)`.
 */
export function requireNats(testName = "cluster tests"): boolean {
  if (natsServerPath() !== null) return true;
  const reason =
    "nats-server not found (install Debian's nats-server package or set NATS_SERVER=/path)";
  if (Deno.env.get("CI") === "true") {
    throw new Error(`${testName}: ${reason}; CI must run the cluster tests`);
  }
  if (!skipped.has(testName)) {
    skipped.add(testName);
    console.log(`skip ${testName}: ${reason}`);
  }
  return false;
}

/** A free loopback TCP port (bound and released; the caller binds it right after). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

interface ServerSlot {
  info: NatsServer;
  configPath: string;
  logPath: string;
  child: Deno.ChildProcess | null;
  status: Promise<Deno.CommandStatus> | null;
  /** What the process wrote to stderr (before its log file is open, its only word). */
  stderr: { text: string; done: Promise<void> } | null;
}

/** Credentials of the clusters this process started, by client URL (for `startSnowfireNode`). */
const CREDENTIALS = new Map<string, NatsAuth>();

/**
 * A random password of letters and digits that starts with a letter: nats-server's config parser
 * reads a value that begins like a number with an exponent or a size unit (`9e5…`, `1k6…`) as
 * one, and then refuses the file (seen as "n1 exited" in one to four of a CI run's ~30 starts).
 */
function secret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  const letter = String.fromCharCode(97 + (bytes[0] % 26));
  return letter + Array.from(bytes.subarray(1), (b) => (b % 36).toString(36)).join("");
}

/**
 * The `authorization` block, as in deploy/nats/ (the same permission lists, from
 * server/cluster/nats_permissions.ts, so the cluster tests run with what production grants): the
 * `snowfire` user may publish on Snowfire's subjects, JetStream's API, the KV buckets and inboxes;
 * the `monitor` user nothing (it may listen to heartbeats, nothing else); the test-only `admin`
 * user anything; without a user, no connection.
 */
function authorization(auth: NatsAuth, monitor: NatsAuth, admin: NatsAuth): string[] {
  return [
    `authorization {`,
    `  users = [`,
    `    { user: ${auth.user}, password: ${auth.pass},`,
    `      ${natsPermissions()} }`,
    `    { user: ${monitor.user}, password: ${monitor.pass},`,
    `      ${monitorPermissions()} }`,
    `    { user: ${admin.user}, password: ${admin.pass} }`,
    `  ]`,
    `}`,
  ];
}

function serverConfig(
  slot: { name: string; port: number; monitorPort: number; clusterPort: number },
  storeDir: string,
  logPath: string,
  routes: number[],
  auth: NatsAuth,
  monitor: NatsAuth,
  admin: NatsAuth,
  route: NatsAuth,
): string {
  const lines = [
    `server_name: ${slot.name}`,
    `listen: 127.0.0.1:${slot.port}`,
    ...authorization(auth, monitor, admin),
    `http: 127.0.0.1:${slot.monitorPort}`,
    `log_file: ${JSON.stringify(logPath)}`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(storeDir)}`,
    `  max_memory_store: 256MB`,
    `  max_file_store: 2GB`,
    `}`,
  ];
  if (routes.length > 0) {
    lines.push(
      `cluster {`,
      `  name: snowfire-test`,
      `  listen: 127.0.0.1:${slot.clusterPort}`,
      // As deploy/nats/: the route password and URLs come from nats-server's environment.
      `  authorization { user: ${route.user}, password: $SNOWFIRE_NATS_ROUTE_PASSWORD }`,
      `  routes: $SNOWFIRE_NATS_ROUTES`,
      `}`,
    );
  }
  return lines.join("\n") + "\n";
}

async function fetchJson(url: string): Promise<Record<string, unknown> | null> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    const text = await response.text();
    if (!response.ok) return null;
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The `meta_cluster` part of a server's `/jsz`; `replicas` only on the meta leader. */
interface MetaCluster {
  leader?: string;
  cluster_size?: number;
  replicas?: { name: string; current: boolean; offline?: boolean }[];
}

/**
 * True when the server at `monitorPort` reports JetStream healthy and, in a cluster, knows a
 * meta leader; the leader itself must also see every other server current and online.
 */
async function jetStreamReady(slot: NatsServer, size: number): Promise<boolean> {
  const health = await fetchJson(`http://127.0.0.1:${slot.monitorPort}/healthz`);
  if (health?.status !== "ok") return false;
  if (size === 1) return true;
  const jsz = await fetchJson(`http://127.0.0.1:${slot.monitorPort}/jsz`);
  const meta = jsz?.meta_cluster as MetaCluster | undefined;
  // A leader is elected by two of three servers: wait for the third to have joined too (under
  // load a server reported a cluster of 2 just after the harness said it was ready).
  if (typeof meta?.leader !== "string" || meta.leader.length === 0) return false;
  if ((meta.cluster_size ?? 0) < size) return false;
  if (meta.leader !== slot.name) return true;
  // A replicated stream is placed by the leader on servers it knows: all of them, once settled.
  const settled = (meta.replicas ?? []).filter((peer) => peer.current && !peer.offline);
  return settled.length >= size - 1;
}

async function readLog(path: string): Promise<string> {
  try {
    return (await Deno.readTextFile(path)).split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * Starts `size` `nats-server` processes with JetStream (3 → a routed cluster) on free loopback
 * ports with temp storage, and resolves once every server is healthy and the cluster has a
 * JetStream meta leader. Throws when `nats-server` is missing (guard with {@link requireNats}).
 */
export async function startNatsCluster(opts: NatsClusterOptions = {}): Promise<NatsCluster> {
  // freePort() releases its port before nats-server binds it; with other tiers running beside
  // this one, another process can take it in between (CI saw "bind: address already in use" on a
  // route port). Such a start is retried whole, on new ports.
  for (let attempt = 1;; attempt++) {
    try {
      return await startNatsClusterOnce(opts);
    } catch (e) {
      // A server that exits at start has lost a port. (The "n1 exited: (no log)" starts seen in
      // most CI runs were not that: its stderr said the config did not parse, a password taken
      // for a number; `secret` now starts them with a letter.) A cluster that
      // elected no meta leader in time is started again too, on new ports and storage (never
      // seen here; a restart costs seconds, a red CI run a whole stop). A real configuration
      // error fails every attempt and is thrown with its log.
      const lost = e instanceof Error &&
        (e.message.includes("address already in use") || / exited:\n/.test(e.message) ||
          e.message.includes("JetStream not ready"));
      if (!lost || attempt === PORT_ATTEMPTS) throw e;
      // The server's last log lines say why (a port taken, most often).
      const why = e.message.split("\n").filter((line) => line.trim() !== "").slice(-3).join(" | ");
      console.log(`nats cluster: start ${attempt} failed (${why}); retrying on new ports`);
    }
  }
}

/** Starts of a cluster tried before a lost port or a late leader fails the test. */
const PORT_ATTEMPTS = 4;

async function startNatsClusterOnce(opts: NatsClusterOptions): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 20_000;
  const binary = natsServerPath();
  if (binary === null) throw new Error("nats-server not found");
  const root = await Deno.makeTempDir({ prefix: "snowfire-nats-" });
  const clustered = size > 1;
  const slots: ServerSlot[] = [];
  for (let i = 0; i < size; i++) {
    const port = freePort();
    const info: NatsServer = {
      pid: 0,
      port,
      url: `nats://127.0.0.1:${port}`,
      monitorPort: freePort(),
      clusterPort: clustered ? freePort() : 0,
      name: `n${i + 1}`,
    };
    slots.push({
      info,
      configPath: `${root}/${info.name}.conf`,
      logPath: `${root}/${info.name}.log`,
      child: null,
      status: null,
      stderr: null,
    });
  }
  const routes = clustered ? slots.map((s) => s.info.clusterPort) : [];
  const auth = { user: "snowfire", pass: secret() };
  const monitor = { user: "monitor", pass: secret() };
  const admin = { user: "admin", pass: secret() };
  const route = { user: "route", pass: secret() };
  for (const slot of slots) {
    const storeDir = `${root}/${slot.info.name}-store`;
    await Deno.mkdir(storeDir);
    await Deno.writeTextFile(
      slot.configPath,
      serverConfig(slot.info, storeDir, slot.logPath, routes, auth, monitor, admin, route),
    );
    CREDENTIALS.set(slot.info.url, auth);
  }

  const spawn = (slot: ServerSlot) => {
    const child = new Deno.Command(binary, {
      args: ["-c", slot.configPath],
      env: {
        SNOWFIRE_NATS_ROUTE_PASSWORD: route.pass,
        SNOWFIRE_NATS_ROUTES: `[${
          routes.map((p) => `nats-route://${route.user}:${route.pass}@127.0.0.1:${p}`).join(", ")
        }]`,
      },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    slot.child = child;
    slot.status = child.status;
    const stderr = { text: "", done: Promise.resolve() };
    stderr.done = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        stderr.text = (stderr.text + decoder.decode(chunk, { stream: true })).slice(-2000);
      }
    })();
    slot.stderr = stderr;
    slot.info.pid = child.pid;
  };

  const waitReady = async (which: ServerSlot[]) => {
    const deadline = Date.now() + readyTimeoutMs;
    for (const slot of which) {
      while (!(await jetStreamReady(slot.info, size))) {
        if (slot.child === null) throw new Error(`${slot.info.name} is not running`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const exited = await Promise.race([
          slot.status!.then(() => true),
          new Promise<false>((r) => timer = setTimeout(() => r(false), 100)),
        ]);
        // An exit wins the race before the timer fires: clear it (else it fires in the next test).
        clearTimeout(timer);
        if (exited) {
          await slot.stderr?.done;
          const said = slot.stderr?.text.trim() ?? "";
          throw new Error(
            `${slot.info.name} exited:\n${await readLog(slot.logPath)}${said ? `\n${said}` : ""}`,
          );
        }
        if (Date.now() > deadline) {
          throw new Error(
            `${slot.info.name}: JetStream not ready in ${readyTimeoutMs} ms:\n${await readLog(
              slot.logPath,
            )}`,
          );
        }
      }
    }
  };

  const killSlot = async (slot: ServerSlot, signal: Deno.Signal) => {
    if (slot.child === null) return;
    try {
      slot.child.kill(signal);
    } catch {
      // Already exited.
    }
    if (SIGNALS_THAT_KEEP_RUNNING.has(signal)) return;
    await slot.status;
    await slot.stderr?.done;
    slot.child = null;
    slot.status = null;
    slot.stderr = null;
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const slot of slots) {
      // A stopped (SIGSTOP) process still dies of SIGKILL.
      await killSlot(slot, "SIGKILL");
    }
    await Deno.remove(root, { recursive: true }).catch(() => {});
    for (const slot of slots) CREDENTIALS.delete(slot.info.url);
  };

  try {
    for (const slot of slots) spawn(slot);
    await waitReady(slots);
  } catch (e) {
    await stop();
    throw e;
  }

  const slotAt = (i: number) => {
    const slot = slots[i];
    if (!slot) throw new RangeError(`no NATS server ${i} (size ${size})`);
    return slot;
  };

  const urls = slots.map((s) => s.info.url);
  return {
    urls,
    auth,
    monitorUser: monitor,
    admin,
    servers: slots.map((s) => s.info),
    nodeOptions: (nodeId, leaseTtlMs = 3000) => ({
      natsUrls: urls,
      ...auth,
      nodeId,
      replicas: size,
      leaseTtlMs,
    }),
    async kill(i, signal = "SIGKILL") {
      await killSlot(slotAt(i), signal);
    },
    async restart(i) {
      const slot = slotAt(i);
      await killSlot(slot, "SIGKILL");
      spawn(slot);
      await waitReady([slot]);
    },
    async monitor(i, path) {
      const json = await fetchJson(`http://127.0.0.1:${slotAt(i).info.monitorPort}/${path}`);
      if (json === null) throw new Error(`${slotAt(i).info.name}: /${path} did not answer`);
      return json;
    },
    stop,
  };
}

/** A Snowfire node started by {@link startSnowfireNode}. */
export interface SnowfireNode {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  pid: number;
  nodeId: string;
  /** Everything the node printed so far (stdout and stderr). */
  output(): string;
  /** Sends `signal` (default SIGKILL). Resolves once the process has exited, except for
   * SIGSTOP/SIGCONT, which resolve at once. */
  kill(signal?: Deno.Signal): Promise<void>;
  /** SIGTERM (graceful), SIGKILL after `graceMs` (default 10 s); removes the temp data dir. */
  stop(graceMs?: number): Promise<void>;
}

/** Options of {@link startSnowfireNode}. */
export interface SnowfireNodeOptions {
  /** NATS client URLs; joined with commas into `NATS_URL`. */
  natsUrls: string[];
  /** `NODE_ID`. */
  nodeId: string;
  /** `DATA_DIR`; a temp dir (removed on stop) when omitted. */
  dataDir?: string;
  /** Extra environment, e.g. `{ LEASE_TTL_MS: "1500", NATS_REPLICAS: "3" }`. */
  env?: Record<string, string>;
}

/**
 * Starts `deno run -A server/main.ts` with `NATS_URL`, `NODE_ID`, `PORT=0`, `HOST=127.0.0.1`, a
 * temp `DATA_DIR` and `BUILD_CLIENT=0`, and resolves with the URL it prints once listening.
 */
export async function startSnowfireNode(opts: SnowfireNodeOptions): Promise<SnowfireNode> {
  const ownDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: `snowfire-${opts.nodeId}-` });
  const auth = opts.natsUrls.map((url) => CREDENTIALS.get(url)).find((a) => a !== undefined);
  let proc;
  try {
    proc = await startTestServer({
      process: true,
      dataDir,
      env: {
        NATS_URL: opts.natsUrls.join(","),
        NODE_ID: opts.nodeId,
        // Tests page through logs and poll the API from one address; the per-address read
        // budgets are tested on their own (as in `startTestServer`'s in-process servers).
        RATE_HTTP_READS: "10000/10000",
        LOG_READS_PER_ADDRESS: "1000",
        LOG_READS: "1000",
        // The cluster's credentials, when this process started it (`startNatsCluster`).
        ...(auth ? { NATS_USER: auth.user, NATS_PASSWORD: auth.pass } : {}),
        ...opts.env,
      },
    });
  } catch (e) {
    if (ownDataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    throw e;
  }
  let exited = false;
  const kill = async (signal: Deno.Signal = "SIGKILL") => {
    if (exited) return;
    if (SIGNALS_THAT_KEEP_RUNNING.has(signal)) {
      try {
        proc.child.kill(signal);
      } catch {
        // Already exited.
      }
      return;
    }
    // A SIGSTOPped process must be continued to act on SIGTERM; SIGKILL works either way.
    if (signal !== "SIGKILL") {
      try {
        proc.child.kill("SIGCONT");
      } catch {
        // Already exited.
      }
    }
    await proc.kill(signal);
    exited = true;
  };
  let stopped = false;
  return {
    url: proc.url,
    pid: proc.child.pid,
    nodeId: opts.nodeId,
    output: proc.output,
    kill,
    async stop(graceMs = 10_000) {
      if (stopped) return;
      stopped = true;
      if (!exited) {
        const timer = setTimeout(() => {
          try {
            proc.child.kill("SIGKILL");
          } catch {
            // Already exited.
          }
        }, graceMs);
        try {
          await kill("SIGTERM");
        } finally {
          clearTimeout(timer);
        }
      }
      if (ownDataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
