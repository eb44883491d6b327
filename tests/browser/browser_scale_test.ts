/**
 * Scale in headless Chromium, at the default view, 1280×720 and 390×844: a peony's sparks at
 * their fullest extent span about a quarter of the screen's width (measured from the page's own
 * camera and world), and the particle gun's tracers stream from the camera along the view. The
 * pictures go to `tests/output/scale-peony-<w>x<h>.png` and `tests/output/scale-gun-<w>x<h>.png`
 * for people to look at.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { AIM_HEIGHT_PREFERRED } from "../../client/input/aim.ts";
import { fitDefaultView } from "../../client/render/camera_fit.ts";
import { planFirework } from "../../shared/firework_plan.ts";
import {
  browserTest,
  drawnScreenshot,
  launchBrowser,
  openScene,
  type ScenePage,
} from "../../testing/browser.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { SceneStore } from "../../server/local/store.ts";
import { initialSnapshot } from "../../shared/settings.ts";

/**
 * The scene's seed, fixed: a peony's size follows its seed (seed 002's spread of spark speeds),
 * and over random scene seeds the widest span at 1280×720 came out 0.170–0.234 of the width and
 * 0.32–0.57 at 390×844, so a floor with any margin failed now and then (CI saw 0.170 against
 * 0.17). With one seed the spans are the same every run, and the bands say what a peony should
 * span on each screen.
 */
const SEED = 20261201;
const VIEWS = [
  // A quarter of the width is the aim.
  { label: "1280x720", width: 1280, height: 720, touch: false, band: [0.18, 0.35] },
  // A peony on a narrow phone may take over half its width, never all of it.
  { label: "390x844", width: 390, height: 844, touch: true, band: [0.25, 0.65] },
] as const;
/** Ages (ticks after the burst) at which the peony's span is read; the picture is at the middle one. */
const SPAN_AGES = [60, 100, 140];
/** Ticks after the gun's event at which its picture is taken: the stream is 30 shots long. */
const GUN_AGE = 60;

/**
 * Lets `page` display up to `tick` and waits until it shows exactly that tick (a page on software
 * GL draws a frame every few hundred milliseconds, so waiting and then holding would overshoot).
 */
async function showTick(page: Page, tick: number): Promise<void> {
  await page.evaluate((at) => snowfire.holdDisplay(at), tick);
  await page.waitForFunction((at) => snowfire.renderTime() === at && snowfire.tick() === at, tick, {
    timeout: 90_000,
    polling: 50,
  });
}

/** The fraction of the width launch `seq` spans on `page` now (2nd–98th percentile). */
async function spanFraction(page: Page, seq: number): Promise<number> {
  const span = await page.evaluate((wanted) => snowfire.fireworkSpan(wanted), seq);
  assert.ok(span && span.count > 200, `the peony is visible (${span?.count} particles)`);
  return (span.right - span.left) / span.canvasWidth;
}

