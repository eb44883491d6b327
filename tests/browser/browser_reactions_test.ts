/**
 * Whose burst and quick reactions end to end in headless Chromium (pages that draw only for the
 * screenshots): a guest's launch shows the guest's name, in their colour, by the burst on the
 * host's page; a reaction sent from one page floats up on the other; on a phone the replay view
 * keeps the tap hint just above the replay bar. Screenshots (tests/output/): a labelled burst and a
 * reaction at 1280×720 and 390×844, and the phone's replay view.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { TICK_RATE } from "../../shared/constants.ts";
import { type LaunchShape, planFirework } from "../../shared/firework_plan.ts";
import {
  browserTest,
  drawnScreenshot,
  launchBrowser,
  openScene,
  type ScenePage,
} from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";

const OUT = new URL("../output/", import.meta.url).pathname;

/** Launches: a tap in the sky on a phone, else the F key (with the canvas focused). */
async function launch(page: Page): Promise<void> {
  const size = page.viewportSize()!;
  if (size.width < 500) {
    await page.tap("#scene", { position: { x: size.width / 2, y: size.height * 0.3 } });
    return;
  }
  await page.focus("#scene");
  await page.keyboard.press("f");
}

/** A burst label as the page's debug hook reports it. */
type Label = { name: string; color: string; tick: number; visible: boolean; x: number; y: number };

/** Waits until `page` shows a burst label for `name`; returns it as seen then. */
async function labelFor(page: Page, name: string): Promise<Label> {
  try {
    const found = await page.waitForFunction(
      (n) => (snowfire.burstLabels?.() ?? []).find((l) => l.name === n && l.visible),
      name,
      { timeout: 30_000, polling: 50 },
    );
    return await found.jsonValue() as Label;
  } catch (e) {
    const state = await page.evaluate(() => ({
      labels: snowfire.burstLabels?.() ?? [],
      renderTime: snowfire.renderTime(),
      tick: snowfire.tick(),
    }));
    throw new Error(`no visible label for ${name}: ${JSON.stringify(state)}`, { cause: e });
  }
}

/**
 * A burst label's picture: `page` draws while `act` launches; once it shows a label for `name`,
 * the displayed time is held a
 * third of a second later (the shell open, the label still up), the page draws for the picture,
 * and time runs on. (Drawing on software GL takes seconds a frame: longer than a label lasts.)
 */
async function labelShot(
  page: Page,
  name: string,
  path: string,
  act: () => Promise<void>,
): Promise<Label> {
  // Drawing from before the launch: sparks reach the GPU when they are born. The display is held
  // where it is until the burst's tick is known: a label lasts 2 s of the display, and a CI run
  // under load drew past it before the hold below went in (the label expired, then never showed).
  await page.evaluate(() => {
    snowfire.setDrawing(true);
    snowfire.holdDisplay(true);
  });
  await act();
  // The label is made when the launch arrives, before its burst: hold the display a third of a
  // second after the burst.
  const pending = await page.waitForFunction(
    (n) => (snowfire.burstLabels?.() ?? []).find((l) => l.name === n),
    name,
    { timeout: 30_000, polling: 50 },
  );
  const held = (await pending.jsonValue() as { tick: number }).tick + 20;
  await page.evaluate((t) => snowfire.holdDisplay(t), held);
  try {
    // The world catches up with the displayed time within a step budget per frame: wait for both
    // (a picture taken with the world behind showed the label and no shell).
    await page.waitForFunction(
      (t) => snowfire.renderTime() >= t && snowfire.tick() >= t,
      held,
      { timeout: 30_000 },
    );
    const label = await labelFor(page, name);
    await drawnScreenshot(page, path);
    return label;
  } finally {
    // Drawing stops again: every later action would wait for this page's slow frames.
    await page.evaluate(() => {
      snowfire.setDrawing(false);
      snowfire.holdDisplay(false);
    });
  }
}

/**
 * A reaction's picture: the page draws one frame of the sky first, then `act` sends the reaction
 * and the picture is taken as soon as `shown` holds, without drawing again (a reaction floats for
 * 3 s of wall time, a frame on software GL takes seconds).
 */
async function reactionShot(
  page: Page,
  path: string,
  act: () => Promise<void>,
  shown: () => Promise<void>,
): Promise<void> {
  await page.evaluate(() => snowfire.setDrawing(true));
  await page.evaluate(() =>
    new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))
  );
  await page.evaluate(() => snowfire.setDrawing(false));
  await act();
  await shown();
  await page.screenshot({ path });
}

