/**
 * Test files' recorded times: `deno task test` starts the files it runs many at a time longest
 * first, by the seconds each took in a recorded run (testing/test_times.json, a clean-clone CI
 * run's), and writes this run's seconds to tests/output/test_times.json; copy that over the
 * recorded file when files change much. A file with no record is estimated from its length.
 *
 * @example
 * ```ts
 * import { estimatedSeconds } from "./test_times.ts";
 * const times = { "tests/unit/prng_test.ts": 0.4 };
 * console.log(estimatedSeconds(times, "tests/unit/prng_test.ts", 2_000)); // 0.4
 * console.log(estimatedSeconds(times, "tests/unit/new_test.ts", 5_000)); // 25
 * ```
 */

/** Seconds per test file, by its path from the repository's root (`tests/unit/prng_test.ts`). */
export type TestTimes = Record<string, number>;

/** Characters of a test file per second it takes, for a file with no record (a rough guess). */
const CHARS_PER_SECOND = 200;

const RECORDED = new URL("./test_times.json", import.meta.url);
const WRITTEN = new URL("../tests/output/test_times.json", import.meta.url);

/** The recorded times (none when the file is missing or not JSON). */
export async function readTestTimes(url: URL = RECORDED): Promise<TestTimes> {
  try {
    const times = JSON.parse(await Deno.readTextFile(url));
    return times && typeof times === "object" ? times as TestTimes : {};
  } catch {
    return {};
  }
}

/** A file's seconds: as recorded, else guessed from its length in characters. */
export function estimatedSeconds(times: TestTimes, path: string, chars: number): number {
  const seconds = times[path];
  return typeof seconds === "number" && Number.isFinite(seconds)
    ? seconds
    : chars / CHARS_PER_SECOND;
}

/** Writes `times` (sorted by path, whole tenths of a second) to tests/output/test_times.json. */
export async function writeTestTimes(times: ReadonlyMap<string, number>, url: URL = WRITTEN) {
  const sorted: TestTimes = {};
  for (const path of [...times.keys()].sort()) {
    sorted[path] = Math.round(times.get(path)! * 10) / 10;
  }
  await Deno.mkdir(new URL(".", url), { recursive: true });
  await Deno.writeTextFile(url, JSON.stringify(sorted, null, 2) + "\n");
}