browserTest(
  "browser scale: a peony spans about a quarter of the default view; the gun streams from the camera",
  async (t) => {
    const scene = `scale-${crypto.randomUUID().slice(0, 8)}`;
    const dataDir = await Deno.makeTempDir({ prefix: "snowfire-scale-" });
    const store = new SceneStore(dataDir);
    const snapshot = initialSnapshot();
    store.createScene(scene, SEED, Date.now(), {
      ...snapshot,
      settings: { ...snapshot.settings, show: false, snow: 0.3 },
    });
    await store.close();
    const server = await startTestServer({ client: true, dataDir });
    const browser = await launchBrowser();
    let client: TestClient | null = null;
    const pages: ScenePage[] = [];
    try {
      const joined = await TestClient.join(server.url, scene, { name: "Launcher" });
      client = joined.client;
      const me = joined.welcome.you.id;
      for (const view of VIEWS) {
        pages.push(
          await openScene(browser, server.url, scene, {
            name: `Watcher ${view.label}`,
            width: view.width,
            height: view.height,
            touch: view.touch,
            // Spans come from the page's world and camera; it draws for the pictures.
            draw: false,
          }),
        );
      }
      for (const { page } of pages) {
        await page.waitForFunction(() => snowfire.settings()?.show === false, null, {
          timeout: 30_000,
        });
      }
      await Deno.mkdir("tests/output", { recursive: true });
      const seed = await pages[0].page.evaluate(() => snowfire.seed());
      assert.equal(seed, SEED);

      await t.step("a peony at the default view spans about a quarter of the width", async () => {
        // A ground click's burst height (client/aim.ts), over the middle of the launch area.
        client!.submit({
          type: "launch",
          x: 0,
          z: 0,
          y: AIM_HEIGHT_PREFERRED,
          kind: "peony",
          theme: "red-gold",
        });
        const event = await client!.waitFor(
          (m) => m.t === "event" && m.by === me && m.body.type === "launch",
          10_000,
        ) as Extract<Awaited<ReturnType<TestClient["waitFor"]>>, { t: "event" }>;
        assert.equal(event.body.type, "launch");
        const plan = planFirework(seed, event.seq, event.body);
        const burstTick = event.tick + plan.riseTicks;
        // Every page stops at the first age before it gets there (the rise takes over a second).
        for (const { page } of pages) {
          await page.evaluate((at) => snowfire.holdDisplay(at), burstTick + SPAN_AGES[0]);
        }
        for (const [k, view] of VIEWS.entries()) {
          const page = pages[k].page;
          const spans: number[] = [];
          try {
            for (const age of SPAN_AGES) {
              await showTick(page, burstTick + age);
              spans.push(await spanFraction(page, event.seq));
              if (age === SPAN_AGES[1]) {
                await drawnScreenshot(page, `tests/output/scale-peony-${view.label}.png`);
              }
            }
          } finally {
            await page.evaluate(() => snowfire.holdDisplay(false));
          }
          const widest = Math.max(...spans);
          console.log(
            `peony span at ${view.label}, ages ${SPAN_AGES.join("/")}: ` +
              spans.map((s) => s.toFixed(3)).join(" / "),
          );
          assert.ok(
            widest >= view.band[0] && widest <= view.band[1],
            `${view.label}: the peony spans ${widest.toFixed(3)} of the width`,
          );
        }
      });

      await t.step("the gun streams tracers from the camera along the view", async () => {
        for (const [k, view] of VIEWS.entries()) {
          const page = pages[k].page;
          await page.focus("#scene");
          await page.keyboard.press("g");
          // The page holds its display GUN_AGE ticks after the volley the moment it sees it.
          const fired = await (await page.waitForFunction(
            (age) => {
              const events = snowfire.recentEvents().filter((e) =>
                e.type === "gun" && e.by === snowfire.you
              );
              const last = events[events.length - 1];
              if (!last) return false;
              snowfire.holdDisplay(last.tick + age);
              return last;
            },
            GUN_AGE,
            { timeout: 30_000, polling: 30 },
          )).jsonValue() as { tick: number; body: { origin: number[] } };
          try {
            await showTick(page, fired.tick + GUN_AGE);
            // The stream starts at the camera (the page has not moved from its default view).
            const eye = fitDefaultView(view.width / view.height).position;
            const [x, y, z] = fired.body.origin;
            const near = Math.hypot(x - eye.x, y - eye.y, z - eye.z);
            assert.ok(near < 6, `${view.label}: the gun fires from the camera (${near} m away)`);
            await drawnScreenshot(page, `tests/output/scale-gun-${view.label}.png`);
          } finally {
            await page.evaluate(() => snowfire.holdDisplay(false));
          }
        }
      });

      await t.step("no console error or warning", () => {
        for (const { problems } of pages) assert.deepEqual(problems, []);
      });
    } finally {
      await client?.close();
      await browser.close();
      await server.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
);
