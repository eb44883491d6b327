/**
 * `deno run -A bench/browser/seek_run.ts`: seek to a drawn frame in headless Chromium at
 * 1280×720 over an hour of history. A server's store gets a scene with an hour of busy history
 * (the `replay_seek_bench.ts` scenario: a launch every ~0.5 s of every kind, gun volleys, settings
 * changes; ~10k events); a page opens it live, then seeks to ticks spread over the hour through
 * the replay's debug hook (what the bar's scrub does: the log page at T − W with the snapshot,
 * the world rebuilt at T). Reported per seek: the log window loaded and the world rebuilt, the
 * first frame that drew the sought tick (its animation-frame callback ran), and the frame after
 * it (the drawn frame was presented). Target (issue 16): under 1 s. On SwiftShader a frame
 * takes 150–500 ms, which the drawn figures include.
 *
 * With `--still`, the page stops drawing the live scene before the seek starts and draws again
 * for the sought frame. (The page itself now holds its frame while a seek loads, see
 * `ReplayMode.holdFrame`: on SwiftShader every frame drawn meanwhile cost the CPU the seek needs,
 * 3–5.5 s per seek instead of 0.3 s, so the two modes now measure about the same.)
 *
 * Last, what one drawn frame costs on its own (animation-frame intervals while the page draws the
 * replayed frame): the seek's own part is "loaded" (the world at the tick, ready to draw).
 *
 * Flags: --seeks=N (default 12), --width=W --height=H (default 1280×720), --still.
 */
import { WINDOW_TICKS } from "../../shared/constants.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { SceneStore } from "../../server/local/store.ts";
import { busyScenario } from "../../testing/world_scenarios.ts";
import { launchBrowser, openScene } from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";
import type { ReplayDebug } from "../../client/replay/replay_mode.ts";

declare global {
  var snowfireReplay: ReplayDebug;
}

const HOUR_TICKS = 60 * 60 * 60;

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

/** One seek's timings, ms from the request. */
interface SeekTiming {
  tick: number;
  loaded: number;
  drawn: number;
  presented: number;
}

const seeks = flag("seeks", 12);
const width = flag("width", 1280);
const height = flag("height", 720);
const still = Deno.args.includes("--still");

const dataDir = await Deno.makeTempDir({ prefix: "snowfire-seek-browser-" });
const events = busyScenario({
  key: 7,
  ticks: HOUR_TICKS,
  launchGap: 30,
  gunGap: 300,
  settingsGap: 1800,
});
{
  const store = new SceneStore(dataDir);
  // Tick 0 an hour ago: the history ends about now, so the page opens live at its end.
  store.createScene("hour", 1234, Date.now() - HOUR_TICKS * (1000 / 60), initialSnapshot());
  store.transaction(() => {
    for (const event of events) store.appendEvent("hour", event);
  });
  await store.close();
}
const server = await startTestServer({ dataDir, client: true });
const loadBefore = Deno.loadavg();
const browser = await launchBrowser();
const timings: SeekTiming[] = [];
let frameMs: number[] = [];
try {
  const { page, problems } = await openScene(browser, server.url, "hour", {
    name: "bench",
    width,
    height,
  });
  await page.waitForFunction(() => globalThis.snowfireReplay !== undefined, null, {
    timeout: 60_000,
  });
  for (let i = 0; i < seeks; i++) {
    // Spread over the hour, never in order (no page or cache is reused by the next seek).
    const tick = WINDOW_TICKS + ((i * 7919 * 60) % (HOUR_TICKS - WINDOW_TICKS - 3600));
    const timing = await page.evaluate(async ({ at, still }) => {
      const t0 = performance.now();
      if (still) snowfire.setDrawing(false);
      const reached = await snowfireReplay.seek(at);
      const loaded = performance.now() - t0;
      if (still) snowfire.setDrawing(true);
      // The frame loop's callback was requested before this one: when this runs, the frame of
      // the same animation frame has drawn.
      await new Promise<void>((resolve) => {
        const check = () => {
          if (snowfireReplay.shown() === reached) resolve();
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
      const drawn = performance.now() - t0;
      await new Promise((resolve) => requestAnimationFrame(resolve));
      return { tick: reached ?? -1, loaded, drawn, presented: performance.now() - t0 };
    }, { at: tick, still });
    if (timing.tick !== tick) throw new Error(`seek to ${tick} landed at ${timing.tick}`);
    timings.push(timing);
    console.log(
      `seek ${String(i + 1).padStart(2)} to tick ${String(tick).padStart(6)} ` +
        `(${(tick / 3600).toFixed(1).padStart(4)} min): loaded ${timing.loaded.toFixed(0)} ms, ` +
        `drawn ${timing.drawn.toFixed(0)} ms, presented ${timing.presented.toFixed(0)} ms`,
    );
  }
  // What one drawn frame costs here, apart from the seek: animation-frame intervals with the
  // page drawing (the replay holds the last sought tick), 6 frames after one to settle.
  frameMs = await page.evaluate(async () => {
    snowfire.setDrawing(true);
    const stamps: number[] = [];
    await new Promise<void>((resolve) => {
      const step = (t: number) => {
        stamps.push(t);
        if (stamps.length < 8) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
    return stamps.slice(2).map((t, i) => t - stamps[i + 1]);
  });
  if (problems.length > 0) console.log(`page problems: ${problems.join("; ")}`);
} finally {
  await browser.close();
  await server.shutdown();
  await Deno.remove(dataDir, { recursive: true });
}

const summary = (name: keyof SeekTiming) => {
  const values = timings.map((t) => t[name]);
  return `median ${quantile(values, 0.5).toFixed(0)} ms, p90 ${quantile(values, 0.9).toFixed(0)} ` +
    `ms, max ${Math.max(...values).toFixed(0)} ms`;
};
console.log(
  `\n${events.length} events over an hour, ${timings.length} seeks at ${width}×${height}` +
    `${still ? " (live drawing stopped while loading)" : ""}:\n` +
    `  log window + world rebuilt: ${summary("loaded")}\n` +
    `  first frame drawing the sought tick: ${summary("drawn")}\n` +
    `  that frame presented (next frame): ${summary("presented")}\n` +
    `  one drawn frame apart from seeking (animation-frame interval): median ${
      quantile(frameMs, 0.5).toFixed(0)
    } ms (${frameMs.map((ms) => ms.toFixed(0)).join(", ")})\n` +
    `  load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")} at the start, ` +
    `${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")} at the end (2 cores)`,
);
