/**
 * The camera by hand, in headless Chromium at 1280×720 (mouse), 390×844 and 844×390 (touch,
 * pinch through CDP `Input.dispatchTouchEvent`):
 * - two zoom gestures on the fountain (two wheel flicks of five notches, or two pinches) bring
 *   it close: its lower dish spans at least a third of the screen's width, and the fountain stays
 *   under the pointer or fingers all the way (it used to zoom toward the sky and leave the screen);
 *   a pinch (two fingers spread five times apart) launches nothing;
 * - a long drag down or up keeps the horizon level (the camera's right has no height), the trees
 *   upright and the ground below (looking down 30° at most, up about 5° at most);
 * - the Reset view button (in the bar once the view moved; clicked or tapped at its centre), `0`
 *   and Home bring back the start.
 * Positions come from the page's own camera (`snowfire.view`, `snowfire.project`), not pixels.
 * Screenshots of the zoomed fountain: tests/output/camera-fountain-*.png.
 */
import assert from "node:assert/strict";
import type { CDPSession, Page } from "playwright-core";
import { browserTest, drawnScreenshot, launchBrowser, openScene } from "../../testing/browser.ts";
import { FOUNTAIN_SURFACES, surfaceHeight } from "../../shared/fountain.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

const VIEWPORTS = [
  { label: "1280×720", width: 1280, height: 720, touch: false },
  { label: "390×844", width: 390, height: 844, touch: true },
  { label: "844×390", width: 844, height: 390, touch: true },
] as const;

type View = Awaited<ReturnType<typeof readView>>;

function readView(page: Page) {
  return page.evaluate(() => snowfire.view());
}

/** Tells {@link settled}'s waits apart (each keeps its samples in the page under its own key). */
let settleWaits = 0;

/**
 * Waits until the camera stops gliding (the orbit controls damp a drag over frames): one sample a
 * frame, and the view now is where it was at least 6 frames and 100 ms ago.
 */
async function settled(page: Page): Promise<View> {
  const key = `snowfireSettle${++settleWaits}`;
  try {
    const still = await page.waitForFunction(
      (key) => {
        type Sample = { at: number; view: ReturnType<typeof snowfire.view> };
        const store = globalThis as unknown as Record<string, Sample[] | undefined>;
        const samples = store[key] ??= [];
        const now: Sample = { at: performance.now(), view: snowfire.view() };
        samples.push(now);
        // The newest sample at least 6 frames and 100 ms older than now.
        let then: Sample | undefined;
        for (let i = samples.length - 7; i >= 0; i--) {
          if (now.at - samples[i].at >= 100) {
            then = samples[i];
            break;
          }
        }
        if (!then) return false;
        const moved = now.view.position.some((v, k) =>
          Math.abs(v - then.view.position[k]) > 1e-4
        ) ||
          now.view.target.some((v, k) => Math.abs(v - then.view.target[k]) > 1e-4);
        if (moved) return false;
        delete store[key];
        return now.view;
      },
      key,
      { polling: "raf", timeout: 30_000 },
    );
    return await still.jsonValue() as View;
  } catch (error) {
    throw new Error("the camera never settled", { cause: error });
  }
}

/** The lower dish as the fountain has it: its radius and its rim's height, metres. */
const LOWER_DISH = (() => {
  const dish = FOUNTAIN_SURFACES.find((s) => s.name === "lower-dish")!;
  return { radius: dish.rMax, rimY: surfaceHeight(dish, dish.rMax) };
})();

/** The fountain's centre on screen (CSS px), and its lower dish's width there. */
function fountainOnScreen(page: Page) {
  return page.evaluate(({ radius, rimY }) => {
    const centre = snowfire.project(0, 1, 0);
    // The lower dish's rim: its width across the view direction.
    const v = snowfire.view();
    const rx = v.right[0], rz = v.right[2];
    const norm = Math.hypot(rx, rz) || 1;
    const a = snowfire.project((-radius * rx) / norm, rimY, (-radius * rz) / norm);
    const b = snowfire.project((radius * rx) / norm, rimY, (radius * rz) / norm);
    const dish = a && b ? Math.hypot(a.x - b.x, a.y - b.y) : 0;
    return { centre, dish };
  }, LOWER_DISH);
}

