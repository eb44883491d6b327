/**
 * Snowfire's load test: `deno task loadtest [--scenario NAME] [--target snowfire|raw|both]`.
 *
 * For every scenario and target it starts the server as a child process on a free loopback port
 * (Snowfire's `server/main.ts` with a temporary DATA_DIR and raised sky/peer caps, or the raw
 * baseline `scripts/raw_server.ts`), starts load agents (child processes holding real WebSocket
 * clients, see `scripts/load/`), measures, and stops everything. It prints a table comparing
 * Snowfire with the raw platform and writes the data to `tests/output/loadtest.json`.
 *
 * Options:
 *   --scenario a|b|c|ramp|idle   repeatable or comma-separated (default: all)
 *   --target snowfire|snowfire-deno|raw|raw-node|both|all|baselines, or a comma-separated list
 *                                (default both = raw + snowfire; all adds snowfire-deno, Snowfire
 *                                with WS_ENGINE=deno; baselines = raw, raw-node (a bare npm `ws`
 *                                broadcast run by Node, scripts/raw_ws_server.mjs) and snowfire;
 *                                baselines run first in the first round, and every other round
 *                                runs the targets in reverse order). With --repeat N the table
 *                                also lists server CPU per frame sent, Snowfire / each baseline,
 *                                ratio taken within each round, min / median / max
 *   --cluster                    also run each scenario on a cluster: 3 nats-server processes and
 *                                --cluster-nodes Snowfire nodes (default 2), clients spread over
 *                                the nodes; with it the default is `--scenario b --target snowfire`
 *                                (the single node it is compared with, in the same run)
 *   --agents N                   load agent processes (default 1: server and agent each get a core)
 *   --warmup S --measure S       seconds per timed run (default 3 and 10)
 *   --ramp-steps 250,500,...     client counts of the ramp (default 250, 500, 750, … 5000)
 *   --ramp-measure S             seconds measured per ramp step (default 5)
 *   --idle-clients N             (default 1000)
 *   --p99 MS                     ramp latency limit (default 50)
 *   --quiet-wait S               before each timed run, wait up to S seconds for other processes
 *                                on the machine to drop below 0.3 cores of CPU (default 20; 0 = off;
 *                                at most 120 s over the whole run)
 *   --nice=N                     run servers and agents at nice N (e.g. --nice=-10 on a busy shared
 *                                machine; needs root); default: unchanged
 *   --realtime                   run servers and agents under SCHED_RR (chrt, root): on a shared
 *                                machine this measures the software, not the neighbours
 *   --repeat N                   run each scenario N times, alternating targets; the table shows
 *                                the best attempt (lowest p99, largest ramp), the JSON all (default 1)
 *   --env KEY=VALUE              extra environment for the Snowfire server (repeatable)
 *   --cpu-prof                   run the target servers with `--cpu-prof` (profiles in tests/output/profiles)
 *   --deno-flag=FLAG             extra `deno run` flag for both servers (repeatable); both
 *                                servers always get the `--v8-flags` of `deno task start`
 *   --out PATH                   JSON output (default tests/output/loadtest.json)
 */
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { renderTable } from "./load/report.ts";
import { renderClusterTable } from "./load/cluster_report.ts";
import { cpuRounds, renderCpuRounds } from "./load/cpu_rounds.ts";
import { runScenario, SCENARIOS } from "./load/scenarios.ts";
import type { LoadOptions, ScenarioName, ScenarioResult } from "./load/scenarios.ts";
import { SNOWFIRE_LOAD_ENV } from "./load/target.ts";
import type { TargetName } from "./load/target.ts";

const ROOT = fromFileUrl(new URL("..", import.meta.url));

/** SCHED_RR priority for `--realtime`: low among real-time tasks, above every normal one. */
const REALTIME_PRIORITY = 10;

const DEFAULT_RAMP_STEPS = [250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2500, 3000, 4000, 5000];

