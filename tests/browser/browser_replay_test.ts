/**
 * The golden replay fixtures hash identically inside Chromium: `shared/replay.ts` is bundled with
 * esbuild, evaluated in a blank page, and every fixture's checkpoints are compared with the hashes
 * recorded in `tests/fixtures/replay/*.json`.
 */
import assert from "node:assert/strict";
import { bundleScript } from "../../tools/bundle.ts";
import { browserTest, launchBrowser } from "../../testing/browser.ts";

interface Fixture {
  seed: number;
  settings?: Record<string, unknown>;
  events: unknown[];
  ticks: number;
  every: number;
  expected: { tick: number; hash: string }[];
}

const FIXTURE_DIR = new URL("../fixtures/replay/", import.meta.url);

/** Bundles `shared/replay.ts` into a script that defines `globalThis.SnowfireReplay`. */
function bundleReplay(): Promise<string> {
  return bundleScript(new URL("../../shared/replay.ts", import.meta.url), "SnowfireReplay");
}

browserTest("browser replay: golden fixtures hash identically in Chromium", async (t) => {
  const names: string[] = [];
  for await (const entry of Deno.readDir(FIXTURE_DIR)) {
    if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
  }
  names.sort();
  assert.ok(names.length > 0, "there are replay fixtures to check");
  const script = await bundleReplay();
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.setContent("<!doctype html><title>replay</title>");
    await page.addScriptTag({ content: script });
    for (const name of names) {
      await t.step(`${name} matches its recorded hashes`, async () => {
        const fixture = JSON.parse(
          await Deno.readTextFile(new URL(name, FIXTURE_DIR)),
        ) as Fixture;
        assert.ok(fixture.expected.length > 0, "the fixture records checkpoints");
        const actual = await page.evaluate((input) => {
          const api = (globalThis as unknown as {
            SnowfireReplay: { replay(o: unknown): { tick: number; hash: string }[] };
          }).SnowfireReplay;
          return api.replay(input);
        }, {
          seed: fixture.seed,
          settings: fixture.settings,
          events: fixture.events,
          ticks: fixture.ticks,
          every: fixture.every,
        });
        assert.deepEqual(actual, fixture.expected);
      });
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
