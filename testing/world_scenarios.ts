/**
 * Deterministic busy scenarios for world tests and benchmarks: overlapping launches of every
 * kind (some with their own theme, some aimed, some multi-break), gun volleys, and settings changes of wind, theme, snow and the fountain.
 */
import { BURST_HEIGHT_MAX, BURST_HEIGHT_MIN, LAUNCH_HALF_EXTENT } from "../shared/constants.ts";
import { FIREWORK_KINDS, MAX_BREAKS } from "../shared/firework_kinds.ts";
import { Rng } from "../shared/prng.ts";
import { type SceneEvent, type Settings, THEMES } from "../shared/types.ts";

/** Knobs of a generated scenario; gaps are in ticks. */
export interface ScenarioOptions {
  /** Generator key (not the scene seed). */
  key: number;
  /** Events are generated for ticks in [0, ticks). */
  ticks: number;
  /** Mean ticks between launches. */
  launchGap?: number;
  /** Mean ticks between gun volleys (0 = none). */
  gunGap?: number;
  /** Mean ticks between settings changes (0 = none). */
  settingsGap?: number;
}

/** Events sorted by (tick, seq) with seq 1, 2, 3, … */
export function busyScenario(o: ScenarioOptions): SceneEvent[] {
  const rng = new Rng(o.key);
  const launchGap = o.launchGap ?? 30;
  const gunGap = o.gunGap ?? 90;
  const settingsGap = o.settingsGap ?? 200;
  const raw: { tick: number; body: SceneEvent["body"] }[] = [];
  for (let t = rng.int(launchGap); t < o.ticks; t += 1 + rng.int(2 * launchGap)) {
    const pick = rng.next();
    const x = rng.range(-LAUNCH_HALF_EXTENT, LAUNCH_HALF_EXTENT);
    const z = rng.range(-LAUNCH_HALF_EXTENT, LAUNCH_HALF_EXTENT);
    const theme = THEMES[rng.int(THEMES.length)];
    // Every kind; some aimed at a burst height, some multi-break.
    const kind = FIREWORK_KINDS[rng.int(FIREWORK_KINDS.length)];
    const aim = rng.next(), y = rng.range(BURST_HEIGHT_MIN, BURST_HEIGHT_MAX);
    const multi = rng.next(), breaks = 2 + rng.int(MAX_BREAKS - 1);
    raw.push({
      tick: t,
      body: {
        type: "launch",
        x,
        z,
        ...(pick < 0.3 ? { theme } : {}),
        kind,
        ...(aim < 0.4 ? { y } : {}),
        ...(multi < 0.2 ? { breaks } : {}),
      },
    });
  }
  for (let t = gunGap ? rng.int(gunGap) : o.ticks; t < o.ticks; t += 1 + rng.int(2 * gunGap)) {
    raw.push({
      tick: t,
      body: {
        type: "gun",
        origin: [rng.range(-50, 50), rng.range(1, 20), rng.range(-50, 50)],
        direction: [rng.range(-1, 1), rng.range(0.05, 1), rng.range(-1, 1)],
      },
    });
  }
  for (
    let t = settingsGap ? rng.int(settingsGap) : o.ticks;
    t < o.ticks;
    t += 1 + rng.int(2 * settingsGap)
  ) {
    const settings: Partial<Settings> = {};
    const what = rng.int(4);
    if (what === 0) {
      settings.windSpeed = rng.range(0, 12);
      settings.windDirection = rng.range(0, 360);
    } else if (what === 1) settings.theme = rng.next() < 0.3 ? "auto" : THEMES[rng.int(4)];
    else if (what === 2) settings.snow = rng.next();
    else settings.fountain = rng.next() < 0.6;
    raw.push({ tick: t, body: { type: "settings", settings } });
  }
  // Same-tick events keep their generation order, which mixes kinds within a tick.
  raw.sort((a, b) => a.tick - b.tick);
  return raw.map((e, i) => ({ seq: i + 1, tick: e.tick, by: "test", body: e.body }));
}
