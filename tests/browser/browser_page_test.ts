/**
 * The page as people use it, in headless Chromium: a HUD whose parts never overlap on a phone
 * (portrait and landscape) or a desktop (an open panel lies above the sky's toasts and hint), names that always join, links without names, calm settings and
 * toasts, an offline countdown, lowercase scene ids, and accessibility (Escape, contrast, focus).
 * Screenshots of each viewport go to tests/output/page-*.png.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  browserTest,
  checkLikeAPerson,
  clickLikeAPerson,
  drawnScreenshot,
  launchBrowser,
  openScene,
  type OpenSceneOptions,
  type ScenePage,
  waitConnected,
} from "../../testing/browser.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { TICK_RATE } from "../../shared/constants.ts";

interface Box {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Bounding boxes of the visible HUD parts (and each toast); with `panels`, only the bar, the
 * banner and the open panels (a panel is drawn above the toasts and the hint in the sky).
 */
function hudBoxes(page: Page, panels = false): Promise<Box[]> {
  return page.evaluate((panels) => {
    const selectors = panels
      ? [".hud-bar", "#banner", "#scene-panel", "#picker-panel", "#settings-form"]
      : [".hud-bar", "#banner", ".help", ".toast"];
    const boxes: Box[] = [];
    // Toasts beyond the middle row are clipped by it: only their visible part counts.
    const middle = document.querySelector(".hud-middle")!.getBoundingClientRect();
    for (const selector of selectors) {
      document.querySelectorAll(selector).forEach((node, index) => {
        let rect = (node as HTMLElement).getBoundingClientRect();
        if (selector === ".toast") {
          const top = Math.max(rect.top, middle.top);
          const bottom = Math.min(rect.bottom, middle.bottom);
          rect = new DOMRect(rect.x, top, rect.width, Math.max(0, bottom - top));
        }
        if (rect.width === 0 || rect.height === 0) return;
        if (getComputedStyle(node).visibility === "hidden") return;
        boxes.push({
          name: `${selector}#${index}`,
          x: rect.x,
          y: rect.y,
          width: rect.width,
          height: rect.height,
        });
      });
    }
    return boxes;
  }, panels);
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height &&
    b.y < a.y + a.height;
}

/** Asserts that no two boxes overlap and each lies inside the viewport. */
function assertNoOverlap(boxes: Box[], width: number, height: number, where: string): void {
  for (const box of boxes) {
    assert.ok(
      box.x >= -0.5 && box.y >= -0.5 && box.x + box.width <= width + 0.5 &&
        box.y + box.height <= height + 0.5,
      `${where}: ${box.name} lies inside the ${width}×${height} viewport (${JSON.stringify(box)})`,
    );
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      assert.ok(
        !overlaps(boxes[i], boxes[j]),
        `${where}: ${boxes[i].name} overlaps ${boxes[j].name} ` +
          `(${JSON.stringify(boxes[i])} / ${JSON.stringify(boxes[j])})`,
      );
    }
  }
}

/** WCAG contrast of the help line: its colour over its own background laid on white snow. */
function helpContrast(page: Page): Promise<number> {
  return page.evaluate(() => {
    const parse = (css: string) => {
      const [r, g, b, a = 1] = css.match(/[\d.]+/g)!.map(Number);
      return { r, g, b, a };
    };
    const help = document.querySelector(".help") as HTMLElement;
    const style = getComputedStyle(help);
    const fg = parse(style.color);
    const bg = parse(style.backgroundColor);
    // The worst case behind a translucent background: white (a bright burst, heavy snow).
    const over = (c: number) => c * bg.a + 255 * (1 - bg.a);
    const luminance = (r: number, g: number, b: number) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const back = luminance(over(bg.r), over(bg.g), over(bg.b));
    const text = luminance(fg.r, fg.g, fg.b);
    return (Math.max(back, text) + 0.05) / (Math.min(back, text) + 0.05);
  });
}

/** Runs `check`, printing a failure at once (a step's error is otherwise reported at the end). */
async function loud(label: string, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    console.log(`${label} failed: ${(error as Error).message}`);
    throw error;
  }
}

/**
 * Opens a scene page whose actions may take 90 s: on this shared machine's software GL a page
 * under load draws about a frame a second, and Playwright's 30 s default ran out after a click
 * was already done ("waiting for scheduled navigations to finish").
 */
