/**
 * Seeking in an hour of history: what a replay seek costs on the server and on the page. A store
 * gets a scene with one hour of busy history (a launch every ~0.5 s of every kind, gun volleys,
 * settings changes; ~10k events); each iteration seeks a random tick: the log page with the
 * snapshot at T − W (read on the worker, as the API serves it) and the world rebuilt at T from it
 * (`worldFromWindow`, what the page runs). Target: the two together well under the 1 s a seek may
 * take at 1280×720 (the page then draws one frame).
 */
import { WINDOW_TICKS } from "../shared/constants.ts";
import { initialSnapshot } from "../shared/settings.ts";
import { worldFromWindow } from "../shared/world.ts";
import { SceneStore } from "../server/local/store.ts";
import { LogPages } from "../server/local/log_pages.ts";
import { busyScenario } from "../testing/world_scenarios.ts";

const HOUR_TICKS = 60 * 60 * 60;
const dir = await Deno.makeTempDir({ prefix: "snowfire-seek-bench-" });
const store = new SceneStore(dir);
const events = busyScenario({
  key: 7,
  ticks: HOUR_TICKS,
  launchGap: 30,
  gunGap: 300,
  settingsGap: 1800,
});
store.createScene("hour", 1234, Date.now() - HOUR_TICKS * (1000 / 60), initialSnapshot());
store.transaction(() => {
  for (const event of events) store.appendEvent("hour", event);
});
const pages = new LogPages(`${dir}/scenes.db`);
let n = 0;
const target = () => WINDOW_TICKS + ((n++ * 7919 * 60) % (HOUR_TICKS - WINDOW_TICKS - 600));

// The first seek scans the scene's settings changes (keyframes are kept after it): print it.
const coldStart = performance.now();
await pages.read({ scene: "hour", start: { tick: HOUR_TICKS - 600 }, limit: 600, snapshot: true });
console.log(
  `${events.length} events over an hour; first (cold) snapshot page: ` +
    `${(performance.now() - coldStart).toFixed(1)} ms`,
);

Deno.bench("seek: log page at T − W with snapshot (worker)", { group: "seek" }, async () => {
  const tick = target();
  await pages.read({
    scene: "hour",
    start: { tick: tick - WINDOW_TICKS },
    limit: 600,
    snapshot: true,
  });
});

Deno.bench("seek: page + worldFromWindow at T", { group: "seek", baseline: true }, async () => {
  const tick = target();
  const page = await pages.read({
    scene: "hour",
    start: { tick: tick - WINDOW_TICKS },
    limit: 600,
    snapshot: true,
  });
  worldFromWindow({ seed: 1234, snapshot: page.snapshot!, events: page.events, tick });
});

globalThis.addEventListener("unload", () => {
  void pages.close();
  void store.close();
  Deno.removeSync(dir, { recursive: true });
});
