/**
 * `deno run -A bench/browser/join_run.ts`: does a late joiner freeze a page already there? A
 * veteran page (its own headless Chromium) holds a sky of `--target` live sparks (default 1M), a
 * tick a frame as a client steps it; once it has run `--baseline` frames (default 240), a joiner
 * (a second Chromium) builds the same scene from the window (`worldFromWindow`), binds a renderer,
 * hashes its first checkpoint and runs 120 frames (bench/browser/join_page.ts). Reported per run:
 * the veteran's longest gap between animation frames before the join and while it goes on (target:
 * while ≤ 2× before), and the joiner's join and first-checkpoint times. `--runs=N` (default 3).
 * `--draw-every=N` (default 0: never drawn, so that the software GPU does not decide the frame
 * rate; N: every n-th frame).
 */
import { bundleScript } from "../../tools/bundle.ts";
import { launchBrowser } from "../../testing/browser.ts";
import type { Browser, Page } from "playwright-core";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const found = Deno.args.find((arg) => arg.startsWith(prefix));
  return found ? found.slice(prefix.length) : fallback;
}

const target = Number(flag("target", "1000000"));
const baseline = Number(flag("baseline", "240"));
const runs = Number(flag("runs", "3"));
const drawEvery = Number(flag("draw-every", "0"));
const WARMUP = 600;
const URL_ = "http://snowfire-bench.localhost/join";
const script = await bundleScript(new URL("./join_page.ts", import.meta.url));

async function open(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
  await page.route(URL_, (route) =>
    route.fulfill({
      status: 200,
      contentType: "text/html",
      headers: {
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Embedder-Policy": "require-corp",
      },
      body: `<!doctype html><canvas id="scene" width="480" height="270"></canvas>`,
    }));
  await page.goto(URL_);
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  page.setDefaultTimeout(0);
  await page.addScriptTag({ content: script });
  return page;
}

const maxGap = (starts: number[], from: number, to: number) => {
  let gap = 0;
  for (let i = 1; i < starts.length; i++) {
    if (starts[i] < from || starts[i - 1] > to) continue;
    gap = Math.max(gap, starts[i] - starts[i - 1]);
  }
  return gap;
};

const ratios: number[] = [];
for (let run = 1; run <= runs; run++) {
  const veteranBrowser = await launchBrowser();
  const joinerBrowser = await launchBrowser();
  try {
    const veteran = await open(veteranBrowser);
    const joiner = await open(joinerBrowser);
    await veteran.evaluate(
      ([t, w, d]) => {
        const g = globalThis as unknown as Record<string, unknown>;
        const hold = g.holdSky as (a: number, b: number, c: number, e: number) => unknown;
        g.vet = hold(t, w, w + 4000, d);
      },
      [target, WARMUP, drawEvery],
    );
    await veteran.waitForFunction(
      (n) => (globalThis as unknown as { vet: { starts: number[] } }).vet.starts.length >= n,
      baseline,
    );
    const now = () => veteran.evaluate(() => performance.now());
    const joinFrom = await now();
    const joined = await joiner.evaluate(
      ([t, at, d]) =>
        (globalThis as unknown as {
          joinSky(a: number, b: number, c: number, e: number): Promise<unknown>;
        }).joinSky(t, at, 120, d),
      [target, WARMUP + baseline, drawEvery],
    ) as { joinMs: number; checkpointMs: number };
    const joinTo = await now();
    await veteran.waitForFunction(
      (to) => {
        const starts = (globalThis as unknown as { vet: { starts: number[] } }).vet.starts;
        return starts.length > 0 && starts[starts.length - 1] > to + 1000;
      },
      joinTo,
    );
    const { starts, live } = await veteran.evaluate(() => {
      const vet = (globalThis as unknown as {
        vet: { starts: number[]; live(): number; stop(): void };
      }).vet;
      vet.stop();
      return { starts: vet.starts, live: vet.live() };
    });
    // Before: from the 60th frame (the first frames write every live launch) to the join.
    const before = maxGap(starts, starts[60], joinFrom);
    const during = maxGap(starts, joinFrom, joinTo);
    ratios.push(during / before);
    console.log(
      `run ${run}: ${live} live sparks; veteran's longest frame gap before ${
        before.toFixed(0)
      } ms, while the joiner joined ${during.toFixed(0)} ms (×${
        (during / before).toFixed(2)
      }); joiner: worldFromWindow + renderer ${joined.joinMs.toFixed(0)} ms, first checkpoint ${
        joined.checkpointMs.toFixed(0)
      } ms; join window ${(joinTo - joinFrom).toFixed(0)} ms; load ${
        Deno.loadavg().map((v) => v.toFixed(1)).join(" ")
      }`,
    );
  } finally {
    await veteranBrowser.close();
    await joinerBrowser.close();
  }
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log(
  `longest gap while joining ÷ before: min ×${sorted[0].toFixed(2)}, median ×${
    sorted[sorted.length >> 1].toFixed(2)
  }, max ×${sorted[sorted.length - 1].toFixed(2)} over ${runs} runs`,
);
