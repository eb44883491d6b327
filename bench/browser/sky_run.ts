/**
 * `deno task bench:sky`: the page's whole main-thread CPU per simulated tick (CDP
 * `Performance.getMetrics` TaskDuration between the start and the end of each level's frames:
 * everything the page did, nothing counted apart) in headless Chromium at 0, 100k, 300k and 1M live
 * firework sparks, each level's ratio to the empty sky's taken in the same run; beside it, the
 * page's parts per frame (simulate, prepare, draw calls, the checkpoint hash as a client pays it)
 * and its memory per live spark (JSHeapUsedSize after a collection, above the empty level's, plus
 * the renderer's GPU bytes; and, since JSHeapUsedSize leaves out ArrayBuffers' backing stores,
 * the same with the sky's arrays outside the heap: the firework pool's, the row table's). Target:
 * at 1M live sparks, whole-page CPU per tick ≤ 1.5× the empty sky's; memory ≤ 100 B per live
 * spark. `--runs=N` (default 1) repeats the whole run in a fresh
 * browser and summarises the ratios (min / median / max).
 *
 * Flags: --targets=0,100000,300000,1000000 --frames=N (default 60) --warmup=N ticks (default
 * 600) --width=W --height=H (default 480×270: the software GPU's fill is not what is measured)
 * --draw-every=N (default 1: draw every frame; N: every n-th, frames N−1, 2N−1, …, so none when N
 * is above the frames, frame 0 included; the others simulate, write and upload without drawing,
 * since SwiftShader takes ~50 s of the page's cores to draw a million streaks).
 * --profile=DIR: write a CPU profile of each target's measured frames to DIR/sky_<target>.cpuprofile
 * (open it in Chrome DevTools' Performance panel).
 * --paired=true: also measure each level above 0 against an empty sky run beside it, in the same
 * animation frames (its own world, renderer and canvas; the two in turns first): "×paired" for
 * simulate + prepare. Off by default: the whole page's CPU then counts both skies.
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
const paired = flag("paired", "false") === "true";
const runs = Number(flag("runs", "1"));
const script = await bundleScript(new URL("./sky_page.ts", import.meta.url));

/** The page's main-thread CPU (s) and JS heap (bytes) at a level's start or end. */
interface Mark {
  task: number;
  /** The main thread's CPU time (s): TaskDuration counts a task's wall time, waits included. */
  thread: number;
  heap: number;
}

/** One whole run: every level in a fresh browser, with the page's CPU and heap at each mark. */
async function runOnce(): Promise<{ result: SkyBenchResult; marks: Map<string, Mark> }> {
  const marks = new Map<string, Mark>();
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
    const metrics = await page.context().newCDPSession(page);
    await metrics.send("Performance.enable");
    const read = async () => {
      const { metrics: list } = await metrics.send("Performance.getMetrics");
      const value = (name: string) => list.find((m) => m.name === name)?.value ?? NaN;
      if (Deno.env.get("SKY_METRICS")) console.log(JSON.stringify(list));
      return {
        task: value("TaskDuration"),
        thread: value("ThreadTime"),
        heap: value("JSHeapUsedSize"),
      };
    };
    await page.exposeFunction("skyMark", async (label: string) => {
      const mark = await read();
      if (label.startsWith("end")) {
        // The heap the level holds: collected first (after the CPU is read).
        await metrics.send("HeapProfiler.collectGarbage");
        mark.heap = (await read()).heap;
      }
      marks.set(label, mark);
    });
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
  return { result, marks };
}

const ratios = new Map<number, number[]>();
const threadRatios = new Map<number, number[]>();
for (let run = 1; run <= runs; run++) {
  const { result, marks } = await runOnce();
  console.log(`run ${run} of ${runs} (load ${Deno.loadavg().map((v) => v.toFixed(1)).join(" ")})`);
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
  /** Whole-page CPU per tick (ms) of a level, from its marks. */
  const perTick = (target: number, ticks: number, of: "task" | "thread" = "task") => {
    const start = marks.get(`start ${target}`), end = marks.get(`end ${target}`);
    return start && end ? ((end[of] - start[of]) * 1000) / ticks : NaN;
  };
  const emptyLevel = result.levels.find((level) => level.target === 0);
  const emptyTick = emptyLevel ? perTick(0, emptyLevel.ticks) : NaN;
  const emptyThread = emptyLevel ? perTick(0, emptyLevel.ticks, "thread") : NaN;
  const emptyHeap = marks.get("end 0")?.heap ?? NaN;
  console.log(
    "target live | live sparks | page TaskDuration per tick | ×empty | page ThreadTime (CPU) per tick | ×empty | JS heap MB | GPU MB | B per live spark (heap above empty + GPU) | B per live spark (also the ArrayBuffers outside the heap: the pool's, the row table's)",
  );
  for (const level of result.levels) {
    const tick = perTick(level.target, level.ticks);
    const thread = perTick(level.target, level.ticks, "thread");
    const threadRatio = thread / emptyThread;
    if (level.target > 0) {
      threadRatios.set(level.target, [...(threadRatios.get(level.target) ?? []), threadRatio]);
    }
    const heap = marks.get(`end ${level.target}`)?.heap ?? NaN;
    const ratio = tick / emptyTick;
    if (level.target > 0) ratios.set(level.target, [...(ratios.get(level.target) ?? []), ratio]);
    const perSpark = level.live > 0 ? (heap - emptyHeap + level.gpuBytes) / level.live : NaN;
    // JSHeapUsedSize leaves out ArrayBuffers' backing stores (the pool's birth arrays above all).
    const perSparkAll = level.live > 0 ? (heap - emptyHeap + level.bytes) / level.live : NaN;
    console.log(
      `${String(level.target).padStart(11)} | ${String(level.live).padStart(11)} | ${
        ms(tick).padStart(26)
      } | ${level.target === 0 ? "     —" : `×${ratio.toFixed(2)}`.padStart(6)} | ${
        ms(thread).padStart(30)
      } | ${level.target === 0 ? "     —" : `×${threadRatio.toFixed(2)}`.padStart(6)} | ${
        (heap / 1e6).toFixed(0).padStart(10)
      } | ${(level.gpuBytes / 1e6).toFixed(0).padStart(6)} | ${
        Number.isNaN(perSpark) ? "-" : perSpark.toFixed(0)
      } | ${Number.isNaN(perSparkAll) ? "-" : perSparkAll.toFixed(0)}`,
    );
  }
}
if (runs > 1) {
  for (const [name, map] of [["TaskDuration", ratios], ["ThreadTime", threadRatios]] as const) {
    for (const [target, values] of map) {
      const sorted = [...values].sort((a, b) => a - b);
      console.log(
        `${target} live: page ${name} per tick ×empty min ${sorted[0].toFixed(2)}, median ${
          sorted[sorted.length >> 1].toFixed(2)
        }, max ${sorted[sorted.length - 1].toFixed(2)} over ${runs} runs`,
      );
    }
  }
}
