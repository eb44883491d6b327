/**
 * The viewer stands inside the snowfall (issue 15, seed 000), in headless Chromium at 1280×720,
 * 390×844 and 844×390: with every layer but the snow hidden, flakes show in at least 90 % of the
 * cells of the upper half of the view (the sky where the bursts are), and some flakes near the
 * camera are at least 12 px across (their shape and tumbling can be seen). Each view is saved to
 * `tests/output/snow-<w>x<h>.png` (snow alone) and `tests/output/scene-<w>x<h>-{young,bloom}.png`
 * (everything, one launch of every kind side by side, 0.15 s and 0.75 s after the last burst) for
 * people to look at.
 */
import assert from "node:assert/strict";
import { TICK_RATE } from "../../shared/constants.ts";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { planFirework } from "../../shared/firework_plan.ts";
import { browserTest, drawnScreenshot, launchBrowser, openScene } from "../../testing/browser.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

const VIEWPORTS = [
  { width: 1280, height: 720 },
  { width: 390, height: 844 },
  { width: 844, height: 390 },
];
/** Grid cell side, CSS pixels. */
const CELL = 40;
/** Every render layer except the snow. */
const OTHER_LAYERS = ["scenery", "fireworks", "gun", "fountain"];

/** What the page measures on one frame of its canvas. */
interface SnowReading {
  /** Cells of the upper half with at least one flake pixel, and all of them. */
  filled: number;
  cells: number;
  /** The widest bright blob's bounding-box side, CSS pixels. */
  largest: number;
}

browserTest("browser snow: the view is inside the snowfall at every viewport", async (t) => {
  const server = await startTestServer({ client: true });
  const browser = await launchBrowser();
  let client: TestClient | null = null;
  try {
    const scene = `snow-${crypto.randomUUID().slice(0, 8)}`;
    const joined = await TestClient.join(server.url, scene, { name: "Weather" });
    client = joined.client;
    client.submit({ type: "settings", settings: { show: false, snow: 0.5, windSpeed: 2 } });
    await Deno.mkdir("tests/output", { recursive: true });
    let lastSeq = 0;
    for (const { width, height } of VIEWPORTS) {
      await t.step(`${width}×${height}`, async () => {
        const { page, problems } = await openScene(browser, server.url, scene, {
          name: "Viewer",
          width,
          height,
          // It draws only for the frames it reads and the pictures: waiting costs no frames.
          draw: false,
        });
        try {
          await page.waitForFunction(() => snowfire.settings()?.show === false, null, {
            timeout: 20_000,
          });
          for (const layer of OTHER_LAYERS) {
            await page.evaluate((l) => snowfire.setLayerVisible(l, false), layer);
          }
          // Up to eight frames ¾ s apart: near flakes come and go, so keep the best reading, and
          // stop at the first frames that already show both (four frames at 844×390 once saw no
          // flake over 11 px).
          let best: SnowReading = { filled: 0, cells: 1, largest: 0 };
          const enough = () => best.filled >= 0.9 * best.cells && best.largest >= 12;
          // The displayed time of the last reading (at first: now): each reading waits until the
          // snow shown has moved on ¾ s of scene time from it.
          let shownAt = await page.evaluate(() => snowfire.renderTime());
          for (let frame = 0; frame < 8 && !enough(); frame++) {
            await page.waitForFunction(
              ({ from, ticks }) => snowfire.renderTime() >= from + ticks,
              { from: shownAt, ticks: 0.7 * TICK_RATE },
              { timeout: 30_000, polling: 50 },
            );
            await page.evaluate(() => {
              snowfire.holdDisplay(true);
              snowfire.setDrawing(true);
            });
            await page.evaluate(() =>
              new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))
            );
            const reading = await page.evaluate(readSnow, CELL);
            shownAt = await page.evaluate(() => snowfire.renderTime());
            // Drawing stops before the picture: the page keeps its drawing buffer, and a
            // screenshot of a drawing page waits for several slow frames.
            await page.evaluate(() => snowfire.setDrawing(false));
            if (frame === 0) {
              await page.screenshot({ path: `tests/output/snow-${width}x${height}.png` });
            }
            await page.evaluate(() => snowfire.holdDisplay(false));
            if (reading.filled / reading.cells > best.filled / best.cells) {
              best = { ...reading, largest: Math.max(best.largest, reading.largest) };
            } else best.largest = Math.max(best.largest, reading.largest);
          }
          console.log(
            `${width}×${height}: flakes in ${best.filled}/${best.cells} upper cells, ` +
              `largest flake ${best.largest} px`,
          );
          assert.ok(
            best.filled >= 0.9 * best.cells,
            `flakes in ${best.filled} of ${best.cells} cells of the upper half`,
          );
          assert.ok(best.largest >= 12, `a near flake is ${best.largest} px (≥ 12 wanted)`);

          // The whole scene with a burst in it, for people to look at.
          for (const layer of OTHER_LAYERS) {
            await page.evaluate((l) => snowfire.setLayerVisible(l, true), layer);
          }
          // Every kind at once, side by side at the same height (so they burst together).
          const seed = await page.evaluate(() => snowfire.seed());
          let burstTick = 0;
          // Peony last, so the "young" picture shows a peony 0.15 s after its burst. Eight at once
          // are within the launch limit's burst (each viewport's step takes longer than the two
          // seconds the limit needs to refill).
          for (const [k, kind] of [...FIREWORK_KINDS.entries()].reverse()) {
            const body = { type: "launch" as const, x: -35 + 10 * k, z: 0, y: 40, kind };
            client!.submit(body);
            // Only this step's launches: the client's history holds the earlier viewports' too.
            const after = lastSeq;
            const event = await client!.waitFor(
              (m) =>
                m.t === "event" && m.seq > after && m.body.type === "launch" &&
                m.body.kind === kind,
              10_000,
            ) as { seq: number; tick: number };
            lastSeq = event.seq;
            burstTick = Math.max(
              burstTick,
              event.tick + planFirework(seed, event.seq, body).riseTicks,
            );
          }
          // A young burst (0.15 s: sparks, not a disc) and one in full bloom (0.75 s).
          for (const [age, name] of [[9, "young"], [45, "bloom"]] as const) {
            await page.evaluate((at) => snowfire.holdDisplay(at), burstTick + age);
            await page.waitForFunction((at) => snowfire.renderTime() === at, burstTick + age, {
              timeout: 40_000,
            });
            await drawnScreenshot(page, `tests/output/scene-${width}x${height}-${name}.png`);
          }
          await page.evaluate(() => snowfire.holdDisplay(false));
          assert.deepEqual(problems, []);
        } finally {
          await page.context().close();
        }
      });
    }
  } finally {
    await client?.close();
    await browser.close();
    await server.close();
  }
});

