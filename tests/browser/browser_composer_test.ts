/**
 * The show composer, pressed like a person (clickLikeAPerson: the control is under the point,
 * then a real click or tap), by mouse at 1280×720 and by touch at 390×844: open it, add cues by
 * clicking the sky, drag one along the time line, delete one, copy and paste one, move and
 * delete with the keys. Turned to 844×390, toasts coming do not move the open composer.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  browserTest,
  clickLikeAPerson,
  launchBrowser,
  openScene,
  pressUntilShown,
  reachOf,
  type ScenePage,
} from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { TestClient } from "../../testing/test_client.ts";
import type { ComposerDebug } from "../../client/hud/composer/composer.ts";

declare global {
  var snowfireComposer: ComposerDebug;
}

/** The composer's cues, in show order. */
function cues(page: Page) {
  return page.evaluate(() =>
    snowfireComposer.cues().sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
  );
}

/** Waits until the composer holds `n` cues. */
async function cueCount(page: Page, n: number): Promise<void> {
  await page.waitForFunction((n) => snowfireComposer.cues().length === n, n, {
    timeout: 20_000,
    polling: 50,
  });
}

/**
 * Selects cue `id` the way a person does: presses it and looks for it selected (the Copy and
 * Delete chips lit), and presses it again if the press did not take (CI once saw Copy pressed
 * while it was still off after the cue's press, on a page starved beside other tests: the copy
 * never happened and the test waited 90 s for it).
 */
async function selectCue(page: Page, id: string): Promise<void> {
  const selected = (id: string) =>
    snowfireComposer.selected().includes(id) &&
    !document.querySelector<HTMLButtonElement>(".composer-copy")!.disabled;
  const pressed = await pressUntilShown(page, `.composer-cue[data-id="${id}"]`, selected, id, {
    presses: 2,
    showsMs: 10_000,
  });
  if (!pressed) throw new Error(`cue ${id} is not selected after two presses`);
}

/**
 * Drags a control sideways by `dx` px the way a hand does: the control must be under the
 * press point; then a mouse press, moves and release, or a finger's touch start, moves and end
 * (CDP touch events: Playwright's touchscreen only taps).
 */
