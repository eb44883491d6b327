/**
 * Hosts and countdowns end to end in headless Chromium (pages that read no pixels: no drawing).
 * The scene's creator locks the settings and the guest's settings panel says why its controls
 * are disabled; a new host link replaces the host's old one; the host schedules a countdown 20 s ahead; both pages show the same remaining
 * seconds (within 1 s) and, after zero, the same finale launches at the same ticks (the ones
 * shared/finale.ts schedules) with equal state hashes.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { derivedLaunches } from "../../shared/derived.ts";
import { finaleEnd } from "../../shared/finale.ts";
import { CHECKPOINT_TICKS } from "../../shared/constants.ts";
import {
  browserTest,
  clickLikeAPerson,
  launchBrowser,
  openScene,
  type ScenePage,
} from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";

const finaleOf = (page: Page) => page.evaluate(() => snowfire.rules?.().countdown ?? null);

browserTest("browser hosts: a locked panel says why; a countdown and finale shared", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  const pages: ScenePage[] = [];
  try {
    const scene = `hosts-${crypto.randomUUID().slice(0, 8)}`;
    const host = await openScene(browser, server.url, scene, { name: "Hana", draw: false });
    pages.push(host);
    const guest = await openScene(browser, server.url, scene, { name: "Gus", draw: false });
    pages.push(guest);
    const a = host.page;
    const b = guest.page;

    await t.step("the host locks the settings; the guest's panel says why", async () => {
      assert.equal(await a.isVisible("#host-link-box"), false, "panel closed");
      await clickLikeAPerson(a, "#settings summary");
      await clickLikeAPerson(a, "#tab-host");
      assert.match(await a.inputValue("#host-link"), /#host=[A-Za-z0-9_-]{32}$/, "host link");
      await a.selectOption("#host-lock", "everyone");
      await b.waitForFunction(() => !document.querySelector<HTMLInputElement>("#show")!.disabled);
      await a.selectOption("#host-lock", "hosts");
      await b.waitForFunction(() => document.querySelector<HTMLInputElement>("#show")!.disabled);
      await clickLikeAPerson(b, "#settings summary");
      const rule = await b.textContent("#settings-rule");
      assert.match(rule ?? "", /Only the scene's hosts can change these settings/);
      assert.match(await b.getAttribute("#show", "title") ?? "", /only the scene's hosts/i);
      assert.equal(await b.isVisible("#host-panel"), false, "no host controls for a guest");
      const key = (await a.inputValue("#host-link")).split("#host=")[1];
      assert.equal(
        await b.evaluate((k) => document.documentElement.outerHTML.includes(k), key),
        false,
        "the guest's page never holds the host key",
      );
    });

    await t.step("a new host link replaces the old one", async () => {
      const old = await a.inputValue("#host-link");
      await a.locator("#host-rekey").scrollIntoViewIfNeeded();
      const box = await a.locator("#host-rekey").boundingBox();
      const [x, y] = [box!.x + box!.width / 2, box!.y + box!.height / 2];
      assert.equal(
        await a.evaluate(([x, y]) => document.elementFromPoint(x, y)?.id, [x, y]),
        "host-rekey",
      );
      await a.mouse.click(x, y);
      await a.waitForFunction(
        (was) => document.querySelector<HTMLInputElement>("#host-link")!.value !== was,
        old,
      );
      assert.match(await a.inputValue("#host-link"), /#host=[A-Za-z0-9_-]{32}$/, "a new link");
    });

    let countdown: { tick: number; seconds: number; intensity: number } | null = null;
    await t.step("the host schedules a countdown 20 s ahead; both count alike", async () => {
      await a.fill("#countdown-minutes", String(20 / 60));
      await a.fill("#finale-seconds", "5");
      await a.fill("#finale-intensity", "2");
      await clickLikeAPerson(a, "#countdown-start");
      // Each page in its own time (CI saw the host's starved page a moment behind the guest's).
      for (const page of [a, b]) {
        await page.waitForFunction(() => snowfire.rules?.().countdown != null, null, {
          timeout: 20_000,
        });
      }
      countdown = await finaleOf(b);
      assert.deepEqual(await finaleOf(a), countdown);
      const ahead = countdown!.tick - await a.evaluate(() => snowfire.horizon());
      assert.ok(ahead > 15 * 60 && ahead <= 20 * 60, `zero is 20 s ahead (${ahead} ticks)`);
      for (let i = 0; i < 3; i++) {
        const [left, right] = await Promise.all(
          [a, b].map((p) => p.evaluate(() => snowfire.countdownLeft?.() ?? null)),
        );
        assert.ok(
          left !== null && right !== null && Math.abs(left - right) <= 1,
          `${left} ${right}`,
        );
        // The HUD writes its text a few times a second, on frames: the guest's shows the count.
        await b.waitForFunction(
          () =>
            /Finale in 0:\d\d|^\d+$/.test(document.querySelector("#countdown")?.textContent ?? ""),
          null,
          { timeout: 10_000 },
        );
        const shown = await b.textContent("#countdown");
        assert.match(shown ?? "", /Finale in 0:\d\d|^\d+$/);
        // The next reading at another second of the count: the guest's countdown moved on.
        await b.waitForFunction((was) => (snowfire.countdownLeft?.() ?? -1) < was, right, {
          timeout: 10_000,
        });
      }
      await b.waitForFunction(() => (snowfire.countdownLeft?.() ?? 99) <= 10, null, {
        timeout: 30_000,
      });
      assert.equal(
        await b.evaluate(() =>
          document.querySelector("#countdown")!.classList
            .contains("big")
        ),
        true,
        "the last ten seconds are large",
      );
    });

    await t.step("both pages get the same finale at the same ticks, equal hashes", async () => {
      const c = countdown!;
      const end = finaleEnd(c);
      const seed = await a.evaluate(() => snowfire.seed());
      // The finale is a derived launch source (e80ecac): a page applies a tick's launches in
      // derived seq order, not finale index order (the closing salvo shares one tick). The seeded
      // show holds while the finale plays, so its launches are the window's only ones.
      const sources = { show: false, theme: "auto", countdown: c, cueLists: [] } as const;
      const expected = derivedLaunches(seed, sources, c.tick, end).map((l) => [l.tick, l.body.x]);
      const checkpoint = Math.ceil((end + 60) / CHECKPOINT_TICKS) * CHECKPOINT_TICKS;
      const hashes: string[] = [];
      const seen: number[][][] = [];
      for (const page of [a, b]) {
        const handle = await page.waitForFunction(
          (at) => snowfire.hashAt(at) ?? false,
          checkpoint,
          { timeout: 60_000, polling: 200 },
        );
        hashes.push(await handle.jsonValue() as string);
        const events = await page.evaluate(() => snowfire.showEvents?.() ?? []);
        seen.push(events.filter((e) => e.tick >= c.tick && e.tick < end).map((e) => [e.tick, e.x]));
      }
      assert.ok(expected.length >= 15, "a dense barrage");
      assert.deepEqual(seen[0], expected, "the host's page got the scheduled finale");
      assert.deepEqual(seen[1], seen[0], "the guest's page the same, at the same ticks");
      assert.equal(hashes[0], hashes[1], "equal state hashes after the finale");
    });

    for (const { problems } of pages) assert.deepEqual(problems, []);
  } finally {
    for (const { page } of pages) await page.context().close();
    await browser.close();
    await server.close();
  }
});
