/**
 * `deno task test [tier...] [file or deno test flag...]`: type-checks the chosen test files once,
 * runs the test tiers (the folders of tests/: testing/test_tiers.ts), each as `deno test` with the
 * sanitizers on, and ends with one summary line in deno's own format. No tier named: all four.
 * Files named: just those. Counts and failures come from deno's JUnit report (`--junit-path`),
 * not from its console output, which is passed through for people to read.
 *
 *     deno task test                          # everything
 *     deno task test:unit                     # = deno task test unit
 *     deno task test tests/unit/prng_test.ts  # one file
 *     deno task test server --filter=abuse
 *
 * Order: the browser tier runs from the start beside the others at a lower priority (`nice`; a
 * file marked `// test tiers: keeps its priority`, whose checks are real-time, at normal priority),
 * three files at a time, each file a `deno test` of its own (so each file's time is its own): a
 * browser file waits on pages and the scene's clock part of its time (one of 37 s used ~32 s of
 * CPU, Chromium's included), so a third file fills some of the waits. Beside it, one after
 * the other: the unit tier, the server tier and the cluster tier, each running its files as many
 * at a time as there are cores (two here), then the files marked `// test tiers: alone`, one at a
 * time with only the niced browser tier beside them; last, one at a time with nothing beside them,
 * the files marked `// test tiers: last`. (Until the browser tier was truly niced, Chromium ran
 * in a CPU group as heavy as the whole run, testing/browser_autogroup.ts, and the cluster tier's
 * timing tests failed beside it when two of its files ran at once.) Files run many at a time
 * start longest first, by the seconds each took in a recorded run (testing/test_times.json; a file
 * not in it by its source length), so the longest do not start last and end the tier late. The
 * closing lines give each tier's longest files; every file's seconds go to
 * tests/output/test_times.json.
 * `SNOWFIRE_TESTS_IN_TURN=1` runs every tier after the other instead;
 * `SNOWFIRE_BROWSER_JOBS=N` sets how many browser files run at once.
 * The closing lines name every failed test with the first lines of its error, so the tail of a
 * long log says what failed and why.
 */
import { type Counts, type JunitReport, parseJunit } from "./junit_report.ts";
import { type RunOrder, type TestFile, testFiles, type Tier, TIERS } from "./test_tiers.ts";
import { estimatedSeconds, readTestTimes, writeTestTimes } from "./test_times.ts";

const FLAGS = ["test", "-A", "--sanitize-ops", "--sanitize-resources"];

/**
 * Tiers whose files run as many at a time as there are cores (`deno test --parallel`). Files marked
 * `// test tiers: alone` or `// test tiers: last` never do: they run after the others, one at a
 * time.
 */
const PARALLEL: ReadonlySet<Tier> = new Set(["unit", "server", "browser", "cluster"]);

/**
 * Niceness of the browser tier while other tiers run beside it: the lowest, so that the files
 * marked alone, whose checks compare heartbeat gaps with a quiet baseline, keep their timing beside
 * it. It still takes every core the others leave. Chromium gets it too, though Playwright starts it
 * in a session of its own (testing/browser_autogroup.ts: with autogroups on, a niced test's
 * browser took as much CPU as all the other tiers together).
 */
const BACKGROUND_NICENESS = "19";

/** Browser files at once (their pages mostly wait; see the order above). */
const BROWSER_JOBS = Math.max(1, Number(Deno.env.get("SNOWFIRE_BROWSER_JOBS") ?? "3") || 3);

const encoder = new TextEncoder();

/** Writes all of `text` to stdout (a pipe may take it in parts). */
function write(text: string): void {
  const bytes = encoder.encode(text);
  for (let done = 0; done < bytes.length;) done += Deno.stdout.writeSync(bytes.subarray(done));
}

/** Writes a finished run's output as one block (live runs only ever write whole lines). */
function writeBlock(text: string): void {
  write(text.endsWith("\n") ? text : text + "\n");
}

