/**
 * Reconnection in headless Chromium: the server goes away and comes back on the same port and
 * data; the page says it is disconnected, reconnects with backoff, resumes the scene, and still
 * agrees, hash for hash, with a page that joins afterwards.
 */
import assert from "node:assert/strict";
import { browserTest, launchBrowser, openScene, type ScenePage } from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";

/** What Chromium itself logs while the server is down: failed reconnection attempts. */
const REFUSED = /WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|404|503/;

browserTest("browser reconnect: a page survives a server restart and stays in sync", async () => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  const pages: ScenePage[] = [];
  try {
    const scene = `reconnect-${crypto.randomUUID().slice(0, 8)}`;
    const a = await openScene(browser, server.url, scene, {
      name: "Ana",
      width: 480,
      height: 360,
      draw: false,
    });
    pages.push(a);
    const before = await a.page.evaluate(() => snowfire.tick());

    await server.shutdown();
    await a.page.waitForFunction(() => !snowfire.connected(), null, { timeout: 20_000 });
    await a.page.waitForSelector("#banner:not([hidden])", { timeout: 10_000 });
    assert.match(await a.page.textContent("#banner") ?? "", /Disconnected/);

    await server.start();
    await a.page.waitForFunction(
      (tick) => snowfire.connected() && snowfire.tick() > tick + 120,
      before,
      { timeout: 40_000 },
    );
    assert.equal(await a.page.isHidden("#banner"), true, "the banner goes away");

    const b = await openScene(browser, server.url, scene, {
      name: "Ben",
      width: 480,
      height: 360,
      draw: false,
    });
    pages.push(b);
    const joined = await b.page.evaluate(() => snowfire.tick());
    const tick = await (await b.page.waitForFunction(
      (after) => snowfire.checkpoints().find((t) => t > after) ?? false,
      joined,
      { timeout: 30_000 },
    )).jsonValue() as number;
    const hashes = await Promise.all(
      [a, b].map(async ({ page }) =>
        await (await page.waitForFunction((at) => snowfire.hashAt(at) ?? false, tick, {
          timeout: 30_000,
        })).jsonValue()
      ),
    );
    assert.equal(hashes[0], hashes[1], `same hash at checkpoint ${tick} after the restart`);
    assert.deepEqual(a.problems.filter((problem) => !REFUSED.test(problem)), []);
    assert.deepEqual(b.problems, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
