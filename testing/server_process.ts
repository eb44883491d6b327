/** Runs `server/main.ts` as a child process (for crash tests) and finds the URL it prints. */

/** A server child process. */
export interface ServerProcess {
  url: string;
  child: Deno.ChildProcess;
  /** Everything the child printed so far. */
  output: () => string;
  /** Sends `signal` and waits for exit; resolves with the exit status. */
  kill(signal: Deno.Signal): Promise<Deno.CommandStatus>;
}

const MAIN = new URL("../server/main.ts", import.meta.url).pathname;

/** Starts `deno run -A server/main.ts` on a free port with `DATA_DIR=dataDir`. */
export async function spawnServer(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, BUILD_CLIENT: "0", ...env },
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
    await drained;
    throw e;
  }
  clearTimeout(timer);
  return {
    url,
    child,
    output: () => text,
    async kill(signal) {
      try {
        child.kill(signal);
      } catch {
        // Already exited.
      }
      const result = await status;
      await drained;
      return result;
    },
  };
}
