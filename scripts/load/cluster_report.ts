/**
 * The `--cluster` table: per scenario, the cluster (NATS + several nodes) next to the single
 * Snowfire process of the same run, with the targets (cross-node p99 ≤ 1.5× single node,
 * an edge's CPU per delivered frame ≤ 1.2× single node), each node's and NATS's CPU, and the
 * NATS traffic per event and per second with no launches (the capacity model's constants).
 */
import { bestAttempt } from "./report.ts";
import type { ScenarioResult } from "./scenarios.ts";
import type { LoadMeasurement } from "./session.ts";

const P99_TARGET = 1.5;
const CPU_PER_FRAME_TARGET = 1.2;

function framesPerSecond(load: LoadMeasurement): number {
  return Object.values(load.framesPerSecond).reduce((a, b) => a + b, 0);
}

function fixed(value: number, digits = 3): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

/** CPU per frame sent to clients, in µs, for a process using `cores` that sent `frames`/s. */
function microsPerFrame(cores: number, frames: number): number {
  return frames > 0 ? (cores * 1e6) / frames : NaN;
}

/** Renders the cluster comparison for every scenario that ran on the cluster target. */
export function renderClusterTable(results: ScenarioResult[]): string {
  const lines: string[] = [];
  const scenarios = [
    ...new Set(results.filter((r) => r.target === "cluster").map((r) => r.scenario)),
  ];
  const row = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(34) : cell.padStart(14))).join(" ");
  for (const scenario of scenarios) {
    const of = (target: string) =>
      bestAttempt(results.filter((r) => r.scenario === scenario && r.target === target));
    const cluster = of("cluster");
    const single = of("snowfire");
    lines.push("", `== cluster vs single node, scenario ${scenario}`);
    if (cluster?.error) lines.push(`  cluster FAILED: ${cluster.error}`);
    const c = cluster?.load;
    const s = single?.load;
    if (!c) continue;
    lines.push(row(["metric", "cluster", "single node", "ratio"]));
    const compare = (label: string, cv: number, sv: number | undefined, target?: number) => {
      const ratio = sv !== undefined && sv > 0 ? cv / sv : NaN;
      const verdict = target === undefined || !Number.isFinite(ratio)
        ? ""
        : ratio <= target
        ? ` (target <= ${target}: met)`
        : ` (target <= ${target}: MISSED)`;
      lines.push(
        row([label, fixed(cv), sv === undefined ? "-" : fixed(sv), fixed(ratio)]) + verdict,
      );
    };
    compare("p50 fan-out latency (ms)", c.latencyMs.p50, s?.latencyMs.p50);
    compare("p99 fan-out latency (ms)", c.latencyMs.p99, s?.latencyMs.p99, P99_TARGET);
    compare("max fan-out latency (ms)", c.latencyMs.max, s?.latencyMs.max);
    compare("event deliveries/s", c.deliveriesPerSecond, s?.deliveriesPerSecond);
    lines.push(
      row([
        "delivered / expected",
        `${c.deliveries}/${c.expectedDeliveries}`,
        s ? `${s.deliveries}/${s.expectedDeliveries}` : "-",
        "",
      ]),
      row([
        "launches accepted / sent",
        `${c.accepted}/${c.sent}`,
        s ? `${s.accepted}/${s.sent}` : "-",
        "",
      ]),
    );
    compare("all frames received/s", framesPerSecond(c), s && framesPerSecond(s));
    const singleMicros = s ? microsPerFrame(s.serverCpu, framesPerSecond(s)) : undefined;
    const clients = c.clients;
    for (const p of c.processes ?? []) {
      if (p.kind !== "node") continue;
      // Frames to this node's clients: its share of the clients times all frames (every client
      // of a scene gets the same frames).
      const frames = clients > 0 ? (framesPerSecond(c) * p.clients) / clients : 0;
      compare(`${p.label}: CPU (cores)`, p.cpu, s?.serverCpu);
      lines.push(row([`${p.label}: clients, frames out/s`, `${p.clients}`, fixed(frames, 0), ""]));
      compare(
        `${p.label}: CPU per frame out (us)`,
        microsPerFrame(p.cpu, frames),
        singleMicros,
        CPU_PER_FRAME_TARGET,
      );
    }
    const natsProcesses = (c.processes ?? []).filter((p) => p.kind === "nats");
    lines.push(row([
      "NATS CPU (cores, all servers)",
      fixed(natsProcesses.reduce((sum, p) => sum + p.cpu, 0)),
      "",
      "",
    ]));
    lines.push(row(["  per server", natsProcesses.map((p) => fixed(p.cpu)).join(" + "), "", ""]));
    lines.push(
      row(["load agents CPU (cores)", c.agentCpu.join("+"), s?.agentCpu.join("+") ?? "-", ""]),
    );
    lines.push(
      row([
        "other CPU on machine (cores)",
        fixed(c.backgroundCpu),
        s ? fixed(s.backgroundCpu) : "-",
        "",
      ]),
    );
    const seconds = c.measureMs / 1000;
    const eventsPerSecond = c.accepted / seconds;
    const idle = cluster?.natsIdle;
    if (c.nats && idle) {
      const loaded = c.nats;
      const quiet = idle.counters;
      const rate = (n: number, secs: number) => n / secs;
      const perEvent = (key: keyof typeof loaded) =>
        (rate(loaded[key], seconds) - rate(quiet[key], idle.seconds)) / eventsPerSecond;
      lines.push(
        "",
        `NATS traffic (3 servers; "all" counts routes and JetStream replication, "nodes" only the`,
        `Snowfire nodes' own connections). ${
          fixed(eventsPerSecond, 1)
        } events/s; quiet = no launches.`,
        row(["", "per event", "quiet /s", ""]),
        row([
          "all msgs in",
          fixed(perEvent("inMsgs"), 1),
          fixed(rate(quiet.inMsgs, idle.seconds), 1),
          "",
        ]),
        row([
          "all msgs out",
          fixed(perEvent("outMsgs"), 1),
          fixed(rate(quiet.outMsgs, idle.seconds), 1),
          "",
        ]),
        row([
          "all bytes in",
          fixed(perEvent("inBytes"), 0),
          fixed(rate(quiet.inBytes, idle.seconds), 0),
          "",
        ]),
        row([
          "all bytes out",
          fixed(perEvent("outBytes"), 0),
          fixed(rate(quiet.outBytes, idle.seconds), 0),
          "",
        ]),
        row([
          "nodes -> NATS msgs",
          fixed(perEvent("nodeInMsgs"), 1),
          fixed(rate(quiet.nodeInMsgs, idle.seconds), 1),
          "",
        ]),
        row([
          "NATS -> nodes msgs",
          fixed(perEvent("nodeOutMsgs"), 1),
          fixed(rate(quiet.nodeOutMsgs, idle.seconds), 1),
          "",
        ]),
        row([
          "nodes -> NATS bytes",
          fixed(perEvent("nodeInBytes"), 0),
          fixed(rate(quiet.nodeInBytes, idle.seconds), 0),
          "",
        ]),
        row([
          "NATS -> nodes bytes",
          fixed(perEvent("nodeOutBytes"), 0),
          fixed(rate(quiet.nodeOutBytes, idle.seconds), 0),
          "",
        ]),
      );
    }
  }
  return lines.join("\n");
}
