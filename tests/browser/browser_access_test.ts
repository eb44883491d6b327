/**
 * Accessibility in headless Chromium: with `prefers-reduced-motion` the page draws fewer flakes
 * (and says so in no console); the keyboard alone can launch a firework and change a setting.
 */
import assert from "node:assert/strict";
import { browserTest, launchBrowser, openScene, type ScenePage } from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";

browserTest("browser access: reduced motion and keyboard-only use", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  const pages: ScenePage[] = [];
  try {
    const scene = `access-${crypto.randomUUID().slice(0, 8)}`;
    const full = await openScene(browser, server.url, scene, {
      name: "Ana",
      width: 480,
      height: 360,
      // The flake counts are what the renderer prepares; nothing reads pixels.
      draw: false,
    });
    pages.push(full);
    const calm = await openScene(browser, server.url, scene, {
      name: "Ben",
      width: 480,
      height: 360,
      reducedMotion: true,
      draw: false,
    });
    pages.push(calm);

    await t.step("reduced motion draws about a third of the flakes", async () => {
      const drawn = async (page: ScenePage) =>
        await (await page.page.waitForFunction(
          () => snowfire.drawn().flakes > 0 ? snowfire.drawn().flakes : false,
          null,
          { timeout: 20_000 },
        )).jsonValue() as number;
      const [all, few] = await Promise.all([drawn(full), drawn(calm)]);
      assert.ok(few < all * 0.5 && few > all * 0.2, `${few} of ${all} flakes`);
    });

    await t.step("F on the focused scene launches a firework", async () => {
      const before = await calm.page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
      await calm.page.focus("#scene");
      await calm.page.keyboard.press("f");
      await calm.page.waitForFunction(
        (seq) =>
          snowfire.recentEvents().some((event) =>
            event.seq > seq && event.type === "launch" && event.by === snowfire.you
          ),
        before,
        { timeout: 20_000 },
      );
    });

    await t.step("the settings panel works from the keyboard", async () => {
      // Ana's page opened the scene, so she is its host: only hosts change settings by default.
      await full.page.focus("#settings summary");
      await full.page.keyboard.press("Enter");
      await full.page.focus("#fountain");
      await full.page.keyboard.press("Space");
      await calm.page.waitForFunction(() => snowfire.settings()?.fountain === false, null, {
        timeout: 20_000,
      });
    });

    await t.step("no console errors or warnings", () => {
      for (const page of pages) assert.deepEqual(page.problems, []);
    });
  } finally {
    await browser.close();
    await server.close();
  }
});