browserTest("browser reactions: a guest's burst is labelled; reactions float up", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  const pages: ScenePage[] = [];
  try {
    const scene = `react-${crypto.randomUUID().slice(0, 8)}`;
    const host = await openScene(browser, server.url, scene, {
      name: "Hana",
      draw: false,
      width: 1280,
      height: 720,
    });
    pages.push(host);
    const guest = await openScene(browser, server.url, scene, {
      name: "Gus",
      draw: false,
      width: 390,
      height: 844,
      touch: true,
    });
    pages.push(guest);
    const a = host.page;
    const b = guest.page;
    // A quiet sky: the host turns the show off, so every burst is someone's.
    await a.click("#settings summary");
    await a.uncheck("#show");
    await a.click("#settings summary");
    await b.waitForFunction(() => snowfire.settings()?.show === false);

    await t.step("on a phone the replay view keeps the tap hint above the bar", async () => {
      await b.click("#replay-open");
      await b.waitForSelector("#replay-bar", { state: "visible" });
      const [help, bar] = await Promise.all(
        ["#help", "#replay-bar"].map(async (s) => (await b.locator(s).boundingBox())!),
      );
      assert.ok(
        bar.y - (help.y + help.height) <= 24,
        `hint bottom ${help.y + help.height} right above the bar at ${bar.y}`,
      );
      await drawnScreenshot(b, `${OUT}reactions_replay_390x844.png`);
      await b.click("#replay-open");
      await b.waitForSelector("#replay-bar", { state: "hidden" });
    });

    await t.step(
      "a guest's burst shows their name in their colour on the host's page",
      async () => {
        const gusId = await b.evaluate(() => snowfire.you);
        let label!: Awaited<ReturnType<typeof labelFor>>;
        await reactionShot(a, `${OUT}reactions_label_1280x720.png`, () => launch(b), async () => {
          label = await labelFor(a, "Gus");

          // The shell opens a little further before the picture (the label lasts ~2 s): the
          // display 0.4 s of scene time past the burst.
          await a.waitForFunction(
            (at) => snowfire.renderTime() >= at,
            label.tick + 0.4 * TICK_RATE,
            { timeout: 30_000, polling: 50 },
          );
        });
        assert.ok(label.x > 0 && label.x < 1280 && label.y > 0 && label.y < 720, "on screen");
        const expected = await b.evaluate((id) => snowfire.colorOf?.(id) ?? "", gusId);
        assert.match(expected, /^#|^hsl|^rgb/, "the guest's colour from its own welcome");
        const rgb = await a.evaluate((c) => {
          const probe = document.createElement("span");
          probe.style.color = c;
          return probe.style.color;
        }, expected);
        assert.equal(label.color, rgb, "the launcher's colour");
        // The host's launch is labelled on the phone.
        await labelShot(b, "Hana", `${OUT}reactions_label_390x844.png`, () => launch(a));
        await a.waitForFunction(
          () => !(snowfire.burstLabels?.() ?? []).some((l) => l.name === "Gus" && l.visible),
          null,
          { timeout: 30_000 },
        );
      },
    );

    await t.step("a reaction floats up on the other page", async () => {
      await b.click("#open-react");
      await reactionShot(
        a,
        `${OUT}reactions_float_1280x720.png`,
        () => b.click('#react-buttons [data-emoji="🎉"]'),
        async () => {
          await a.waitForFunction(
            () => (snowfire.reactions?.() ?? []).some((r) => r.emoji === "🎉" && r.name === "Gus"),
            null,
            { timeout: 20_000 },
          );
        },
      );
      await a.click("#open-react");
      await reactionShot(
        b,
        `${OUT}reactions_float_390x844.png`,
        () => a.click('#react-buttons [data-emoji="❤️"]'),
        async () => {
          await b.waitForFunction(
            () => (snowfire.reactions?.() ?? []).some((r) => r.emoji === "❤️" && r.name === "Hana"),
            null,
            { timeout: 20_000 },
          );
        },
      );
      // A tap in the sky with the reaction panel open closes it and still launches.
      const before = await a.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
      await launch(b);
      await a.waitForFunction((seq) => (snowfire.lastEvent()?.seq ?? 0) > seq, before, {
        timeout: 20_000,
      });
      assert.equal(await b.isHidden("#react-panel"), true);
    });

    await t.step("the names switch turns labels off and is remembered", async () => {
      if (await a.isHidden("#react-panel")) await a.click("#open-react");
      await a.uncheck("#pref-labels");
      assert.equal(await a.evaluate(() => localStorage.getItem("snowfire.burstLabels")), "off");
      const before = await a.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
      await launch(a);
      await a.waitForFunction((seq) => (snowfire.lastEvent()?.seq ?? 0) > seq, before, {
        timeout: 20_000,
      });
      // Half a second (30 ticks) past the burst, while a label would show (it lasts ~2 s).
      const event = (await a.evaluate(() => snowfire.lastEvent()))!;
      const seed = await a.evaluate(() => snowfire.seed());
      assert.equal(event.body.type, "launch");
      const burstTick = event.tick + planFirework(seed, event.seq, event.body as LaunchShape)
        .riseTicks;
      await a.waitForFunction((at) => snowfire.renderTime() >= at, burstTick + 30, {
        timeout: 20_000,
      });
      assert.deepEqual(await a.evaluate(() => snowfire.burstLabels?.() ?? []), []);
    });
    for (const page of pages) assert.deepEqual(page.problems, []);
  } finally {
    for (const page of pages) await page.page.context().close().catch(() => {});
    await browser.close();
    await server.close();
  }
});
