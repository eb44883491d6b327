/**
 * The load-test scenarios. Each runs against a freshly started target server and its own agents,
 * for a bounded time, and returns plain data for the report.
 */
import { sleep } from "./clock.ts";
import { readRssKiB } from "./proc.ts";
import { Session } from "./session.ts";
import type { ConnectSummary, LoadMeasurement, Priority, Timing } from "./session.ts";
import { RAW_TARGETS, startTarget } from "./target.ts";
import type { Target, TargetName } from "./target.ts";
import { natsDelta, startClusterTarget } from "./cluster_target.ts";
import type { ClusterTarget, NatsCounters } from "./cluster_target.ts";

/** Seconds of NATS traffic measured with no launches, per cluster scenario. */
const NATS_IDLE_SECONDS = 5;

/** NATS counters over a few quiet seconds (no launches) of a cluster target. */
async function measureNatsIdle(
  target: ClusterTarget,
): Promise<NonNullable<ScenarioResult["natsIdle"]>> {
  const before = await target.natsCounters();
  const started = performance.now();
  await sleep(NATS_IDLE_SECONDS * 1000);
  const after = await target.natsCounters();
  return { seconds: (performance.now() - started) / 1000, counters: natsDelta(before, after) };
}

/** Scenario names, in the order a default run uses. */
export const SCENARIOS = ["a", "b", "c", "ramp", "idle"] as const;
export type ScenarioName = typeof SCENARIOS[number];

/** What each scenario does, for the report header. */
export const SCENARIO_TITLES: Record<ScenarioName, string> = {
  a: "1 scene x 100 clients, 50 launches/s",
  b: "1 scene x 1000 clients, 10 launches/s",
  c: "50 scenes x 20 clients, 1 launch/s per scene",
  ramp: "largest audience in 1 scene at 20 launches/s with p99 <= limit",
  idle: "server memory per idle connection",
};

/** Knobs for a run. */
export interface LoadOptions {
  agents: number;
  timing: Timing;
  /** Ramp steps: total clients in the scene at each step, ascending. */
  rampSteps: number[];
  rampLaunchesPerSecond: number;
  rampTiming: Timing;
  /** The ramp's pass criterion. */
  p99LimitMs: number;
  idleClients: number;
  /** Extra environment for the Snowfire server (on top of the load defaults). */
  snowfireEnv: Record<string, string>;
  /** Snowfire nodes of the `cluster` target (over 3 NATS servers). */
  clusterNodes: number;
  /** Extra `deno run` flags for the target server (e.g. `--cpu-prof`). */
  serverFlags: string[];
  /** Scheduling of the server and the agents (ahead of other work on a shared machine). */
  priority: Priority;
  /** Progress lines go here. */
  log: (line: string) => void;
}

/** One step of the ramp. */
export interface RampStep {
  clients: number;
  connect: ConnectSummary;
  load: LoadMeasurement;
  passed: boolean;
  /** The first measurement missed and this is the second (the machine is shared). */
  retried: boolean;
  /** Why the step failed, if it did. */
  reasons: string[];
}

/** Everything one scenario measured on one target. */
export interface ScenarioResult {
  scenario: ScenarioName;
  target: TargetName;
  /** Environment the server was started with (beyond the inherited one). */
  serverEnv: Record<string, string>;
  /** Server RSS right after it became ready, KiB. */
  startRssKiB: number;
  connect?: ConnectSummary;
  load?: LoadMeasurement;
  ramp?: { steps: RampStep[]; largestPassing: number; stoppedBecause: string };
  idle?: {
    clients: number;
    connected: number;
    rssBeforeKiB: number;
    /** Right after the join traffic stopped. */
    rssJoinedKiB: number;
    /** Five seconds later: the figure per connection is computed from this one. */
    rssAfterKiB: number;
    perConnectionKiB: number;
  };
  serverExitCode: number;
  /** Cluster target: NATS traffic over a few seconds with the clients connected and no launches
   * (heartbeats, leases, horizon reservations), to tell it apart from the traffic per event. */
  natsIdle?: { seconds: number; counters: NatsCounters };
  /** Set when the scenario could not complete. */
  error?: string;
}

/** Why a ramp step does not count as held, or an empty list. */
function stepProblems(
  connect: ConnectSummary,
  load: LoadMeasurement,
  p99LimitMs: number,
): string[] {
  const reasons: string[] = [];
  if (connect.connected < connect.requested) {
    reasons.push(`${connect.requested - connect.connected} clients failed to join`);
  }
  if (!(load.latencyMs.p99 <= p99LimitMs)) {
    reasons.push(`p99 ${load.latencyMs.p99} ms > ${p99LimitMs} ms`);
  }
  if (load.deliveries < load.expectedDeliveries * 0.999) {
    reasons.push(`delivered ${load.deliveries} of ${load.expectedDeliveries}`);
  }
  if (load.accepted < load.sent) reasons.push(`${load.sent - load.accepted} launches refused`);
  const closed = Object.values(load.closes).reduce((a, b) => a + b, 0);
  if (closed > 0) reasons.push(`${closed} connections closed by the server`);
  return reasons;
}

function describe(load: LoadMeasurement): string {
  return `p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, ` +
    `${load.deliveries}/${load.expectedDeliveries} delivered, ${load.deliveriesPerSecond}/s, ` +
    `cpu: server ${load.serverCpu} agents ${load.agentCpu.join("+")} ` +
    `other ${load.backgroundCpu} (load avg ${load.loadAverage}; waited ${load.quietWait.waitedMs} ms ` +
    `for quiet, other cpu then ${load.quietWait.backgroundCpu})`;
}

