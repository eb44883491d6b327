/**
 * The HUD out of the way, in headless Chromium at 1280×720 (mouse), 390×844 and 844×390 (touch):
 * by default the controls cover at most 15 % (desktop) / 20 % (phone) of the viewport, measured
 * with `elementFromPoint` over a 48 × 48 grid; every bar control is on screen and on top; a panel
 * opens from the bar and a tap in the sky closes it and still launches; the QR code is shown
 * whole; after Hide HUD the F key launches at once. Screenshots: tests/output/hud-*.png.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  browserTest,
  clickLikeAPerson,
  drawnScreenshot,
  launchBrowser,
  openScene,
  type ScenePage,
} from "../../testing/browser.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

const VIEWPORTS = [
  { label: "desktop", width: 1280, height: 720, touch: false, bound: 0.15 },
  { label: "phone-portrait", width: 390, height: 844, touch: true, bound: 0.2 },
  { label: "phone-landscape", width: 844, height: 390, touch: true, bound: 0.2 },
] as const;

/** Share of a 48 × 48 grid of points where something other than the scene takes the tap. */
function coverage(page: Page): Promise<number> {
  return page.evaluate(() => {
    const n = 48;
    let covered = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const x = ((i + 0.5) / n) * innerWidth, y = ((j + 0.5) / n) * innerHeight;
        if (document.elementFromPoint(x, y)?.id !== "scene") covered++;
      }
    }
    return covered / (n * n);
  });
}

/** The bar's controls that are shown, each with whether it is whole on screen and on top. */
function barControls(page: Page): Promise<{ id: string; reachable: boolean }[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>(".hud-bar > button, .hud-bar summary")]
      .filter((node) => node.getBoundingClientRect().width > 0)
      .map((node) => {
        const r = node.getBoundingClientRect();
        const inside = r.left >= 0 && r.top >= 0 && r.right <= innerWidth &&
          r.bottom <= innerHeight;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return {
          id: node.id || node.parentElement!.id,
          reachable: inside && !!hit && node.contains(hit),
        };
      })
  );
}

/** True when `id` is inside the viewport and on top at its centre and four inner corners. */
function wholeAndOnTop(page: Page, id: string): Promise<boolean> {
  return page.evaluate((id) => {
    const node = document.getElementById(id)!;
    const r = node.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.top < 0) return false;
    if (r.right > innerWidth || r.bottom > innerHeight) return false;
    // Inner corners, clear of rounded ones (hit testing follows border-radius).
    const points = [[0.5, 0.5], [0.1, 0.1], [0.9, 0.1], [0.1, 0.9], [0.9, 0.9]];
    return points.every(([fx, fy]) => {
      const hit = document.elementFromPoint(r.left + fx * r.width, r.top + fy * r.height);
      return !!hit && node.contains(hit);
    });
  }, id);
}

/** Waits until a launch by this page after seq `after` arrives. */
async function waitForLaunch(page: Page, after: number, label: string): Promise<void> {
  await page.waitForFunction(
    (after) =>
      snowfire.recentEvents()
        .some((e) => e.seq > after && e.type === "launch" && e.by === snowfire.you),
    after,
    { timeout: 30_000, polling: 100 },
  ).catch((error) => {
    throw new Error(`${label}: no launch arrived`, { cause: error });
  });
}

async function tap(scene: ScenePage, touch: boolean, x: number, y: number): Promise<void> {
  if (touch) await scene.page.touchscreen.tap(x, y);
  else await scene.page.mouse.click(x, y);
}

async function activate(scene: ScenePage, touch: boolean, selector: string): Promise<void> {
  await clickLikeAPerson(scene.page, selector, { touch });
}

