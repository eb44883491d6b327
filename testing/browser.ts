/**
 * Helpers for the end-to-end browser tests: headless Chromium through playwright-core and pages
 * that join a scene while recording every console problem. The server comes from
 * `startTestServer({ client: true })` (testing/test_server.ts).
 */
import {
  type Browser,
  type BrowserContextOptions,
  chromium,
  type ConsoleMessage,
  type ElementHandle,
  type Page,
} from "playwright-core";
import type { SnowfireDebug } from "../client/debug/debug_hook.ts";
import { findBrowser, HOW_TO_GET_A_BROWSER } from "./find_browser.ts";
import { nicedLaunch } from "./browser_autogroup.ts";

declare global {
  /** The client's debug hook, seen by functions evaluated inside pages. */
  var snowfire: SnowfireDebug;
}

/** Chromium flags for a quiet, reproducible headless run on this machine. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--enable-unsafe-swiftshader",
  // Keep rendering and timers running at full rate in pages that are not in front.
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
];

const browser = findBrowser();
/** CI must run the browser tests: there a missing browser fails them instead of skipping. */
const inCi = /^(true|1)$/i.test(Deno.env.get("CI") ?? "");
/** Set once the skip notice is printed, so a run prints it once, not once per test file. */
const NOTICE_PRINTED = "SNOWFIRE_BROWSER_SKIP_NOTICE";

/** True when no browser is installed and this is not CI: browser tests are then ignored. */
export const skipBrowserTests = browser.path === null && !inCi;

/** `Deno.test` for a test that needs a browser: ignored, not failed, where there is none. */
export function browserTest(name: string, fn: (t: Deno.TestContext) => Promise<void>): void {
  Deno.test(name, { ignore: skipBrowserTests }, fn);
}

if (browser.path === null && !inCi && !Deno.env.get(NOTICE_PRINTED)) {
  // Deno runs each test file in its own isolate; the environment is the process's, shared by all.
  Deno.env.set(NOTICE_PRINTED, "1");
  console.log(`browser tests skipped: ${browser.reason}; to run them, ${HOW_TO_GET_A_BROWSER}.`);
}

/** Starts headless Chromium (the one {@link findBrowser} found). */
export function launchBrowser(): Promise<Browser> {
  if (browser.path === null) {
    const why = inCi ? "CI=true, so the browser tests must run, but " : "";
    return Promise.reject(
      new Error(`no_browser: ${why}${browser.reason}; ${HOW_TO_GET_A_BROWSER}`),
    );
  }
  // Niced with its launcher, though Playwright starts it in a session of its own.
  return chromium.launch({ ...nicedLaunch(browser.path), args: CHROMIUM_ARGS });
}

/**
 * Console messages that come from the software GL driver of headless Chromium rather than from
 * our page ("GPU stall due to ReadPixels" when the compositor reads back the canvas).
 */
function isDriverNoise(message: ConsoleMessage): boolean {
  return message.text().includes("GL Driver Message");
}

/** A page in a scene, with the console errors and warnings it produced. */
export interface ScenePage {
  page: Page;
  /** `type: text` of every console error or warning (driver noise excluded) and page error. */
  problems: string[];
}

/** Options for {@link openScene}. */
export interface OpenSceneOptions {
  name: string;
  width?: number;
  height?: number;
  reducedMotion?: boolean;
  /** Test mode keeps the drawing buffer for pixel reads; default true. */
  test?: boolean;
  /** A phone: touch events, `pointer: coarse`, mobile viewport. */
  touch?: boolean;
  /** Extra context options (permissions, storage state…). */
  context?: BrowserContextOptions;
  /** Don't wait for the connection (the caller checks something else first). */
  noWait?: boolean;
  /**
   * Whether the page draws (default true). A test that checks only state (HUD, world, camera
   * projection) passes false: software GL then stops pacing every action at a frame a second.
   * {@link drawnScreenshot} draws for one picture.
   */
  draw?: boolean;
}

