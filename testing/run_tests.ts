/**
 * `deno task test [tier...] [file or deno test flag...]`: runs the test tiers (testing/test_tiers.ts)
 * one after another, each as one `deno test` with the sanitizers on, and ends with one summary line
 * in deno's own format. No tier named: all four. Files named: just those files.
 *
 *     deno task test                      # everything
 *     deno task test:unit                 # = deno task test unit
 *     deno task test tests/prng_test.ts   # one file
 *     deno task test server --filter=abuse
 */
import { testFiles, type Tier, TIERS } from "./test_tiers.ts";

const FLAGS = ["test", "-A", "--sanitize-ops", "--sanitize-resources"];

/**
 * Tiers whose files run as many at a time as there are cores (`deno test --parallel`). Files marked
 * `// test tiers: alone` never do: they run after the others, one at a time.
 */
const PARALLEL: ReadonlySet<Tier> = new Set(["unit", "server"]);

/** Counts from one `deno test` summary line. */
interface Counts {
  passed: number;
  steps: number;
  failed: number;
  ignored: number;
}

/** Parses deno's closing `ok | 3 passed (4 steps) | 0 failed | 1 ignored (2s)` line. */
function summaryOf(output: string): Counts | null {
  // deno-lint-ignore no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const line = plain.split("\n").reverse().find((l) => /^(ok|FAILED) \| \d+ passed/.test(l));
  if (!line) return null;
  const count = (pattern: RegExp) => Number(pattern.exec(line)?.[1] ?? 0);
  return {
    passed: count(/(\d+) passed/),
    steps: count(/passed \((\d+) steps?\)/),
    failed: count(/(\d+) failed/),
    ignored: count(/(\d+) ignored/),
  };
}

/** Runs `deno` with `args`, echoing its output, and resolves with its exit code and output. */
async function runDeno(args: string[]): Promise<{ code: number; output: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    await Deno.stdout.write(chunk);
    output = (output + decoder.decode(chunk, { stream: true })).slice(-4096);
  }
  const { code } = await child.status;
  return { code, output };
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
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
  const { code } = await runDeno([...FLAGS, ...args]);
  Deno.exit(code);
}

const files = await testFiles(new URL("../tests/", import.meta.url));
const chosen = tiers.length > 0 ? tiers : [...TIERS];
if (!flags.includes("--no-check")) {
  // One type check of every chosen file, instead of one per `deno test` run below.
  const paths = files.filter((f) => chosen.includes(f.tier)).map((f) => f.path);
  const { code } = await new Deno.Command(Deno.execPath(), { args: ["check", ...paths] }).spawn()
    .status;
  if (code !== 0) Deno.exit(code);
  flags.push("--no-check");
}
const total: Counts = { passed: 0, steps: 0, failed: 0, ignored: 0 };
const lines: string[] = [];
let status = 0;
const started = performance.now();
for (const tier of chosen) {
  const inTier = files.filter((f) => f.tier === tier);
  if (inTier.length === 0) continue;
  console.log(`\n== ${tier} tests: ${inTier.length} files ==\n`);
  const tierStarted = performance.now();
  const parallel = PARALLEL.has(tier) ? ["--parallel"] : [];
  const runs = [
    [...parallel, ...inTier.filter((f) => !f.alone).map((f) => f.path)],
    inTier.filter((f) => f.alone).map((f) => f.path),
  ].filter((run) => run.some((arg) => !arg.startsWith("-")));
  const counts: Counts = { passed: 0, steps: 0, failed: 0, ignored: 0 };
  for (const run of runs) {
    const { code, output } = await runDeno([...FLAGS, ...flags, ...run]);
    const summary = summaryOf(output);
    if (code !== 0) status = code;
    if (!summary) {
      lines.push(`${tier}: no summary (exit code ${code})`);
      status ||= 1;
      continue;
    }
    for (const key of Object.keys(counts) as (keyof Counts)[]) counts[key] += summary[key];
  }
  for (const key of Object.keys(total) as (keyof Counts)[]) total[key] += counts[key];
  lines.push(
    `${tier}: ${counts.passed} passed, ${counts.failed} failed, ${counts.ignored} ignored` +
      ` in ${formatSeconds(performance.now() - tierStarted)}`,
  );
}
console.log(`\n${lines.join("\n")}`);
if (chosen.length > 1) {
  // The closing line in deno's format, which .ci/run reads.
  console.log(
    `${status === 0 ? "ok" : "FAILED"} | ${total.passed} passed (${total.steps} steps) | ` +
      `${total.failed} failed | ${total.ignored} ignored ` +
      `(${formatSeconds(performance.now() - started)})`,
  );
}
Deno.exit(status);