/** How to run one `deno test`. */
interface RunOptions {
  /** Print its output as it comes, line by line (else as one block when it ends). */
  live: boolean;
  /** Run under `nice` (where there is one). */
  nice: boolean;
  /** Where a run that is not live puts its output (default: stdout, as one block when it ends). */
  into?: (text: string) => void;
}

/**
 * Run as root, Chromium undoes `nice`: it sets its browser and GPU processes to -8 and its
 * renderers to 0 or 5 (seen here under `nice -n 10`), so the "niced" browser tier outranked the
 * tiers beside it. Without CAP_SYS_NICE in the bounding set (`setpriv`) no process of the tier
 * can lower its niceness, and every Chromium process stays at BACKGROUND_NICENESS. Not root: no
 * process can lower its niceness anyway.
 */
const KEEP_NICE = Deno.uid?.() === 0 && ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/** Starts `deno` with `args`, under `nice` if asked and available. */
function spawnDeno(args: string[], nice: boolean): Deno.ChildProcess {
  const pipes = { stdout: "piped", stderr: "piped" } as const;
  if (nice) {
    try {
      const keep = KEEP_NICE ? [KEEP_NICE, "--bounding-set", "-sys_nice"] : [];
      const niced = ["-n", BACKGROUND_NICENESS, ...keep, Deno.execPath(), ...args];
      return new Deno.Command("nice", { args: niced, ...pipes }).spawn();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return new Deno.Command(Deno.execPath(), { args, ...pipes }).spawn();
}

/** Runs `deno` with `args`; resolves with its exit code. */
async function runDeno(args: string[], { live, nice, into }: RunOptions): Promise<number> {
  const process = spawnDeno(args, nice);
  let block = "";
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      if (!live) {
        block += text;
        continue;
      }
      const lines = partial + text;
      const end = lines.lastIndexOf("\n") + 1;
      write(lines.slice(0, end));
      partial = lines.slice(end);
    }
    if (partial) writeBlock(partial);
  };
  await Promise.all([read(process.stdout), read(process.stderr)]);
  const { code } = await process.status;
  if (!live) (into ?? writeBlock)(block);
  return code;
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}

/** One `deno test` run: files of one tier. */
interface Step {
  tier: Tier;
  files: TestFile[];
  parallel: boolean;
  /**
   * Each file a `deno test` of its own, BROWSER_JOBS at a time (the browser tier): its wall time
   * is then the file's own, and a long file starts first by its recorded time.
   */
  pooled: boolean;
}

const args = [...Deno.args];
const tiers: Tier[] = [];
while (args.length > 0 && (TIERS as readonly string[]).includes(args[0])) {
  tiers.push(args.shift() as Tier);
}
const named = args.filter((a) => !a.startsWith("-"));
const flags = args.filter((a) => a.startsWith("-"));

if (named.length > 0) {
  // Files or folders named: run exactly those, as plain `deno test` would.
  Deno.exit(await runDeno([...FLAGS, ...args], { live: true, nice: false }));
}

const files = await testFiles(new URL("../tests/", import.meta.url));
const chosen = TIERS.filter((tier) => tiers.length === 0 || tiers.includes(tier));
if (!flags.includes("--no-check")) {
  // One type check of every chosen file, instead of one per `deno test` run below.
  const paths = files.filter((f) => chosen.includes(f.tier)).map((f) => f.path);
  const { code } = await new Deno.Command(Deno.execPath(), { args: ["check", ...paths] }).spawn()
    .status;
  if (code !== 0) Deno.exit(code);
  flags.push("--no-check");
}

/** Each file's seconds in an earlier run (testing/test_times.json), to start the longest first. */
const recorded = await readTestTimes();
/** Each file's seconds in this run, by tier, written to tests/output/test_times.json at the end. */
const measured = new Map<string, number>();
const ROOT = new URL("../", import.meta.url).pathname;
const relative = (path: string) => path.startsWith(ROOT) ? path.slice(ROOT.length) : path;

