/**
 * Quality, a choice of this browser (Auto / Low / High): how many of the flakes are drawn, whether
 * the glow is drawn, and the pixel ratio. It never touches the simulation: every page computes
 * the same world whatever it draws. Auto starts high and steps down while frames are slow
 * (`quality_governor.ts`).
 */

/** Lowest pixel ratio Auto picks and the one Low uses (unless the device's is lower). */
export const SHARPNESS_FLOOR = 0.75;
/** The choices offered. */
export const QUALITY_CHOICES = ["auto", "low", "high"] as const;
/** One of {@link QUALITY_CHOICES}. */
export type QualityChoice = typeof QUALITY_CHOICES[number];

/** What a quality draws. */
export interface QualityLevel {
  /** Device pixels per CSS pixel. */
  pixelRatio: number;
  /** Whether the glow (bloom) pass runs. */
  glow: boolean;
  /** Share of the simulated flakes drawn (before reduced motion's own share). */
  flakeShare: number;
}

/** Share of the flakes Low draws (and Auto at its lowest step). */
export const LOW_FLAKE_SHARE = 0.4;
/** Where the choice is remembered in this browser. */
export const QUALITY_KEY = "snowfire.quality";

/**
 * The fixed level of Low or High for a device whose own pixel ratio is `devicePixelRatio`
 * (High: the device's, up to 2; Low: 0.75 per CSS pixel, or the device's if lower).
 *
 * @example
 * ```ts
 * fixedQuality("low", 2); // { pixelRatio: 0.75, glow: false, flakeShare: 0.4 }
 * ```
 */
export function fixedQuality(choice: "low" | "high", devicePixelRatio: number): QualityLevel {
  const high = Math.min(devicePixelRatio || 1, 2);
  return choice === "high"
    ? { pixelRatio: high, glow: true, flakeShare: 1 }
    : { pixelRatio: Math.min(high, SHARPNESS_FLOOR), glow: false, flakeShare: LOW_FLAKE_SHARE };
}

/** The remembered choice, or `fallback` (none stored, storage off, or an unknown word). */
export function storedQuality(fallback: QualityChoice): QualityChoice {
  try {
    const value = localStorage.getItem(QUALITY_KEY);
    return (QUALITY_CHOICES as readonly string[]).includes(value ?? "")
      ? value as QualityChoice
      : fallback;
  } catch {
    return fallback;
  }
}

/** Remembers the choice in this browser (silently not, when storage is off). */
export function storeQuality(choice: QualityChoice): void {
  try {
    localStorage.setItem(QUALITY_KEY, choice);
  } catch { /* private mode: the choice holds for this page */ }
}