/** Opens `/s/:scene` in a fresh browser context and waits until the client is connected. */
export async function openScene(
  browser: Browser,
  serverUrl: string,
  scene: string,
  options: OpenSceneOptions,
): Promise<ScenePage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 800, height: options.height ?? 600 },
    reducedMotion: options.reducedMotion ? "reduce" : "no-preference",
    ...(options.touch ? { hasTouch: true, isMobile: true } : {}),
    ...options.context,
  });
  const page = await context.newPage();
  // Patient actions: a page that draws on software GL beside other tests may take seconds a
  // frame, and a screenshot or a click waits for frames (Playwright's default is 30 s).
  page.setDefaultTimeout(90_000);
  const problems: string[] = [];
  page.on("console", (message) => {
    const type = message.type();
    if ((type === "error" || type === "warning") && !isDriverNoise(message)) {
      problems.push(`${type}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  const test = options.test === false ? "" : options.draw === false ? "test&nodraw&" : "test&";
  await page.goto(`${serverUrl}/s/${scene}?${test}name=${encodeURIComponent(options.name)}`);
  if (!options.noWait) {
    await waitConnected(page).catch(async (error) => {
      // What the page was doing when the wait gave up (CI once saw only the timeout).
      const state = await page.evaluate(() => ({
        hook: typeof globalThis.snowfire === "object",
        connected: globalThis.snowfire?.connected(),
        tick: globalThis.snowfire?.tick(),
        connection: document.getElementById("connection")?.textContent?.trim(),
        toasts: document.getElementById("toasts")?.textContent?.trim(),
      })).catch((e) => `unreadable (${(e as Error).message})`);
      throw new Error(
        `${options.name} at ${page.url()} never connected and ticked: ${error.message}\n` +
          `page state: ${JSON.stringify(state)}\npage problems: ${JSON.stringify(problems)}`,
        { cause: error },
      );
    });
  }
  return { page, problems };
}

/**
 * A screenshot of the page's last drawn frame: the page draws two frames, stops drawing, and the
 * picture is taken; then the page draws again if it did before (a page opened with `draw: false`
 * does not). Test pages keep their drawing buffer, so the canvas still shows the last
 * drawn frame; a screenshot taken while the page draws waits for several frames, each up to
 * seconds on software GL (13–20 s per picture measured at 1280×720 with the draw left on).
 */
export async function drawnScreenshot(
  page: Page,
  path: string,
  clip?: { x: number; y: number; width: number; height: number },
): Promise<void> {
  const drewBefore = await drawFrame(page);
  try {
    await page.screenshot({ path, clip });
  } finally {
    await page.evaluate((on) => snowfire.setDrawing(on), drewBefore);
  }
}

/**
 * Draws one frame of a page that does not draw (`draw: false`) and stops drawing again; the canvas
 * keeps that frame for pixel reads (`testing/browser_pixels.ts`). Resolves with whether the page
 * drew before, for the caller to restore with `snowfire.setDrawing`.
 *
 * @example
 * ```ts ignore
 * const drewBefore = await drawFrame(page);
 * const bright = await brightPixelsAround(page, 640, 360, 100);
 * await page.evaluate((on) => snowfire.setDrawing(on), drewBefore);
 * ```
 */
export async function drawFrame(page: Page): Promise<boolean> {
  const drewBefore = await page.evaluate(() => snowfire.isDrawing());
  await page.evaluate(() =>
    new Promise<void>((shown) => {
      snowfire.setDrawing(true);
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          snowfire.setDrawing(false);
          shown();
        })
      );
    })
  );
  return drewBefore;
}

/** Waits until the page's client is connected and simulating. */
export async function waitConnected(page: Page): Promise<void> {
  // Generous: on software GL with several pages open, a page's first frames take seconds.
  await page.waitForFunction(() => globalThis.snowfire?.connected() && snowfire.tick() > 0, null, {
    // Two minutes: the tier runs at the lowest priority beside the others (testing/run_tests.ts).
    timeout: 120_000,
    polling: 100,
  });
}

/** Where on a control a hand lands: fractions of its box (the centre by default). */
export interface HandPoint {
  fx: number;
  fy: number;
}

/** What {@link reachOf} found at a control's point. */
export interface Reach {
  /** The point, in viewport pixels. */
  x: number;
  y: number;
  /** Whether the element there is the control (or inside it). */
  ok: boolean;
  /** The element there, described (`button#mute`, `canvas#scene`…). */
  hit: string;
  /** The control, described. */
  control: string;
}

/**
 * Where a hand would press `control` and whether it would reach it: the control is first brought
 * into view the way a person scrolls (only as far as needed), then `document.elementFromPoint`
 * at the point (its centre by default) must be the control or inside it.
 *
 * @example
 * ```ts
 * const reach = await reachOf((await page.$("#mute"))!);
 * assert.ok(reach.ok, `covered by ${reach.hit}`);
 * ```
 */
export function reachOf(
  control: ElementHandle<Element>,
  at: HandPoint = { fx: 0.5, fy: 0.5 },
): Promise<Reach> {
  return control.evaluate(reachInPage, at);
}

/**
 * {@link reachOf}'s work inside the page, for a test that checks the reach in the same call as
 * other reads of the control (one round trip to a busy page instead of several). Uses nothing
 * outside itself.
 *
 * @example
 * ```ts
 * const reach = await handle.evaluate(reachInPage, { fx: 0.5, fy: 0.5 });
 * ```
 */
export function reachInPage(node: Element, at: HandPoint): Reach {
  const describe = (el: Element | null): string => {
    if (!el) return "nothing";
    const id = el.id ? `#${el.id}` : "";
    const cls = !id && typeof el.className === "string" && el.className
      ? `.${el.className.trim().split(/\s+/).join(".")}`
      : "";
    const text = (el.textContent ?? "").trim().slice(0, 24);
    return `${el.tagName.toLowerCase()}${id}${cls}${text && !id ? ` "${text}"` : ""}`;
  };
  let r = node.getBoundingClientRect();
  const inView = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  const hitAt = (x: number, y: number) => document.elementFromPoint(x, y);
  const x0 = r.left + at.fx * r.width, y0 = r.top + at.fy * r.height;
  const first = hitAt(x0, y0);
  if (!inView || !first || !(first === node || node.contains(first))) {
    node.scrollIntoView({ block: "nearest", inline: "nearest" });
    r = node.getBoundingClientRect();
  }
  const x = r.left + at.fx * r.width, y = r.top + at.fy * r.height;
  const hit = hitAt(x, y);
  return {
    x,
    y,
    ok: !!hit && (hit === node || node.contains(hit)),
    hit: describe(hit),
    control: describe(node),
  };
}

/** The error {@link clickLikeAPerson} throws when a control is covered at its point. */
export function unreachable(target: string, reach: Reach): Error {
  return new Error(
    `unreachable: ${target} at (${Math.round(reach.x)}, ${Math.round(reach.y)}) is covered by ` +
      reach.hit,
  );
}

/** A real press at a point already checked by {@link reachOf}: a tap on a touch page, else a click. */
export async function pressAt(page: Page, reach: Reach, touch: boolean): Promise<void> {
  if (touch) await page.touchscreen.tap(reach.x, reach.y);
  else await page.mouse.click(reach.x, reach.y);
}

/** Whether the page was opened as a phone (touch): it is then tapped, not clicked. */
export function isTouchPage(page: Page): Promise<boolean> {
  return page.evaluate(() => navigator.maxTouchPoints > 0);
}

/**
 * Presses a control the way a person does: checks with {@link reachOf} that the control itself
 * is under the point (throws `unreachable` naming what is there instead), then a real
 * `page.mouse.click` there, or `page.touchscreen.tap` on a touch page. No actionability waits:
 * a page on software GL may take seconds a frame, and a hand does not wait for them either.
 *
 * @example
 * ```ts
 * await clickLikeAPerson(page, "#open-scene");
 * await clickLikeAPerson(page, "#wind-speed", { at: { fx: 0.25, fy: 0.5 } });
 * ```
 */
export async function clickLikeAPerson(
  page: Page,
  target: string | ElementHandle<Element>,
  options: { at?: HandPoint; touch?: boolean } = {},
): Promise<Reach> {
  const control = typeof target === "string" ? await page.$(target) : target;
  if (!control) throw new Error(`unreachable: no ${target} on the page`);
  const reach = await reachOf(control, options.at);
  if (!reach.ok) throw unreachable(typeof target === "string" ? target : reach.control, reach);
  await pressAt(page, reach, options.touch ?? await isTouchPage(page));
  return reach;
}

/**
 * Sets a checkbox or picks a radio the way a person does: once the control is shown and enabled
 * (within `timeout` ms), a {@link clickLikeAPerson} on it when it is not already as wanted.
 *
 * @example
 * ```ts
 * await checkLikeAPerson(page, "#show", false);
 * await checkLikeAPerson(page, 'input[name="snow"][value="1"]');
 * ```
 */
export async function checkLikeAPerson(
  page: Page,
  selector: string,
  checked = true,
  timeout = 30_000,
): Promise<void> {
  await page.waitForSelector(`${selector}:not([disabled])`, { state: "visible", timeout });
  if (await page.isChecked(selector) === checked) return;
  // A press that lands toggles the control before the mouse call returns (the renderer has
  // handled it). On a starved page a press right after a panel opened can land where the
  // control was not yet (CI: the show's box still checked after its press).
  const shown = await pressUntilShown(
    page,
    selector,
    ({ selector, checked }) =>
      document.querySelector<HTMLInputElement>(selector)?.checked === checked,
    { selector, checked },
  );
  if (shown) return;
  throw new Error(`${selector} was pressed but is still ${checked ? "unchecked" : "checked"}`);
}

/**
 * Presses `selector` as a person does ({@link clickLikeAPerson}) until `shown(arg)` holds in the
 * page: after each press it looks for up to `showsMs`, and presses again when the press did not
 * show (a person whose press was lost presses again), `presses` times at most. False when it
 * never showed.
 *
 * @example
 * ```ts
 * const selected = await pressUntilShown(page, "#cue-3", (id) => isSelected(id), "cue-3");
 * ```
 */
export async function pressUntilShown<A>(
  page: Page,
  selector: string,
  shown: (arg: A) => boolean,
  arg: A,
  { presses = 3, showsMs = 2000 }: { presses?: number; showsMs?: number } = {},
): Promise<boolean> {
  for (let press = 1; press <= presses; press++) {
    await clickLikeAPerson(page, selector);
    // (Playwright types the page function's argument as its unboxed form; `A` is plain data.)
    const took = await page.waitForFunction(shown as never, arg, { timeout: showsMs, polling: 50 })
      .then(() => true, () => false);
    if (took) return true;
  }
  return false;
}
