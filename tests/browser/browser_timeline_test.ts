/**
 * Replay on the page, end to end in headless Chromium: launches in a live scene, then the replay
 * bar scrubs back and the replayed world's hash equals the live world's at shared checkpoints
 * (rebuilt at a seek, and reached by playing on); Live returns at once on the same socket; a
 * moment link (`?at=t<tick>` and the readable UTC form) opens in replay at that tick, at its own
 * second. The bar is pressed like a person (clickLikeAPerson); clips are tests/browser/clip_test.ts.
 * Screenshots of the bar at 1280×720 and 390×844 go to `tests/output/`.
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
  waitConnected,
} from "../../testing/browser.ts";
import { launchAnswered, launchMark } from "../../testing/launch_answer.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { TICK_RATE } from "../../shared/constants.ts";
import type { ReplayDebug } from "../../client/replay/replay_mode.ts";
import { parseMoment } from "../../client/replay/moment.ts";

declare global {
  var snowfireReplay: ReplayDebug;
}

const OUTPUT = new URL("../output/", import.meta.url);
/** Page loads take long on this loaded machine with software GL. */
const GOTO = { timeout: 120_000, waitUntil: "domcontentloaded" as const };

/** Presses a control of the bar like a person (see clickLikeAPerson). */
async function press(page: Page, selector: string): Promise<void> {
  await clickLikeAPerson(page, selector);
}

/** The live page's hash at checkpoint `tick` (waits for it). */
async function liveHash(page: Page, tick: number): Promise<string> {
  const handle = await page.waitForFunction((at) => snowfire.hashAt(at) ?? false, tick, {
    timeout: 60_000,
    polling: 100,
  });
  return await handle.jsonValue() as string;
}

/** Waits until the replay has a hash at `tick`. */
async function replayHash(page: Page, tick: number): Promise<string> {
  const handle = await page.waitForFunction((at) => snowfireReplay.hashAt(at) ?? false, tick, {
    timeout: 90_000,
    polling: 100,
  });
  return await handle.jsonValue() as string;
}

