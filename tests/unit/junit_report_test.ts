import assert from "node:assert/strict";
import { parseJunit } from "../../testing/junit_report.ts";

/** Test files for a child `deno test`: one of each outcome, and one that throws outside any test. */
const FILES = {
  "a_test.ts": `
Deno.test("passes", async (t) => {
  await t.step("one", () => {});
  await t.step("two", () => {});
});
Deno.test("fails", () => {
  throw new Error("boom <&> \\"quoted\\"\\nsecond line");
});
Deno.test({ name: "ignored", ignore: true, fn() {} });
Deno.test("step fails", async (t) => {
  await t.step("inner", () => {
    throw new Error("inner boom");
  });
});
Deno.test("leaks", () => {
  // fixed wait: none; this timer is left pending on purpose, for the sanitizer to report.
  setTimeout(() => {}, 60_000);
});
import { helped } from "./helper.ts";
Deno.test("uses a helper's step", (t) => helped(t));
`,
  // deno files a step under the module that calls t.step: here a suite of its own.
  "helper.ts": `export async function helped(t: Deno.TestContext) {
  await t.step("in the helper", () => {});
}
`,
  "b_test.ts": `throw new Error("module fails");\n`,
};

Deno.test("the JUnit report of a real deno test run gives deno's counts and failures", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const [name, source] of Object.entries(FILES)) {
      await Deno.writeTextFile(`${dir}/${name}`, source);
    }
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "--no-check",
        "--sanitize-ops",
        "--sanitize-resources",
        `--junit-path=${dir}/report.xml`,
        "a_test.ts",
        "b_test.ts",
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.notEqual(code, 0);
    const report = parseJunit(await Deno.readTextFile(`${dir}/report.xml`));
    const counts = report.counts();
    // deno's own closing line says the same, counting the file that threw outside any test (it
    // has no suite in the report) as one more failure.
    const closing = new TextDecoder().decode(stdout).split("\n").find((l) =>
      l.startsWith("FAILED |")
    );
    assert.match(closing ?? "", /\| 2 passed \(3 steps\) \| 4 failed \(1 step\) \| 1 ignored/);
    assert.deepEqual(counts, { passed: 2, steps: 3, failed: 3, ignored: 1 });
    const failures = report.failures();
    assert.deepEqual(failures.map((f) => f.name), [
      "fails => ./a_test.ts:6:6",
      "leaks => ./a_test.ts:15:6",
      "step fails ... inner => ./a_test.ts:11:11",
    ]);
    assert.equal(failures[0].why[0], 'Error: boom <&> "quoted"');
    assert.equal(failures[0].why[1], "second line");
    assert.match(failures[1].why[0], /^Leaks detected/);
    assert.ok(
      failures[2].why.every((line) => !line.includes("ext:cli/")),
      failures[2].why.join("\n"),
    );
    // The file that threw outside any test has no suite: the runner names it.
    assert.deepEqual(report.missing([`${dir}/a_test.ts`, `${dir}/b_test.ts`]), [
      `${dir}/b_test.ts`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a JUnit report with no suites counts nothing", () => {
  const report = parseJunit(
    '<?xml version="1.0"?>\n<testsuites name="deno test" tests="0"></testsuites>',
  );
  assert.deepEqual(report.counts(), { passed: 0, steps: 0, failed: 0, ignored: 0 });
  assert.deepEqual(report.failures(), []);
  assert.deepEqual(report.missing(["/x/a_test.ts"]), ["/x/a_test.ts"]);
});

Deno.test("a JUnit report gives each file the seconds of its tests, steps inside them", () => {
  const report = parseJunit(`<testsuites name="deno test" tests="3" failures="0" errors="0">
    <testsuite name="./a_test.ts" tests="3" disabled="0" errors="0" failures="0">
      <testcase name="slow" classname="./a_test.ts" time="2.500" line="1" col="6"></testcase>
      <testcase name="slow &gt; part" classname="./a_test.ts" time="2.000" line="2" col="9">
      </testcase>
      <testcase name="quick" classname="./a_test.ts" time="0.250" line="5" col="6"></testcase>
    </testsuite>
    <testsuite name="./b_test.ts" tests="1" disabled="0" errors="0" failures="0">
      <testcase name="one" classname="./b_test.ts" time="1.000" line="1" col="6"></testcase>
    </testsuite>
  </testsuites>`);
  assert.deepEqual([...report.secondsByFile()], [["./a_test.ts", 2.75], ["./b_test.ts", 1]]);
});