async function onCanvas(page: Page, x: number, y: number): Promise<boolean> {
  return await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.id === "scene", [x, y]);
}

/** One finger or two, moved from `from` to `to` in `steps` through CDP touch events. */
async function touchPath(
  cdp: CDPSession,
  from: { x: number; y: number }[],
  to: { x: number; y: number }[],
  steps = 10,
): Promise<void> {
  const at = (k: number) =>
    from.map((f, i) => ({
      x: f.x + ((to[i].x - f.x) * k) / steps,
      y: f.y + ((to[i].y - f.y) * k) / steps,
      id: i,
    }));
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at(0) });
  for (let k = 1; k <= steps; k++) {
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: at(k) });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
}

/** Degrees the camera looks below the horizon (negative: above it). */
function lookDown(view: View): number {
  const d = view.target.map((t, k) => t - view.position[k]);
  return (Math.atan2(-d[1], Math.hypot(d[0], d[2])) * 180) / Math.PI;
}

function assertLevelAndUpright(view: View, label: string): void {
  assert.ok(Math.abs(view.right[1]) < 1e-6, `${label}: the horizon is level (${view.right[1]})`);
  assert.ok(view.up[1] > 0.8, `${label}: the camera is upright (up.y ${view.up[1]})`);
  const down = lookDown(view);
  assert.ok(down <= 30.5, `${label}: looks down ${down.toFixed(1)}° (≤ 30°)`);
  assert.ok(down >= -6, `${label}: looks up ${(-down).toFixed(1)}° (≤ 6°: the ground stays)`);
}

async function assertHome(page: Page, home: View, label: string): Promise<void> {
  const view = await settled(page);
  for (let k = 0; k < 3; k++) {
    assert.ok(Math.abs(view.position[k] - home.position[k]) < 1e-3, `${label}: position back`);
    assert.ok(Math.abs(view.target[k] - home.target[k]) < 1e-3, `${label}: target back`);
  }
}

