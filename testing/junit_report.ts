/**
 * Reads the JUnit XML that `deno test --junit-path=FILE` writes: per test file, each test and each
 * step (deno names a step `parent > step`) with its outcome and, for a failure, deno's message and
 * error text. `testing/run_tests.ts` counts and names failures from it instead of reading deno's
 * coloured console output.
 *
 * What the report lacks: a file whose module throws outside any test (deno's "uncaught error")
 * has no suite in it, so a run that exits non-zero with no failure in its report names the files
 * it ran that have no suite ({@linkcode JunitReport.missing}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJunit } from "./junit_report.ts";
 *
 * const report = parseJunit(`<testsuites name="deno test" tests="2" failures="1" errors="0">
 *   <testsuite name="./a_test.ts" tests="2" disabled="0" errors="0" failures="1">
 *     <testcase name="adds" classname="./a_test.ts" time="0.001" line="1" col="6">
 *       <failure message="Uncaught AssertionError: 1 !== 2">AssertionError: 1 !== 2</failure>
 *     </testcase>
 *     <testcase name="adds &gt; one" classname="./a_test.ts" time="0.000" line="2" col="9">
 *     </testcase>
 *   </testsuite>
 * </testsuites>`);
 * assert.deepEqual(report.counts(), { passed: 0, steps: 1, failed: 1, ignored: 0 });
 * assert.equal(report.failures()[0].name, "adds => ./a_test.ts:1:6");
 * ```
 */

/** One test or step of the report. */
export interface JunitCase {
  /** The test file, as deno names it (`./tests/unit/prng_test.ts`). */
  file: string;
  /** The test's name; a step's is `parent > step`. */
  name: string;
  /** Whether this is a step of another test in the same file. */
  step: boolean;
  /** Line and column of its `Deno.test` or `t.step` call. */
  line: number;
  col: number;
  outcome: "passed" | "failed" | "ignored";
  /** Its time, as deno measured it. */
  seconds: number;
  /** For a failure: deno's message (first line) and error text. */
  message: string;
  detail: string;
}

/** Counts in the form of deno's closing line: tests and steps apart. */
export interface Counts {
  passed: number;
  steps: number;
  failed: number;
  ignored: number;
}

/** A parsed JUnit report of one `deno test` run. */
export class JunitReport {
  /** The test files that have a suite in the report. */
  readonly files: ReadonlySet<string>;

  constructor(readonly cases: readonly JunitCase[], files: Iterable<string>) {
    this.files = new Set(files);
  }

  /** Passed tests, passed steps, failed tests and ignored tests, as deno's closing line counts them. */
  counts(): Counts {
    const counts = { passed: 0, steps: 0, failed: 0, ignored: 0 };
    for (const c of this.cases) {
      if (c.outcome === "passed") c.step ? counts.steps++ : counts.passed++;
      else if (c.outcome === "failed" && !c.step) counts.failed++;
      else if (c.outcome === "ignored" && !c.step) counts.ignored++;
    }
    return counts;
  }

  /**
   * Each failed test or step, named as deno's FAILURES list names it (`test ... step =>
   * ./file.ts:4:48`), with its error. A test that failed only because a step did is left out: its
   * step says what failed.
   */
  failures(): { name: string; why: string[] }[] {
    return this.cases.filter((c) => c.outcome === "failed" && !this.#failedByStepOnly(c)).map(
      (c) => ({
        name: `${c.name.split(" > ").join(" ... ")} => ${c.file}:${c.line}:${c.col}`,
        why: whyLines(c),
      }),
    );
  }

  /**
   * Seconds per test file: the sum of its tests' times (steps are inside their test's), by the
   * file that defines each test. A test defined through a helper module (testing/browser.ts'
   * `browserTest`) is counted under that module: deno names the caller of `Deno.test`.
   */
  secondsByFile(): Map<string, number> {
    const out = new Map<string, number>();
    for (const c of this.cases) {
      if (!c.step) out.set(c.file, (out.get(c.file) ?? 0) + c.seconds);
    }
    return out;
  }

  /** Of `ran` (paths or `./`-relative names), the files with no suite in the report. */
  missing(ran: readonly string[]): string[] {
    const names = [...this.files].map((f) => f.replace(/^\.\//, ""));
    return ran.filter((path) => !names.some((name) => path.endsWith(name)));
  }

  #failedByStepOnly(c: JunitCase): boolean {
    return /^\d+ test steps? failed\.?$/.test(c.message) &&
      this.cases.some((s) => s.step && s.name.startsWith(`${c.name} > `));
  }
}

/** Lines kept of one failure's error: its text without the stack frames of deno's test runner. */
function whyLines(c: JunitCase): string[] {
  const leak = c.message.startsWith("Leaks detected");
  const lines = (c.detail || c.message).split("\n").map((l) => l.trimEnd()).filter((l) =>
    l.trim() !== "" && !/^\s*at .*ext:cli\//.test(l)
  );
  // A leak report's lines say where each leaked op started; an error's first lines say what failed.
  return lines.slice(0, leak ? 10 : 3).map((l) => l.slice(0, 240));
}

const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&apos;": "'",
  "&amp;": "&",
};

/** Undoes XML's character escapes. */
function unescape(text: string): string {
  return text.replace(
    /&(?:lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-fA-F]+));/g,
    (m, dec, hex) =>
      dec
        ? String.fromCodePoint(Number(dec))
        : hex
        ? String.fromCodePoint(parseInt(hex, 16))
        : ENTITIES[m],
  );
}

/** The attributes of one start tag. */
function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [, key, value] of tag.matchAll(/(\w+)="([^"]*)"/g)) found[key] = unescape(value);
  return found;
}

/**
 * Parses the JUnit XML deno writes (`<testsuites>` → `<testsuite>` → `<testcase>` with an optional
 * `<failure>` or `<skipped/>`).
 */
export function parseJunit(xml: string): JunitReport {
  const cases: JunitCase[] = [];
  const files: string[] = [];
  const suites = xml.matchAll(/<testsuite\s([^>]*)>([\s\S]*?)<\/testsuite>/g);
  for (const [, suiteTag, body] of suites) {
    const file = attributes(suiteTag).name ?? "";
    files.push(file);
    const tests = body.matchAll(/<testcase\s([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g);
    for (const [, tag, , inner = ""] of tests) {
      const a = attributes(tag);
      const failure = /<failure\b([^>]*?)(?:\/>|>([\s\S]*?)<\/failure>)/.exec(inner);
      cases.push({
        file: a.classname ?? file,
        name: a.name ?? "",
        step: false,
        line: Number(a.line ?? 0),
        col: Number(a.col ?? 0),
        outcome: failure ? "failed" : /<skipped\s*\/?>/.test(inner) ? "ignored" : "passed",
        seconds: Number(a.time ?? 0),
        message: failure ? attributes(failure[1]).message ?? "" : "",
        detail: failure ? unescape(failure[2] ?? "") : "",
      });
    }
  }
  // A step is `parent > step` where `parent` is another test or step. Its suite may be another
  // file's: deno files a step under the module that calls `t.step` (testing/scene_contract.ts).
  const names = new Set(cases.map((c) => c.name));
  for (const c of cases) {
    const parts = c.name.split(" > ");
    c.step = parts.some((_, i) => i > 0 && names.has(parts.slice(0, i).join(" > ")));
  }
  return new JunitReport(cases, files);
}
