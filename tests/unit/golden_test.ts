import assert from "node:assert/strict";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { replay } from "../../shared/replay.ts";
import { readReplay } from "../../scripts/replay.ts";

const dir = new URL("../fixtures/replay/", import.meta.url);
const names = [
  "snow_only",
  "one_firework",
  "overlapping_fireworks",
  "fountain",
  "gun",
  "mixed",
  "aimed",
  "show",
  ...FIREWORK_KINDS.map((kind) => `kind_${kind}`),
];

Deno.test("golden fixtures replay to their committed hashes", async (t) => {
  for (const name of names) {
    await t.step(name, async () => {
      const path = new URL(`${name}.json`, dir).pathname;
      const fixture = await readReplay(path) as Awaited<ReturnType<typeof readReplay>> & {
        expected: { tick: number; hash: string }[];
      };
      assert.ok(fixture.expected.length >= 5, "a fixture has several checkpoints");
      assert.deepEqual(replay(fixture), fixture.expected);
    });
  }
});

Deno.test("golden hashes differ between checkpoints and between scenarios", async () => {
  const seen = new Set<string>();
  let total = 0;
  for (const name of names) {
    const text = await Deno.readTextFile(new URL(`${name}.json`, dir));
    for (const { hash } of JSON.parse(text).expected as { hash: string }[]) {
      seen.add(hash);
      total++;
    }
  }
  assert.deepEqual(seen.size, total);
});

Deno.test("replay script prints one TICK HASH line per checkpoint", async () => {
  const path = new URL("one_firework.json", dir).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      new URL("../../scripts/replay.ts", import.meta.url).pathname,
      path,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const fixture = JSON.parse(await Deno.readTextFile(path));
  const expected = fixture.expected.map((c: { tick: number; hash: string }) =>
    `${c.tick} ${c.hash}`
  );
  assert.deepEqual(new TextDecoder().decode(output.stdout).trim().split("\n"), expected);
});
