/**
 * A hostile log reader as its own process, kept warm between bursts:
 * `deno run -A testing/log_reader.ts PORT SCENE N`. It prints `ready`, then for each `go MS` line
 * on its stdin runs N loops for MS ms, each fetching `/api/scenes/SCENE/log?limit=5000` from a
 * random offset one request after another (no pause), and prints one JSON line: requests, by
 * status, events received. `exit` (or the end of stdin) ends it.
 */

/** Splits text into lines (without their `\n`). */
class TextLineStream extends TransformStream<string, string> {
  constructor() {
    let rest = "";
    super({
      transform(chunk, controller) {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop()!;
        for (const part of parts) controller.enqueue(part);
      },
      flush(controller) {
        if (rest) controller.enqueue(rest);
      },
    });
  }
}

/** What one burst got. */
export interface ReadResult {
  requests: number;
  statuses: Record<string, number>;
  events: number;
}

/** Runs the readers for `ms`; what they got. */
export async function readLogs(
  port: number,
  scene: string,
  ms: number,
  readers: number,
): Promise<ReadResult> {
  const until = performance.now() + ms;
  const statuses: Record<string, number> = {};
  let requests = 0;
  let events = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const from = 1 + Math.floor(Math.random() * 20_000);
      try {
        const res = await fetch(
          `http://127.0.0.1:${port}/api/scenes/${scene}/log?from=${from}&limit=5000`,
        );
        requests++;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200) {
          events += ((await res.json()) as { events: unknown[] }).events.length;
        } else await res.body?.cancel();
      } catch {
        statuses.failed = (statuses.failed ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: readers }, loop));
  return { requests, statuses, events };
}

/**
 * The reader process at the lowest CPU priority (a real attacker reads from its own machine; on a
 * 2-core test box one at full priority would take the server's CPU, not the event loop the bound
 * is about). Started once, so its start-up does not fall into a measured window.
 *
 * @example
 * ```ts ignore
 * const reader = await LogReaderChild.start(8000, "big-log-1", 20);
 * const burst = await reader.burst(2000);
 * await reader.close();
 * ```
 */
export class LogReaderChild {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: ReadableStreamDefaultReader<string>;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TextLineStream(),
    ).getReader();
  }

  /** Starts the process and waits until it is ready. */
  static async start(port: number, scene: string, readers: number): Promise<LogReaderChild> {
    const args = ["run", "-A", new URL(import.meta.url).pathname, String(port), scene];
    args.push(String(readers));
    const niced = Deno.build.os !== "windows";
    const child = new Deno.Command(niced ? "nice" : Deno.execPath(), {
      args: niced ? ["-n", "19", Deno.execPath(), ...args] : args,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = new LogReaderChild(child);
    const first = await reader.#line();
    if (first !== "ready") throw new Error(`log reader said ${first}`);
    return reader;
  }

  /** Reads for `ms`; resolves with what the readers got. */
  async burst(ms: number): Promise<ReadResult> {
    await this.#writer.write(new TextEncoder().encode(`go ${ms}\n`));
    return JSON.parse(await this.#line());
  }

  /** Ends the process. */
  async close(): Promise<void> {
    try {
      await this.#writer.write(new TextEncoder().encode("exit\n"));
      await this.#writer.close();
    } catch {
      // Already gone.
    }
    while (!(await this.#lines.read()).done) { /* drain */ }
    await this.#child.status;
  }

  async #line(): Promise<string> {
    const { value, done } = await this.#lines.read();
    if (done) throw new Error("the log reader exited");
    return value;
  }
}

if (import.meta.main) {
  const [port, scene, readers] = Deno.args;
  console.log("ready");
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  );
  for await (const line of lines) {
    const [command, ms] = line.trim().split(" ");
    if (command !== "go") break;
    console.log(JSON.stringify(await readLogs(Number(port), scene, Number(ms), Number(readers))));
  }
}
