/**
 * The firework kinds a launch may name. The wire carries the name; the simulation's per-kind
 * recipe (burst shape, speeds, lifetimes, drag and gravity, trails, splits, flicker) lives in
 * `fireworks/` / `firework_plan.ts`. A launch without a kind is a peony.
 *
 * @example
 * ```ts
 * import { FIREWORK_KINDS, isFireworkKind } from "./firework_kinds.ts";
 * FIREWORK_KINDS.length; // 8
 * isFireworkKind("willow"); // true
 * ```
 */

/**
 * - `peony`: a sphere of coloured sparks with 10–20 % secondary bursts (the default).
 * - `chrysanthemum`: a sphere whose sparks leave trails of embers.
 * - `willow`: long-lived gold sparks that droop strongly, with glittering trails.
 * - `palm`: a few thick comets with dense trails, thrown mostly upwards.
 * - `ring`: a planar circle, tilted; its sparks stay in their plane.
 * - `heart`: sparks on a parametric heart curve in a tilted plane.
 * - `crossette`: stars that each split into exactly four at a delay.
 * - `crackle`: flickering (strobe) sparks and a crackling second break.
 */
export const FIREWORK_KINDS = [
  "peony",
  "chrysanthemum",
  "willow",
  "palm",
  "ring",
  "heart",
  "crossette",
  "crackle",
] as const;

/** A firework kind. */
export type FireworkKind = typeof FIREWORK_KINDS[number];

/** The kind of a launch that names none. */
export const DEFAULT_FIREWORK_KIND: FireworkKind = "peony";

/**
 * Breaks of a multi-break shell: `breaks: 2` or `3` on a launch bursts the same kind again
 * `BREAK_GAP_TICKS` later, near the first burst point (see `constants.ts`). Default 1.
 */
export const MAX_BREAKS = 3;

/** Whether `name` is one of FIREWORK_KINDS. */
export function isFireworkKind(name: unknown): name is FireworkKind {
  return typeof name === "string" && (FIREWORK_KINDS as readonly string[]).includes(name);
}
