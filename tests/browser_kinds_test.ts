/**
 * Every firework kind drawn in headless Chromium at 1280×720: a launch of each kind bursts on
 * screen and is saved mid-burst to `tests/output/kind-<kind>.png` (a close crop) for people to
 * look at; the particle gun's tracer stream goes to `tests/output/gun.png`. No console problems.
 */
import assert from "node:assert/strict";
import { FIREWORK_KINDS } from "../shared/firework_kinds.ts";
import { type LaunchShape, planFirework } from "../shared/firework_plan.ts";
import {
  browserTest,
  drawnScreenshot,
  launchBrowser,
  openScene,
  type ScenePage,
} from "../testing/browser.ts";
import { TestClient } from "../testing/test_client.ts";
import { startTestServer } from "../testing/test_server.ts";

const WIDTH = 1280;
const HEIGHT = 720;
/** Half the side of the saved crop around a burst, CSS pixels (a peony is ~300 px across). */
const CROP = 260;

browserTest(
  "browser kinds: each kind bursts on screen (screenshots in tests/output/)",
  async (t) => {
    const server = await startTestServer({ client: true });
    const browser = await launchBrowser();
    let client: TestClient | null = null;
    let watcher: ScenePage | null = null;
    try {
      const scene = `kinds-${crypto.randomUUID().slice(0, 8)}`;
      // The launcher creates the scene (its host: settings are the host's by default).
      const joined = await TestClient.join(server.url, scene, { name: "Launcher" });
      watcher = await openScene(browser, server.url, scene, {
        name: "Watcher",
        width: WIDTH,
        height: HEIGHT,
        // Each burst is checked from the page's world and camera; it draws for the pictures.
        draw: false,
      });
      const page = watcher.page;
      client = joined.client;
      const me = joined.welcome.you.id;
      client.submit({ type: "settings", settings: { show: false, snow: 0.3 } });
      await page.waitForFunction(() => snowfire.settings()?.show === false, null, {
        timeout: 20_000,
      });
      await Deno.mkdir("tests/output", { recursive: true });
      const seed = await page.evaluate(() => snowfire.seed());

      for (const [index, kind] of FIREWORK_KINDS.entries()) {
        await t.step(kind, async () => {
          // Alternate sides so the last kind's embers stay out of this one's picture.
          const x = index % 2 === 0 ? -18 : 18;
          const before = client!.events().length;
          client!.submit({ type: "launch", x, z: 0, y: 36, kind });
          const event = await client!.waitFor(
            (m) =>
              m.t === "event" && m.by === me && m.body.type === "launch" && m.body.kind === kind,
            10_000,
          );
          assert.ok(client!.events().length > before);
          const { seq, tick } = event as { seq: number; tick: number };
          const launched = { ...(event as { body: LaunchShape }), tick };
          // Mid-burst: the page's world 40 ticks (⅔ s) past the tick the plan bursts it.
          const plan = planFirework(seed, seq, launched.body);
          const burstTick = launched.tick + plan.riseTicks;
          // The display is held on the first frame at least ½ s into the burst: a software-GL
          // page moves in big steps, and the screenshot takes a while.
          const burst = await (await page.waitForFunction(
            ({ wanted, from }) => {
              if (snowfire.tick() < from) return false;
              const centroid = snowfire.fireworkCentroids().find((c) => c.seq === wanted);
              if (!centroid || centroid.count <= 50) return false;
              snowfire.holdDisplay(true);
              return centroid;
            },
            { wanted: seq, from: burstTick + 30 },
            { timeout: 40_000, polling: 50 },
          )).jsonValue() as { count: number } | null;
          try {
            assert.ok(burst && burst.count > 50, `${kind} has sparks mid-burst (${burst?.count})`);
            const at = await page.evaluate(
              ({ x, y, z }) => snowfire.project(x, y, z),
              { x, y: plan.burstY, z: 0 },
            );
            assert.ok(at, "the burst is in front of the camera");
            assert.ok(
              at.x > 0 && at.x < WIDTH && at.y > 0 && at.y < HEIGHT,
              `${kind} bursts on screen at (${at.x.toFixed(0)}, ${at.y.toFixed(0)})`,
            );
            const left = Math.max(0, Math.min(WIDTH - 2 * CROP, Math.round(at.x - CROP)));
            const top = Math.max(0, Math.min(HEIGHT - 2 * CROP, Math.round(at.y - CROP)));
            await drawnScreenshot(page, `tests/output/kind-${kind}.png`, {
              x: left,
              y: top,
              width: 2 * CROP,
              height: 2 * CROP,
            });
          } finally {
            await page.evaluate(() => snowfire.holdDisplay(false));
          }
        });
      }

      await t.step("the gun fires a stream of tracers (tests/output/gun.png)", async () => {
        await page.focus("#scene");
        await page.keyboard.press("g");
        // The display stops a second into the volley (the page holds it the moment it sees it).
        const fired = await (await page.waitForFunction(
          () => {
            const gun = snowfire.recentEvents().find((e) =>
              e.type === "gun" && e.by === snowfire.you
            );
            if (!gun) return false;
            snowfire.holdDisplay(gun.tick + 60);
            return gun.tick + 60;
          },
          null,
          { timeout: 20_000, polling: 30 },
        )).jsonValue() as number;
        try {
          await page.waitForFunction((at) => snowfire.renderTime() === at, fired, {
            timeout: 40_000,
          });
          await drawnScreenshot(page, "tests/output/gun.png");
        } finally {
          await page.evaluate(() => snowfire.holdDisplay(false));
        }
      });

      await t.step("no console error or warning", () => {
        assert.deepEqual(watcher!.problems, []);
      });
    } finally {
      await client?.close();
      await browser.close();
      await server.close();
    }
  },
);
