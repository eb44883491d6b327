/**
 * Pictures of the fireworks' colour law for people to look at, and its colour path measured on
 * screen: `deno run -A scripts/firework_shots.ts [--out=DIR] [--sizes=1280x720,390x844]`. In
 * headless Chromium at each size it launches a red-gold peony and holds the display during its
 * rise (the shell's head and its gold trail) and at 0.05, 0.15, 0.3, 0.6 and 1.0 of its sparks'
 * mean life, then a crackle at its pops; it saves each frame to DIR (default
 * tests/output/firework_shots/) and prints the mean colour the burst adds to the frame inside
 * its disc on screen (the frame with the fireworks layer minus the same frame without it, in
 * 0–255 sRGB, over the pixels it lights by more than 8 of 255, and the same in linear light with
 * its g/r and b/r).
 */
import type { Page } from "playwright-core";
import { type LaunchShape, planFirework } from "../shared/firework_plan.ts";
import { RECIPES } from "../shared/firework_recipes.ts";
import { BURST_REACH_MAX } from "../shared/constants.ts";
import { drawFrame, launchBrowser, openScene } from "../testing/browser.ts";
import { TestClient } from "../testing/test_client.ts";
import { startTestServer } from "../testing/test_server.ts";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return Deno.args.find((arg) => arg.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const out = flag("out", "tests/output/firework_shots");
const sizes = flag("sizes", "1280x720,390x844").split(",").map((s) => s.split("x").map(Number));
/** Shares of a peony spark's mean life at which its burst is held. */
const SHARES = [0.05, 0.15, 0.3, 0.6, 1.0];
const PEONY_LIFE = (RECIPES.peony.life[0] + RECIPES.peony.life[1]) / 2;
/** The side of a close crop, CSS pixels. */
const CROP = 320;

/** The mean light (0–255 sRGB) the fireworks layer adds inside a disc of the held frame. */
async function addedLight(page: Page, x: number, y: number, radius: number): Promise<number[]> {
  const read = () =>
    page.evaluate(({ x, y, radius }) => {
      const canvas = document.getElementById("scene") as HTMLCanvasElement;
      const rect = canvas.getBoundingClientRect();
      const scale = canvas.width / rect.width;
      const copy = document.createElement("canvas");
      copy.width = canvas.width;
      copy.height = canvas.height;
      const ctx = copy.getContext("2d", { willReadFrequently: true })!;
      ctx.drawImage(canvas, 0, 0);
      const cx = (x - rect.left) * scale, cy = (y - rect.top) * scale, r = radius * scale;
      const left = Math.max(0, Math.floor(cx - r)), top = Math.max(0, Math.floor(cy - r));
      const width = Math.min(copy.width - left, Math.ceil(2 * r));
      const height = Math.min(copy.height - top, Math.ceil(2 * r));
      return Array.from(ctx.getImageData(left, top, width, height).data);
    }, { x, y, radius });
  await page.evaluate(() => snowfire.setLayerVisible("fireworks", false));
  await drawFrame(page);
  const without = await read();
  await page.evaluate(() => snowfire.setLayerVisible("fireworks", true));
  await drawFrame(page);
  const withIt = await read();
  const sum = [0, 0, 0], linear = [0, 0, 0];
  let lit = 0;
  for (let i = 0; i < withIt.length; i += 4) {
    const d = [
      withIt[i] - without[i],
      withIt[i + 1] - without[i + 1],
      withIt[i + 2] - without[i + 2],
    ];
    if (Math.max(...d) <= 8) continue;
    lit++;
    for (let c = 0; c < 3; c++) {
      sum[c] += d[c];
      linear[c] += toLinear(withIt[i + c]) - toLinear(without[i + c]);
    }
  }
  return [...sum.map((v) => lit ? v / lit : 0), lit, ...linear.map((v) => lit ? v / lit : 0)];
}

/** An sRGB byte as linear light, 0–1. */
function toLinear(byte: number): number {
  const c = byte / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

const server = await startTestServer({ client: true });
const browser = await launchBrowser();
await Deno.mkdir(out, { recursive: true });
try {
  for (const [width, height] of sizes) {
    const scene = `shots-${crypto.randomUUID().slice(0, 8)}`;
    const { client, welcome } = await TestClient.join(server.url, scene, { name: "Launcher" });
    const { page } = await openScene(browser, server.url, scene, {
      name: "Watcher",
      width,
      height,
      draw: false,
      touch: width < 600,
    });
    try {
      client.submit({ type: "settings", settings: { show: false, snow: 0.3 } });
      await page.waitForFunction(() => snowfire.settings()?.show === false);
      // The show may have launched before it was turned off: measure in an empty sky, so no
      // other burst adds its light to the measured disc.
      const before = await page.evaluate(() => snowfire.fireworkCentroids().length);
      await page.waitForFunction(() => snowfire.fireworkCentroids().length === 0, undefined, {
        timeout: 60_000,
        polling: 200,
      });
      console.log(`${width}x${height}: ${before} other launch(es) in the sky waited out`);
      const seed = await page.evaluate(() => snowfire.seed());
      const me = welcome.you.id;
      const launch = async (body: LaunchShape & { theme?: string }) => {
        client.submit({ type: "launch", ...body } as never);
        const event = await client.waitFor(
          (m) =>
            m.t === "event" && m.by === me && m.body.type === "launch" && m.body.kind === body.kind,
          60_000,
        ) as { seq: number; tick: number; body: LaunchShape };
        return { event, plan: planFirework(seed, event.seq, event.body) };
      };
      const hold = async (at: number) => {
        await page.evaluate((at) => snowfire.holdDisplay(at), at);
        await page.waitForFunction(
          (at) => snowfire.renderTime() === at && snowfire.tick() >= at,
          at,
          { timeout: 60_000, polling: 50 },
        );
      };
      // The whole page, and a crop of CROP × CROP CSS pixels centred on the world point `at`.
      const shot = async (name: string, at: readonly number[]) => {
        await drawFrame(page);
        await page.screenshot({ path: `${out}/${name}-${width}x${height}.png` });
        const p = await page.evaluate(([x, y, z]) => snowfire.project(x, y, z), at);
        if (!p) return;
        const side = Math.min(CROP, width, height);
        const x = Math.max(0, Math.min(width - side, Math.round(p.x - side / 2)));
        const y = Math.max(0, Math.min(height - side, Math.round(p.y - side / 2)));
        await page.screenshot({
          path: `${out}/${name}-${width}x${height}-crop.png`,
          clip: { x, y, width: side, height: side },
        });
      };
      const y = 40;
      const peony = await launch({ x: 0, z: 0, y, kind: "peony", theme: "red-gold" } as never);
      const burstTick = peony.event.tick + peony.plan.riseTicks;
      const rising = Math.round(peony.plan.riseTicks * 0.8);
      await hold(peony.event.tick + rising);
      // The shell is at ~96 % of its climb (it decelerates to its apex): crop a little below it.
      await shot("trail-red-gold", [0, peony.plan.burstY * 0.9, 0]);
      const center = await page.evaluate(({ y }) => snowfire.project(0, y, 0), {
        y: peony.plan.burstY,
      });
      const edge = await page.evaluate(
        ({ y, r }) => snowfire.project(r, y, 0),
        { y: peony.plan.burstY, r: BURST_REACH_MAX },
      );
      const radius = center && edge ? Math.abs(edge.x - center.x) : 100;
      for (const share of SHARES) {
        await hold(burstTick + Math.round(share * PEONY_LIFE));
        const [r, g, b, lit, lr, lg, lb] = await addedLight(page, center!.x, center!.y, radius);
        console.log(
          `${width}x${height} peony red-gold at ${share} of life (+${
            Math.round(share * PEONY_LIFE)
          } ticks): ` +
            `mean added light (${r.toFixed(0)}, ${g.toFixed(0)}, ${
              b.toFixed(0)
            }) over ${lit} px; ` +
            `linear (${lr.toFixed(3)}, ${lg.toFixed(3)}, ${lb.toFixed(3)}), g/r ${
              (lg / lr).toFixed(2)
            }, b/r ${(lb / lr).toFixed(2)}`,
        );
        await shot(`peony-${share}`, [0, peony.plan.burstY, 0]);
      }
      await page.evaluate(() => snowfire.holdDisplay(false));
      const crackle = await launch({ x: 0, z: 0, y, kind: "crackle" } as never);
      const crackleBurst = crackle.event.tick + crackle.plan.riseTicks;
      for (const after of [6, 50]) {
        await hold(crackleBurst + after);
        await shot(`crackle-${after}`, [0, crackle.plan.burstY, 0]);
      }
      await page.evaluate(() => snowfire.holdDisplay(false));
    } finally {
      await client.close();
      await page.context().close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
