import assert from "node:assert/strict";
import { estimatedSeconds, readTestTimes, writeTestTimes } from "../../testing/test_times.ts";

Deno.test("test times: a recorded file by its seconds, another by its length", () => {
  const times = { "tests/browser/a_test.ts": 90 };
  assert.equal(estimatedSeconds(times, "tests/browser/a_test.ts", 100), 90);
  assert.equal(estimatedSeconds(times, "tests/browser/b_test.ts", 10_000), 50);
});

Deno.test("test times: written sorted in tenths, read back; a missing file reads as none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const url = new URL(`file://${dir}/out/times.json`);
    await writeTestTimes(
      new Map([["tests/unit/b_test.ts", 1.26], ["tests/unit/a_test.ts", 3]]),
      url,
    );
    const text = await Deno.readTextFile(url);
    assert.ok(text.indexOf("a_test") < text.indexOf("b_test"), text);
    assert.deepEqual(await readTestTimes(url), {
      "tests/unit/a_test.ts": 3,
      "tests/unit/b_test.ts": 1.3,
    });
    assert.deepEqual(await readTestTimes(new URL(`file://${dir}/none.json`)), {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
