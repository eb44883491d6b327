/**
 * One target server plus the agent processes that load it: fills scenes with clients (split evenly
 * across agents), runs timed launch plans and merges what every agent saw into one measurement.
 */
import { AgentHandle } from "./agent_handle.ts";
import { now, sleep } from "./clock.ts";
import { Histogram } from "./histogram.ts";
import {
  readCpuMs,
  readLoadAverage,
  readMachineCpuMs,
  readRssKiB,
  setNice,
  setRealtime,
} from "./proc.ts";
import type { MeasureResult, SceneClients, SendRecord } from "./agent_protocol.ts";
import type { Target } from "./target.ts";
import { natsDelta } from "./cluster_target.ts";
import type { ClusterProcess, ClusterTarget, NatsCounters } from "./cluster_target.ts";

/** How long each phase of a timed run lasts. */
export interface Timing {
  warmupMs: number;
  measureMs: number;
  drainMs: number;
  /**
   * Before a run, wait up to this long for the rest of the machine to go quiet (below
   * {@link QUIET_CORES} of CPU outside the server and agents); 0 skips the wait.
   */
  quietWaitMs: number;
}

/** Total time all runs together may spend waiting for quiet, so a busy machine cannot stall us. */
export const quietBudget = { remainingMs: 120_000 };

/** CPU (in cores) other processes may use while we measure without us waiting for them. */
export const QUIET_CORES = 0.3;

/** Scheduling for the server and agents on a shared machine (both unset: unchanged). */
export interface Priority {
  /** Nice value, -20…19 (negative needs root). */
  nice?: number;
  /** SCHED_RR priority, 1…99 (root). */
  realtime?: number;
}

/** Summary of one connect step. */
export interface ConnectSummary {
  requested: number;
  connected: number;
  failures: Record<string, number>;
  /** Until every agent had its clients in and the join traffic had passed. */
  elapsedMs: number;
  /** Longest wait of an agent for the join traffic (presence frames) to stop. */
  settleMs: number;
}

/** Everything measured in one timed run. */
export interface LoadMeasurement {
  clients: number;
  scenes: number;
  launchesPerSecond: number;
  measureMs: number;
  /** Launches sent inside the measure window. */
  sent: number;
  /** Of those, launches that reached at least one client (the server accepted them). */
  accepted: number;
  /** Deliveries of accepted launches expected: one per client in the launch's scene. */
  expectedDeliveries: number;
  deliveries: number;
  /** Deliveries of measured launches per second of the window (fan-out throughput). */
  deliveriesPerSecond: number;
  /** All frames clients received per second of the window, by frame type. */
  framesPerSecond: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number; samples: number };
  /** Longest silences a client saw between two frames (heartbeat lag). */
  frameGapMs: { p99: number; max: number };
  refusals: Record<string, number>;
  closes: Record<string, number>;
  foreignEvents: number;
  serverRssKiB: number;
  /** CPU used during the window as a share of one core (1 = one core busy). */
  serverCpu: number;
  agentCpu: number[];
  /**
   * CPU the rest of the machine used during the window (other processes, kernel work not
   * charged to ours), in cores: a busy neighbour makes every figure worse.
   */
  backgroundCpu: number;
  /** Cores the machine has. */
  cores: number;
  /** 1-minute load average at the end of the window. */
  loadAverage: number;
  /** How long the run waited for the machine to go quiet, and the CPU others used then. */
  quietWait: { waitedMs: number; backgroundCpu: number };
  /** Cluster target only: each node's and NATS server's CPU (cores) and, for nodes, the clients
   * connected to it. */
  processes?: (ClusterProcess & { cpu: number; clients: number })[];
  /** Cluster target only: NATS traffic during the measure window (sum over the servers). */
  nats?: NatsCounters;
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, count] of Object.entries(from)) into[key] = (into[key] ?? 0) + count;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A target under load. */
export class Session {
  readonly target: Target;
  readonly agents: AgentHandle[];
  /** Connected clients per scene (over all agents). */
  readonly clientsByScene = new Map<string, number>();
  /** Per scene, per agent: connected clients. */
  readonly #agentClients = new Map<string, number[]>();
  #nextKeyBase = 0;
  readonly #priority: Priority;
  /** Where clients connect: the target's one URL, or every node of a cluster (spread evenly). */
  readonly #urls: string[];
  /** Connected clients per URL of {@link #urls}. */
  readonly clientsByUrl: number[];

