/**
 * `deno task bench:sky`: per-frame CPU of simulate + prepare + upload/draw calls in headless
 * Chromium at 0, 100k, 300k and 1M live firework sparks, in one run (bench/browser/sky_page.ts).
 * Target: at 1M live sparks, simulate + prepare within 1.5× of the empty sky's. Beside them, the
 * checkpoint hash's part of each frame as a client pays it (a big sky's spread over 40 ticks).
 *
 * Flags: --targets=0,100000,300000,1000000 --frames=N (default 60) --warmup=N ticks (default
 * 600) --width=W --height=H (default 480×270: the software GPU's fill is not what is measured)
 * --draw-every=N (default 1: draw every frame; N: every n-th, the others simulate, write and upload
 * without drawing, since SwiftShader takes minutes to draw a million streaks).
 * --profile=DIR: write a CPU profile of each target's measured frames to DIR/sky_<target>.cpuprofile
 * (open it in Chrome DevTools' Performance panel).
 * --paired=false: measure the levels one after the other only. By default each level above 0 is
 * also measured against an empty sky run beside it, in the same animation frames (its own world,
 * renderer and canvas; the two in turns first): "×paired", a ratio the machine's load between
 * levels does not move (the empty sky's own level moved 0.5–1.4 ms from run to run here).
 */
import { bundleScript } from "../../tools/bundle.ts";
import { launchBrowser } from "../../testing/browser.ts";
import type { SkyBenchResult } from "./sky_page.ts";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const found = Deno.args.find((arg) => arg.startsWith(prefix));
  return found ? found.slice(prefix.length) : fallback;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** The page's address (answered by a route, never fetched). */
const BENCH_URL = "http://snowfire-bench.localhost/sky";

const targets = flag("targets", "0,100000,300000,1000000").split(",").map(Number);
const frames = Number(flag("frames", "60"));
const warmup = Number(flag("warmup", "600"));
const width = Number(flag("width", "480"));
const height = Number(flag("height", "270"));
const drawEvery = Number(flag("draw-every", "1"));
const profileDir = flag("profile", "");
const paired = flag("paired", "true") !== "false";
const script = await bundleScript(new URL("./sky_page.ts", import.meta.url));
const browser = await launchBrowser();
let result: SkyBenchResult;
try {
  const page = await browser.newPage({ viewport: { width, height } });
  // Served cross-origin isolated (COOP + COEP), so that performance.now() counts in
  // microseconds: elsewhere Chromium coarsens it to 100 µs, a tenth of the empty sky's frame.
  await page.route(BENCH_URL, (route) =>
    route.fulfill({
      status: 200,
      contentType: "text/html",
      headers: {
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Embedder-Policy": "require-corp",
      },
      body: `<!doctype html><style>html,body{margin:0;height:100%;background:#000}` +
        `canvas{position:absolute;inset:0;width:100vw;height:100vh;display:block}</style>` +
        `<canvas id="empty"></canvas><canvas id="scene"></canvas>`,
    }));
  await page.goto(BENCH_URL);
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  page.on("crash", () => console.error("page crashed"));
  page.on("console", (message) => {
    if (message.type() === "error") console.error(`page console: ${message.text()}`);
    else if (message.text().startsWith("level ")) console.log(message.text());
  });
  page.setDefaultTimeout(0);
  const profiles: Promise<void>[] = [];
  if (profileDir) {
    await Deno.mkdir(profileDir, { recursive: true });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    cdp.on("Profiler.consoleProfileFinished", (event) => {
      const name = (event.title ?? "sky").replaceAll(" ", "_");
      profiles.push(
        Deno.writeTextFile(`${profileDir}/${name}.cpuprofile`, JSON.stringify(event.profile)),
      );
    });
  }
  await page.addScriptTag({ content: script });
  result = await page.evaluate(
    (o) =>
      (globalThis as unknown as { runSkyBench(o: unknown): Promise<SkyBenchResult> })
        .runSkyBench(o),
    { targets, frames, warmup, drawEvery, profile: profileDir !== "", pairWithEmpty: paired },
  );
  await Promise.all(profiles);
} finally {
  await browser.close();
}
const ms = (v: number) => `${v.toFixed(2).padStart(6)} ms`;
/** The level's median against the empty sky measured beside it (same frames). */
const pairedText = (med: number, pair: { simulate: number[]; prepare: number[] }) => {
  const beside = quantile(pair.simulate.map((v, i) => v + pair.prepare[i]), 0.5);
  return `, ×${(med / beside).toFixed(2)} paired (empty beside it ${beside.toFixed(2)} ms)`;
};
console.log(
  `renderer: ${result.renderer}, ${width}×${height}, ${frames} frames per target, ` +
    `drawn every ${drawEvery}, ` +
    (result.isolated ? "cross-origin isolated (µs timer)" : "not isolated (100 µs timer)"),
);
console.log(
  "target live | live sparks | slots     | rows/frame    | simulate med | prepare med | sim+prep med (p95, max)          | draw calls med | checkpoint mean, max (slots) | arrays MB (B/live) | vs empty",
);
let empty = NaN;
for (const level of result.levels) {
  const ours = level.simulate.map((v, i) => v + level.prepare[i]);
  const med = quantile(ours, 0.5);
  if (level.target === 0) empty = med;
  console.log(
    `${String(level.target).padStart(11)} | ${String(level.live).padStart(11)} | ${
      String(level.slots).padStart(9)
    } | ${String(level.written).padStart(13)} | ${ms(quantile(level.simulate, 0.5))}    | ${
      ms(quantile(level.prepare, 0.5))
    }   | ${ms(med)} (${ms(quantile(ours, 0.95))}, ${ms(Math.max(...ours))}) | ${
      ms(quantile(level.draw, 0.5))
    } | ${
      ms(level.checkpoint.reduce((a, b) => a + b, 0) / Math.max(1, level.checkpoint.length))
    }, ${ms(Math.max(0, ...level.checkpoint))} (${level.checkpointSlots}) | ${
      (level.bytes / 1e6).toFixed(0)
    } (${level.live > 0 ? (level.bytes / level.live).toFixed(0) : "-"})` +
      (Number.isNaN(empty) || level.target === 0 ? "" : `  ×${(med / empty).toFixed(2)} empty`) +
      (level.paired ? pairedText(med, level.paired) : ""),
  );
}