/** The `--v8-flags` `deno task start` runs the server with: the load test measures what ships. */
function startTaskV8Flags(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const start = String(config.tasks?.start ?? "");
  return start.split(/\s+/).filter((arg) => arg.startsWith("--v8-flags="));
}

function fail(code: string, message: string): never {
  console.error(`loadtest: ${code}: ${message}`);
  Deno.exit(2);
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0)) fail("bad_option", `--${name} must be a positive number, got ${text}`);
  return value;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    scenario: { type: "string", multiple: true },
    target: { type: "string" },
    cluster: { type: "boolean", default: false },
    "cluster-nodes": { type: "string" },
    agents: { type: "string" },
    warmup: { type: "string" },
    measure: { type: "string" },
    "ramp-steps": { type: "string" },
    "ramp-measure": { type: "string" },
    "idle-clients": { type: "string" },
    p99: { type: "string" },
    "quiet-wait": { type: "string" },
    nice: { type: "string" },
    realtime: { type: "boolean", default: false },
    repeat: { type: "string" },
    env: { type: "string", multiple: true },
    "cpu-prof": { type: "boolean", default: false },
    "deno-flag": { type: "string", multiple: true },
    out: { type: "string" },
    help: { type: "boolean", default: false },
  },
});

if (values.help) {
  console.log(
    "usage: deno task loadtest [--scenario a|b|c|ramp|idle] " +
      "[--target snowfire|snowfire-deno|raw|raw-node|both|all|baselines] " +
      "[--cluster [--cluster-nodes N]] (options: see the top of scripts/loadtest.ts)",
  );
  Deno.exit(0);
}

const defaultScenarios: string[] = values.cluster ? ["b"] : [...SCENARIOS];
const scenarios = (values.scenario ?? defaultScenarios).flatMap((s) => s.split(",")).map((s) => {
  if (!(SCENARIOS as readonly string[]).includes(s)) {
    fail("bad_option", `unknown scenario ${s} (known: ${SCENARIOS.join(", ")})`);
  }
  return s as ScenarioName;
});
const targetOption = values.target ?? (values.cluster ? "snowfire" : "both");
/** Target presets; otherwise a comma-separated list of target names, run in that order. */
const TARGET_PRESETS: Record<string, TargetName[]> = {
  both: ["raw", "snowfire"],
  all: ["raw", "snowfire-deno", "snowfire"],
  baselines: ["raw", "raw-node", "snowfire"],
};
const SINGLE_TARGETS: readonly string[] = ["snowfire", "snowfire-deno", "raw", "raw-node"];
const targets: TargetName[] = TARGET_PRESETS[targetOption]
  ? [...TARGET_PRESETS[targetOption]]
  : targetOption.split(",").map((name) =>
    SINGLE_TARGETS.includes(name) ? name as TargetName : fail(
      "bad_option",
      `--target must be snowfire, snowfire-deno, raw, raw-node, a comma-separated list of ` +
        `those, both, all or baselines; got ${targetOption}`,
    )
  );
if (values.cluster) targets.push("cluster");

const snowfireEnv: Record<string, string> = {};
for (const pair of values.env ?? []) {
  const at = pair.indexOf("=");
  if (at <= 0) fail("bad_option", `--env wants KEY=VALUE, got ${pair}`);
  snowfireEnv[pair.slice(0, at)] = pair.slice(at + 1);
}

const outPath = values.out ?? join(ROOT, "tests", "output", "loadtest.json");
const profileDir = join(ROOT, "tests", "output", "profiles");
const rampSteps = values["ramp-steps"]
  ? values["ramp-steps"].split(",").map((s) => positive("ramp-steps", s, 0))
  : DEFAULT_RAMP_STEPS;

if (values.nice !== undefined) {
  const nice = Number(values.nice);
  if (!Number.isInteger(nice) || nice < -20 || nice > 19) {
    fail("bad_option", `--nice must be an integer in [-20, 19], got ${values.nice}`);
  }
}

