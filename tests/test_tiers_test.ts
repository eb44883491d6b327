import assert from "node:assert/strict";
import { runsAlone, testFiles, tierOf } from "../testing/test_tiers.ts";

Deno.test("test tiers come from the harness a file imports", () => {
  assert.equal(tierOf('import { launchBrowser } from "../testing/browser.ts";'), "browser");
  assert.equal(tierOf('import { startNatsCluster } from "../testing/nats_cluster.ts";'), "cluster");
  assert.equal(tierOf('import { startTestServer } from "../testing/test_server.ts";'), "server");
  assert.equal(tierOf('import { startRawServer } from "../scripts/raw_server.ts";'), "server");
  assert.equal(tierOf('import { startTarget } from "../scripts/load/target.ts";'), "server");
  assert.equal(tierOf('import { TestClient } from "../testing/test_client.ts";'), "unit");
  assert.equal(tierOf('import { Rng } from "../shared/prng.ts";'), "unit");
  // A cluster test also starts servers; a browser test may use NATS: the first marker wins.
  const both = 'import "../testing/nats_cluster.ts";\nimport "../testing/test_server.ts";';
  assert.equal(tierOf(both), "cluster");
  // Multi-line imports count; a path merely mentioned in a string does not.
  assert.equal(
    tierOf('import {\n  browserTest,\n  launchBrowser,\n} from "../testing/browser.ts";'),
    "browser",
  );
  assert.equal(tierOf('const path = "../testing/browser.ts";'), "unit");
  // A file that opens a listener itself is a server test (written in parts, so that this file,
  // which opens none, stays a unit test).
  assert.equal(tierOf("const s = http.createServer();\ns" + ".listen" + "(0);"), "server");
  assert.equal(tierOf("Deno" + ".serve" + "({ port: 0 }, handler);"), "server");
  assert.equal(tierOf("using l = Deno" + ".listen" + "({ port: 0 });"), "server");
  assert.equal(
    tierOf('  assert.equal(tierOf(\'import "../testing/browser.ts";\'), "browser");'),
    "unit",
  );
});

Deno.test("a file runs alone only when a line of its own says so", async () => {
  assert.equal(runsAlone("/** A test. */\n// test tiers: alone\nimport x;"), true);
  assert.equal(runsAlone("const note = '// test tiers: alone';"), false);
  assert.equal(runsAlone("// test tiers: alone, please"), false);
  // The flood test compares heartbeat gaps under attack with a quiet baseline: others' work skews it.
  const flood = await Deno.readTextFile(new URL("./server_flood_test.ts", import.meta.url));
  assert.equal(runsAlone(flood), true);
});

Deno.test("unit test files start no server, browser or NATS of their own", async () => {
  // What starting one looks like without a harness; such a file would land in the unit tier.
  const starters = [
    /Deno\.serve\(/,
    /startServer\(|startRawServer\(|startTarget\(/,
    /server\/main\.ts/,
    /launchBrowser|chromium\.launch/,
    /nats-server|startNatsCluster/,
  ];
  const files = await testFiles(new URL("./", import.meta.url));
  const unit = files.filter((f) => f.tier === "unit");
  // This file names every harness in strings, and imports none of them.
  assert.equal(files.find((f) => f.path.endsWith("/test_tiers_test.ts"))?.tier, "unit");
  assert.ok(unit.length > 10, `${unit.length} unit files`);
  for (const { path } of unit) {
    if (path.endsWith("/test_tiers_test.ts")) continue;
    const source = await Deno.readTextFile(path);
    for (const starter of starters) {
      assert.doesNotMatch(source, starter, `${path} is a unit test but matches ${starter}`);
    }
  }
});
