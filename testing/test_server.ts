/**
 * The one way tests start a scene server: on a free loopback port over a temporary data
 * directory, either in this process (fast; most tests) or as a child `deno run server/main.ts`
 * process (for tests that kill it, send it signals or measure its memory).
 */
import { type RunningServer, type ServerOptions, startServer } from "../server/server.ts";
import { buildClient } from "../tools/bundle.ts";

/** Options of an in-process {@link startTestServer}: any server option, plus `client`. */
export interface TestServerOptions extends Partial<ServerOptions> {
  /** Build the client bundle first (if stale), for tests that open the page in a browser. */
  client?: boolean;
}

/** Options of a child-process {@link startTestServer}. */
export interface TestProcessOptions {
  /** Run `server/main.ts` as a child process configured by `env`. */
  process: true;
  /** Environment on top of `PORT=0`, `HOST=127.0.0.1`, `DATA_DIR` and `BUILD_CLIENT=0`. */
  env?: Record<string, string>;
  /** `DATA_DIR`; a fresh temp dir (removed by `close`) when omitted. */
  dataDir?: string;
  /** Runs the child under another command, say `["prlimit", "--nofile=160"]`. */
  wrap?: string[];
}

/** A server running in this process. */
export interface TestServer extends RunningServer {
  /** The data directory (a fresh temp dir unless the options named one). */
  dataDir: string;
  /** Stops the server (connections get 1001) and keeps its data; does nothing when stopped. */
  shutdown(): Promise<void>;
  /** Starts it again on the same port and data directory (after `shutdown`). */
  start(): Promise<void>;
  /** Shuts down and removes the data directory if the harness made it. */
  close(): Promise<void>;
}

/** A server running as a child process. */
export interface TestServerProcess {
  url: string;
  /** The data directory (a fresh temp dir unless the options named one). */
  dataDir: string;
  child: Deno.ChildProcess;
  /** Everything the child printed so far. */
  output(): string;
  /** Sends `signal` and waits for exit; resolves with the exit status. */
  kill(signal: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Stops the child (SIGTERM, then SIGKILL after 10 s) and removes the data directory if the harness made it. */
  close(): Promise<void>;
}

const MAIN = new URL("../server/main.ts", import.meta.url).pathname;

/**
 * Starts a quiet scene server on a free loopback port: in this process, or with `process: true`
 * as a child `deno run -A server/main.ts` that is configured by environment.
 *
 * @example
 * ```ts
 * const server = await startTestServer({ maxPeers: 2 });
 * try {
 *   const response = await fetch(`${server.url}/healthz`);
 *   await response.body?.cancel();
 * } finally {
 *   await server.close();
 * }
 * const child = await startTestServer({ process: true, env: { WS_ENGINE: "node" } });
 * await child.kill("SIGTERM");
 * await child.close();
 * ```
 */
export function startTestServer(options?: TestServerOptions): Promise<TestServer>;
export function startTestServer(options: TestProcessOptions): Promise<TestServerProcess>;
export function startTestServer(
  options: TestServerOptions | TestProcessOptions = {},
): Promise<TestServer | TestServerProcess> {
  return "process" in options && options.process === true
    ? startProcess(options)
    : startInProcess(options as TestServerOptions);
}

/**
 * Runs `fn` against a fresh in-process server and always shuts it down and removes its data.
 *
 * @example
 * ```ts
 * await withServer({}, async (server) => {
 *   const response = await fetch(server.url);
 *   await response.body?.cancel();
 * });
 * ```
 */
export async function withServer(
  options: TestServerOptions,
  fn: (server: TestServer) => Promise<void>,
): Promise<void> {
  const server = await startTestServer(options);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

async function startInProcess(options: TestServerOptions): Promise<TestServer> {
  const { client, ...serverOptions } = options;
  if (client) await buildClient();
  const ownDataDir = serverOptions.dataDir === undefined;
  const dataDir = serverOptions.dataDir ?? await Deno.makeTempDir({ prefix: "snowfire-test-" });
  const settings: ServerOptions = {
    port: 0,
    hostname: "127.0.0.1",
    log: () => {},
    // Tests poll the API every 10 ms and store events from one address; the per-address
    // budgets are tested on their own.
    httpReads: { perSecond: 10_000, burst: 10_000 },
    logReads: { perAddress: 1000, total: 1000 },
    eventsPerMinute: 1_000_000,
    ...serverOptions,
    dataDir,
  };
  let running: RunningServer | null = await startServer(settings);
  const { url, port } = running;
  const shutdown = async () => {
    const stopping = running;
    running = null;
    await stopping?.shutdown();
  };
  return {
    url,
    port,
    dataDir,
    shutdown,
    async start() {
      running ??= await startServer({ ...settings, port });
    },
    async close() {
      await shutdown();
      if (ownDataDir) await Deno.remove(dataDir, { recursive: true });
    },
  };
}

async function startProcess(options: TestProcessOptions): Promise<TestServerProcess> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "snowfire-child-" });
  const [command, ...prefix] = [...(options.wrap ?? []), Deno.execPath()];
  const child = new Deno.Command(command, {
    args: [...prefix, "run", "-A", MAIN],
    env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, BUILD_CLIENT: "0", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const { promise: listening, resolve, reject } = Promise.withResolvers<string>();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]);
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const status = child.status;
  status.then(() => reject(new Error(`server exited before listening:\n${text}`)));
  const timer = setTimeout(
    () => reject(new Error(`server did not start in 30 s:\n${text}`)),
    30_000,
  );
  let url: string;
  try {
    url = await listening;
  } catch (e) {
    clearTimeout(timer);
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await status;
    await drained;
    if (ownDataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    throw e;
  }
  clearTimeout(timer);
  const kill = async (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch {
      // Already exited.
    }
    const result = await status;
    await drained;
    return result;
  };
  return {
    url,
    dataDir,
    child,
    output: () => text,
    kill,
    async close() {
      const force = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already exited.
        }
      }, 10_000);
      try {
        await kill("SIGTERM");
      } finally {
        clearTimeout(force);
      }
      if (ownDataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