/**
 * Runs in the page: copies the WebGL canvas into a 2D canvas at CSS size and measures the snow.
 * A cell is filled when one of its pixels is clearly brighter than the night behind the flakes;
 * blobs of bright pixels give the flakes' sizes on screen.
 */
function readSnow(cell: number): SnowReading {
  const canvas = document.querySelector("canvas")!;
  const width = canvas.clientWidth, height = canvas.clientHeight;
  const copy = document.createElement("canvas");
  copy.width = width;
  copy.height = height;
  const ctx = copy.getContext("2d", { willReadFrequently: true })!;
  ctx.drawImage(canvas, 0, 0, width, height);
  const data = ctx.getImageData(0, 0, width, height).data;
  const lum = new Float32Array(width * height);
  const sorted: number[] = [];
  for (let i = 0; i < width * height; i++) {
    lum[i] = 0.299 * data[i * 4] + 0.587 * data[i * 4 + 1] + 0.114 * data[i * 4 + 2];
    if (i % 97 === 0) sorted.push(lum[i]);
  }
  sorted.sort((a, b) => a - b);
  const night = sorted[Math.floor(sorted.length / 2)];
  const columns = Math.floor(width / cell), rows = Math.floor(height / 2 / cell);
  let filled = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      let found = false;
      for (let y = r * cell; y < (r + 1) * cell && !found; y++) {
        for (let x = c * cell; x < (c + 1) * cell; x++) {
          if (lum[y * width + x] > night + 10) {
            found = true;
            break;
          }
        }
      }
      if (found) filled++;
    }
  }
  // Bright blobs (4-connected) and the larger side of their bounding boxes.
  const bright = night + 60;
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  let largest = 0;
  for (let start = 0; start < width * height; start++) {
    if (seen[start] || lum[start] <= bright) continue;
    seen[start] = 1;
    stack.push(start);
    let x0 = width, x1 = 0, y0 = height, y1 = 0, size = 0;
    while (stack.length > 0) {
      const i = stack.pop()!;
      const x = i % width, y = (i - x) / width;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
      size++;
      for (const j of [i - 1, i + 1, i - width, i + width]) {
        if (j < 0 || j >= width * height || seen[j] || lum[j] <= bright) continue;
        if (Math.abs((j % width) - x) > 1) continue;
        seen[j] = 1;
        stack.push(j);
      }
    }
    // A blob bigger than a flake could be is not a flake (nothing else is drawn).
    if (size < 20_000) largest = Math.max(largest, Math.max(x1 - x0, y1 - y0) + 1);
  }
  return { filled, cells: columns * rows, largest };
}
