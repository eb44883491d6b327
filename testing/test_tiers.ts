/**
 * Test tiers: a test file's tier is what it starts, read from the harness it imports. A file that
 * imports `testing/browser.ts` drives a browser; `testing/nats_cluster.ts`, NATS servers;
 * `testing/test_server.ts`, `scripts/raw_server.ts` or `scripts/load/target.ts`, a server; so does
 * a file that opens a listener itself (`Deno.serve`, `Deno.listen`, a Node server's `.listen(`).
 * Every other file is a unit test: it starts nothing and runs in seconds.
 *
 * A file whose assertions depend on timing (a rate counted over a second, a heartbeat-gap ratio
 * against a quiet baseline) says `// test tiers: alone` on a line of its own; it then runs by
 * itself, after the rest of its tier, which may run files in parallel.
 */

/** The four tiers, in the order `deno task test` runs them. */
export const TIERS = ["unit", "server", "browser", "cluster"] as const;

/** One tier. */
export type Tier = typeof TIERS[number];

/** Module paths whose import puts a file in a tier; the first tier that matches wins. */
const MARKERS: [Tier, RegExp][] = ([
  ["browser", "testing/browser"],
  ["cluster", "testing/nats_cluster"],
  ["server", "testing/test_server|scripts/raw_server|scripts/load/target"],
] as const).map(([tier, paths]) => [
  tier,
  // An import statement (it may span lines) from one of the paths; not a mention in a string.
  new RegExp(`^import\\b[^;]*?["']\\.\\./(?:${paths})\\.ts["'];`, "m"),
]);

/** A listener opened by the test file itself, outside the harness. */
const OPENS_LISTENER = /\b(?:Deno\.serve|Deno\.listen|\.listen)\(/;

/** The line that makes a test file run by itself. */
const ALONE = /^\/\/ test tiers: alone$/m;

/**
 * The tier of a test file in `tests/`, from its source text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(tierOf('import { launchBrowser } from "../testing/browser.ts";'), "browser");
 * assert.equal(tierOf('import { Rng } from "../shared/prng.ts";'), "unit");
 * ```
 */
export function tierOf(source: string): Tier {
  for (const [tier, marker] of MARKERS) if (marker.test(source)) return tier;
  return OPENS_LISTENER.test(source) ? "server" : "unit";
}

/**
 * Whether a test file must run by itself (its assertions depend on timing).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(runsAlone("// test tiers: alone\nDeno.test(...)"), true);
 * ```
 */
export function runsAlone(source: string): boolean {
  return ALONE.test(source);
}

/** A test file, its tier, and whether it runs by itself. */
export interface TestFile {
  path: string;
  tier: Tier;
  alone: boolean;
}

/**
 * The test files (`*_test.ts`) directly in `dir`, sorted, each with its tier.
 *
 * @example
 * ```ts
 * const files = await testFiles(new URL("../tests/", import.meta.url));
 * const unit = files.filter((f) => f.tier === "unit").map((f) => f.path);
 * ```
 */
export async function testFiles(dir: URL): Promise<TestFile[]> {
  const files: TestFile[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith("_test.ts")) continue;
    const url = new URL(entry.name, dir);
    const source = await Deno.readTextFile(url);
    files.push({ path: url.pathname, tier: tierOf(source), alone: runsAlone(source) });
  }
  return files.sort((a, b) => a.path < b.path ? -1 : 1);
}
