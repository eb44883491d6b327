/**
 * The load clients of one agent process: real WebSockets that do the Snowfire handshake
 * (`hello` → `welcome`), send launches on a schedule, and log every frame they receive.
 *
 * Latency is measured exactly, without adding anything to the protocol: each launch's (x, z)
 * is a unique grid point (see `launch_key.ts`); the sender notes the time just before
 * `WebSocket.send`, every receiving client notes the time its `message` handler runs, and the
 * two are matched by key after the run (`measure`), in one clock shared across processes.
 */
import { now, sleep } from "./clock.ts";
import { DeliveryLog } from "./recorder.ts";
import { Histogram } from "./histogram.ts";
import { keyOf, keyX, keyZ } from "./launch_key.ts";
import type {
  ConnectResult,
  MeasureResult,
  RunPlan,
  RunResult,
  SceneClients,
  SendRecord,
} from "./agent_protocol.ts";

/** Every heartbeat frame starts like this (Snowfire's and the raw server's alike). */
const TICK_PREFIX = '{"t":"tick",';

/** After joining, wait until no presence frame arrived for this long… */
const SETTLE_QUIET_MS = 1000;
/** …but no longer than this. */
const SETTLE_MAX_MS = 60_000;

/** How long turning a scene's show off may take (a cluster scene may be waiting for an owner). */
const SILENCE_MAX_MS = 15_000;

/** How long a client may wait for its `welcome`. */
const WELCOME_TIMEOUT_MS = 15_000;

/** One load client. */
interface Client {
  readonly socket: WebSocket;
  readonly scene: string;
  /** Receive time of the previous frame, for the frame-gap histogram. */
  lastFrameAt: number;
}

/** A frame as far as the load client cares. */
interface Frame {
  t?: string;
  code?: string;
  by?: string;
  body?: { type?: string; x?: number; z?: number };
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** All the clients of one agent and what they saw. */
export class ClientPool {
  readonly #clients: Client[] = [];
  readonly #byScene = new Map<string, Client[]>();
  readonly #deliveries = new DeliveryLog();
  readonly #frameGap = new Histogram();
  #framesInWindow: Record<string, number> = {};
  #refusals: Record<string, number> = {};
  #closes: Record<string, number> = {};
  #foreignEvents = 0;
  /** Settings events seen per scene (by any client of this pool). */
  readonly #settingsSeen = new Map<string, number>();
  #windowFrom = Infinity;
  #windowTo = -Infinity;
  #recording = false;
  /** Receive time of the last `presence` frame (join/leave traffic), 0 when none. */
  #lastPresenceAt = 0;

