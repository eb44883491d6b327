/**
 * The servers under test, each started as a child process on a free loopback port: Snowfire's
 * own `server/main.ts` (with a temporary DATA_DIR and raised limits) or a raw baseline: a bare
 * `Deno.upgradeWebSocket` broadcast (`raw`) or a bare npm `ws` broadcast run by Node (`raw-node`).
 */
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { sleep } from "./clock.ts";

const ROOT = fromFileUrl(new URL("../..", import.meta.url));

/** Which server to load: one Snowfire process, a raw baseline, or a Snowfire cluster over NATS
 * (`cluster_target.ts`). */
export type TargetName = "snowfire" | "snowfire-deno" | "raw" | "raw-node" | "cluster";

/** The raw baselines: no Snowfire environment, no Deno flags for `raw-node` (Node runs it). */
export const RAW_TARGETS: readonly TargetName[] = ["raw", "raw-node"];

/** The command line that runs a baseline or a Snowfire server. */
function serverCommand(name: TargetName, denoFlags: string[]): { command: string; args: string[] } {
  if (name === "raw-node") return { command: "node", args: ["scripts/raw_ws_server.mjs"] };
  const script = name === "raw" ? "scripts/raw_server.ts" : "server/main.ts";
  return { command: Deno.execPath(), args: ["run", "-A", ...denoFlags, script] };
}

/**
 * Environment for Snowfire under load. The sky cap is raised because 50 launches/s keep far more
 * than the default 200 000 particles alive; the peer cap because the ramp puts thousands of people
 * in one scene. Per-connection rate limits stay at their defaults: the load test spreads its
 * launches over many connections instead.
 */
export const SNOWFIRE_LOAD_ENV: Readonly<Record<string, string>> = {
  SKY_CAP: "100000000",
  MAX_PEERS: "20000",
  // Scenario c opens 50 scenes at once from one address (the default budget is 20, then 6/min).
  RATE_NEW_SCENES: "1000/1000",
  // The ramp opens thousands of connections at once from one address.
  RATE_CONNECTIONS: "100000/100000",
  // ... and holds them, and stores every launch of every agent: the per-address caps of a
  // public server (256 connections, 1200 events a minute) would refuse the load test itself.
  MAX_CONNECTIONS: "100000",
  MAX_CONNECTIONS_PER_ADDRESS: "100000",
  EVENTS_PER_MINUTE: "100000000",
};

/** The WebSocket engine each Snowfire target runs with (`WS_ENGINE`). */
export const SNOWFIRE_ENGINES: Readonly<Partial<Record<TargetName, string>>> = {
  snowfire: "ws",
  "snowfire-deno": "deno",
};

/** A running server under test. */
export interface Target {
  readonly name: TargetName;
  readonly pid: number;
  readonly port: number;
  /** `ws://127.0.0.1:<port>`; scenes live at `${wsUrl}/s/<scene>/ws`. */
  readonly wsUrl: string;
  /** The environment it was started with (beyond the inherited one). */
  readonly env: Record<string, string>;
  /** Where its stdout and stderr go. */
  readonly logPath: string;
  /**
   * SIGTERM, then SIGKILL after 5 s; resolves with the exit code. The temporary directory (data
   * and log) is removed after a clean exit and kept otherwise.
   */
  stop(): Promise<number>;
}

/** A port nobody listens on right now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts a target server and waits until `/healthz` answers. `overrides` adds to its environment;
 * `denoFlags` go to `deno run` (e.g. `--cpu-prof`).
 */
export async function startTarget(
  name: TargetName,
  overrides: Record<string, string> = {},
  denoFlags: string[] = [],
): Promise<Target> {
  const port = freePort();
  const workDir = await Deno.makeTempDir({ prefix: `snowfire-load-${name}-` });
  const logPath = join(workDir, "server.log");
  const env: Record<string, string> = { PORT: String(port), HOST: "127.0.0.1" };
  if (name === "snowfire" || name === "snowfire-deno") {
    Object.assign(env, SNOWFIRE_LOAD_ENV, {
      DATA_DIR: join(workDir, "data"),
      WS_ENGINE: SNOWFIRE_ENGINES[name]!,
    });
  }
  Object.assign(env, overrides);
  if (name === "cluster") throw new Error("a cluster target starts with startClusterTarget");
  const { command, args } = serverCommand(name, denoFlags);
  const child = new Deno.Command(command, {
    args,
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const log = await Deno.open(logPath, { write: true, create: true, truncate: true });
  // Written chunk by chunk with `write` (a file's `writable` buffers until closed), so the log can
  // be read while the server runs; one chain keeps stdout's and stderr's chunks whole.
  let writes = Promise.resolve();
  const append = (chunk: Uint8Array) =>
    writes = writes.then(async () => {
      for (let at = 0; at < chunk.length;) at += await log.write(chunk.subarray(at));
    });
  const copy = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) await append(chunk);
  };
  const copying = Promise.all([copy(child.stdout), copy(child.stderr)]).finally(async () => {
    await writes;
    log.close();
  });

  let exited: number | undefined;
  child.status.then((status) => exited = status.code);
  const deadline = Date.now() + 60_000;
  while (true) {
    if (exited !== undefined) {
      await copying;
      const output = await Deno.readTextFile(logPath);
      throw new Error(
        `target_exited: ${name} server exited with code ${exited} before it was ready:\n${output}`,
      );
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      await response.body?.cancel();
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      await copying;
      throw new Error(`target_timeout: ${name} server not ready after 60 s (log: ${logPath})`);
    }
    await sleep(100);
  }

  return {
    name,
    pid: child.pid,
    port,
    wsUrl: `ws://127.0.0.1:${port}`,
    env,
    logPath,
    async stop() {
      if (exited === undefined) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => {
          if (exited === undefined) child.kill("SIGKILL");
        }, 5000);
        const status = await child.status;
        clearTimeout(timer);
        exited = status.code;
      }
      await copying;
      // Keep the directory (with server.log) only when the server did not exit cleanly.
      if (exited === 0) await Deno.remove(workDir, { recursive: true });
      return exited;
    },
  };
}