async function openPatient(
  browser: Parameters<typeof openScene>[0],
  serverUrl: string,
  scene: string,
  options: OpenSceneOptions,
): Promise<ScenePage> {
  // Nothing here reads the canvas' pixels: the pages skip the GPU draw but for the screenshots.
  const scenePage = await openScene(browser, serverUrl, scene, { draw: false, ...options });
  scenePage.page.setDefaultTimeout(90_000);
  return scenePage;
}

async function closePage(scenePage: ScenePage): Promise<void> {
  await scenePage.page.context().close();
}

browserTest("browser page: layout, names, links, calm settings and toasts, offline", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  const problems: string[] = [];
  try {
    const scene = `page-${crypto.randomUUID().slice(0, 8)}`;
    await Deno.mkdir("tests/output", { recursive: true });
    // The scene's creator is its host, and only hosts change settings by default: a host opens
    // them to everyone first, since the pages below are guests that change them.
    const host = (await TestClient.join(server.url, scene, { name: "Host" })).client;
    host.send({ t: "host", action: { do: "lock", lock: "everyone" } });
    await host.waitFor((m) => m.t === "event" && m.body.type === "rules", 10_000);
    await host.close();

    /** Checks one viewport: no overlap (settings closed and open), hint, contrast. */
    const checkLayout = async (viewer: ScenePage, label: string, touch: boolean) => {
      const { page } = viewer;
      const { width, height } = page.viewportSize()!;
      // A toast on screen too, when the page shows it in time (the link copied; toasts last 4 s,
      // and under load this machine's pages draw about one frame a second).
      await clickLikeAPerson(page, "#open-scene");
      await clickLikeAPerson(page, "#copy-link");
      await page.keyboard.press("Escape");
      await page.waitForSelector(".toast", { state: "attached", timeout: 5_000 }).catch(() => {});
      assertNoOverlap(await hudBoxes(page), width, height, `${label}, settings closed`);
      const fountain = await page.evaluate(() => snowfire.project(0, 2, 0));
      if (fountain) {
        for (const toast of (await hudBoxes(page)).filter((b) => b.name.startsWith(".toast"))) {
          const inside: boolean = fountain.x >= toast.x && fountain.x <= toast.x + toast.width &&
            fountain.y >= toast.y && fountain.y <= toast.y + toast.height;
          assert.ok(!inside, `${label}: a toast covers the fountain`);
        }
      }
      await drawnScreenshot(page, `tests/output/page-${label}.png`);
      const hint = await page.evaluate(() => {
        const visible = (selector: string) => {
          const node = document.querySelector(selector) as HTMLElement;
          return node.getBoundingClientRect().width > 0;
        };
        return {
          keys: visible(".help-keys"),
          touch: visible(".help-touch"),
          text: (document.querySelector(".help") as HTMLElement).innerText,
        };
      });
      if (touch) {
        assert.equal(hint.keys, false, `${label}: no key names on a touch screen`);
        assert.equal(hint.touch, true, `${label}: the touch hint shows`);
        assert.match(hint.text, /Tap the sky to launch/);
        assert.doesNotMatch(hint.text, /\b[GFMH]\b/);
      } else {
        assert.equal(hint.keys, true, `${label}: the key hint shows`);
        assert.equal(hint.touch, false, `${label}: no touch hint`);
      }
      // The next firework's words are shown whole (at 390 px they were cut to "S…").
      for (const [kind, theme] of [["peony", "red-gold"], ["", ""]]) {
        const shown = await page.evaluate(([kind, theme]) => {
          for (const [id, value] of [["pick-kind", kind], ["pick-theme", theme]]) {
            const select = document.getElementById(id) as HTMLSelectElement;
            select.value = value;
            select.dispatchEvent(new Event("change"));
          }
          const words = document.getElementById("picker-summary")!;
          return {
            text: words.textContent,
            cut: words.scrollWidth > words.clientWidth || words.scrollHeight > words.clientHeight,
          };
        }, [kind, theme]);
        assert.equal(shown.cut, false, `${label}: "${shown.text}" is cut`);
      }
      const contrast = await helpContrast(page);
      assert.ok(contrast >= 4.5, `${label}: help line contrast ${contrast.toFixed(2)} ≥ 4.5`);
      await clickLikeAPerson(page, "#settings summary");
      assertNoOverlap(await hudBoxes(page, true), width, height, `${label}, settings open`);
      await drawnScreenshot(page, `tests/output/page-${label}-settings.png`);
      await clickLikeAPerson(page, "#settings summary");
    };

    await t.step("no HUD overlap at 390×844 and 844×390 touch", async () => {
      const phone = await openPatient(browser, server.url, scene, {
        name: "Ana",
        width: 390,
        height: 844,
        touch: true,
        context: { permissions: ["clipboard-read", "clipboard-write"] },
      });
      try {
        await loud("portrait", () => checkLayout(phone, "phone-portrait", true));
        await phone.page.setViewportSize({ width: 844, height: 390 });
        await loud("landscape", () => checkLayout(phone, "phone-landscape", true));
        problems.push(...phone.problems);
      } finally {
        await closePage(phone);
      }
    });

    await t.step("no HUD overlap at 1280×720", async () => {
      const desktop = await openPatient(browser, server.url, scene, {
        name: "Ana",
        width: 1280,
        height: 720,
        context: { permissions: ["clipboard-read", "clipboard-write"] },
      });
      try {
        await loud("desktop", () => checkLayout(desktop, "desktop", false));
        problems.push(...desktop.problems);
      } finally {
        await closePage(desktop);
      }
    });

    await t.step("a 40-character ?name= joins, cut to 32; a saved bad name joins too", async () => {
      const long = "Bartholomew Fitzgerald Montgomery";
      const forty = `${long}-Smith`.padEnd(40, "x");
      const viewer = await openPatient(browser, server.url, scene, { name: forty });
      try {
        const shown = await viewer.page.textContent("#edit-name");
        assert.equal(shown, forty.slice(0, 32));
        assert.doesNotMatch(viewer.page.url(), /name=/, "the name left the address bar");
        // A bad name saved by an older page: whitespace only, or too long.
        for (const saved of ["    ", "y".repeat(60)]) {
          await viewer.page.evaluate(
            (value) => localStorage.setItem("snowfire.name", value),
            saved,
          );
          await viewer.page.goto(`${server.url}/s/${scene}?test&nodraw`);
          await waitConnected(viewer.page);
          const name = await viewer.page.textContent("#edit-name") ?? "";
          assert.ok(name.length > 0 && name.length <= 32, `joined as "${name}"`);
        }
        problems.push(...viewer.problems);
      } finally {
        await closePage(viewer);
      }
    });

    const ana = await openPatient(browser, server.url, scene, {
      name: "Ana",
      width: 560,
      height: 420,
      context: { permissions: ["clipboard-read", "clipboard-write"] },
    });
    const ben = await openPatient(browser, server.url, scene, {
      name: "Ben",
      width: 480,
      height: 360,
    });
    try {
      await t.step("a copied link carries no name, and the QR code holds it too", async () => {
        await clickLikeAPerson(ana.page, "#open-scene");
        await clickLikeAPerson(ana.page, "#copy-link");
        const copied = await ana.page.evaluate(() => navigator.clipboard.readText());
        assert.equal(copied, `${server.url}/s/${scene}`);
        await clickLikeAPerson(ana.page, "#show-qr");
        const qrLink = await ana.page.getAttribute("#qr", "data-link");
        assert.equal(qrLink, copied);
        await ana.page.keyboard.press("Escape");
        assert.equal(await ana.page.isHidden("#qr-panel"), true, "Escape closes the QR code");
      });

      await t.step("the name can be edited in the HUD: others see one rename toast", async () => {
        const oldName = (await ana.page.textContent("#edit-name"))!;
        const anaId = await ana.page.evaluate(() => snowfire.you);
        // Every toast Ben's page shows from now on (toasts leave after 4 s).
        await ben.page.evaluate(() => {
          const seen: string[] = [];
          (globalThis as unknown as { renameToasts: string[] }).renameToasts = seen;
          new MutationObserver((records) => {
            for (const record of records) {
              for (const node of record.addedNodes) seen.push(node.textContent ?? "");
            }
          }).observe(document.getElementById("toasts")!, { childList: true });
        });
        await clickLikeAPerson(ana.page, "#edit-name");
        await ana.page.fill("#name-input", "  Anastasia   Q  ");
        await ana.page.press("#name-input", "Enter");
        await ben.page.waitForFunction(
          () => document.querySelector("#people")?.textContent?.includes("Anastasia Q"),
          null,
          { timeout: 20_000 },
        );
        await waitConnected(ana.page);
        // Ana's own page shows the name once its rename comes back to it (under CI's load, Ben's
        // page saw it first once).
        await ana.page.waitForFunction(
          () => document.querySelector("#edit-name")?.textContent === "Anastasia Q",
          null,
          { timeout: 20_000 },
        );
        assert.equal(await ana.page.evaluate(() => snowfire.you), anaId, "same peer, no rejoin");
        const people = await ben.page.$$eval(
          "#people bdi",
          (names) => names.map((name) => name.textContent),
        );
        assert.ok(!people.includes(oldName), `the old name left Ben's list: ${people}`);
        assert.equal(people.filter((name) => name === "Anastasia Q").length, 1, `${people}`);
        const toasts = await ben.page.evaluate(() =>
          (globalThis as unknown as { renameToasts: string[] }).renameToasts
        );
        assert.ok(
          toasts.some((text) => text.includes(`${oldName} is now Anastasia Q`)),
          toasts.join(" | "),
        );
        assert.ok(!toasts.some((text) => /\b(left|joined)\b/.test(text)), toasts.join(" | "));
      });

      await t.step("Escape closes the settings panel", async () => {
        await clickLikeAPerson(ana.page, "#settings summary");
        assert.equal(await ana.page.getAttribute("#settings", "open"), "");
        await ana.page.focus("#show");
        await ana.page.keyboard.press("Escape");
        assert.equal(await ana.page.getAttribute("#settings", "open"), null);
        assert.equal(
          await ana.page.evaluate(() => document.activeElement?.tagName),
          "SUMMARY",
          "focus returns to the panel's toggle",
        );
      });

      await t.step("keyboard slider steps send ≤ 1 settings event per second", async () => {
        // Record every settings frame Ana's page puts on the wire, with when.
        await ana.page.evaluate(() => {
          const frames: { ms: number; settings: Record<string, unknown> }[] = [];
          (globalThis as unknown as { settingsFrames: typeof frames }).settingsFrames = frames;
          const send = WebSocket.prototype.send;
          WebSocket.prototype.send = function (data) {
            const frame = typeof data === "string" ? JSON.parse(data) : null;
            if (frame?.body?.type === "settings") {
              frames.push({ ms: performance.now(), settings: frame.body.settings });
            }
            return send.call(this, data);
          };
        });
        await clickLikeAPerson(ana.page, "#settings summary");
        await ana.page.focus("#wind-speed");
        for (let i = 0; i < 16; i++) {
          await ana.page.keyboard.press(i % 4 === 3 ? "ArrowLeft" : "ArrowRight");
          // fixed wait: the steps come at a person's pace, spread across the one-second gap.
          await ana.page.waitForTimeout(120);
        }
        const wanted = Number(await ana.page.inputValue("#wind-speed"));
        // The last change goes out after the quiet spell (and the one-second gap).
        const frames = await (await ana.page.waitForFunction(
          (speed) => {
            const sent = (globalThis as unknown as {
              settingsFrames: { ms: number; settings: Record<string, unknown> }[];
            }).settingsFrames;
            return sent.at(-1)?.settings.windSpeed === speed ? sent : false;
          },
          wanted,
          { timeout: 20_000 },
        ).catch(async (error) => {
          const seen = await ana.page.evaluate(() =>
            JSON.stringify({
              frames: (globalThis as unknown as { settingsFrames: unknown }).settingsFrames,
              value: (document.getElementById("wind-speed") as HTMLInputElement).value,
              toasts: document.getElementById("toasts")?.textContent,
              connected: snowfire.connected(),
              settings: snowfire.settings(),
            })
          );
          throw new Error(`${error.message}; wanted ${wanted}, saw ${seen}`);
        })).jsonValue() as { ms: number; settings: Record<string, unknown> }[];
        for (let i = 1; i < frames.length; i++) {
          assert.ok(
            frames[i].ms - frames[i - 1].ms >= 990,
            `a second apart: ${JSON.stringify(frames)}`,
          );
        }
        assert.ok(frames.length < 16, `${frames.length} sends for 16 steps`);
        // Ben receives Ana's final value and shows one calm toast for her changes.
        const anaId = await ana.page.evaluate(() => snowfire.you);
        await ben.page.waitForFunction(
          ({ speed, by }) =>
            snowfire.recentEvents().some((e) =>
              e.by === by && e.body.type === "settings" && e.body.settings.windSpeed === speed
            ),
          { speed: wanted, by: anaId },
          { timeout: 30_000 },
        );
        const toasts = await ben.page.$$eval(
          ".toast",
          (items) => items.filter((item) => item.textContent?.includes("wind")).length,
        );
        assert.ok(toasts <= 1, `${toasts} wind toasts`);
      });

      await t.step("arrowing past Heavy does not wrap into no snow", async () => {
        const anaId = await ana.page.evaluate(() => snowfire.you);
        await checkLikeAPerson(ana.page, 'input[name="snow"][value="1"]', true, 60_000);
        await ben.page.waitForFunction(
          (by) =>
            snowfire.recentEvents().some((e) =>
              e.by === by && e.body.type === "settings" && e.body.settings.snow === 1
            ),
          anaId,
          { timeout: 20_000 },
        );
        await ana.page.focus('input[name="snow"][value="1"]');
        await ana.page.keyboard.press("ArrowRight");
        await ana.page.keyboard.press("ArrowDown");
        assert.equal(await ana.page.isChecked('input[name="snow"][value="1"]'), true);
        // A probe through the same gate: a wind step and back (the same wind), which goes out
        // after anything the arrows left pending (or with it, merged). Once Ben has it, any snow
        // change of the arrows has reached him.
        const probeAfter = await ben.page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
        const wind = await ana.page.$eval("#wind-speed", (node) => {
          const slider = node as HTMLInputElement;
          return { value: Number(slider.value), atMax: slider.value === slider.max };
        });
        await ana.page.focus("#wind-speed");
        for (const key of wind.atMax ? ["ArrowLeft", "ArrowRight"] : ["ArrowRight", "ArrowLeft"]) {
          await ana.page.keyboard.press(key);
        }
        assert.equal(Number(await ana.page.inputValue("#wind-speed")), wind.value);
        await ben.page.waitForFunction(
          ({ by, seq, speed }) =>
            snowfire.recentEvents().some((e) =>
              e.seq > seq && e.by === by && e.body.type === "settings" &&
              e.body.settings.windSpeed === speed
            ),
          { by: anaId, seq: probeAfter, speed: wind.value },
          { timeout: 20_000 },
        );
        const stopped = await ben.page.evaluate(
          (by) =>
            snowfire.recentEvents().some((e) =>
              e.by === by && e.body.type === "settings" && e.body.settings.snow === 0
            ),
          anaId,
        );
        assert.equal(stopped, false, "nobody stopped the snow");
        await ana.page.keyboard.press("Escape");
      });

      await t.step("the picked colours go with each launch and reach a second page", async () => {
        await clickLikeAPerson(ana.page, "#open-picker");
        await ana.page.selectOption("#pick-theme", "green-purple");
        await ana.page.keyboard.press("Escape");
        const anaId = await ana.page.evaluate(() => snowfire.you);
        const before = await ben.page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
        await ana.page.focus("#scene");
        await ana.page.keyboard.press("f");
        const body = await (await ben.page.waitForFunction(
          ({ seq, by }) =>
            snowfire.recentEvents().find((e) => e.seq > seq && e.by === by && e.type === "launch")
              ?.body ?? false,
          { seq: before, by: anaId },
          { timeout: 20_000 },
        )).jsonValue() as { theme?: string };
        assert.equal(body.theme, "green-purple");
      });

      await t.step(
        "30 fast clicks: at most one refusal toast, and one folded launch toast",
        async () => {
          // Let earlier toasts go, then click the sky 30 times at once: pointer events dispatched in
          // one task, since this machine's software renderer paces real clicks at its frame rate.
          for (const page of [ana.page, ben.page]) {
            await page.waitForFunction(() => !document.querySelector("#toasts .toast"), null, {
              timeout: 30_000,
            });
          }
          await ben.page.evaluate(() => {
            const watch = { most: 0, texts: [] as string[] };
            (globalThis as unknown as { launchWatch: typeof watch }).launchWatch = watch;
            const list = document.getElementById("toasts")!;
            new MutationObserver(() => {
              const items = [...list.querySelectorAll(".toast")]
                .map((item) => item.textContent ?? "")
                .filter((text) => text.includes("Anastasia Q launched"));
              watch.most = Math.max(watch.most, items.length);
              watch.texts.push(...items);
            }).observe(list, { childList: true, subtree: true, characterData: true });
          });
          // Thirty clicks 50 ms apart, dispatched in the page (real clicks would be paced by this
          // machine's software renderer, about one frame a second under load).
          await ana.page.evaluate(async () => {
            const canvas = document.getElementById("scene")!;
            for (let i = 0; i < 30; i++) {
              const at = { clientX: 260 + (i % 10) * 12, clientY: 220, button: 0, bubbles: true };
              const pointer = { ...at, pointerId: 1, isPrimary: true };
              canvas.dispatchEvent(new PointerEvent("pointerdown", pointer));
              canvas.dispatchEvent(new PointerEvent("pointerup", pointer));
              // fixed wait: the clicks come 50 ms apart, a fast clicker's pace.
              await new Promise((done) => setTimeout(done, 50));
            }
          });
          // Refusals, if the server refused any: one toast, counting them, with its retry time.
          // (In runs against the current server, 30 launches in 1.5 s were not always refused.)
          // Counted once the server's own clock is two seconds past the last click on this page's
          // socket (its heartbeat's horizon): a refusal answered by then came before it.
          const clicked = await ana.page.evaluate(() => snowfire.horizon());
          await ana.page.waitForFunction(
            (at) => snowfire.horizon() >= at,
            clicked + 2 * TICK_RATE,
            { timeout: 30_000, polling: 50 },
          );
          const refusals = await ana.page.$$eval(".toast.error", (items) =>
            items.map((item) => ({
              text: item.textContent ?? "",
              count: item.querySelector(".count")?.textContent ?? "",
            })));
          const errors = await ana.page.evaluate(() => snowfire.errors.length);
          assert.ok(refusals.length <= 1, JSON.stringify(refusals));
          if (errors > 0) {
            assert.equal(refusals.length, 1, JSON.stringify(refusals));
            assert.match(refusals[0].text, /Try again in \d+ s|try again now/i);
          }
          if (errors > 1) assert.match(refusals[0].count, /^×\d+$/, JSON.stringify(refusals));
          // Ben saw Ana's launches as one folded toast at a time.
          const seen = await (await ben.page.waitForFunction(
            () => {
              const watch =
                (globalThis as unknown as { launchWatch: { most: number; texts: string[] } })
                  .launchWatch;
              return watch.texts.some((text) => /launched \d+ fireworks/.test(text))
                ? watch
                : false;
            },
            null,
            { timeout: 20_000 },
          ).catch(async (error) => {
            const watch = await ben.page.evaluate(() =>
              JSON.stringify((globalThis as unknown as { launchWatch: unknown }).launchWatch)
            );
            const sent = await ana.page.evaluate(() =>
              JSON.stringify({ errors: snowfire.errors, last: snowfire.lastEvent() })
            );
            throw new Error(`${error.message}; Ben saw ${watch}; Ana ${sent}`);
          })).jsonValue() as { most: number; texts: string[] };
          assert.equal(seen.most, 1, JSON.stringify(seen));
        },
      );

      await t.step("M mutes and is remembered; H hides the HUD", async () => {
        await ana.page.focus("#scene");
        await ana.page.keyboard.press("m");
        assert.equal(await ana.page.getAttribute("#mute", "aria-pressed"), "true");
        assert.equal(await ana.page.evaluate(() => localStorage.getItem("snowfire.muted")), "1");
        await ana.page.keyboard.press("h");
        assert.equal(await ana.page.isHidden(".hud"), true);
        assert.equal(await ana.page.isVisible("#show-hud"), true);
        await ana.page.keyboard.press("h");
        assert.equal(await ana.page.isVisible(".hud"), true);
      });

      await t.step("the focused canvas shows a focus cue", async () => {
        await ana.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        // Tab from wherever the last focus left the starting point (Hide HUD focuses the scene,
        // so Tab may begin after it) round to the scene: it is in the tab order.
        for (let k = 0; k < 20; k++) {
          await ana.page.keyboard.press("Tab");
          if (await ana.page.evaluate(() => document.activeElement?.id) === "scene") break;
        }
        assert.equal(await ana.page.evaluate(() => document.activeElement?.id), "scene");
        assert.equal(await ana.page.isVisible(".focus-cue"), true);
      });

      await t.step("/s/MyParty redirects to /s/myparty", async () => {
        const response = await fetch(`${server.url}/s/MyParty?x=1`, { redirect: "manual" });
        await response.body?.cancel();
        assert.equal(response.status, 301);
        assert.equal(response.headers.get("location"), "/s/myparty?x=1");
        const page = await ben.page.context().newPage();
        await page.goto(`${server.url}/s/MyParty?test&nodraw`);
        assert.equal(new URL(page.url()).pathname, "/s/myparty");
        await page.close();
      });

      await t.step("offline: the countdown decreases, latency clears, Reconnect now", async () => {
        await server.shutdown();
        await ana.page.waitForSelector("#banner:not([hidden])", { timeout: 20_000 });
        // Backoff doubles per attempt up to 3 s; wait for a wait long enough to watch it count
        // down (whole seconds), then for a smaller number or the attempt itself.
        const first = Number(
          await (await ana.page.waitForFunction(
            () =>
              /Retrying in (\d+) s/.exec(
                document.querySelector("#retry-countdown")?.textContent ?? "",
              )?.[1] ?? false,
            null,
            { timeout: 30_000, polling: 50 },
          )).jsonValue(),
        );
        const later = await (await ana.page.waitForFunction(
          (first) => {
            const text = document.querySelector("#retry-countdown")?.textContent ?? "";
            const n = Number(/Retrying in (\d+) s/.exec(text)?.[1]);
            return n < first || /Reconnecting/.test(text) ? text : false;
          },
          first,
          { timeout: 30_000, polling: 50 },
        )).jsonValue();
        assert.ok(later, `the countdown decreases (${first} s → ${later})`);
        assert.equal(await ana.page.textContent("#latency"), "", "no stale latency");
        // "Reconnect now" tries at once instead of waiting out the backoff (the server is still
        // down, so the attempt fails and a new countdown starts).
        await ana.page.waitForFunction(
          () =>
            Number(
              /Retrying in ([\d.]+)/.exec(
                document.querySelector("#retry-countdown")?.textContent ?? "",
              )?.[1],
            ) >= 3,
          null,
          { timeout: 30_000 },
        );
        // A real press opens a socket at once: no waiting for the backoff timer. Sockets are
        // counted from just before the press while at least two seconds of the backoff are left,
        // so the timer cannot open one in between.
        let openedByClick = -1;
        for (let attempt = 0; attempt < 5 && openedByClick < 0; attempt++) {
          await ana.page.waitForSelector("#reconnect-now", { state: "visible" });
          const counting = await ana.page.evaluate(() => {
            const countdown = document.getElementById("retry-countdown")?.textContent ?? "";
            if (!/Retrying in [2-9]/.test(countdown)) return false;
            const Native = WebSocket;
            const probe = { opened: 0, Native };
            (globalThis as unknown as { socketProbe: typeof probe }).socketProbe = probe;
            globalThis.WebSocket = class extends Native {
              constructor(url: string | URL, protocols?: string | string[]) {
                probe.opened++;
                super(url, protocols);
              }
            };
            return true;
          });
          if (!counting) {
            // Until a countdown with at least two seconds left shows (the next attempt's).
            await ana.page.waitForFunction(
              () =>
                /Retrying in [2-9]/.test(
                  document.getElementById("retry-countdown")?.textContent ?? "",
                ),
              null,
              { timeout: 30_000, polling: 50 },
            );
            continue;
          }
          await clickLikeAPerson(ana.page, "#reconnect-now");
          openedByClick = await ana.page.evaluate(() => {
            const { socketProbe } = globalThis as unknown as {
              socketProbe: { opened: number; Native: typeof WebSocket };
            };
            globalThis.WebSocket = socketProbe.Native;
            return socketProbe.opened;
          });
        }
        assert.equal(openedByClick, 1, "Reconnect now opened a socket at once");
        await server.start();
        await waitConnected(ana.page);
        await ana.page.waitForSelector("#banner", { state: "hidden", timeout: 20_000 });
      });

      problems.push(...ana.problems, ...ben.problems);
    } finally {
      await closePage(ana);
      await closePage(ben);
    }

    await t.step("no console errors or warnings", () => {
      const REFUSED = /WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|404|503/;
      assert.deepEqual(problems.filter((problem) => !REFUSED.test(problem)), []);
    });
  } finally {
    await browser.close();
    await server.close();
  }
});