browserTest("browser camera: zoom toward the fountain, level orbit, reset view", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  try {
    const scene = `camera-${crypto.randomUUID().slice(0, 8)}`;
    // A quiet sky: the test is about the camera.
    const settings = (await TestClient.join(server.url, scene, { name: "Settings" })).client;
    settings.submit({ type: "settings", settings: { show: false, snow: 0 } });
    await settings.close();

    for (const vp of VIEWPORTS) {
      await t.step(vp.label, async () => {
        const { page, problems } = await openScene(browser, server.url, scene, {
          name: "Cam",
          width: vp.width,
          height: vp.height,
          touch: vp.touch,
          draw: false,
        });
        const cdp = await page.context().newCDPSession(page);
        try {
          const home = await settled(page);
          const start = await fountainOnScreen(page);
          assert.ok(start.centre, "the fountain is in the starting view");
          const p = { x: Math.round(start.centre.x), y: Math.round(start.centre.y) };
          assert.ok(await onCanvas(page, p.x, p.y), "the fountain is not under a HUD control");
          const launchedBefore = await page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);

          // Two gestures toward the fountain.
          for (let gesture = 1; gesture <= 2; gesture++) {
            if (vp.touch) {
              const gap = Math.min(vp.width, vp.height) * 0.07;
              const spread = gap * 5;
              await touchPath(
                cdp,
                [{ x: p.x - gap, y: p.y }, { x: p.x + gap, y: p.y }],
                [{ x: p.x - spread, y: p.y }, { x: p.x + spread, y: p.y }],
              );
            } else {
              await page.mouse.move(p.x, p.y);
              for (let notch = 0; notch < 5; notch++) await page.mouse.wheel(0, -100);
            }
            const now = await fountainOnScreen(page);
            assert.ok(now.centre, `gesture ${gesture}: the fountain is in front of the camera`);
            const off = Math.hypot(now.centre.x - p.x, now.centre.y - p.y);
            assert.ok(
              off < Math.min(vp.width, vp.height) * 0.03,
              `gesture ${gesture}: the fountain stays under the pointer (moved ${
                off.toFixed(1)
              } px)`,
            );
            console.log(
              `${vp.label}: after gesture ${gesture} the dish spans ${now.dish.toFixed(0)} px ` +
                `of ${vp.width} (was ${start.dish.toFixed(0)})`,
            );
          }
          const close = await fountainOnScreen(page);
          assert.ok(
            close.dish >= vp.width / 3,
            `the dish spans ${close.dish.toFixed(0)} px, a third of ${vp.width} at least`,
          );
          const zoomed = await settled(page);
          assertLevelAndUpright(zoomed, "zoomed");
          await Deno.mkdir("tests/output", { recursive: true });
          await drawnScreenshot(
            page,
            `tests/output/camera-fountain-${vp.label.replace("×", "x")}.png`,
          );
          if (vp.touch) {
            const after = await page.evaluate(() => snowfire.lastEvent()?.seq ?? 0);
            const mine = await page.evaluate(
              (after) =>
                snowfire.recentEvents().filter((e) => e.seq > after && e.by === snowfire.you)
                  .length,
              launchedBefore,
            );
            assert.equal(mine, 0, `a pinch launches nothing (seq ${after})`);
          }

          // Reset view: the bar offers it once the view moved; its button, at its centre.
          await page.waitForFunction(() => !document.getElementById("reset-view")!.hidden);
          const button = await page.evaluate(() => {
            const r = document.getElementById("reset-view")!.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const hit = document.elementFromPoint(x, y);
            return { x, y, on: !!hit?.closest("#reset-view") };
          });
          assert.ok(button.on, "the Reset view button is on top at its centre");
          if (vp.touch) await page.touchscreen.tap(button.x, button.y);
          else await page.mouse.click(button.x, button.y);
          await assertHome(page, home, "Reset view button");
          assert.ok(
            await page.evaluate(() => document.getElementById("reset-view")!.hidden),
            "the button leaves the bar once the view is home",
          );

          // Orbit: a long drag down (toward looking from above), then a long drag up.
          const drags = [[0.25, 0.8], [0.75, 0.1]].map(([a, b]) => ({
            from: { x: Math.round(vp.width * 0.4), y: Math.round(vp.height * a) },
            to: { x: Math.round(vp.width * 0.6), y: Math.round(vp.height * b) },
            label: a < b ? "drag down" : "drag up",
          }));
          for (const { from, to, label } of drags) {
            assert.ok(await onCanvas(page, from.x, from.y), `${label} starts on the sky`);
            if (vp.touch) await touchPath(cdp, [from], [to], 15);
            else {
              await page.mouse.move(from.x, from.y);
              await page.mouse.down();
              await page.mouse.move(to.x, to.y, { steps: 15 });
              await page.mouse.up();
            }
            const dragged = await settled(page);
            assertLevelAndUpright(dragged, label);
            // A tree under the orbit target stands upright on screen.
            const upright = await page.evaluate(() => {
              const [x, , z] = snowfire.view().target;
              const foot = snowfire.project(x, 0, z), top = snowfire.project(x, 10, z);
              return !!foot && !!top && top.y < foot.y;
            });
            assert.ok(upright, `${label}: the trees stand upright`);
          }

          if (!vp.touch) {
            for (const key of ["0", "Home"]) {
              await page.mouse.move(p.x, p.y);
              for (let notch = 0; notch < 3; notch++) await page.mouse.wheel(0, -100);
              const moved = await readView(page);
              assert.ok(Math.abs(moved.position[2] - home.position[2]) > 1, "zoomed in first");
              await page.keyboard.press(key);
              await assertHome(page, home, `key ${key}`);
            }
          }
          assert.deepEqual(problems, [], "no console problems");
        } finally {
          await cdp.detach();
          await page.context().close();
        }
      });
    }
  } finally {
    await browser.close();
    await server.close();
  }
});
