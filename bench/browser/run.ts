/**
 * `deno task bench:browser`: per-frame CPU time of simulation + preparation in headless
 * Chromium with 100k snowflakes and ~50k firework particles (target: median ≤ 4 ms), the frame
 * rate (which on a software renderer says little about a real GPU), and the glow's share: frames
 * drawn with and without the glow, each time waiting for the GPU (a 1-pixel readback), `--repeats`
 * times each keeping the fastest, in `--pairs` frames so the noise shows.
 *
 * Flags: --frames=N (default 120), --pairs=N (default 6), --repeats=N (default 3),
 * --warmup=N ticks (default 900),
 * --fireworks=N (default 50000), --width=W --height=H (default 960×540).
 */
import { bundleScript } from "../../tools/bundle.ts";
import { launchBrowser } from "../../testing/browser.ts";
import type { FrameBenchResult, GlowPair } from "./frame_page.ts";

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
  pairs: number;
  repeats: number;
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
      {
        frames: options.frames,
        pairs: options.pairs,
        repeats: options.repeats,
        warmup: options.warmup,
        fireworks: options.fireworks,
      },
    );
  } finally {
    await browser.close();
  }
}

/** The glow's share of each pair's GPU-waited draw: 1 − off / on. */
export function glowShares(pairs: GlowPair[]): number[] {
  return pairs.map((pair) => 1 - pair.off / pair.on);
}

if (import.meta.main) {
  const frames = flag("frames", 120);
  const width = flag("width", 960);
  const height = flag("height", 540);
  const result = await runBrowserBench({
    frames,
    pairs: flag("pairs", 6),
    repeats: flag("repeats", 3),
    warmup: flag("warmup", 900),
    fireworks: flag("fireworks", 50_000),
    width,
    height,
  });
  const ours = result.simulate.map((ms, i) => ms + result.prepare[i]);
  const total = ours.map((ms, i) => ms + result.draw[i]);
  const ms = (value: number) => `${value.toFixed(2).padStart(7)} ms`;
  const median = (values: number[]) => quantile(values, 0.5);
  const line = (label: string, values: number[]) =>
    console.log(
      `${label.padEnd(34)} median ${ms(median(values))}  p95 ${ms(quantile(values, 0.95))}`,
    );
  console.log(`renderer: ${result.renderer}, ${width}×${height}`);
  console.log(
    `${result.flakes} flakes, ~${result.fireworkParticles} visible firework particles, ` +
      `${frames} frames, ${result.fps.toFixed(1)} fps`,
  );
  line("simulate (world.step)", result.simulate);
  line("prepare (packing + snow base)", result.prepare);
  line("upload + draw calls (CPU)", result.draw);
  line("simulate + prepare", ours);
  line("simulate + prepare + draw calls", total);
  const pairs = result.glowPairs;
  const on = pairs.map((pair) => pair.on);
  const shares = glowShares(pairs);
  console.log(
    `GPU-waited draw of the same frame, fastest of ${flag("repeats", 3)} each ` +
      `(${pairs.length} pairs; timer queries ` +
      `${result.timerQueries ? "available, not used" : "unavailable"}):`,
  );
  for (const [i, pair] of pairs.entries()) {
    console.log(
      `  pair ${i + 1}: glow on ${ms(pair.on)}, off ${ms(pair.off)}, ` +
        `glow share ${(100 * shares[i]).toFixed(1).padStart(5)} %`,
    );
  }
  const extra = pairs.map((pair) => pair.on - pair.off);
  const frameCost = median(ours) + median(on);
  const percent = (value: number) => `${(100 * value).toFixed(1)} %`;
  console.log(
    `glow share of the GPU-waited draw: median ${percent(median(shares))} ` +
      `(min ${percent(Math.min(...shares))}, max ${percent(Math.max(...shares))}); ` +
      `glow on − off: median ${median(extra).toFixed(1)} ms of a ${
        frameCost.toFixed(1)
      } ms frame ` +
      `(simulate + prepare + GPU-waited draw with glow, medians) = ${
        percent(median(extra) / frameCost)
      }`,
  );
  const empty = result.emptyPairs.map((pair) => pair.on - pair.off);
  const emptyOff = median(result.emptyPairs.map((pair) => pair.off));
  console.log(
    `glow passes alone (empty scene, ${empty.length} pairs): on − off median ` +
      `${median(empty).toFixed(2)} ms (min ${Math.min(...empty).toFixed(2)}, max ${
        Math.max(...empty).toFixed(2)
      }; empty frame without glow ${emptyOff.toFixed(2)} ms) = ${
        percent(median(empty) / median(on))
      } of the full GPU-waited draw`,
  );
  console.log(`target: median of simulate + prepare ≤ 4 ms per frame`);
  console.log(`(software GL: frame rates and GPU waits say little about a real GPU)`);
}
