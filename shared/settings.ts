/**
 * Scene settings and the snapshot of continuous state (the wind's integral) that goes with them.
 * Pure functions: the server advances snapshots with the same code the clients run.
 */
import { DT } from "./constants.ts";
import { cos, radians, sin } from "./dmath.ts";
import { applyRules, rulesOf } from "./rules.ts";
import { foldShowEvent, pruneShows } from "./show_cues.ts";
import type { SceneEvent, Settings, WorldSnapshot } from "./types.ts";

/** Settings of a new scene. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  snow: 0.5,
  windSpeed: 2,
  windDirection: 30,
  theme: "auto",
  show: true,
  fountain: true,
  // fountainSpin and fountainSpiral are absent: off (a host turns them on).
});

/** The snapshot of a new scene at tick 0. */
export function initialSnapshot(settings: Partial<Settings> = {}): WorldSnapshot {
  return {
    tick: 0,
    settings: { ...DEFAULT_SETTINGS, ...settings },
    windX: 0,
    windZ: 0,
    windSince: 0,
  };
}

/** Wind velocity along x in m/s for these settings. */
export function windVelocityX(settings: Settings): number {
  return settings.windSpeed * cos(radians(settings.windDirection));
}

/** Wind velocity along z in m/s for these settings. */
export function windVelocityZ(settings: Settings): number {
  return settings.windSpeed * sin(radians(settings.windDirection));
}

/** The wind's integral along x (metres) at fractional tick `time` ≥ `snap.windSince`. */
export function windOffsetX(snap: WorldSnapshot, vx: number, time: number): number {
  return snap.windX + vx * ((time - snap.windSince) * DT);
}

/** The wind's integral along z (metres) at fractional tick `time` ≥ `snap.windSince`. */
export function windOffsetZ(snap: WorldSnapshot, vz: number, time: number): number {
  return snap.windZ + vz * ((time - snap.windSince) * DT);
}

/**
 * The snapshot after a settings change at `tick` (≥ `snap.tick`). The wind integral is folded
 * only when the wind changes, so it is a closed form of the change history, not of how often
 * anyone stepped.
 */
export function applySettings(
  snap: WorldSnapshot,
  tick: number,
  partial: Partial<Settings>,
): WorldSnapshot {
  const settings = { ...snap.settings, ...partial };
  const windChanged = settings.windSpeed !== snap.settings.windSpeed ||
    settings.windDirection !== snap.settings.windDirection;
  if (!windChanged) return { ...snap, tick, settings };
  return {
    tick,
    settings,
    windX: windOffsetX(snap, windVelocityX(snap.settings), tick),
    windZ: windOffsetZ(snap, windVelocityZ(snap.settings), tick),
    windSince: tick,
  };
}

/**
 * The snapshot at `toTick`: applies, in order, the settings, rules, show and show-cancel events
 * with `snap.tick ≤ event.tick < toTick` (and drops the shows over by `toTick`). Events must be
 * sorted by (tick, seq).
 */
export function advanceSnapshot(
  snap: WorldSnapshot,
  events: readonly SceneEvent[],
  toTick: number,
): WorldSnapshot {
  let current = snap;
  for (const event of events) {
    if (event.tick < snap.tick || event.tick >= toTick) continue;
    if (event.body.type === "settings") {
      current = applySettings(current, event.tick, event.body.settings);
    } else if (event.body.type === "rules") {
      current = { ...current, rules: applyRules(rulesOf(current), event.body) };
    } else if (event.body.type === "show" || event.body.type === "show-cancel") {
      current = foldShowEvent(current, event);
    }
  }
  const tick = Math.max(current.tick, toTick);
  return { ...pruneShows(current, tick), tick };
}
