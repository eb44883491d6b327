/**
 * `deno task bench:browser`: per-frame CPU time of simulation + buffer upload in headless
 * Chromium with 100k snowflakes and ~50k firework particles (target: median ≤ 4 ms), and the
 * frame rate, which on this machine's software renderer says little about a real GPU.
 *
 * Flags: --frames=N (default 120), --warmup=N ticks (default 900), --fireworks=N (default 50000),
 * --width=W --height=H (default 960×540).
 */
import { bundleScript } from "../../tools/bundle.ts";
import { launchBrowser } from "../../testing/browser.ts";
import type { FrameBenchResult } from "./frame_page.ts";

/** Reads `--name=value` as a number. */
function flag(name: string, fallback: number): number {
  const prefix = `--${name}=`;
  const found = Deno.args.find((arg) => arg.startsWith(prefix));
  return found ? Number(found.slice(prefix.length)) : fallback;
}

/** The value at quantile `q` ∈ [0, 1] of `values` (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function bundle(): Promise<string> {
  return bundleScript(new URL("./frame_page.ts", import.meta.url));
}

/** Runs the benchmark and returns the raw per-frame timings. */
export async function runBrowserBench(options: {
  frames: number;
  warmup: number;
  fireworks: number;
  width: number;
  height: number;
}): Promise<FrameBenchResult> {
  const script = await bundle();
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({
      viewport: { width: options.width, height: options.height },
    });
    await page.setContent(
      `<!doctype html><style>html,body{margin:0;height:100%;background:#000}` +
        `#scene{width:100vw;height:100vh;display:block}</style><canvas id="scene"></canvas>`,
    );
    page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") console.error(`page console: ${message.text()}`);
    });
    await page.addScriptTag({ content: script });
    return await page.evaluate(
      (o) =>
        (globalThis as unknown as {
          runFrameBench(o: unknown): Promise<FrameBenchResult>;
        }).runFrameBench(o),
      { frames: options.frames, warmup: options.warmup, fireworks: options.fireworks },
    );
  } finally {
    await browser.close();
  }
}

if (import.meta.main) {
  const frames = flag("frames", 120);
  const width = flag("width", 960);
  const height = flag("height", 540);
  const result = await runBrowserBench({
    frames,
    warmup: flag("warmup", 900),
    fireworks: flag("fireworks", 50_000),
    width,
    height,
  });
  const ours = result.simulate.map((ms, i) => ms + result.prepare[i]);
  const total = ours.map((ms, i) => ms + result.draw[i]);
  const ms = (value: number) => `${value.toFixed(2).padStart(7)} ms`;
  const line = (label: string, values: number[]) =>
    console.log(
      `${label.padEnd(34)} median ${ms(quantile(values, 0.5))}  p95 ${ms(quantile(values, 0.95))}`,
    );
  console.log(`renderer: ${result.renderer}, ${width}×${height}`);
  console.log(
    `${result.flakes} flakes, ~${result.fireworkParticles} visible firework particles, ${frames} frames`,
  );
  line("simulate (world.step)", result.simulate);
  line("prepare (packing + snow base)", result.prepare);
  line("upload + draw (three render)", result.draw);
  line("simulate + prepare", ours);
  line("simulate + prepare + upload/draw", total);
  line("upload + draw, glow off", result.drawNoGlow);
  line("draw + wait for GPU (1/4 frames)", result.drawSynced);
  line("draw + wait for GPU, glow off", result.drawSyncedNoGlow);
  const median = (values: number[]) => quantile(values, 0.5);
  const glowShare = 1 - median(result.drawSyncedNoGlow) / median(result.drawSynced);
  console.log(
    `glow passes: ${(100 * glowShare).toFixed(0)} % of the GPU-waited draw ` +
      `(${(median(result.drawSynced) - median(result.drawSyncedNoGlow)).toFixed(2)} ms); ` +
      `fps ${result.fps.toFixed(1)} with, ${result.fpsNoGlow.toFixed(1)} without`,
  );
  console.log(`target: median of simulate + buffer upload ≤ 4 ms per frame`);
  console.log(`(software GL: frame rates and GPU waits say little about a real GPU)`);
}