const stepOf = (tier: Tier, order: RunOrder): Step | null => {
  const inStep = files.filter((f) => f.tier === tier && f.order === order);
  const parallel = order === "many" && PARALLEL.has(tier);
  // Many at a time: the longest first (deno starts them in the order given).
  const seconds = (f: TestFile) => estimatedSeconds(recorded, relative(f.path), f.chars);
  if (parallel) inStep.sort((a, b) => seconds(b) - seconds(a));
  const pooled = parallel && tier === "browser";
  return inStep.length === 0 ? null : { tier, files: inStep, parallel, pooled };
};

const counts = new Map<Tier, Counts & { ms: number; ran: boolean }>(
  chosen.map((tier) => [tier, { passed: 0, steps: 0, failed: 0, ignored: 0, ms: 0, ran: false }]),
);
let status = 0;
/** Every failed test, as deno names it, with its tier and the first lines of its error. */
const failed: { tier: Tier; name: string; why: string[] }[] = [];

/** Runs one `deno test` of `paths`, adding its report to the tier's counts; resolves with it. */
async function runTests(
  step: Step,
  paths: string[],
  options: RunOptions,
  extra: string[],
): Promise<JunitReport> {
  const junit = await Deno.makeTempFile({ prefix: `snowfire-${step.tier}-`, suffix: ".xml" });
  try {
    const code = await runDeno(
      [
        ...FLAGS,
        // Where a leaked timer or op started: the cluster tier's leaks come rarely, under load
        // (stop 26's CI and one run in eight here), and a second run is no help.
        ...(step.tier === "cluster" ? ["--trace-leaks"] : []),
        ...extra,
        `--junit-path=${junit}`,
        ...flags,
        ...paths,
      ],
      options,
    );
    const total = counts.get(step.tier)!;
    total.ran = true;
    if (code !== 0) status = code;
    const report = parseJunit(await Deno.readTextFile(junit).catch(() => ""));
    for (const { name, why } of report.failures()) failed.push({ tier: step.tier, name, why });
    const summary = report.counts();
    for (const key of ["passed", "steps", "failed", "ignored"] as const) total[key] += summary[key];
    if (code !== 0 && summary.failed === 0) {
      // A module that throws outside any test has no suite in the report.
      const missing = report.missing(paths);
      failed.push({
        tier: step.tier,
        name: `deno test exited with code ${code} and no failed test in its report`,
        why: missing.length > 0
          ? [`no report from: ${missing.join(" ")} (an uncaught error? see its output above)`]
          : ["see the output above"],
      });
      total.failed += Math.max(1, missing.length);
    }
    return report;
  } finally {
    await Deno.remove(junit).catch(() => {});
  }
}