async function dragLikeAPerson(page: Page, selector: string, dx: number, touch: boolean) {
  const reach = await reachOf((await page.$(selector))!);
  assert.ok(reach.ok, `${selector} is covered by ${reach.hit}`);
  const steps = 6;
  if (!touch) {
    await page.mouse.move(reach.x, reach.y);
    await page.mouse.down();
    for (let i = 1; i <= steps; i++) await page.mouse.move(reach.x + (dx * i) / steps, reach.y);
    await page.mouse.up();
    return;
  }
  const cdp = await page.context().newCDPSession(page);
  const at = (x: number) => [{ x, y: reach.y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at(reach.x) });
  for (let i = 1; i <= steps; i++) {
    await cdp.send("Input.dispatchTouchEvent", {
      type: "touchMove",
      touchPoints: at(reach.x + (dx * i) / steps),
    });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

/** One person's round at one size: every composer action by their hand. */
async function compose(page: Page, touch: boolean): Promise<void> {
  await clickLikeAPerson(page, "#composer-open");
  await page.waitForSelector("#composer-panel", { state: "visible" });
  assert.equal(await page.getAttribute("#composer-open", "aria-expanded"), "true");
  // Three cues by clicking the sky: each at the playhead, which moves on a second.
  const spots = [[0.3, 0.12], [0.55, 0.08], [0.75, 0.16]];
  for (const [fx, fy] of spots) await clickLikeAPerson(page, "#scene", { at: { fx, fy } });
  await cueCount(page, 3);
  let list = await cues(page);
  assert.deepEqual(list.map((c) => c.at), [0, 60, 120]);
  assert.ok(
    list[0].x < list[1].x && list[1].x < list[2].x,
    "each cue is where the sky was clicked",
  );
  const launched = await page.evaluate(() =>
    snowfire.recentEvents().filter((e) => e.by === snowfire.you && e.type === "launch").length
  );
  assert.equal(launched, 0, "placing cues launches nothing");

  // Drag the middle cue right along the time line.
  const middle = list[1];
  await dragLikeAPerson(page, `.composer-cue[data-id="${middle.id}"]`, 60, touch);
  await page.waitForFunction(
    ([id, at]) => (snowfireComposer.cues().find((c) => c.id === id)?.at ?? 0) > at + 20,
    [middle.id, middle.at] as const,
    { timeout: 10_000 },
  );
  list = await cues(page);
  const dragged = list.find((c) => c.id === middle.id)!;
  assert.equal(dragged.x, middle.x, "a drag moves a cue in time, not in the sky");

  // Delete the first cue: press it (selected), then Delete.
  await selectCue(page, list[0].id);
  await clickLikeAPerson(page, ".composer-delete");
  await cueCount(page, 2);
  assert.ok(!(await cues(page)).some((c) => c.id === list[0].id));

  // Copy the last cue and paste it at the playhead, moved by pressing the time line's range.
  const last = list[2];
  await selectCue(page, last.id);
  await clickLikeAPerson(page, ".composer-copy");
  await page.waitForFunction(() => snowfireComposer.clipboard() === 1);
  // (Near the right of the part of the time line in view: on a phone it scrolls.)
  const fx = await page.evaluate(() => {
    const lane = document.querySelector(".composer-lane")!.getBoundingClientRect();
    const range = document.querySelector(".composer-range")!.getBoundingClientRect();
    return (lane.left + 0.85 * lane.width - range.left) / range.width;
  });
  await clickLikeAPerson(page, ".composer-range", { at: { fx, fy: 0.5 } });
  const playhead = await page.evaluate(() => snowfireComposer.playhead());
  assert.ok(playhead > 240, `the range moved the playhead (${playhead})`);
  await clickLikeAPerson(page, ".composer-paste");
  await cueCount(page, 3);
  const pasted = (await cues(page)).find((c) => c.id !== last.id && c.x === last.x)!;
  assert.ok(pasted, "the copy keeps the cue's spot");
  assert.equal(pasted.at, playhead);

  // Keys, when a keyboard is there: → moves the selected cue a tenth of a second, Delete
  // removes it, Ctrl+C and Ctrl+V copy and paste.
  if (!touch) {
    await page.waitForFunction((id) => snowfireComposer.selected()[0] === id, pasted.id);
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(
      ([id, at]) => snowfireComposer.cues().find((c) => c.id === id)?.at === at + 6,
      [pasted.id, pasted.at] as const,
    );
    await page.keyboard.press("Control+C");
    await page.keyboard.press("Control+V");
    await cueCount(page, 4);
    await page.keyboard.press("Delete");
    await cueCount(page, 3);
  }
}

browserTest(
  "browser composer: cues by clicking the sky, drag, delete, copy, by mouse and touch",
  async (t) => {
    const server = await startTestServer({ client: true });
    const browser = await launchBrowser();
    const pages: ScenePage[] = [];
    try {
      for (
        const view of [
          { label: "mouse 1280x720", width: 1280, height: 720, touch: false },
          { label: "touch 390x844", width: 390, height: 844, touch: true },
        ]
      ) {
        await t.step(view.label, async () => {
          const opened = await openScene(
            browser,
            server.url,
            `compose-${crypto.randomUUID().slice(0, 8)}`,
            {
              name: "Ana",
              width: view.width,
              height: view.height,
              touch: view.touch,
              draw: false,
            },
          );
          pages.push(opened);
          await compose(opened.page, view.touch);
        });
      }
      await t.step("touch 844x390: toasts never move the open composer", async () => {
        // Turned, the open composer fills the sky row, where the toasts sit above it. It was
        // pushed down by each toast (and back when it went): the title jumped 34 px under a
        // finger, and the person-click test's press on it once landed elsewhere.
        const { page } = pages[1];
        await page.setViewportSize({ width: 844, height: 390 });
        await page.waitForSelector("#composer-panel", { state: "visible" });
        const place = () =>
          page.evaluate(() => {
            const title = document.querySelector(".composer-title")!.getBoundingClientRect();
            const panel = document.getElementById("composer-panel")!.getBoundingClientRect();
            const row = document.querySelector(".hud-middle")!.getBoundingClientRect();
            return { title: title.top, inRow: panel.bottom <= row.bottom + 0.5 };
          });
        const before = await place();
        const toasts = () => page.evaluate(() => document.querySelectorAll(".toast").length);
        const already = await toasts();
        // Two others launch: two toasts more (one person's launches fold into one).
        const scene = new URL(page.url()).pathname.split("/").pop()!;
        for (const name of ["Zed", "Yan"]) {
          const { client, welcome } = await TestClient.join(server.url, scene, { name });
          client.submit({ type: "launch", x: 0, z: 0, kind: "peony" });
          await client.waitFor((m) => m.t === "event" && m.by === welcome.you.id, 10_000);
          await client.close();
        }
        await page.waitForFunction(
          (n) => document.querySelectorAll(".toast").length >= Math.min(4, n + 2),
          already,
          { timeout: 10_000 },
        );
        assert.deepEqual(await place(), before, "the title stays put and the panel on screen");
        await clickLikeAPerson(page, ".composer-title");
        assert.ok(await page.evaluate(() => document.activeElement?.matches(".composer-title")));
      });
      for (const { problems } of pages) assert.deepEqual(problems, []);
    } finally {
      for (const { page } of pages) await page.context().close();
      await browser.close();
      await server.close();
    }
  },
);
