/**
 * Every firework kind drawn in headless Chromium at 1280×720: a launch of each kind bursts on
 * screen and is saved mid-burst to `tests/output/kind-<kind>.png` (a close crop) for people to
 * look at. Kinds go up four at a time side by side, so a crop may show a neighbour's edge. The
 * particle gun's tracers are drawn (the frame has more bright pixels with the gun's layer than
 * without) and go to `tests/output/gun.png`. No console problems.
 */
import assert from "node:assert/strict";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { type LaunchShape, planFirework } from "../../shared/firework_plan.ts";
import { brightPixelsAround } from "../../testing/browser_pixels.ts";
import {
  browserTest,
  drawFrame,
  drawnScreenshot,
  launchBrowser,
  openScene,
  type ScenePage,
} from "../../testing/browser.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

const WIDTH = 1280;
const HEIGHT = 720;
/** Half the side of the saved crop around a burst, CSS pixels (a peony is ~300 px across). */
const CROP = 220;
/** Kinds launched together, and the metres between them (a crop shows its neighbours' edges). */
const WAVE = 4;
const SPACING = 24;
/** Luminance (of 255) a pixel must pass to count as lit by a tracer. */
const TRACER_LIGHT = 100;
/**
 * Fewest pixels the gun's layer must light at its held frame (a second into the volley): it lit
 * ~5,200 of 1280×720 here (14,602 with it, 9,401 without); with the layer hidden in both frames
 * the two counts differed by 20.
 */
const MIN_TRACER_PIXELS = 1000;

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

      // Four kinds at a time, side by side at the same height, so they burst together: two
      // rises of the scene's clock instead of eight.
      for (let first = 0; first < FIREWORK_KINDS.length; first += WAVE) {
        const wave = FIREWORK_KINDS.slice(first, first + WAVE);
        await t.step(wave.join(", "), async () => {
          const launches: { kind: string; x: number; seq: number; burstY: number }[] = [];
          let heldAt = 0;
          for (const [index, kind] of wave.entries()) {
            const x = SPACING * (index - (wave.length - 1) / 2);
            client!.submit({ type: "launch", x, z: 0, y: 36, kind });
            const event = await client!.waitFor(
              (m) =>
                m.t === "event" && m.by === me && m.body.type === "launch" && m.body.kind === kind,
              10_000,
            ) as { seq: number; tick: number; body: LaunchShape };
            const plan = planFirework(seed, event.seq, event.body);
            launches.push({ kind, x, seq: event.seq, burstY: plan.burstY });
            // Mid-burst: 40 ticks (⅔ s) past the latest of the wave's bursts.
            heldAt = Math.max(heldAt, event.tick + plan.riseTicks + 40);
          }
          await page.evaluate((at) => snowfire.holdDisplay(at), heldAt);
          try {
            await page.waitForFunction(
              (at) => snowfire.renderTime() === at && snowfire.tick() >= at,
              heldAt,
              { timeout: 40_000, polling: 50 },
            );
            const centroids = await page.evaluate(() => snowfire.fireworkCentroids());
            let drawn = false;
            for (const { kind, x, seq, burstY } of launches) {
              const count = centroids.find((c) => c.seq === seq)?.count ?? 0;
              assert.ok(count > 50, `${kind} has sparks mid-burst (${count})`);
              const at = await page.evaluate(
                ({ x, y, z }) => snowfire.project(x, y, z),
                { x, y: burstY, z: 0 },
              );
              assert.ok(at, `${kind}: the burst is in front of the camera`);
              assert.ok(
                at.x > 0 && at.x < WIDTH && at.y > 0 && at.y < HEIGHT,
                `${kind} bursts on screen at (${at.x.toFixed(0)}, ${at.y.toFixed(0)})`,
              );
              const left = Math.max(0, Math.min(WIDTH - 2 * CROP, Math.round(at.x - CROP)));
              const top = Math.max(0, Math.min(HEIGHT - 2 * CROP, Math.round(at.y - CROP)));
              const clip = { x: left, y: top, width: 2 * CROP, height: 2 * CROP };
              const path = `tests/output/kind-${kind}.png`;
              // One drawn frame for the wave: the page keeps it while it does not draw.
              if (drawn) await page.screenshot({ path, clip });
              else await drawnScreenshot(page, path, clip);
              drawn = true;
            }
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
          // The tracers are drawn: the held frame has more bright pixels with the gun's layer
          // than without it (the same frame, the same tick).
          const bright = () => brightPixelsAround(page, WIDTH / 2, HEIGHT / 2, WIDTH, TRACER_LIGHT);
          const withGun = await bright();
          await page.evaluate(() => snowfire.setLayerVisible("gun", false));
          try {
            await drawFrame(page);
            const withoutGun = await bright();
            assert.ok(
              withGun - withoutGun >= MIN_TRACER_PIXELS,
              `the gun's tracers are drawn: ${withGun} bright pixels with them, ${withoutGun} without`,
            );
          } finally {
            await page.evaluate(() => snowfire.setLayerVisible("gun", true));
          }
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
