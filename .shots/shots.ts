import { drawnScreenshot, launchBrowser, openScene } from "../testing/browser.ts";
import { startTestServer } from "../testing/test_server.ts";
const out = Deno.args[0] ?? "/work/notes/shots-seeds-view";
const tag = Deno.args[1] ?? "";
const server = await startTestServer();
const browser = await launchBrowser();
try {
  for (const [width, height] of [[1280, 720], [390, 844]]) {
    const { page, problems } = await openScene(browser, server.url, `shots${width}`, {
      name: "shots", width, height, touch: width < 500, noWait: true, draw: false,
    });
    try {
      await page.waitForFunction(() => globalThis.snowfire?.connected() && snowfire.tick() > 0, null, { timeout: 240_000, polling: 500 });
    } catch (e) {
      console.log("problems", problems);
      throw e;
    }
    await page.waitForFunction(() => snowfire.tick() > 400, null, { timeout: 240_000 });
    if (!Deno.env.get("SKIP_DEFAULT")) await drawnScreenshot(page, `${out}/${tag}default-${width}x${height}.png`);
    // Zoom toward the fountain: wheel over its projected centre.
    for (let k = 0; k < 12; k++) {
      const p = await page.evaluate(() => snowfire.project(0, 2.5, 0));
      if (!p) break;
      await page.mouse.move(p.x, p.y);
      await page.mouse.wheel(0, -400);
      const v = await page.evaluate(() => snowfire.view());
      const d = Math.hypot(...v.position.map((c, i) => c - v.target[i]));
      console.log(`zoom ${k}: distance ${d.toFixed(1)}`);
      if (d < 9) break;
    }
    await page.waitForTimeout(3000);
    await drawnScreenshot(page, `${out}/${tag}fountain-${width}x${height}.png`);
    console.log(width, problems);
    await page.context().close();
  }
} finally {
  await browser.close();
  await server.close();
}
