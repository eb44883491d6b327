/**
 * `deno task start`: reads the configuration from the environment, builds the client bundle when
 * it is missing or stale, serves, and shuts down gracefully on SIGINT/SIGTERM.
 *
 * Environment: PORT (8000), HOST (0.0.0.0), DATA_DIR (./data), SKY_CAP, MAX_PEERS,
 * ALLOWED_ORIGINS (comma separated, `*` for any), STATIC_DIR, HEARTBEAT_MS (45), PRESENCE_LIMIT
 * (32), RATE_LAUNCH / RATE_GUN / RATE_SETTINGS / RATE_FRAMES / RATE_REFUSED / RATE_NEW_SCENES /
 * RATE_CONNECTIONS (`PER_SECOND/BURST`), WS_ENGINE (ws|deno), HELLO_TIMEOUT_MS, REFUSAL_NOTICE_MS,
 * MAX_SCENES, DEV=1 (serve
 * source maps), DB_MAX_MB (cap on the database size), and BUILD_CLIENT=0 to skip the bundle
 * check. A damaged database is refused with exit code 1 and one line
 * `snowfire: storage_damaged: ...`. Cluster mode: NATS_URL (comma separated), NODE_ID,
 * NATS_REPLICAS (1), LEASE_TTL_MS (3000); see server/cluster/.
 */
import { optionsFromEnv } from "./config.ts";
import { type RunningServer, startServer } from "./server.ts";
import { clusterOptionsFromEnv } from "./cluster/cluster_config.ts";

const log = (msg: string) => console.log(msg);

/** After a signal, the process exits within this long whatever shutdown is waiting for. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Builds the client bundle via tools/bundle.ts when it is older than the client sources. Loaded
 * lazily: a server deployed with a prebuilt bundle (BUILD_CLIENT=0) never needs esbuild.
 */
async function ensureClientBundle(): Promise<void> {
  let bundler: typeof import("../tools/bundle.ts");
  try {
    bundler = await import("../tools/bundle.ts");
  } catch (e) {
    log(
      `client bundle: tools/bundle.ts could not be loaded (${
        (e as Error).message
      }); serving without building`,
    );
    return;
  }
  const started = performance.now();
  const built = await bundler.buildClient();
  log(
    built
      ? `client bundle: built in ${Math.round(performance.now() - started)} ms`
      : "client bundle: up to date",
  );
}

if (import.meta.main) {
  let server: RunningServer;
  try {
    const options = optionsFromEnv((name) => Deno.env.get(name));
    const cluster = clusterOptionsFromEnv((name) => Deno.env.get(name)) ?? undefined;
    if (Deno.env.get("BUILD_CLIENT") !== "0") {
      try {
        await ensureClientBundle();
      } catch (e) {
        log(`client bundle: build failed: ${(e as Error).message}`);
      }
    }
    server = await startServer({ ...options, cluster, log });
  } catch (e) {
    // One line, with a code an operator can search for (storage_damaged, bad_config, ...).
    const own = (e as { code?: unknown }).code;
    const code = e instanceof RangeError
      ? "bad_config"
      : typeof own === "string" && /^[a-z_]+$/.test(own)
      ? own
      : "start_failed";
    console.error(`snowfire: ${code}: ${(e as Error).message.replace(/\s+/g, " ")}`);
    Deno.exit(1);
  }
  let exiting = false;
  const stop = async (signal: string) => {
    if (exiting) return;
    exiting = true;
    log(`${signal}: closing connections and flushing scenes`);
    // Shutdown waits for close handshakes (bounded); this bounds everything else it waits for.
    const watchdog = setTimeout(() => {
      console.error(`snowfire: shutdown_stuck: still stopping after ${SHUTDOWN_DEADLINE_MS} ms`);
      Deno.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    try {
      await server.shutdown();
    } catch (e) {
      // Storage errors are logged by shutdown itself; anything else still must not crash.
      console.error(`snowfire: shutdown_failed: ${(e as Error).message}`);
    }
    clearTimeout(watchdog);
    log("bye");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}
