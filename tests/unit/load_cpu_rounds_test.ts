/** The load test's CPU-per-frame ratios are taken within each round, and summarised per pair. */
import assert from "node:assert/strict";
import { cpuPerFrameUs, cpuRounds, renderCpuRounds } from "../../scripts/load/cpu_rounds.ts";
import type { ScenarioResult } from "../../scripts/load/scenarios.ts";
import type { LoadMeasurement } from "../../scripts/load/session.ts";
import type { TargetName } from "../../scripts/load/target.ts";

function attempt(target: TargetName, serverCpu: number, frames = 30_000): ScenarioResult {
  return {
    scenario: "b",
    target,
    serverEnv: {},
    startRssKiB: 0,
    serverExitCode: 0,
    load: {
      serverCpu,
      framesPerSecond: { tick: frames - 10_000, event: 10_000 },
    } as unknown as LoadMeasurement,
  };
}

Deno.test("cpuPerFrameUs divides server CPU by every frame clients received", () => {
  assert.equal(cpuPerFrameUs(attempt("raw", 0.3).load!), 10);
});

Deno.test("cpuRounds pairs each round's attempts and reports min, median and max", () => {
  // Three alternating rounds of raw, raw-node, snowfire, as the load test runs them.
  const results = [
    attempt("raw", 0.3),
    attempt("raw-node", 0.36),
    attempt("snowfire", 0.33),
    attempt("raw", 0.6), // a busy round: both sides of it were slow
    attempt("raw-node", 0.6),
    attempt("snowfire", 0.54),
    attempt("raw", 0.3),
    attempt("raw-node", 0.3),
    attempt("snowfire", 0.3, 25_000),
  ];
  const rows = cpuRounds(results);
  assert.deepEqual(rows.map((r) => `${r.target}/${r.baseline}`), [
    "snowfire/raw",
    "snowfire/raw-node",
  ]);
  const [raw, node] = rows;
  assert.deepEqual(raw.rounds.map((r) => Number(r[2].toFixed(3))), [1.1, 0.9, 1.2]);
  assert.deepEqual([raw.min, raw.median, raw.max].map((x) => Number(x.toFixed(3))), [
    0.9,
    1.1,
    1.2,
  ]);
  assert.deepEqual(node.rounds.map((r) => Number(r[2].toFixed(3))), [0.917, 0.9, 1.2]);
  assert.match(renderCpuRounds(rows), /b: snowfire \/ raw: min 0\.90, median 1\.10, max 1\.20/);
});

Deno.test("cpuRounds leaves out failed attempts and pairs nothing across scenarios", () => {
  const failed = { ...attempt("snowfire", 0.3), error: "server exited" };
  const otherScenario = { ...attempt("raw", 0.3), scenario: "a" as const };
  assert.deepEqual(cpuRounds([attempt("raw", 0.3), failed]), []);
  assert.deepEqual(cpuRounds([otherScenario, attempt("snowfire", 0.3)]), []);
});
