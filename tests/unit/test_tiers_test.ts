import assert from "node:assert/strict";
import {
  keepsPriority,
  runsAlone,
  runsLast,
  testFiles,
  TestOutsideTierError,
  TIERS,
} from "../../testing/test_tiers.ts";

const TESTS = new URL("../", import.meta.url);

Deno.test("test tiers are the folders of tests/", async () => {
  const files = await testFiles(TESTS);
  for (const tier of TIERS) {
    const inTier = files.filter((f) => f.tier === tier);
    assert.ok(inTier.length > 3, `${inTier.length} ${tier} files`);
    for (const { path } of inTier) assert.ok(path.includes(`/tests/${tier}/`), path);
  }
  assert.equal(files.find((f) => f.path.endsWith("/test_tiers_test.ts"))?.tier, "unit");
});

Deno.test("a test file outside a tier folder is refused by name", async () => {
  const root = await Deno.makeTempDir();
  try {
    for (const tier of TIERS) await Deno.mkdir(`${root}/${tier}`);
    await Deno.writeTextFile(`${root}/unit/a_test.ts`, "");
    await Deno.writeTextFile(`${root}/loose_test.ts`, "");
    await assert.rejects(
      () => testFiles(new URL(`file://${root}/`)),
      (error: unknown) =>
        error instanceof TestOutsideTierError && error.paths.join() === "loose_test.ts",
    );
    await Deno.remove(`${root}/loose_test.ts`);
    const files = await testFiles(new URL(`file://${root}/`));
    assert.deepEqual(files.map((f) => [f.tier, f.path.slice(root.length)]), [
      ["unit", "/unit/a_test.ts"],
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a browser file keeps its priority only when a line of its own says so", () => {
  assert.equal(keepsPriority("/** A test. */\n// test tiers: keeps its priority\nimport x;"), true);
  assert.equal(keepsPriority("// test tiers: alone"), false);
  assert.equal(keepsPriority("const note = '// test tiers: keeps its priority';"), false);
});

Deno.test("a file runs alone only when a line of its own says so", async () => {
  assert.equal(runsAlone("/** A test. */\n// test tiers: alone\nimport x;"), true);
  assert.equal(runsAlone("const note = '// test tiers: alone';"), false);
  assert.equal(runsAlone("// test tiers: alone, please"), false);
  // The flood test compares heartbeat gaps under attack with a quiet baseline: others' work skews it.
  const flood = await Deno.readTextFile(new URL("../server/server_flood_test.ts", import.meta.url));
  assert.equal(runsAlone(flood), true);
});

Deno.test("a file runs last only when a line of its own says so", async () => {
  assert.equal(runsLast("/** A test. */\n// test tiers: last\nimport x;"), true);
  assert.equal(runsLast("// test tiers: alone"), false);
  assert.equal(runsAlone("// test tiers: last"), false);
  // The sweep's scene clock runs at 30×: a second of starvation is half a minute of the scene.
  const sweep = await Deno.readTextFile(
    new URL("../cluster/cluster_sweep_test.ts", import.meta.url),
  );
  assert.equal(runsLast(sweep), true);
});

Deno.test("each tier's files start what their tier says, and unit files start nothing", async () => {
  // What starting one looks like; a unit file (run many at a time, quickly) must show none.
  const starters = [
    /Deno\.serve\(/,
    /\.listen\(/,
    /startServer\(|startRawServer\(|startTarget\(|startTestServer\(/,
    /server\/main\.ts/,
    /launchBrowser|chromium\.launch/,
    /nats-server|startNatsCluster/,
  ];
  // Each other tier's files import its harness (a browser test may also start a server).
  const harness: Record<string, RegExp> = {
    browser: /testing\/browser\.ts"/,
    cluster: /testing\/nats_cluster\.ts"/,
    server:
      /testing\/test_server\.ts"|scripts\/raw_server\.ts"|scripts\/load\/target\.ts"|\.listen\(|Deno\.serve\(|server\/main\.ts/,
  };
  for (const { path, tier } of await testFiles(TESTS)) {
    if (path.endsWith("/test_tiers_test.ts")) continue;
    const source = await Deno.readTextFile(path);
    if (tier === "unit") {
      for (const starter of starters) {
        assert.doesNotMatch(source, starter, `${path} is a unit test but matches ${starter}`);
      }
    } else {
      assert.match(source, harness[tier], `${path} is a ${tier} test but starts no ${tier}`);
    }
  }
});
