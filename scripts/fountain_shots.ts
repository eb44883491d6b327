/**
 * Pictures of the fountain close up for people to look at:
 * `deno run -A scripts/fountain_shots.ts [--out=DIR] [--sizes=1280x720,390x844]`. In headless
 * Chromium at each size it opens a scene with the show off and light snow, waits for the
 * fountain's water to fill its paths, zooms toward the fountain as a person would (two wheel
 * flicks of five notches, or two pinches on a phone-sized touch page), and saves the page; then
 * a host turns the fountain's rotation and spiral on and it saves the page again 4 s later.
 * Files: DIR/fountain-WxH.png and DIR/fountain-spin-spiral-WxH.png (default tests/output/).
 */
import type { CDPSession, Page } from "playwright-core";
import { drawnScreenshot, launchBrowser, openScene } from "../testing/browser.ts";
import { TestClient } from "../testing/test_client.ts";
import { startTestServer } from "../testing/test_server.ts";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return Deno.args.find((arg) => arg.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const out = flag("out", "tests/output");
const sizes = flag("sizes", "1280x720,390x844").split(",").map((s) => s.split("x").map(Number));

/** One pinch outward (two fingers apart) about `p`, through CDP touch events. */
async function pinch(cdp: CDPSession, p: { x: number; y: number }, gap: number): Promise<void> {
  const at = (k: number) => {
    const d = gap + (gap * 4 * k) / 10;
    return [{ x: p.x - d, y: p.y, id: 0 }, { x: p.x + d, y: p.y, id: 1 }];
  };
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at(0) });
  for (let k = 1; k <= 10; k++) {
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: at(k) });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
}

/** Zooms toward the fountain's centre twice, as a person does. */
async function zoomToFountain(page: Page, touch: boolean, width: number, height: number) {
  const p = await page.evaluate(() => snowfire.project(0, 1.2, 0));
  if (!p) throw new Error("the fountain is not in the starting view");
  const cdp = touch ? await page.context().newCDPSession(page) : null;
  for (let gesture = 0; gesture < 2; gesture++) {
    if (cdp) await pinch(cdp, p, Math.min(width, height) * 0.07);
    else {
      await page.mouse.move(p.x, p.y);
      for (let notch = 0; notch < 5; notch++) await page.mouse.wheel(0, -100);
    }
  }
}

const server = await startTestServer({ client: true });
const browser = await launchBrowser();
await Deno.mkdir(out, { recursive: true });
try {
  for (const [width, height] of sizes) {
    const scene = `fountain-${crypto.randomUUID().slice(0, 8)}`;
    const { client } = await TestClient.join(server.url, scene, { name: "Host" });
    const touch = width < 600;
    const { page } = await openScene(browser, server.url, scene, {
      name: "Watcher",
      width,
      height,
      draw: false,
      touch,
    });
    try {
      client.submit({ type: "settings", settings: { show: false, snow: 0.3 } });
      await page.waitForFunction(() => snowfire.settings()?.show === false);
      // A full life of water: drops on both dishes and splashes in the pool.
      const from = await page.evaluate(() => snowfire.tick());
      await page.waitForFunction((from) => snowfire.tick() > from + 300, from, {
        timeout: 120_000,
        polling: 200,
      });
      await zoomToFountain(page, touch, width, height);
      await drawnScreenshot(page, `${out}/fountain-${width}x${height}.png`);
      client.submit({
        type: "settings",
        settings: { fountainSpin: true, fountainSpiral: true },
      });
      await page.waitForFunction(() => snowfire.settings()?.fountainSpiral === true);
      const on = await page.evaluate(() => snowfire.tick());
      await page.waitForFunction((on) => snowfire.tick() > on + 240, on, {
        timeout: 120_000,
        polling: 200,
      });
      await drawnScreenshot(page, `${out}/fountain-spin-spiral-${width}x${height}.png`);
      console.log(`${width}x${height}: saved`);
    } finally {
      await client.close();
      await page.context().close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
