import assert from "node:assert/strict";
import { FailureReport } from "../testing/failure_report.ts";

/** A test file with a failing step, a failing test, a passing test and an error at load. */
const FAILING = `
import assert from "node:assert/strict";
Deno.test("outer", async (t) => {
  await t.step("inner step", () => assert.equal(1, 2, "one is not two"));
});
Deno.test("plain", () => {
  throw new Error("boom\\nsecond line");
});
Deno.test("passes", () => {});
`;

Deno.test("failure report reads what deno test prints of failures and their errors", async () => {
  const dir = await Deno.makeTempDir({ prefix: "snowfire-report-" });
  try {
    await Deno.writeTextFile(`${dir}/a_test.ts`, FAILING);
    // deno's own report, colours and all: the format the report must keep reading.
    const { stdout, code } = await new Deno.Command(Deno.execPath(), {
      args: ["test", "--no-check", "--no-config", `${dir}/a_test.ts`],
      cwd: dir,
      env: { NO_COLOR: "" },
      stdout: "piped",
      stderr: "null",
    }).output();
    assert.notEqual(code, 0);
    const report = new FailureReport();
    for (const line of new TextDecoder().decode(stdout).split("\n")) report.line(line);

    assert.deepEqual(report.failures(), [
      "outer ... inner step => ./a_test.ts:4:11",
      "plain => ./a_test.ts:6:6",
    ]);
    const reasons = report.reasons();
    assert.deepEqual(reasons.map((r) => r[0]), report.failures());
    const [step, plain] = reasons;
    assert.equal(step[1], "error: AssertionError: one is not two");
    assert.ok(step.includes("1 !== 2"), step.join("\n"));
    assert.ok(!step.some((line) => line.startsWith("at ") || /^\^+$/.test(line)));
    assert.deepEqual(plain.slice(1, 3), ["error: Error: boom", "second line"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("failure report keeps where a leaked timer was started", async () => {
  const dir = await Deno.makeTempDir({ prefix: "snowfire-report-" });
  try {
    await Deno.writeTextFile(
      `${dir}/leak_test.ts`,
      'function schedule() {\n  setTimeout(() => {}, 300);\n}\nDeno.test("leaks", () => schedule());\n',
    );
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "--no-check",
        "--no-config",
        "--sanitize-ops",
        "--trace-leaks",
        `${dir}/leak_test.ts`,
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "null",
    }).output();
    const report = new FailureReport();
    for (const line of new TextDecoder().decode(stdout).split("\n")) report.line(line);
    assert.deepEqual(report.failures(), ["leaks => ./leak_test.ts:4:6"]);
    const [reason] = report.reasons();
    assert.equal(reason[1], "error: Leaks detected:");
    // The frame in the test's own file is kept; the runtime's are not.
    assert.ok(reason.some((line) => /^at .*leak_test\.ts:2:3/.test(line)), reason.join("\n"));
    assert.ok(!reason.some((line) => line.includes("ext:")), reason.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("failure report keeps an uncaught error and bounds what it keeps", () => {
  const report = new FailureReport();
  const long = "x".repeat(1000);
  const lines = [
    " ERRORS ",
    "",
    "./tests/b_test.ts (uncaught error)",
    ...Array.from({ length: 20 }, (_, i) => `${long}${i}`),
    "",
    " FAILURES ",
    "",
    "./tests/b_test.ts (uncaught error)",
    "./tests/b_test.ts (uncaught error)",
    "",
    "FAILED | 0 passed | 1 failed (1ms)",
    // Output after the summary is no failure.
    "later => ./tests/c_test.ts:1:1",
  ];
  for (const line of lines) report.line(line);
  assert.deepEqual(report.failures(), ["./tests/b_test.ts (uncaught error)"]);
  const [reason] = report.reasons();
  assert.equal(reason[0], "./tests/b_test.ts (uncaught error)");
  assert.equal(reason.length, 1 + FailureReport.REASON_LINES);
  assert.ok(reason.slice(1).every((line) => line.length === FailureReport.LINE_CHARS));
});
