/**
 * Server CPU per frame sent, Snowfire against the raw baselines, round by round. With
 * `--repeat N` the load test runs the targets in alternating rounds, every other one in reverse
 * order (raw, raw-node, snowfire; snowfire, raw-node, raw; …); a ratio is only taken between
 * attempts of the same round, so a busy spell on a shared machine hits both sides of it, and the
 * rounds' spread (min / median / max) shows how far one ratio can be trusted.
 *
 * @example
 * ```ts
 * import { cpuRounds } from "./cpu_rounds.ts";
 *
 * const rows = cpuRounds([]); // the load test's results, in the order they ran
 * console.log(rows.length); // 0
 * ```
 */
import type { ScenarioName, ScenarioResult } from "./scenarios.ts";
import type { LoadMeasurement } from "./session.ts";
import type { TargetName } from "./target.ts";

/** Snowfire's targets, each compared with each baseline. */
const SNOWFIRE_TARGETS: readonly TargetName[] = ["snowfire", "snowfire-deno"];
/** The baselines, in the order the table shows them. */
const BASELINES: readonly TargetName[] = ["raw", "raw-node"];

/** Server CPU (µs, all threads of the process) per frame its clients received. */
export function cpuPerFrameUs(load: LoadMeasurement): number {
  const frames = Object.values(load.framesPerSecond).reduce((a, b) => a + b, 0);
  return frames > 0 ? load.serverCpu * 1e6 / frames : NaN;
}

/** One comparison across rounds: Snowfire target / baseline in one scenario. */
export interface CpuRoundRatios {
  scenario: ScenarioName;
  target: TargetName;
  baseline: TargetName;
  /** Per round: [Snowfire µs/frame, baseline µs/frame, ratio]. */
  rounds: [number, number, number][];
  min: number;
  median: number;
  max: number;
}

function median(sorted: number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Ratios round by round for every Snowfire target and baseline that ran the same scenario. */
export function cpuRounds(results: ScenarioResult[]): CpuRoundRatios[] {
  const out: CpuRoundRatios[] = [];
  const scenarios = [...new Set(results.map((r) => r.scenario))];
  for (const scenario of scenarios) {
    // The n-th attempt of each target ran in round n.
    const attempts = (target: TargetName) =>
      results.filter((r) => r.scenario === scenario && r.target === target).map((r) =>
        r.load && !r.error ? cpuPerFrameUs(r.load) : NaN
      );
    for (const target of SNOWFIRE_TARGETS) {
      const ours = attempts(target);
      for (const baseline of BASELINES) {
        const theirs = attempts(baseline);
        const rounds: [number, number, number][] = [];
        for (let i = 0; i < Math.min(ours.length, theirs.length); i++) {
          if (ours[i] > 0 && theirs[i] > 0) rounds.push([ours[i], theirs[i], ours[i] / theirs[i]]);
        }
        if (rounds.length === 0) continue;
        const ratios = rounds.map((r) => r[2]).sort((a, b) => a - b);
        out.push({
          scenario,
          target,
          baseline,
          rounds,
          min: ratios[0],
          median: median(ratios),
          max: ratios[ratios.length - 1],
        });
      }
    }
  }
  return out;
}

/** The rounds as lines for the report. */
export function renderCpuRounds(rows: CpuRoundRatios[]): string {
  if (rows.length === 0) return "";
  const lines = ["", "== server CPU per frame sent, ratio taken within each round"];
  for (const row of rows) {
    const each = row.rounds.map(([ours, theirs, ratio]) =>
      `${ours.toFixed(2)}/${theirs.toFixed(2)} us = ${ratio.toFixed(2)}`
    ).join("; ");
    lines.push(
      `${row.scenario}: ${row.target} / ${row.baseline}: min ${row.min.toFixed(2)}, median ` +
        `${row.median.toFixed(2)}, max ${row.max.toFixed(2)} over ${row.rounds.length} round(s) ` +
        `(${each})`,
    );
  }
  return lines.join("\n");
}