  /** Clients currently open. */
  get openClients(): number {
    let open = 0;
    for (const client of this.#clients) if (client.socket.readyState === WebSocket.OPEN) open++;
    return open;
  }

  /** Opens clients into scenes, `concurrency` handshakes at a time. */
  async connect(url: string, scenes: SceneClients[], concurrency: number): Promise<ConnectResult> {
    const started = now();
    const failures: Record<string, number> = {};
    let connected = 0;
    const connectedByScene: Record<string, number> = {};
    const jobs: { scene: string; silenceShow: boolean }[] = [];
    for (const { scene, clients, silenceShow } of scenes) {
      for (let i = 0; i < clients; i++) jobs.push({ scene, silenceShow: silenceShow && i === 0 });
    }
    let next = 0;
    const silencing: Promise<void>[] = [];
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        const outcome = await this.#open(url, job.scene);
        if (outcome === "ok") {
          connected++;
          increment(connectedByScene, job.scene);
          if (job.silenceShow) {
            const clients = this.#byScene.get(job.scene)!;
            silencing.push(this.#silenceShow(clients[clients.length - 1]));
          }
        } else increment(failures, outcome);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
    await Promise.all(silencing);
    // Joining makes the server tell everyone (presence); let that storm pass before measuring,
    // or the first measurements would include frames queued behind it.
    const settleStarted = now();
    while (
      now() - this.#lastPresenceAt < SETTLE_QUIET_MS && now() - settleStarted < SETTLE_MAX_MS
    ) {
      await sleep(100);
    }
    return {
      connected,
      connectedByScene,
      failed: jobs.length - connected,
      failures,
      elapsedMs: now() - started,
      settleMs: now() - settleStarted,
    };
  }

  /** Opens one client and waits for its welcome; "ok" or the failure reason. */
  #open(baseUrl: string, scene: string): Promise<string> {
    const { promise, resolve } = Promise.withResolvers<string>();
    let socket: WebSocket;
    try {
      socket = new WebSocket(`${baseUrl}/s/${scene}/ws`);
    } catch (error) {
      return Promise.resolve(`construct: ${(error as Error).message}`);
    }
    const client: Client = { socket, scene, lastFrameAt: 0 };
    let welcomed = false;
    const timer = setTimeout(() => {
      if (welcomed) return;
      resolve("timeout");
      socket.close();
    }, WELCOME_TIMEOUT_MS);
    socket.onopen = () => socket.send(`{"t":"hello","name":"load"}`);
    socket.onerror = () => {};
    socket.onclose = (event) => {
      clearTimeout(timer);
      if (!welcomed) resolve(`close ${event.code}`);
      else increment(this.#closes, String(event.code));
    };
    socket.onmessage = (message) => {
      const data = message.data as string;
      if (welcomed) {
        // Heartbeats are half of all traffic and carry nothing we need: skip the parse.
        if (data.startsWith(TICK_PREFIX)) this.#note(client, "tick");
        else this.#receive(client, JSON.parse(data) as Frame);
        return;
      }
      const frame = JSON.parse(data) as Frame;
      if (frame.t === "welcome") {
        welcomed = true;
        clearTimeout(timer);
        this.#clients.push(client);
        const sceneClients = this.#byScene.get(scene) ?? [];
        sceneClients.push(client);
        this.#byScene.set(scene, sceneClients);
        resolve("ok");
      } else if (frame.t === "error") {
        clearTimeout(timer);
        resolve(frame.code ?? "error");
        socket.close();
      }
    };
    return promise;
  }

  /**
   * Turns the scene's show off through `client` and waits until the settings event comes back,
   * sending again while it is refused: a cluster scene may have no owner yet (`paused`).
   */
  async #silenceShow(client: Client): Promise<void> {
    const deadline = now() + SILENCE_MAX_MS;
    const before = this.#settingsSeen.get(client.scene) ?? 0;
    while ((this.#settingsSeen.get(client.scene) ?? 0) === before && now() < deadline) {
      client.socket.send(
        JSON.stringify({ t: "submit", body: { type: "settings", settings: { show: false } } }),
      );
      const waitUntil = now() + 1000;
      while ((this.#settingsSeen.get(client.scene) ?? 0) === before && now() < waitUntil) {
        await sleep(50);
      }
    }
  }

  /** Counts a frame of type `type` and returns its receive time. */
  #note(client: Client, type: string): number {
    const time = now();
    if (time >= this.#windowFrom && time < this.#windowTo) {
      this.#framesInWindow[type] = (this.#framesInWindow[type] ?? 0) + 1;
      if (client.lastFrameAt > 0) this.#frameGap.record(time - client.lastFrameAt);
    }
    client.lastFrameAt = time;
    return time;
  }

  /** Handles one parsed frame after the welcome; the hot path of the whole load test. */
  #receive(client: Client, frame: Frame): void {
    const time = this.#note(client, frame.t ?? "?");
    if (frame.t === "presence") {
      this.#lastPresenceAt = time;
    } else if (frame.t === "event") {
      const body = frame.body;
      const key = body?.type === "launch" && frame.by !== "show"
        ? keyOf(body.x ?? NaN, body.z ?? NaN)
        : -1;
      if (body?.type === "settings") {
        this.#settingsSeen.set(client.scene, (this.#settingsSeen.get(client.scene) ?? 0) + 1);
      }
      if (key < 0) this.#foreignEvents++;
      else if (this.#recording) this.#deliveries.push(key, time);
    } else if (frame.t === "error") {
      increment(this.#refusals, frame.code ?? "?");
    }
  }

  /** Sends launches as planned, then waits for the drain; returns the measured sends. */
  async run(plan: RunPlan): Promise<RunResult> {
    this.#deliveries.clear();
    this.#framesInWindow = {};
    this.#refusals = {};
    this.#closes = {};
    this.#foreignEvents = 0;
    this.#frameGap.reset();
    this.#recording = true;
    const start = now();
    const measureFrom = start + plan.warmupMs;
    const measureTo = measureFrom + plan.measureMs;
    this.#windowFrom = measureFrom;
    this.#windowTo = measureTo;

    const schedules = plan.rates
      .filter((rate) =>
        rate.launchesPerSecond > 0 && (this.#byScene.get(rate.scene)?.length ?? 0) > 0
      )
      .map((rate, index, all) => {
        const interval = 1000 / rate.launchesPerSecond;
        // Stagger scenes over one interval so their launches do not all leave at once.
        return {
          clients: this.#byScene.get(rate.scene)!,
          interval,
          nextAt: start + (interval * index) / all.length,
          turn: 0,
        };
      });
    const sends: SendRecord[] = [];
    let sentTotal = 0;
    let nextKey = plan.keyBase;
    while (schedules.length > 0) {
      const time = now();
      if (time >= measureTo) break;
      let earliest = Infinity;
      for (const schedule of schedules) {
        while (schedule.nextAt <= time) {
          // Rotate through the scene's clients so every connection stays far below its rate limit.
          const client = schedule.clients[schedule.turn++ % schedule.clients.length];
          schedule.nextAt += schedule.interval;
          if (client.socket.readyState !== WebSocket.OPEN) continue;
          const key = nextKey;
          nextKey += plan.keyStride;
          const sentAt = now();
          client.socket.send(
            `{"t":"submit","body":{"type":"launch","x":${keyX(key)},"z":${keyZ(key)}}}`,
          );
          sentTotal++;
          if (sentAt >= measureFrom && sentAt < measureTo) sends.push([key, sentAt, client.scene]);
        }
        earliest = Math.min(earliest, schedule.nextAt);
      }
      await sleep(Math.min(earliest, measureTo) - now());
    }
    await sleep(measureTo - now());
    await sleep(plan.drainMs);
    this.#recording = false;
    return { sends, sentTotal, measureFrom, measureTo };
  }

  /** Matches the logged deliveries with the measured sends (times in this agent's clock). */
  measure(sends: SendRecord[]): MeasureResult {
    const sentAt = new Map<number, number>();
    for (const [key, time] of sends) sentAt.set(key, time);
    const latency = new Histogram();
    const deliveries = new Map<number, number>();
    for (let i = 0; i < this.#deliveries.length; i++) {
      const key = this.#deliveries.key(i);
      const sent = sentAt.get(key);
      if (sent === undefined) continue;
      latency.record(this.#deliveries.time(i) - sent);
      deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
    }
    const result: MeasureResult = {
      latency: latency.toData(),
      deliveriesByKey: [...deliveries],
      framesInWindow: this.#framesInWindow,
      frameGap: this.#frameGap.toData(),
      refusals: this.#refusals,
      closes: this.#closes,
      foreignEvents: this.#foreignEvents,
      openClients: this.openClients,
    };
    return result;
  }

  /** Closes every client and waits (briefly) for the closes to finish. */
  async close(): Promise<void> {
    for (const client of this.#clients) {
      client.socket.onmessage = null;
      client.socket.close(1000, "load test done");
    }
    const deadline = now() + 3000;
    const closing = () => this.#clients.some((c) => c.socket.readyState !== WebSocket.CLOSED);
    while (closing() && now() < deadline) await sleep(20);
    this.#clients.length = 0;
    this.#byScene.clear();
  }
}