function describeConnect(connect: ConnectSummary): string {
  const failures = Object.keys(connect.failures).length > 0
    ? `, failures ${JSON.stringify(connect.failures)}`
    : "";
  return `${connect.connected}/${connect.requested} joined in ${
    Math.round(connect.elapsedMs)
  } ms ` +
    `(${Math.round(connect.settleMs)} ms of it waiting for presence traffic to stop)${failures}`;
}

/** Runs one scenario against a fresh server of the given kind. */
export async function runScenario(
  scenario: ScenarioName,
  targetName: TargetName,
  options: LoadOptions,
): Promise<ScenarioResult> {
  const target: Target = targetName === "cluster"
    ? await startClusterTarget({
      nodes: options.clusterNodes,
      env: options.snowfireEnv,
      denoFlags: options.serverFlags,
    })
    : await startTarget(
      targetName,
      RAW_TARGETS.includes(targetName) ? {} : options.snowfireEnv,
      options.serverFlags,
    );
  const result: ScenarioResult = {
    scenario,
    target: targetName,
    serverEnv: target.env,
    startRssKiB: readRssKiB(target.pid),
    serverExitCode: NaN,
  };
  const log = (line: string) => options.log(`[${scenario}/${targetName}] ${line}`);
  log(`server pid ${target.pid} on port ${target.port}, env ${JSON.stringify(target.env)}`);
  const session = await Session.open(target, options.agents, options.priority);
  try {
    switch (scenario) {
      case "a":
      case "b": {
        const clients = scenario === "a" ? 100 : 1000;
        const rate = scenario === "a" ? 50 : 10;
        result.connect = await session.populate([{ scene: `load-${scenario}`, clients }]);
        log(describeConnect(result.connect));
        if (targetName === "cluster") {
          result.natsIdle = await measureNatsIdle(target as ClusterTarget);
        }
        result.load = await session.measure([{
          scene: `load-${scenario}`,
          launchesPerSecond: rate,
        }], options.timing);
        log(describe(result.load));
        break;
      }
      case "c": {
        const scenes = Array.from({ length: 50 }, (_, i) => `load-c-${i}`);
        result.connect = await session.populate(scenes.map((scene) => ({ scene, clients: 20 })));
        log(describeConnect(result.connect));
        if (targetName === "cluster") {
          result.natsIdle = await measureNatsIdle(target as ClusterTarget);
        }
        result.load = await session.measure(
          scenes.map((scene) => ({ scene, launchesPerSecond: 1 })),
          options.timing,
        );
        log(describe(result.load));
        break;
      }
      case "ramp":
        result.ramp = await ramp(session, options, log);
        break;
      case "idle": {
        // One client first, so the scene itself (and its first socket) is in the baseline.
        await session.populate([{ scene: "load-idle", clients: 1 }]);
        await sleep(1500);
        const rssBeforeKiB = readRssKiB(target.pid);
        const connect = await session.populate([{
          scene: "load-idle",
          clients: 1 + options.idleClients,
        }]);
        // Joining is done and its traffic has passed (populate waits for that); give the heap a
        // few seconds so the figure is the steady state of idle connections, not the join burst.
        const rssJoinedKiB = readRssKiB(target.pid);
        await sleep(5000);
        const rssAfterKiB = readRssKiB(target.pid);
        result.connect = connect;
        result.idle = {
          clients: options.idleClients,
          connected: connect.connected,
          rssBeforeKiB,
          rssJoinedKiB,
          rssAfterKiB,
          perConnectionKiB:
            Math.round(((rssAfterKiB - rssBeforeKiB) / Math.max(1, connect.connected)) * 100) / 100,
        };
        log(
          `${connect.connected} idle clients: RSS ${rssBeforeKiB} -> ${rssAfterKiB} KiB, ` +
            `${result.idle.perConnectionKiB} KiB each`,
        );
        break;
      }
    }
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    log(`FAILED: ${result.error}`);
  } finally {
    await session.close();
    result.serverExitCode = await target.stop();
  }
  return result;
}

/** Grows one scene step by step until a step misses the latency limit (or the steps run out). */
async function ramp(session: Session, options: LoadOptions, log: (line: string) => void) {
  const steps: RampStep[] = [];
  let largestPassing = 0;
  let stoppedBecause = "all steps held";
  for (const clients of options.rampSteps) {
    const connect = await session.populate([{ scene: "load-ramp", clients }]);
    log(describeConnect(connect));
    let retried = false;
    let load = await session.measure(
      [{ scene: "load-ramp", launchesPerSecond: options.rampLaunchesPerSecond }],
      options.rampTiming,
    );
    let reasons = stepProblems(connect, load, options.p99LimitMs);
    if (reasons.length > 0 && connect.connected === connect.requested) {
      // One more try before giving up: the machine is shared, a neighbour's burst is not ours.
      log(
        `${session.clients} clients: ${describe(load)} -> ${reasons.join("; ")}; measuring again`,
      );
      retried = true;
      load = await session.measure(
        [{ scene: "load-ramp", launchesPerSecond: options.rampLaunchesPerSecond }],
        options.rampTiming,
      );
      reasons = stepProblems(connect, load, options.p99LimitMs);
    }
    const passed = reasons.length === 0;
    steps.push({ clients: session.clients, connect, load, passed, retried, reasons });
    log(`${session.clients} clients: ${describe(load)} -> ${passed ? "held" : reasons.join("; ")}`);
    if (!passed) {
      stoppedBecause = `${session.clients} clients: ${reasons.join("; ")}`;
      break;
    }
    largestPassing = session.clients;
  }
  return { steps, largestPassing, stoppedBecause };
}
