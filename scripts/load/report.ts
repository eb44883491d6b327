/**
 * The load test's human-readable table: per scenario, each metric for Snowfire and for the raw
 * baseline side by side, with the ratio Snowfire / raw. When Snowfire also ran with the `deno`
 * WebSocket engine (`--target all`), its column and the ratio ws / deno engine come too.
 */
import { SCENARIO_TITLES } from "./scenarios.ts";
import type { ScenarioName, ScenarioResult } from "./scenarios.ts";
import type { LoadMeasurement } from "./session.ts";

type Cell = number | string | undefined;

function show(value: Cell): string {
  if (value === undefined) return "-";
  if (typeof value === "string") return value;
  if (Number.isNaN(value)) return "n/a";
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function ratio(snowfire: Cell, raw: Cell): string {
  if (typeof snowfire !== "number" || typeof raw !== "number" || raw === 0) return "";
  if (Number.isNaN(snowfire) || Number.isNaN(raw)) return "";
  return (snowfire / raw).toFixed(2);
}

function counts(record: Record<string, number> | undefined): string {
  if (!record) return "-";
  const entries = Object.entries(record);
  return entries.length === 0 ? "0" : entries.map(([key, n]) => `${key}:${n}`).join(" ");
}

function loadRows(load: (r?: ScenarioResult) => LoadMeasurement | undefined) {
  return [
    ["p50 fan-out latency (ms)", (r?: ScenarioResult) => load(r)?.latencyMs.p50],
    ["p99 fan-out latency (ms)", (r?: ScenarioResult) => load(r)?.latencyMs.p99],
    ["max fan-out latency (ms)", (r?: ScenarioResult) => load(r)?.latencyMs.max],
    ["event deliveries/s", (r?: ScenarioResult) => load(r)?.deliveriesPerSecond],
    [
      "all frames received/s",
      (r?: ScenarioResult) => {
        const frames = load(r)?.framesPerSecond;
        return frames ? Object.values(frames).reduce((a, b) => a + b, 0) : undefined;
      },
    ],
    [
      "delivered / expected",
      (r?: ScenarioResult) => {
        const l = load(r);
        return l ? `${l.deliveries}/${l.expectedDeliveries}` : undefined;
      },
    ],
    [
      "launches accepted / sent",
      (r?: ScenarioResult) => {
        const l = load(r);
        return l ? `${l.accepted}/${l.sent}` : undefined;
      },
    ],
    ["refusals by code", (r?: ScenarioResult) => load(r) && counts(load(r)!.refusals)],
    ["closed by server", (r?: ScenarioResult) => load(r) && counts(load(r)!.closes)],
    ["p99 gap between frames (ms)", (r?: ScenarioResult) => load(r)?.frameGapMs.p99],
    [
      "server RSS (MiB)",
      (r?: ScenarioResult) => load(r) && Math.round(load(r)!.serverRssKiB / 102.4) / 10,
    ],
    ["server CPU (cores)", (r?: ScenarioResult) => load(r)?.serverCpu],
    [
      "server CPU per frame out (us)",
      (r?: ScenarioResult) => {
        const l = load(r);
        if (!l) return undefined;
        const frames = Object.values(l.framesPerSecond).reduce((a, b) => a + b, 0);
        return frames > 0 ? Math.round((l.serverCpu * 1e6 / frames) * 10) / 10 : undefined;
      },
    ],
    ["load agents CPU (cores)", (r?: ScenarioResult) => load(r)?.agentCpu.join("+")],
    ["other CPU on machine (cores)", (r?: ScenarioResult) => load(r)?.backgroundCpu],
    ["load average (1 min)", (r?: ScenarioResult) => load(r)?.loadAverage],
  ] as const;
}

/**
 * The attempt that represents a scenario on a target when it ran several times: the one with the
 * lowest p99 (a busy neighbour only ever makes latency worse), the largest audience for the ramp,
 * the last one for idle memory.
 */
export function bestAttempt(attempts: ScenarioResult[]): ScenarioResult | undefined {
  const score = (r: ScenarioResult) =>
    r.error
      ? Infinity
      : r.ramp
      ? -r.ramp.largestPassing
      : r.load
      ? (Number.isNaN(r.load.latencyMs.p99) ? Infinity : r.load.latencyMs.p99)
      : 0;
  let best: ScenarioResult | undefined;
  for (const attempt of attempts) if (!best || score(attempt) <= score(best)) best = attempt;
  return best;
}

/** Renders the comparison table for all results (the best attempt of each, see above). */
export function renderTable(results: ScenarioResult[]): string {
  const lines: string[] = [];
  const scenarios = [...new Set(results.map((r) => r.scenario))] as ScenarioName[];
  const withDeno = results.some((r) => r.target === "snowfire-deno");
  const widths = withDeno ? [30, 14, 14, 14, 7, 9] : [30, 14, 14, 7];
  const row = (cells: string[]) =>
    cells.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join(" ");
  for (const scenario of scenarios) {
    const attempts = (target: string) =>
      results.filter((r) => r.scenario === scenario && r.target === target);
    const snowfire = bestAttempt(attempts("snowfire"));
    const raw = bestAttempt(attempts("raw"));
    const denoEngine = bestAttempt(attempts("snowfire-deno"));
    const tries = Math.max(attempts("snowfire").length, attempts("raw").length);
    lines.push(
      "",
      `== scenario ${scenario}: ${SCENARIO_TITLES[scenario]}` +
        (tries > 1 ? ` (best of ${tries} alternating attempts)` : ""),
    );
    lines.push(
      row(
        withDeno
          ? ["metric", "snowfire (ws)", "snowfire deno", "raw", "ws/raw", "ws/deno"]
          : ["metric", "snowfire", "raw", "ratio"],
      ),
    );
    const emit = (label: string, get: (r?: ScenarioResult) => Cell) => {
      const s = get(snowfire);
      const w = get(raw);
      if (!withDeno) return void lines.push(row([label, show(s), show(w), ratio(s, w)]));
      const d = get(denoEngine);
      lines.push(row([label, show(s), show(d), show(w), ratio(s, w), ratio(s, d)]));
    };
    for (const result of [snowfire, denoEngine, raw]) {
      if (result?.error) lines.push(`  ${result.target} FAILED: ${result.error}`);
    }
    if (scenario === "idle") {
      emit("idle clients connected", (r) => r?.idle?.connected);
      emit(
        "server RSS before (MiB)",
        (r) => r?.idle && Math.round(r.idle.rssBeforeKiB / 102.4) / 10,
      );
      emit("server RSS after (MiB)", (r) => r?.idle && Math.round(r.idle.rssAfterKiB / 102.4) / 10);
      emit("RSS per idle connection (KiB)", (r) => r?.idle?.perConnectionKiB);
    } else if (scenario === "ramp") {
      emit("largest audience held", (r) => r?.ramp?.largestPassing);
      const lastHeld = (r?: ScenarioResult) => r?.ramp?.steps.filter((s) => s.passed).at(-1)?.load;
      for (const [label, get] of loadRows(lastHeld)) emit(`  at it: ${label}`, get);
      for (const result of [snowfire, denoEngine, raw]) {
        if (!result?.ramp) continue;
        lines.push(`  ${result.target} steps (clients: p99 ms):`);
        lines.push(
          "    " +
            result.ramp.steps.map((s) =>
              `${s.clients}: ${show(s.load.latencyMs.p99)}${s.passed ? "" : " X"}`
            )
              .join(", "),
        );
        lines.push(`    stopped: ${result.ramp.stoppedBecause}`);
      }
    } else {
      emit("clients joined", (r) => r?.connect?.connected);
      for (const [label, get] of loadRows((r) => r?.load)) emit(label, get);
    }
  }
  return lines.join("\n");
}
