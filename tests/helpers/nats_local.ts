/**
 * A single local `nats-server -js` on a free loopback port with a temporary JetStream directory,
 * for the cluster tests' early drafts (the full harness is `startNatsCluster`).
 */

/** A running nats-server child. */
export interface LocalNats {
  url: string;
  port: number;
  pid: number;
  /** Sends `signal` to the server. */
  signal(signal: Deno.Signal): void;
  /** Stops the server (SIGTERM, then waits) and removes its storage. */
  stop(): Promise<void>;
}

/** Path of nats-server, or null when it is not installed. */
export function natsServerBinary(): string | null {
  for (
    const path of ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
  ) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** A free loopback TCP port (bound then released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts `nats-server -js` and waits until it accepts TCP connections. */
export async function startLocalNats(port = freePort()): Promise<LocalNats> {
  const binary = natsServerBinary();
  if (!binary) throw new Error("nats_missing: nats-server is not installed");
  const dir = await Deno.makeTempDir({ prefix: "snowfire-nats-" });
  const child = new Deno.Command(binary, {
    args: ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", dir],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      break;
    } catch {
      if (performance.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error(`nats-server did not listen on ${port} in 10 s`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  let stopped: Promise<void> | undefined;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    signal(signal) {
      try {
        child.kill(signal);
      } catch {
        // Already exited.
      }
    },
    stop() {
      stopped ??= (async () => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already exited.
        }
        await child.status;
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      })();
      return stopped;
    },
  };
}
