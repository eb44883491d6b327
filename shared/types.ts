import type { FireworkKind } from "./firework_kinds.ts";

/** Firework colour themes. `auto` lets each launch pick one from its own random stream. */
export const THEMES = ["red-gold", "blue-silver", "green-purple", "rainbow"] as const;

/** A concrete firework theme. */
export type Theme = typeof THEMES[number];

/** The theme setting: a concrete theme, or `auto` for a random one per launch. */
export type ThemeSetting = Theme | "auto";

/** Scene settings. They change only through `settings` events, so every client agrees. */
export interface Settings {
  /** Snow intensity in [0, 1]: the share of `MAX_FLAKES` that falls (light ≈ 0.25, heavy = 1). */
  snow: number;
  /** Wind speed in metres per second, [0, 12]. */
  windSpeed: number;
  /** Direction the wind blows towards, in degrees [0, 360). 0 = +x, 90 = +z. */
  windDirection: number;
  /** Theme of launches that do not name one (clicks and the show). */
  theme: ThemeSetting;
  /** Whether the server's scheduled show launches fireworks. */
  show: boolean;
  /** Whether the fountain's jets run. */
  fountain: boolean;
}

/** Launch a firework from a ground point; see LaunchBodySchema for the fields. */
export interface LaunchBody {
  type: "launch";
  x: number;
  z: number;
  /** Burst height in metres, BURST_HEIGHT_MIN–MAX; default: seeded per launch. */
  y?: number;
  /** Default: peony. */
  kind?: FireworkKind;
  theme?: Theme;
  /** Multi-break shell, 1–3; default 1. */
  breaks?: number;
}

/** Fire the particle gun from a camera position along its view direction. */
export interface GunBody {
  type: "gun";
  origin: [number, number, number];
  /** Need not be normalised; the world normalises it deterministically. */
  direction: [number, number, number];
}

/** Change some settings. */
export interface SettingsBody {
  type: "settings";
  settings: Partial<Settings>;
}

/** What an event does to the world. */
export type EventBody = LaunchBody | GunBody | SettingsBody;

/**
 * An input stamped by the server. Events apply at the start of `tick`, before that tick is
 * simulated; events at the same tick apply in `seq` order.
 */
export interface SceneEvent {
  /** Per scene, strictly increasing, no gaps, starting at 1. */
  seq: number;
  tick: number;
  /** Peer id of the sender, or `"show"` for the scheduled show. */
  by: string;
  body: EventBody;
}

/**
 * Everything besides events that the world at `tick` depends on: the settings in force and
 * the accumulators of continuous quantities (the wind's integral, which moves the snow).
 * The server keeps it at T − W; a late joiner starts from it.
 */
export interface WorldSnapshot {
  tick: number;
  settings: Settings;
  /** Integral of the wind velocity (metres) from tick 0 up to `windSince`. */
  windX: number;
  windZ: number;
  /** The tick since which the current wind setting has been in force. */
  windSince: number;
}
