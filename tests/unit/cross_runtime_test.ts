/**
 * The golden fixtures replay to the same hashes in Node 20 as in Deno, and the deterministic
 * maths is bit-identical in both on inputs where the engines' own `Math` functions disagree;
 * the show schedule (which the server computes) agrees too.
 * `shared/` is bundled with esbuild, written to a temp dir with a small runner, and run by `node`.
 */
import assert from "node:assert/strict";
import * as esbuild from "esbuild";
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import {
  type Probe,
  probe,
  replayAll,
  type ReplayFixture,
  showHour,
} from "../../testing/node_replay_probe.ts";
import type { ShowLaunch } from "../../shared/show.ts";

const PROBES_PER_FUNCTION = 4000;
/** Functions whose bits are known to differ between Node 20 (V8 11) and Deno 2.9 (V8 13+). */
const DIVERGENT = ["cos", "pow", "acos"];
const MIN_DIVERGENT = 50;

const FIXTURE_DIR = fromFileUrl(new URL("../fixtures/replay/", import.meta.url));
const PROBE_MODULE = fromFileUrl(new URL("../../testing/node_replay_probe.ts", import.meta.url));

const RUNNER = `
import { readFileSync } from "node:fs";
import { probe, replayAll, showHour } from "./bundle.mjs";
const [count, ...files] = process.argv.slice(2);
const fixtures = files.map((file) => JSON.parse(readFileSync(file, "utf8")));
process.stdout.write(JSON.stringify({
  version: process.version,
  replays: replayAll(fixtures),
  probe: probe(Number(count)),
  show: showHour(),
}));
`;

interface NodeResult {
  version: string;
  replays: { tick: number; hash: string }[][];
  probe: Probe;
  show: ShowLaunch[][];
}

async function fixtureFiles(): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(FIXTURE_DIR)) {
    if (entry.isFile && entry.name.endsWith(".json")) files.push(join(FIXTURE_DIR, entry.name));
  }
  return files.sort();
}

async function bundleProbe(): Promise<string> {
  try {
    const result = await esbuild.build({
      entryPoints: [PROBE_MODULE],
      bundle: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      write: false,
    });
    return result.outputFiles[0].text;
  } finally {
    await esbuild.stop();
  }
}

async function runInNode(files: string[]): Promise<NodeResult> {
  const dir = await Deno.makeTempDir({ prefix: "snowfire-node-" });
  try {
    await Deno.writeTextFile(join(dir, "bundle.mjs"), await bundleProbe());
    await Deno.writeTextFile(join(dir, "runner.mjs"), RUNNER);
    const output = await new Deno.Command("node", {
      args: [join(dir, "runner.mjs"), String(PROBES_PER_FUNCTION), ...files],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, `node failed: ${stderr}`);
    return JSON.parse(new TextDecoder().decode(output.stdout));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cross-runtime: Node replays and dmath bits equal Deno's", async (t) => {
  const files = await fixtureFiles();
  assert.ok(files.length >= 6, `expected the golden fixtures, found ${files.length}`);
  const fixtures: ReplayFixture[] = await Promise.all(
    files.map(async (file) => JSON.parse(await Deno.readTextFile(file))),
  );
  const node = await runInNode(files);
  assert.match(node.version, /^v\d+\./);

  await t.step("node reproduces every fixture's committed hashes", () => {
    fixtures.forEach((fixture, k) => {
      assert.ok(fixture.expected.length > 0, files[k]);
      assert.deepEqual(node.replays[k], fixture.expected, files[k]);
    });
  });

  await t.step("deno reproduces the same hashes", () => {
    const deno = replayAll(fixtures);
    fixtures.forEach((fixture, k) => assert.deepEqual(deno[k], fixture.expected, files[k]));
    assert.deepEqual(deno, node.replays);
  });

  await t.step("node schedules the same show", () => {
    const show = showHour();
    assert.ok(show.every((launches) => launches.length > 1500));
    assert.deepEqual(node.show, show);
  });

  const here = probe(PROBES_PER_FUNCTION);

  await t.step(`engine Math.${DIVERGENT.join("/")} differ between node and deno`, () => {
    for (const name of DIVERGENT) {
      const differing = here[name].engine.filter((bits, k) => bits !== node.probe[name].engine[k]);
      assert.ok(
        differing.length >= MIN_DIVERGENT,
        `Math.${name} differs on only ${differing.length} of ${PROBES_PER_FUNCTION} inputs ` +
          `(node ${node.version}, deno ${Deno.version.v8}): the dmath check below lost its teeth`,
      );
    }
  });

  await t.step("dmath is bit-identical in node and deno, including where Math differs", () => {
    let divergentInputs = 0;
    for (const name of Object.keys(here)) {
      const engineHere = here[name].engine, engineNode = node.probe[name].engine;
      for (let k = 0; k < PROBES_PER_FUNCTION; k++) {
        if (engineHere[k] !== engineNode[k]) divergentInputs++;
        assert.equal(
          here[name].ours[k],
          node.probe[name].ours[k],
          `${name} input #${k}: deno ${here[name].ours[k]} vs node ${node.probe[name].ours[k]}`,
        );
      }
    }
    assert.ok(divergentInputs >= 300, `only ${divergentInputs} inputs where the engines differ`);
  });
});
