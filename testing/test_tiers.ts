/**
 * Test tiers: a test file's tier is the folder it is in. `tests/unit/` starts nothing and runs in
 * seconds; `tests/server/` starts servers (or opens listeners); `tests/browser/` drives Chromium;
 * `tests/cluster/` starts NATS servers. `tests/fixtures/` and `tests/output/` hold no tests.
 *
 * A file whose assertions depend on timing (a heartbeat-gap ratio against a quiet baseline) says
 * `// test tiers: alone` on a line of its own; it then runs by itself, after the foreground tiers
 * (unit, server, cluster), with only the niced browser tier beside it. A file whose assertions
 * hold only on an idle machine (a rate counted over a second, a scene clock at 30×) says
 * `// test tiers: last`: it runs by itself after everything else. A browser file whose
 * assertions are real-time (audio heard in step within milliseconds) says
 * `// test tiers: keeps its priority`: it runs beside the others, but not niced.
 */

/** The four tiers, in the order `deno task test` runs them; each is a folder of `tests/`. */
export const TIERS = ["unit", "server", "browser", "cluster"] as const;

/** One tier. */
export type Tier = typeof TIERS[number];

/** The line that makes a test file run by itself. */
const ALONE = "// test tiers: alone";

/** The line that makes a test file run by itself after everything else. */
const LAST = "// test tiers: last";

/** The line that keeps a file of the niced browser tier at normal priority. */
const KEEPS_PRIORITY = "// test tiers: keeps its priority";

/** Whether a line of its own in `source` is `marker`. */
function marked(source: string, marker: string): boolean {
  return source.split("\n").some((line) => line.trimEnd() === marker);
}

/**
 * Whether a browser test file runs at normal priority while its tier is niced: a line of its
 * own says `// test tiers: keeps its priority`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(keepsPriority("// test tiers: keeps its priority\nDeno.test(...)"), true);
 * ```
 */
export function keepsPriority(source: string): boolean {
  return marked(source, KEEPS_PRIORITY);
}

/**
 * Whether a test file must run by itself (its assertions depend on timing): a line of its own
 * says `// test tiers: alone`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(runsAlone("// test tiers: alone\nDeno.test(...)"), true);
 * ```
 */
export function runsAlone(source: string): boolean {
  return marked(source, ALONE);
}

/**
 * Whether a test file must run by itself after everything else, nothing beside it (its
 * assertions hold only on an idle machine): a line of its own says `// test tiers: last`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(runsLast("// test tiers: last\nDeno.test(...)"), true);
 * ```
 */
export function runsLast(source: string): boolean {
  return marked(source, LAST);
}

/**
 * When a file runs: many at a time with its tier, by itself after the foreground tiers
 * ({@link runsAlone}), or by itself after everything ({@link runsLast}).
 */
export type RunOrder = "many" | "alone" | "last";

/** A test file, its tier, when it runs, and its length in characters. */
export interface TestFile {
  path: string;
  tier: Tier;
  order: RunOrder;
  /** Runs at normal priority in the niced browser tier ({@link keepsPriority}). */
  keepsPriority: boolean;
  /** The source's length: files run many at a time start longest first (a proxy for time). */
  chars: number;
}

/** A test file in `tests/` outside any tier folder: it would run in no tier. */
export class TestOutsideTierError extends Error {
  readonly code = "TEST_OUTSIDE_TIER";
  constructor(readonly paths: string[]) {
    super(
      `test files outside a tier folder (move each into tests/${TIERS.join("|")}/): ${
        paths.join(", ")
      }`,
    );
    this.name = "TestOutsideTierError";
  }
}

/**
 * The test files (`*_test.ts`) of each tier folder under `root`, sorted, each with its tier.
 * Throws {@linkcode TestOutsideTierError} if a test file sits in `root` itself.
 *
 * @example
 * ```ts
 * const files = await testFiles(new URL("../tests/", import.meta.url));
 * const unit = files.filter((f) => f.tier === "unit").map((f) => f.path);
 * ```
 */
export async function testFiles(root: URL): Promise<TestFile[]> {
  const outside: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    if (entry.isFile && entry.name.endsWith("_test.ts")) outside.push(entry.name);
  }
  if (outside.length > 0) throw new TestOutsideTierError(outside.sort());
  const files: TestFile[] = [];
  for (const tier of TIERS) {
    const dir = new URL(`${tier}/`, root);
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith("_test.ts")) continue;
      const url = new URL(entry.name, dir);
      const source = await Deno.readTextFile(url);
      files.push({
        path: url.pathname,
        tier,
        order: runsLast(source) ? "last" : runsAlone(source) ? "alone" : "many",
        keepsPriority: keepsPriority(source),
        chars: source.length,
      });
    }
  }
  return files.sort((a, b) => a.path < b.path ? -1 : 1);
}