const quietWaitMs = values["quiet-wait"] === "0"
  ? 0
  : positive("quiet-wait", values["quiet-wait"], 20) * 1000;

const options: LoadOptions = {
  agents: Math.round(positive("agents", values.agents, 1)),
  timing: {
    warmupMs: positive("warmup", values.warmup, 3) * 1000,
    measureMs: positive("measure", values.measure, 10) * 1000,
    drainMs: 2000,
    quietWaitMs,
  },
  rampSteps,
  rampLaunchesPerSecond: 20,
  rampTiming: {
    warmupMs: 2000,
    measureMs: positive("ramp-measure", values["ramp-measure"], 5) * 1000,
    drainMs: 2000,
    quietWaitMs,
  },
  p99LimitMs: positive("p99", values.p99, 50),
  idleClients: Math.round(positive("idle-clients", values["idle-clients"], 1000)),
  priority: {
    nice: values.nice === undefined ? undefined : Number(values.nice),
    realtime: values.realtime ? REALTIME_PRIORITY : undefined,
  },
  snowfireEnv,
  clusterNodes: Math.round(positive("cluster-nodes", values["cluster-nodes"], 2)),
  serverFlags: [
    ...startTaskV8Flags(),
    ...(values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
    ...(values["deno-flag"] ?? []),
  ],
  log: (line) => console.log(line),
};

console.log(
  `loadtest: scenarios ${scenarios.join(",")}; targets ${targets.join(",")}; ` +
    `${options.agents} agent processes; loopback only; server flags ${
      options.serverFlags.join(" ") || "none"
    }` +
    (options.priority.nice === undefined
      ? ""
      : `; servers and agents at nice ${options.priority.nice}`) +
    (options.priority.realtime === undefined
      ? ""
      : `; servers and agents under SCHED_RR priority ${options.priority.realtime}`),
);
console.log(
  `loadtest: Snowfire server settings: ${
    JSON.stringify({ ...SNOWFIRE_LOAD_ENV, ...snowfireEnv })
  } (+ PORT, HOST=127.0.0.1, temp DATA_DIR); rate limits left at their defaults`,
);

const startedAt = new Date().toISOString();
const results: ScenarioResult[] = [];
const repeat = Math.round(positive("repeat", values.repeat, 1));
for (const scenario of scenarios) {
  // Alternate the targets so a busy spell on the shared machine does not hit only one of them,
  // and reverse their order every other round (A B, B A, …): a drift over the run, or whatever
  // the target before leaves behind (its closed sockets, a warm cache), then falls on each side
  // alike. (Until 2026-12-04 Snowfire always ran last.)
  for (let attempt = 0; attempt < repeat; attempt++) {
    const order = attempt % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) results.push(await runScenario(scenario, target, options));
  }
}

console.log(renderTable(results));
const rounds = cpuRounds(results);
console.log(renderCpuRounds(rounds));
if (values.cluster) console.log(renderClusterTable(results));
const busy = results.flatMap((r) => [r.load, ...(r.ramp?.steps.map((step) => step.load) ?? [])])
  .filter((load) => load !== undefined && load.backgroundCpu > 0.5);
if (busy.length > 0 && options.priority.realtime === undefined) {
  console.log(
    `\nloadtest: warning: in ${busy.length} measurement(s) other processes used more than 0.5 ` +
      `of the ${busy[0]!.cores} cores; latencies then measure the neighbours as much as the ` +
      `server. Re-run when the machine is quiet, or with --realtime.`,
  );
}
await Deno.mkdir(dirname(outPath), { recursive: true });
await Deno.writeTextFile(
  outPath,
  JSON.stringify(
    { startedAt, finishedAt: new Date().toISOString(), options, cpuRounds: rounds, results },
    null,
    2,
  ) +
    "\n",
);
console.log(`\nloadtest: wrote ${outPath}`);