browserTest(
  "browser timeline: scrub back, equal hashes, moment links at their second, Live",
  async (t) => {
    await Deno.mkdir(OUTPUT, { recursive: true });
    const server = await startTestServer({ client: true });
    const browser = await launchBrowser();
    const pages: ScenePage[] = [];
    try {
      const scene = `replay-${crypto.randomUUID().slice(0, 8)}`;
      // Small while it works (software GL is slow here); 1280×720 for the screenshot.
      const live = await openScene(browser, server.url, scene, {
        name: "Ana",
        width: 480,
        height: 270,
        // Hashes and the bar are state; the page draws for the screenshot and the clip only.
        draw: false,
      });
      pages.push(live);
      const page = live.page;
      let checkpoint = 0;
      let launchTick = 0;

      await t.step("launches in the live scene", async () => {
        await page.focus("#scene");
        for (let i = 0; i < 3; i++) {
          const mark = await launchMark(page);
          await page.keyboard.press("f");
          // Each press answered before the next (its launch, or a refusal).
          await launchAnswered(page, mark);
        }
        const launch = await (await page.waitForFunction(
          () => {
            const event = snowfire.recentEvents().filter((e) => e.by === snowfire.you).at(-1);
            return event ?? false;
          },
          null,
          { timeout: 30_000 },
        )).jsonValue() as { tick: number };
        launchTick = launch.tick;
        // A checkpoint the live page passed while the bursts were in the sky.
        checkpoint = await (await page.waitForFunction(
          (after) => snowfire.checkpoints().find((tick) => tick > after + 60) ?? false,
          launchTick,
          { timeout: 60_000, polling: 100 },
        )).jsonValue() as number;
      });

      await t.step(
        "the replay bar scrubs back and the replay hashes equal the live ones",
        async () => {
          await press(page, "#replay-open");
          await page.waitForFunction(() => snowfireReplay.active(), null, {
            timeout: 60_000,
            polling: 100,
          });
          assert.equal(await page.isVisible("#replay-bar"), true);
          // Rebuilt at a checkpoint (a seek) ...
          const at = await page.evaluate((tick) => snowfireReplay.seek(tick), checkpoint);
          assert.equal(at, checkpoint);
          assert.equal(await replayHash(page, checkpoint), await liveHash(page, checkpoint));
          // ... and reached by playing on from before the next one the live page passed, at 2×.
          const next = await (await page.waitForFunction(
            (after) => snowfire.checkpoints().find((tick) => tick > after) ?? false,
            checkpoint,
            { timeout: 60_000, polling: 100 },
          )).jsonValue() as number;
          const before = next - 40;
          assert.equal(await page.evaluate((tick) => snowfireReplay.seek(tick), before), before);
          assert.equal(await page.evaluate((tick) => snowfireReplay.hashAt(tick), next), undefined);
          // The speed list, opened by a press and stepped from 1× to 2× as in the open list.
          await press(page, ".replay-speed");
          await page.keyboard.press("ArrowDown");
          await page.keyboard.press("Enter");
          assert.equal(await page.inputValue(".replay-speed"), "2");
          // At 2× the replay gains a tick on the live scene every tick and goes Live when it
          // catches up: with the live page just past `next`, a Pause pressed late on a starved page
          // came after that (CI: "Live · …"). Six seconds of lead make the race a wide margin.
          await page.waitForFunction((n) => snowfire.tick() >= n + 360, next, {
            timeout: 30_000,
            polling: 100,
          });
          await press(page, "#replay-bar button:has-text('Play')");
          assert.equal(await replayHash(page, next), await liveHash(page, next), `hash at ${next}`);
          await press(page, "#replay-bar button:has-text('Pause')");
          const label = await page.textContent(".replay-state");
          assert.match(label ?? "", /^Replay · \d\d:\d\d:\d\d$/);
          await page.setViewportSize({ width: 1280, height: 720 });
          await drawnScreenshot(page, new URL("replay-timeline-1280x720.png", OUTPUT).pathname);
          await page.setViewportSize({ width: 480, height: 270 });
        },
      );

      await t.step("a click while replaying launches nothing and says why", async () => {
        const before = await page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
        assert.equal(await page.evaluate(() => snowfireReplay.active()), true, "still replaying");
        // (CI once saw no toast within 10 s of one press on a starved page: a press that the
        // page missed is pressed again, up to three times; the launch check below still holds.)
        for (let attempt = 1;; attempt++) {
          await page.focus("#scene");
          await page.keyboard.press("f");
          const said = await page.waitForSelector("#toasts li:has-text('launches are off')", {
            timeout: 5_000,
          }).then(() => true, (e) => {
            if (attempt === 3) throw e;
            return false;
          });
          if (said) break;
        }
        // A launch the press sent would be stamped within a second of scene time of it (the
        // server stamps at its clock): once the live horizon passes that, every event stamped
        // before it has arrived (the horizon's promise), a launch of this press included.
        const pressedAt = await page.evaluate(() => snowfire.horizon());
        await page.waitForFunction(
          (at) => snowfire.horizon() >= at,
          pressedAt + TICK_RATE,
          { timeout: 30_000, polling: 50 },
        );
        const mine = await page.evaluate(
          (seq) => snowfire.recentEvents().filter((e) => e.seq > seq && e.by === snowfire.you),
          before,
        );
        assert.deepEqual(mine, []);
      });

      let shared = "";
      await t.step("Share this moment makes a readable UTC link; L returns to live", async () => {
        await press(page, "#replay-bar button:has-text('Share this moment')");
        shared = await (await page.waitForFunction(() => snowfireReplay.lastLink() || false))
          .jsonValue() as string;
        assert.match(
          shared,
          new RegExp(`/s/${scene}\\?at=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`),
        );
        const liveTick = await page.evaluate(() => snowfire.tick());
        await page.keyboard.press("l");
        assert.equal(await page.evaluate(() => snowfireReplay.active()), false);
        assert.match(await page.textContent(".replay-state") ?? "", /^Live/);
        // Same socket, same world: the live tick kept going while replaying.
        assert.ok(await page.evaluate(() => snowfire.connected()));
        assert.ok((await page.evaluate(() => snowfire.tick())) >= liveTick);
      });

      await t.step("a moment link opens in replay at that tick, with Live", async () => {
        const other = await openScene(browser, server.url, scene, {
          name: "Bo",
          width: 480,
          height: 270,
          noWait: true,
          draw: false,
        });
        pages.push(other);
        await other.page.goto(`${server.url}/s/${scene}?test&nodraw&at=t${checkpoint}`, GOTO);
        await waitConnected(other.page);
        await other.page.waitForFunction(() => snowfireReplay.active(), null, {
          timeout: 60_000,
          polling: 100,
        });
        assert.equal(await other.page.evaluate(() => snowfireReplay.tick()), checkpoint);
        assert.equal(await replayHash(other.page, checkpoint), await liveHash(page, checkpoint));
        // The readable form lands within the second it names.
        const iso = new URL(shared).searchParams.get("at")!;
        await other.page.goto(`${server.url}/s/${scene}?test&nodraw&at=${iso}`, GOTO);
        await waitConnected(other.page);
        await other.page.waitForFunction(() => snowfireReplay.active(), null, {
          timeout: 60_000,
          polling: 100,
        });
        const landed = await other.page.evaluate(() => snowfireReplay.tick());
        const epoch = (await (await fetch(`${server.url}/api/scenes/${scene}`)).json()).epoch;
        const named = (parseMoment(iso, epoch) as { tick: number }).tick;
        assert.equal(landed, named);
        // ... and the bar shows that very second (it showed the one before).
        const clocks = await other.page.evaluate((at) => {
          const d = new Date(Date.parse(at));
          const two = (n: number) => String(n).padStart(2, "0");
          return {
            named: `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`,
            shown: document.querySelector(".replay-clock")?.textContent ?? "",
          };
        }, iso);
        await other.page.waitForFunction(
          (named) => document.querySelector(".replay-clock")?.textContent === named,
          clocks.named,
          { timeout: 10_000 },
        ).catch(() => {});
        assert.equal(
          await other.page.textContent(".replay-clock"),
          clocks.named,
          `first shown ${clocks.shown}`,
        );
        await press(other.page, "#replay-bar .replay-live");
        assert.equal(await other.page.evaluate(() => snowfireReplay.active()), false);
        assert.equal(new URL(other.page.url()).searchParams.has("at"), false);
      });

      await t.step("the bar on a phone (390×844), opened by a moment link", async () => {
        const phone = await openScene(browser, server.url, scene, {
          name: "Cy",
          width: 390,
          height: 844,
          touch: true,
          noWait: true,
          draw: false,
        });
        pages.push(phone);
        await phone.page.goto(`${server.url}/s/${scene}?test&nodraw&at=t${checkpoint}`, {
          timeout: 120_000,
          waitUntil: "domcontentloaded",
        });
        await waitConnected(phone.page);
        await phone.page.waitForFunction(() => snowfireReplay.active(), null, {
          timeout: 90_000,
          polling: 100,
        });
        await drawnScreenshot(phone.page, new URL("replay-timeline-390x844.png", OUTPUT).pathname);
        // Read in the page: a locator's boundingBox waits for frames, which take seconds here.
        const bar = await phone.page.evaluate(() => {
          const r = document.getElementById("replay-bar")!.getBoundingClientRect();
          return { x: r.x, width: r.width };
        });
        assert.ok(
          bar && bar.x >= 0 && bar.x + bar.width <= 390,
          `bar inside: ${JSON.stringify(bar)}`,
        );
      });

      for (const { problems } of pages) assert.deepEqual(problems, []);
    } finally {
      for (const { page } of pages) await page.context().close();
      await browser.close();
      await server.close();
    }
  },
);