browserTest("browser HUD: out of the way, reachable, panels, QR, keys after Hide", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  try {
    const scene = `hud-${crypto.randomUUID().slice(0, 8)}`;
    await Deno.mkdir("tests/output", { recursive: true });
    // A quiet sky: the test is about the page, not about load on software GL.
    const settings = (await TestClient.join(server.url, scene, { name: "Settings" })).client;
    settings.submit({ type: "settings", settings: { show: false, snow: 0.3 } });
    await settings.close();

    for (const view of VIEWPORTS) {
      await t.step(view.label, async () => {
        const viewer = await openScene(browser, server.url, scene, {
          name: "Ana",
          width: view.width,
          height: view.height,
          touch: view.touch,
          // Coverage and reachability come from hit testing: only the screenshots draw.
          draw: false,
        });
        const { page } = viewer;
        // This shared machine's software GL draws a 1280×720 page at ~1 fps under load: a click
        // is done long before the page settles.
        page.setDefaultTimeout(90_000);
        try {
          await drawnScreenshot(page, `tests/output/hud-${view.label}.png`);
          const share = await coverage(page);
          console.log(`${view.label}: HUD covers ${(share * 100).toFixed(1)} % by default`);
          assert.ok(share <= view.bound, `${view.label}: covers ${share} > ${view.bound}`);

          for (const control of await barControls(page)) {
            assert.ok(control.reachable, `${view.label}: ${control.id} is on screen and on top`);
          }
          if (!view.touch) {
            // Every desktop width down to the narrow layout: the bar keeps every control whole
            // (its words give way to icons below ~1,100 px; at 800 px they overflowed it).
            for (const width of [1100, 1024, 900, 800, 701]) {
              await page.setViewportSize({ width, height: view.height });
              for (const control of await barControls(page)) {
                assert.ok(control.reachable, `${width} px: ${control.id} is on screen and on top`);
              }
              if (width === 800) await drawnScreenshot(page, "tests/output/hud-desktop-800.png");
            }
            await page.setViewportSize({ width: view.width, height: view.height });
          }

          // The scene panel opens from the bar, whole; a tap in the sky closes it and launches.
          await activate(viewer, view.touch, "#open-scene");
          assert.equal(await wholeAndOnTop(page, "copy-link"), true, "Copy link is reachable");
          assert.equal(await page.isVisible("#scene-panel"), true);
          const before = await page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
          await tap(viewer, view.touch, view.width / 2, view.height * 0.25);
          assert.equal(await page.isHidden("#scene-panel"), true, "a sky tap closes the panel");
          await waitForLaunch(page, before, `${view.label}: the closing tap`);

          // The QR code, whole and on top (so it can be scanned), also on a short screen.
          await activate(viewer, view.touch, "#open-scene");
          await activate(viewer, view.touch, "#show-qr");
          assert.equal(await wholeAndOnTop(page, "qr"), true, `${view.label}: the QR code whole`);
          await drawnScreenshot(page, `tests/output/hud-${view.label}-qr.png`);
          await page.keyboard.press("Escape");
          assert.equal(await page.isHidden("#qr-panel"), true, "Escape closes the QR code");
          await page.keyboard.press("Escape");
          assert.equal(await page.isHidden("#scene-panel"), true, "then the panel");

          // Settings and the picker open above the bar, whole.
          await activate(viewer, view.touch, "#settings summary");
          assert.equal(await wholeAndOnTop(page, "settings-form"), true, "settings whole");
          await drawnScreenshot(page, `tests/output/hud-${view.label}-settings.png`);
          await activate(viewer, view.touch, "#open-picker");
          assert.equal(await page.getAttribute("#settings", "open"), null, "one panel at a time");
          assert.equal(await wholeAndOnTop(page, "picker-panel"), true, "picker whole");
          await page.keyboard.press("Escape");
          assert.equal(await page.isHidden("#picker-panel"), true);

          // Hide HUD: the keys go to the scene at once (F launches), without clicking it first.
          if (!view.touch) {
            await clickLikeAPerson(page, "#hide-hud");
            const hidden = await page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
            await page.keyboard.press("f");
            await waitForLaunch(page, hidden, `${view.label}: F after Hide HUD`);
            await page.keyboard.press("h");
            assert.equal(await page.isVisible(".hud-bar"), true, "H shows the HUD again");
          }
          assert.deepEqual(viewer.problems, []);
        } finally {
          await page.context().close();
        }
      });
    }
  } finally {
    await browser.close();
    await server.close();
  }
});
