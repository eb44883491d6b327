/**
 * End to end in headless Chromium: real server, several pages in one scene. A click in one page
 * launches a firework every page simulates identically (same hash at the same checkpoint) and
 * that lights up the canvas where it bursts; a late joiner converges on the same hash; a settings
 * change travels from one page to the others; no page logs a console problem.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { TICK_RATE } from "../../shared/constants.ts";
import { planFirework } from "../../shared/firework_plan.ts";
import {
  browserTest,
  checkLikeAPerson,
  clickLikeAPerson,
  drawnScreenshot,
  launchBrowser,
  openScene,
  type ScenePage,
} from "../../testing/browser.ts";
import { brightPixelsAround } from "../../testing/browser_pixels.ts";
import { launchAnswered, launchMark } from "../../testing/launch_answer.ts";
import { startTestServer } from "../../testing/test_server.ts";

/** Waits until `page` has a recorded hash at a checkpoint tick after `afterTick`; returns it. */
async function checkpointAfter(page: Page, afterTick: number): Promise<number> {
  const handle = await page.waitForFunction(
    (after) => snowfire.checkpoints().find((tick) => tick > after) ?? false,
    afterTick,
    { timeout: 30_000, polling: 100 },
  );
  return await handle.jsonValue() as number;
}

/** Waits until `page` has the hash for checkpoint `tick`, and returns it. */
async function hashAt(page: Page, tick: number): Promise<string> {
  const handle = await page.waitForFunction(
    (at) => snowfire.hashAt(at) ?? (snowfire.tick() > at + 6000 ? "missed" : false),
    tick,
    { timeout: 30_000, polling: 100 },
  );
  return await handle.jsonValue() as string;
}

