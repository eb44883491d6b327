/**
 * Firework colour themes. Their own module, so that both the schemas (`protocol.ts`) and the
 * world can import them without a cycle.
 */

/** Firework colour themes. `auto` lets each launch pick one from its own random stream. */
export const THEMES = ["red-gold", "blue-silver", "green-purple", "rainbow"] as const;

/** A concrete firework theme. */
export type Theme = typeof THEMES[number];

/** The theme setting: a concrete theme, or `auto` for a random one per launch. */
export type ThemeSetting = Theme | "auto";
