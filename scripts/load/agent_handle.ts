/**
 * The coordinator's side of one agent process: spawns `agent.ts`, sends it requests and awaits
 * the answers, and measures its clock offset so times it reports can be compared.
 */
import { fileURLToPath as fromFileUrl } from "node:url";
import { now } from "./clock.ts";
import { readLines } from "./lines.ts";
import type {
  AgentRequest,
  AgentResponse,
  ConnectResult,
  MeasureResult,
  RunPlan,
  RunResult,
  SceneClients,
  SendRecord,
} from "./agent_protocol.ts";

const AGENT_PATH = fromFileUrl(new URL("./agent.ts", import.meta.url));

/** Distributes a request without its id. */
type Request = AgentRequest extends infer R ? R extends { id: number } ? Omit<R, "id"> : never
  : never;

/** A running agent process. */
export class AgentHandle {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, PromiseWithResolvers<unknown>>();
  readonly #reading: Promise<void>;
  #nextId = 1;
  /** Agent clock minus coordinator clock, in ms (see {@link syncClock}). */
  offsetMs = 0;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#reading = this.#read();
  }

  /** Starts an agent process. */
  static start(): AgentHandle {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", AGENT_PATH],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    return new AgentHandle(child);
  }

  /** The agent's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  async #read(): Promise<void> {
    for await (const line of readLines(this.#child.stdout)) {
      if (line.trim() === "") continue;
      const response = JSON.parse(line) as AgentResponse;
      const pending = this.#pending.get(response.id);
      if (!pending) continue;
      this.#pending.delete(response.id);
      if (response.ok) pending.resolve(response.result);
      else pending.reject(new Error(`${response.code}: ${response.message}`));
    }
    for (const pending of this.#pending.values()) {
      pending.reject(new Error("agent_exited: the agent process closed its output"));
    }
    this.#pending.clear();
  }

  async #request<T>(request: Request): Promise<T> {
    const id = this.#nextId++;
    const pending = Promise.withResolvers<unknown>();
    this.#pending.set(id, pending);
    await this.#writer.write(new TextEncoder().encode(JSON.stringify({ ...request, id }) + "\n"));
    return await pending.promise as T;
  }

  /**
   * Estimates the agent's clock offset from a few round trips, keeping the one with the shortest
   * round trip (its midpoint is the tightest bound). Accurate to half that round trip.
   */
  async syncClock(probes = 9): Promise<{ offsetMs: number; roundTripMs: number }> {
    let best = { offsetMs: 0, roundTripMs: Infinity };
    for (let i = 0; i < probes; i++) {
      const sent = now();
      const agentTime = await this.#request<number>({ op: "clock" });
      const received = now();
      const roundTripMs = received - sent;
      if (roundTripMs < best.roundTripMs) {
        best = { offsetMs: agentTime - (sent + received) / 2, roundTripMs };
      }
    }
    this.offsetMs = best.offsetMs;
    return best;
  }

  /** Adds clients to scenes. */
  connect(url: string, scenes: SceneClients[], concurrency: number): Promise<ConnectResult> {
    return this.#request({ op: "connect", url, scenes, concurrency });
  }

  /** Runs a launch plan; the sends come back converted to the coordinator's clock. */
  async run(plan: RunPlan): Promise<RunResult> {
    const result = await this.#request<RunResult>({ op: "run", plan });
    return {
      ...result,
      sends: result.sends.map(([key, time, scene]) => [key, time - this.offsetMs, scene]),
      measureFrom: result.measureFrom - this.offsetMs,
      measureTo: result.measureTo - this.offsetMs,
    };
  }

  /** Matches deliveries against sends given in the coordinator's clock. */
  measure(sends: SendRecord[]): Promise<MeasureResult> {
    return this.#request({
      op: "measure",
      sends: sends.map(([key, time, scene]) => [key, time + this.offsetMs, scene]),
    });
  }

  /** Closes the agent's clients and ends the process. */
  async stop(): Promise<void> {
    try {
      await this.#request({ op: "close" });
    } catch {
      // Already gone: nothing left to close.
    }
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // Exited meanwhile.
      }
    }, 5000);
    await this.#child.status;
    clearTimeout(timer);
    await this.#reading;
  }
}