browserTest("browser scene: pages share fireworks, settings and hashes", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  const pages: ScenePage[] = [];
  try {
    const scene = `e2e-${crypto.randomUUID().slice(0, 8)}`;
    // Page A's pixels are read; it draws only for those steps (a drawing page on software GL
    // makes every other step wait for its frames).
    const a = await openScene(browser, server.url, scene, {
      name: "Ana",
      width: 800,
      height: 600,
      draw: false,
    });
    pages.push(a);
    const b = await openScene(browser, server.url, scene, {
      name: "Ben",
      width: 480,
      height: 360,
      // B and C are compared by hash.
      draw: false,
    });
    pages.push(b);

    await t.step("the host (A, the scene's creator) opens the settings to everyone", async () => {
      assert.equal(await b.page.isDisabled("#show"), true, "B's settings are the host's");
      await clickLikeAPerson(a.page, "#settings summary");
      await clickLikeAPerson(a.page, "#tab-host");
      await a.page.selectOption("#host-lock", "everyone");
      // Closed again by its toggle (Escape is a key typed into the select, not for the page).
      await clickLikeAPerson(a.page, "#settings summary");
      await b.page.waitForFunction(
        () =>
          snowfire.rules?.().lock === "everyone" &&
          !document.querySelector<HTMLInputElement>("#show")!.disabled,
        null,
        { timeout: 30_000 },
      );
    });

    await t.step("a settings change in page B reaches page A", async () => {
      await clickLikeAPerson(b.page, "#settings summary");
      await checkLikeAPerson(b.page, "#show", false);
      await checkLikeAPerson(b.page, 'input[name="snow"][value="0"]');
      await a.page.waitForFunction(
        () => snowfire.settings()?.show === false && snowfire.settings()?.snow === 0,
        null,
        { timeout: 40_000 },
      );
      assert.equal(await a.page.isChecked("#show"), false, "A's panel shows the show off");
    });

    await t.step("a click in page A bursts in both pages with equal hashes", async () => {
      // Let the show's last fireworks die so the sky around the burst starts dark.
      await a.page.waitForFunction(() => snowfire.fireworkCentroid() === null, null, {
        timeout: 30_000,
        polling: 200,
      });
      const target = await a.page.evaluate(() => snowfire.project(8, 0, -12));
      assert.ok(target, "the launch point is in view");
      const launchedBefore = await a.page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
      await a.page.mouse.click(target.x, target.y);
      const launch = await (await a.page.waitForFunction(
        (seq) => {
          const event = snowfire.lastEvent();
          return event && event.seq > seq && event.type === "launch" ? event : false;
        },
        launchedBefore,
        { timeout: 20_000 },
      )).jsonValue() as { seq: number; tick: number; by: string };
      assert.equal(launch.by, await a.page.evaluate(() => snowfire.you), "A launched it");

      // Hold the display half a second into the burst (the plan's rise from the launch tick):
      // a younger burst is small and dimmed on purpose. On software GL each round trip below
      // takes a frame or more, and a burst could fade between reading it lit and unlit.
      const body = await a.page.evaluate(
        (seq) => snowfire.recentEvents().find((e) => e.seq === seq)?.body,
        launch.seq,
      );
      assert.equal(body?.type, "launch");
      const seed = await a.page.evaluate(() => snowfire.seed());
      const heldAt = launch.tick + planFirework(seed, launch.seq, body).riseTicks + 30;
      await a.page.evaluate((at) => snowfire.holdDisplay(at), heldAt);
      const burst = await (await a.page.waitForFunction(
        (at) => {
          if (snowfire.renderTime() < at || snowfire.tick() < at) return false;
          return snowfire.fireworkCentroid() ?? false;
        },
        heldAt,
        { timeout: 30_000, polling: 50 },
      )).jsonValue() as { x: number; y: number; z: number; count: number };
      assert.ok(burst.count > 300, `the burst has sparks (${burst.count})`);
      try {
        assert.ok(
          Math.abs(burst.x - 8) < 12 && Math.abs(burst.z + 12) < 12,
          "burst above the click",
        );
        const where = await a.page.evaluate(
          ({ x, y, z }) => snowfire.project(x, y, z),
          burst,
        );
        assert.ok(where, "the burst is in view");
        const nextFrames = () =>
          a.page.evaluate(() =>
            new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))
          );
        await a.page.evaluate(() => snowfire.setDrawing(true));
        await nextFrames();
        // Tone mapping keeps coloured sparks below white (no blown-out disc): count what is
        // clearly brighter than the night sky and the snow, not only near-white pixels.
        const lit = await brightPixelsAround(a.page, where.x, where.y, 70, 100);
        // The same frame with the fireworks layer hidden: what the burst itself adds.
        await a.page.evaluate(() => snowfire.setLayerVisible("fireworks", false));
        await nextFrames();
        const unlit = await brightPixelsAround(a.page, where.x, where.y, 70, 100);
        await a.page.evaluate(() => snowfire.setLayerVisible("fireworks", true));
        console.log(`burst: ${lit} bright pixels around it, ${unlit} with the fireworks hidden`);
        assert.ok(
          lit - unlit > 50,
          `the burst lights the canvas (${lit} vs ${unlit} bright pixels)`,
        );
      } finally {
        await a.page.evaluate(() => {
          snowfire.setDrawing(false);
          snowfire.holdDisplay(false);
        });
      }

      const tick = await checkpointAfter(a.page, launch.tick + 30);
      const [hashA, hashB] = await Promise.all([hashAt(a.page, tick), hashAt(b.page, tick)]);
      assert.match(hashA, /^[0-9a-f]{16}$/);
      assert.equal(hashB, hashA, `same hash at checkpoint ${tick}`);
      const bLaunch = await b.page.evaluate(() => snowfire.lastEvent());
      assert.equal(bLaunch?.seq, launch.seq, "B received the same launch");
    });

    await t.step("a page joining later reaches the same hash", async () => {
      const c = await openScene(browser, server.url, scene, {
        name: "Cy",
        width: 480,
        height: 360,
        draw: false,
      });
      pages.push(c);
      const joinedAt = await c.page.evaluate(() => snowfire.tick());
      const tick = await checkpointAfter(c.page, joinedAt);
      const [hashA, hashC] = await Promise.all([hashAt(a.page, tick), hashAt(c.page, tick)]);
      assert.notEqual(hashC, "missed");
      assert.equal(hashC, hashA, `late joiner agrees at checkpoint ${tick}`);
      assert.equal(
        await c.page.evaluate(() => snowfire.settings()?.show),
        false,
        "the late joiner got the settings",
      );
    });

    await t.step("a busy scene renders (screenshot in tests/output/busy-scene.png)", async () => {
      await checkLikeAPerson(b.page, 'input[name="snow"][value="1"]');
      await checkLikeAPerson(b.page, "#show");
      await a.page.waitForFunction(() => snowfire.settings()?.snow === 1, null, {
        timeout: 20_000,
      });
      for (const [x, z] of [[-25, -20], [20, -30], [0, -5], [-10, 10], [30, 5], [12, -18]]) {
        const at = await a.page.evaluate(([px, pz]) => snowfire.project(px, 0, pz), [x, z]);
        if (!at) continue;
        // What has come so far (the last event, the refusals), and whether the sky is under the
        // point.
        const mark = await launchMark(a.page);
        const sky = await a.page.evaluate(
          ({ x, y }) => document.elementFromPoint(x, y)?.id === "scene",
          at,
        );
        await a.page.mouse.click(at.x, at.y);
        // A click on the sky is answered before the next (its launch, or a refusal).
        if (sky) await launchAnswered(a.page, mark, 20_000);
      }
      await a.page.focus("#scene");
      await a.page.keyboard.press("g");
      await a.page.waitForFunction(
        () => snowfire.recentEvents().some((e) => e.type === "gun" && e.by === snowfire.you),
        null,
        { timeout: 20_000 },
      );
      await a.page.waitForFunction(() => snowfire.live() > 8000, null, { timeout: 30_000 });
      // The busy sky develops for the picture: the display 1.2 s of scene time on.
      const busyAt = await a.page.evaluate(() => snowfire.renderTime());
      await a.page.waitForFunction(
        (at) => snowfire.renderTime() >= at,
        busyAt + 1.2 * TICK_RATE,
        { timeout: 30_000, polling: 50 },
      );
      await Deno.mkdir("tests/output", { recursive: true });
      await drawnScreenshot(a.page, "tests/output/busy-scene.png");
      const errors = await a.page.evaluate(() => snowfire.errors);
      assert.ok(
        errors.every((code) => code === "rate_limited" || code === "sky_full"),
        `${errors}`,
      );
    });

    await t.step("a resolution change never leaves a black frame on the canvas", async () => {
      // Pixels brighter than the night sky, on the canvas as the browser would show it now; with
      // a ratio, read in the same task as the governor's request for it (the compositor could
      // take the canvas between two frames: resizing the drawing buffer at once cleared it).
      const lit = (ratio?: number) =>
        a.page.evaluate((ratio) => {
          if (ratio !== undefined) snowfire.setPixelRatio(ratio);
          const canvas = document.getElementById("scene") as HTMLCanvasElement;
          const copy = document.createElement("canvas");
          copy.width = canvas.width;
          copy.height = canvas.height;
          const ctx = copy.getContext("2d", { willReadFrequently: true })!;
          ctx.drawImage(canvas, 0, 0);
          const pixels = ctx.getImageData(0, 0, copy.width, copy.height).data;
          let n = 0;
          for (let i = 0; i < pixels.length; i += 4) {
            if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 60) n++;
          }
          return { n, width: canvas.width };
        }, ratio);
      await a.page.evaluate(() =>
        new Promise((shown) => {
          snowfire.setDrawing(true);
          requestAnimationFrame(() => requestAnimationFrame(shown));
        })
      );
      const before = await lit();
      assert.ok(before.n > 1000, `the scene shows something: ${before.n}`);
      const between = await lit(0.5);
      assert.ok(between.n >= before.n / 2, `not black between frames: ${between.n} of ${before.n}`);
      assert.equal(between.width, before.width, "the buffer waits for the next frame");
      await a.page.evaluate(() =>
        new Promise((shown) => requestAnimationFrame(() => requestAnimationFrame(shown)))
      );
      const after = await lit();
      assert.equal(after.width, Math.round(before.width / 2), "the new ratio took effect");
      assert.ok(after.n > before.n / 8, `the next frame is drawn: ${after.n} (${before.n} at 1×)`);
      await a.page.evaluate(() => snowfire.setPixelRatio(1));
    });

    await t.step("no page logged a console error or warning", () => {
      for (const page of pages) assert.deepEqual(page.problems, []);
    });
  } finally {
    await browser.close();
    await server.close();
  }
});