async function run(step: Step | null, options: RunOptions): Promise<void> {
  if (!step) return;
  const started = performance.now();
  const names = step.files.map((f) => f.path.split("/").pop()).join(" ");
  const how = step.pooled
    ? `, ${BROWSER_JOBS} files at a time`
    : step.parallel
    ? ", in parallel"
    : "";
  const header = `\n== ${step.tier} tests${how}${options.nice ? ", niced" : ""}: ${names} ==\n`;
  if (step.pooled) {
    // Each file's output comes as one block when it ends, headed by its name and time.
    writeBlock(header.replace("==\n", "== (each file's output when it ends)\n"));
    const queue = [...step.files];
    const worker = async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        const from = performance.now();
        let output = "";
        const nice = options.nice && !file.keepsPriority;
        const own = { ...options, nice, live: false, into: (t: string) => output += t };
        await runTests(step, [file.path], own, [])
          .catch((error) => {
            status ||= 1;
            output += `${error}\n`;
          });
        const seconds = (performance.now() - from) / 1000;
        measured.set(relative(file.path), seconds);
        writeBlock(`\n-- ${relative(file.path)}: ${seconds.toFixed(0)} s --\n${output}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BROWSER_JOBS, queue.length) }, worker));
  } else {
    if (options.live) writeBlock(header);
    else writeBlock(header.replace("==\n", "== (output when done)\n"));
    const report = await runTests(
      step,
      step.files.map((f) => f.path),
      options,
      step.parallel ? ["--parallel"] : [],
    );
    // A file's time: its tests' (run many at a time, each file's tests run one after the other).
    for (const [file, seconds] of report.secondsByFile()) {
      measured.set(relative(file).replace(/^\.\//, ""), seconds);
    }
  }
  counts.get(step.tier)!.ms += performance.now() - started;
}

const started = performance.now();
const has = (tier: Tier) => chosen.includes(tier);
const quiet: RunOptions = { live: true, nice: false };
const foreground = async (options: RunOptions) => {
  for (const tier of ["unit", "server", "cluster"] as const) {
    if (has(tier)) await run(stepOf(tier, "many"), options);
  }
  // Then the files marked alone, one at a time, nothing beside them but the niced browser tier.
  for (const tier of ["unit", "server", "cluster"] as const) {
    if (has(tier)) await run(stepOf(tier, "alone"), options);
  }
};
// SNOWFIRE_TESTS_IN_TURN=1: every tier after the other, nothing beside anything (to tell a flaky
// test from one that fails only beside the browser tier).
const inTurn = Deno.env.get("SNOWFIRE_TESTS_IN_TURN") === "1";
if (!inTurn && has("browser") && (has("unit") || has("server") || has("cluster"))) {
  await Promise.all([
    foreground({ live: false, nice: false }),
    run(stepOf("browser", "many"), { live: true, nice: true }),
  ]);
} else {
  await foreground(quiet);
  if (has("browser")) await run(stepOf("browser", "many"), quiet);
}
if (has("browser")) await run(stepOf("browser", "alone"), quiet);
// Last, one at a time with nothing beside them: the files marked last.
for (const tier of chosen) await run(stepOf(tier, "last"), quiet);

// deno's JUnit report marks a test left out by --filter as skipped, like an ignored one.
const IGNORED = flags.some((f) => f.startsWith("--filter")) ? "ignored or filtered out" : "ignored";
/** Each tier's longest files this run (all of them in tests/output/test_times.json). */
const LONGEST_SHOWN = 6;
const longest = (tier: Tier) =>
  [...measured].filter(([path]) => path.startsWith(`tests/${tier}/`))
    .sort((a, b) => b[1] - a[1]).slice(0, LONGEST_SHOWN)
    .map(([path, seconds]) => `${path.split("/").pop()} ${formatSeconds(seconds * 1000)}`);
const lines = [...counts].filter(([, c]) => c.ran).map(([tier, c]) =>
  `${tier}: ${c.passed} passed, ${c.failed} failed, ${c.ignored} ${IGNORED} in ${
    formatSeconds(c.ms)
  }${longest(tier).length > 0 ? `; longest: ${longest(tier).join(", ")}` : ""}`
);
await writeTestTimes(measured).catch(() => {});
if (failed.length > 0) {
  // Each failed test with the first lines of its error: CI shows only the tail of a long log.
  lines.unshift(
    "failed tests:",
    ...failed.flatMap(({ tier, name, why }) => [
      `  ${tier}: ${name}`,
      ...why.map((line) => `    ${line}`),
    ]),
    "",
  );
}
writeBlock(`\n${lines.join("\n")}`);
if (chosen.length > 1) {
  const sum = (key: keyof Counts) => [...counts.values()].reduce((n, c) => n + c[key], 0);
  // The closing line in deno's format, which .ci/run reads.
  writeBlock(
    `${status === 0 ? "ok" : "FAILED"} | ${sum("passed")} passed (${sum("steps")} steps) | ` +
      `${sum("failed")} failed | ${sum("ignored")} ignored ` +
      `(${formatSeconds(performance.now() - started)})`,
  );
}
Deno.exit(status);