  private constructor(target: Target, agents: AgentHandle[], priority: Priority) {
    this.target = target;
    this.agents = agents;
    this.#priority = priority;
    this.#urls = (target as Partial<ClusterTarget>).wsUrls ?? [target.wsUrl];
    this.clientsByUrl = this.#urls.map(() => 0);
  }

  /** Pids of every server process of the target (one, or a cluster's nodes and NATS servers). */
  #serverPids(): number[] {
    const processes = (this.target as Partial<ClusterTarget>).processes;
    return processes ? processes.map((p) => p.pid) : [this.target.pid];
  }

  /**
   * Starts `agentCount` agents against a running target and syncs their clocks. `priority`
   * puts the target and the agents ahead of other work on a shared machine: a nice value, or a
   * real-time round-robin priority. Threads started later do not all inherit it, so it is
   * applied again before each run.
   */
  static async open(
    target: Target,
    agentCount: number,
    priority: Priority = {},
  ): Promise<Session> {
    const agents = Array.from({ length: agentCount }, () => AgentHandle.start());
    for (const agent of agents) await agent.syncClock();
    const session = new Session(target, agents, priority);
    session.#applyPriority();
    return session;
  }

  #applyPriority(): void {
    const { nice, realtime } = this.#priority;
    for (const pid of [...this.#serverPids(), ...this.agents.map((agent) => agent.pid)]) {
      if (nice !== undefined && !setNice(pid, nice)) {
        throw new Error(`priority_refused: could not renice ${pid} to ${nice}`);
      }
      if (realtime !== undefined && !setRealtime(pid, realtime)) {
        throw new Error(`priority_refused: could not give ${pid} real-time priority ${realtime}`);
      }
    }
  }

  /** Total connected clients. */
  get clients(): number {
    let total = 0;
    for (const count of this.clientsByScene.values()) total += count;
    return total;
  }

  /**
   * Adds clients until each scene has the given total, split evenly across the agents (and, for
   * a cluster, across its nodes: each agent joins its share to every node in turn).
   */
  async populate(scenes: { scene: string; clients: number }[], concurrency = 64) {
    if (this.#urls.length === 1) return await this.#populateAt(0, scenes, concurrency);
    const parts: ConnectSummary[] = [];
    const urlCount = this.#urls.length;
    for (let u = 0; u < urlCount; u++) {
      // Node u gets its share of what is still missing: the last node takes the remainder.
      const share = scenes.map(({ scene, clients }) => {
        const have = this.clientsByScene.get(scene) ?? 0;
        const missing = Math.max(0, clients - have);
        return { scene, clients: have + Math.ceil(missing / (urlCount - u)) };
      });
      parts.push(await this.#populateAt(u, share, concurrency));
    }
    const failures: Record<string, number> = {};
    for (const part of parts) addCounts(failures, part.failures);
    return {
      requested: parts.reduce((sum, p) => sum + p.requested, 0),
      connected: parts.reduce((sum, p) => sum + p.connected, 0),
      failures,
      elapsedMs: parts.reduce((sum, p) => sum + p.elapsedMs, 0),
      settleMs: Math.max(...parts.map((p) => p.settleMs)),
    } satisfies ConnectSummary;
  }

  async #populateAt(
    urlIndex: number,
    scenes: { scene: string; clients: number }[],
    concurrency: number,
  ): Promise<ConnectSummary> {
    const perAgent: SceneClients[][] = this.agents.map(() => []);
    let requested = 0;
    for (const { scene, clients } of scenes) {
      const current = this.#agentClients.get(scene) ?? this.agents.map(() => 0);
      const have = current.reduce((a, b) => a + b, 0);
      const missing = Math.max(0, clients - have);
      requested += missing;
      for (let i = 0; i < this.agents.length; i++) {
        const share = Math.floor(missing / this.agents.length) +
          (i < missing % this.agents.length ? 1 : 0);
        if (share > 0) {
          perAgent[i].push({ scene, clients: share, silenceShow: have === 0 && i === 0 });
        }
      }
    }
    const results = await Promise.all(
      this.agents.map((agent, i) =>
        agent.connect(
          this.#urls[urlIndex],
          perAgent[i],
          Math.ceil(concurrency / this.agents.length),
        )
      ),
    );
    const failures: Record<string, number> = {};
    let connected = 0;
    let elapsedMs = 0;
    let settleMs = 0;
    results.forEach((result, i) => {
      settleMs = Math.max(settleMs, result.settleMs);
      addCounts(failures, result.failures);
      connected += result.connected;
      this.clientsByUrl[urlIndex] += result.connected;
      elapsedMs = Math.max(elapsedMs, result.elapsedMs);
      for (const [scene, got] of Object.entries(result.connectedByScene)) {
        const counts = this.#agentClients.get(scene) ?? this.agents.map(() => 0);
        counts[i] += got;
        this.#agentClients.set(scene, counts);
        this.clientsByScene.set(scene, (this.clientsByScene.get(scene) ?? 0) + got);
      }
    });
    return { requested, connected, failures, elapsedMs, settleMs } satisfies ConnectSummary;
  }

  /** CPU others use (in cores) over `ms`, excluding the server and the agents. */
  async #backgroundCpu(ms: number): Promise<number> {
    const ours = () =>
      this.#serverPids().reduce((sum, pid) => sum + readCpuMs(pid), 0) +
      this.agents.reduce((sum, a) => sum + readCpuMs(a.pid), 0);
    const machineBefore = readMachineCpuMs();
    const oursBefore = ours();
    await sleep(ms);
    const machineAfter = readMachineCpuMs();
    const cores = navigator.hardwareConcurrency;
    const machine = ((machineAfter.busy - machineBefore.busy) /
      (machineAfter.total - machineBefore.total)) * cores;
    return Math.max(0, machine - (ours() - oursBefore) / ms);
  }

  /** Waits (at most `maxMs`) until other processes use less than {@link QUIET_CORES}. */
  async #waitForQuiet(maxMs: number): Promise<{ waitedMs: number; backgroundCpu: number }> {
    const started = now();
    let backgroundCpu = NaN;
    while (maxMs > 0) {
      backgroundCpu = await this.#backgroundCpu(500);
      if (backgroundCpu < QUIET_CORES || now() - started >= maxMs) break;
    }
    return { waitedMs: Math.round(now() - started), backgroundCpu: round2(backgroundCpu) };
  }

  /** Sends launches at `launchesPerSecond` into each scene and measures the fan-out. */
  async measure(rates: { scene: string; launchesPerSecond: number }[], timing: Timing) {
    const agentCount = this.agents.length;
    const runSeconds = (timing.warmupMs + timing.measureMs) / 1000;
    const perAgentRates = this.agents.map((_, i) =>
      rates.map(({ scene, launchesPerSecond }) => {
        const counts = this.#agentClients.get(scene) ?? [];
        const total = counts.reduce((a, b) => a + b, 0);
        // Each agent drives its share of the scene's launches, in proportion to its clients.
        return {
          scene,
          launchesPerSecond: total === 0 ? 0 : (launchesPerSecond * (counts[i] ?? 0)) / total,
        };
      })
    );
    const maxPerAgent = Math.max(
      ...perAgentRates.map((agentRates) =>
        agentRates.reduce((sum, r) => sum + Math.ceil(r.launchesPerSecond * runSeconds) + 1, 0)
      ),
    );
    this.#applyPriority();
    const quietWait = await this.#waitForQuiet(
      Math.min(timing.quietWaitMs, quietBudget.remainingMs),
    );
    quietBudget.remainingMs = Math.max(0, quietBudget.remainingMs - quietWait.waitedMs);
    const keyBase = this.#nextKeyBase;
    this.#nextKeyBase += agentCount * (maxPerAgent + 1);

    const cpuSample = (async () => {
      await sleep(timing.warmupMs);
      const cluster = this.target as Partial<ClusterTarget>;
      const natsBefore = await cluster.natsCounters?.();
      const pids = this.#serverPids();
      const serversBefore = pids.map(readCpuMs);
      const agentsBefore = this.agents.map((agent) => readCpuMs(agent.pid));
      const machineBefore = readMachineCpuMs();
      const from = now();
      await sleep(timing.measureMs);
      const seconds = (now() - from) / 1000;
      const machineAfter = readMachineCpuMs();
      const serversCpu = pids.map((pid, i) => (readCpuMs(pid) - serversBefore[i]) / 1000 / seconds);
      const natsAfter = await cluster.natsCounters?.();
      // A cluster's "server" CPU is all of its processes (nodes and NATS) together.
      const serverCpu = serversCpu.reduce((a, b) => a + b, 0);
      let nodeIndex = 0;
      const processes = cluster.processes?.map((p, i) => ({
        ...p,
        // Three decimals: a node of a cluster uses a tenth of a core, and the per-frame ratio
        // would otherwise carry a rounding error of several percent.
        cpu: Math.round(serversCpu[i] * 1000) / 1000,
        clients: p.kind === "node" ? this.clientsByUrl[nodeIndex++] ?? 0 : 0,
      }));
      const agentCpu = this.agents.map((agent, i) =>
        (readCpuMs(agent.pid) - agentsBefore[i]) / 1000 / seconds
      );
      const cores = navigator.hardwareConcurrency;
      const machineCpu = ((machineAfter.busy - machineBefore.busy) /
        (machineAfter.total - machineBefore.total)) * cores;
      return {
        serverCpu,
        agentCpu,
        backgroundCpu: Math.max(0, machineCpu - serverCpu - agentCpu.reduce((a, b) => a + b, 0)),
        cores,
        loadAverage: readLoadAverage(),
        serverRssKiB: readRssKiB(this.target.pid),
        processes,
        nats: natsBefore && natsAfter ? natsDelta(natsBefore, natsAfter) : undefined,
      };
    })();
    const runs = await Promise.all(this.agents.map((agent, i) =>
      agent.run({
        rates: perAgentRates[i],
        warmupMs: timing.warmupMs,
        measureMs: timing.measureMs,
        drainMs: timing.drainMs,
        keyBase: keyBase + i,
        keyStride: agentCount,
      })
    ));
    const cpu = await cpuSample;

    const sends: SendRecord[] = runs.flatMap((run) => run.sends);
    const sceneOfKey = new Map<number, string>();
    for (const [key, , scene] of sends) sceneOfKey.set(key, scene);
    const reports: MeasureResult[] = await Promise.all(
      this.agents.map((agent) => agent.measure(sends)),
    );

    const latency = new Histogram();
    const frameGap = new Histogram();
    const deliveriesByKey = new Map<number, number>();
    const frames: Record<string, number> = {};
    const refusals: Record<string, number> = {};
    const closes: Record<string, number> = {};
    let foreignEvents = 0;
    for (const report of reports) {
      latency.merge(report.latency);
      frameGap.merge(report.frameGap);
      for (const [key, count] of report.deliveriesByKey) {
        deliveriesByKey.set(key, (deliveriesByKey.get(key) ?? 0) + count);
      }
      addCounts(frames, report.framesInWindow);
      addCounts(refusals, report.refusals);
      addCounts(closes, report.closes);
      foreignEvents += report.foreignEvents;
    }
    let deliveries = 0;
    let expectedDeliveries = 0;
    for (const [key, count] of deliveriesByKey) {
      deliveries += count;
      expectedDeliveries += this.clientsByScene.get(sceneOfKey.get(key)!) ?? 0;
    }
    const seconds = timing.measureMs / 1000;
    const framesPerSecond: Record<string, number> = {};
    for (const [type, count] of Object.entries(frames)) {
      framesPerSecond[type] = round2(count / seconds);
    }
    return {
      clients: this.clients,
      scenes: rates.length,
      launchesPerSecond: rates.reduce((sum, r) => sum + r.launchesPerSecond, 0),
      measureMs: timing.measureMs,
      sent: sends.length,
      accepted: deliveriesByKey.size,
      expectedDeliveries,
      deliveries,
      deliveriesPerSecond: round2(deliveries / seconds),
      framesPerSecond,
      latencyMs: {
        p50: round2(latency.quantile(0.5)),
        p90: round2(latency.quantile(0.9)),
        p99: round2(latency.quantile(0.99)),
        max: round2(latency.max),
        mean: round2(latency.mean),
        samples: latency.count,
      },
      frameGapMs: { p99: round2(frameGap.quantile(0.99)), max: round2(frameGap.max) },
      refusals,
      closes,
      foreignEvents,
      serverRssKiB: cpu.serverRssKiB,
      serverCpu: Math.round(cpu.serverCpu * 1000) / 1000,
      agentCpu: cpu.agentCpu.map(round2),
      backgroundCpu: round2(cpu.backgroundCpu),
      cores: cpu.cores,
      loadAverage: cpu.loadAverage,
      quietWait,
      processes: cpu.processes,
      nats: cpu.nats,
    } satisfies LoadMeasurement;
  }

  /** Stops the agents (closing their clients); the target keeps running. */
  async close(): Promise<void> {
    await Promise.all(this.agents.map((agent) => agent.stop()));
  }
}
