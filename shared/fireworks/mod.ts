/**
 * The fireworks, by role: the launch's block (block.ts), the rise and its trail (rise.ts), the
 * bursts (burst.ts), the splits (split.ts), the embers (embers.ts), births written when read
 * (births.ts), the closed form read back (closed_form.ts), the step's schedule (schedule.ts),
 * a jump (jump.ts), the expected live count (expected.ts), the launches' hash (launch_hash.ts),
 * the shared state (sky.ts) and the public class (fireworks.ts).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./mod.ts";
 * const fw = new Fireworks(7, 50_000, { closedForm: true });
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "ring" }, "auto");
 * fw.jumpTo(120);
 * fw.expectedLive();
 * ```
 */
export { Fireworks } from "./fireworks.ts";
export { type FireworkBlock, type LaunchSpec, resolveTheme, THEME_TRAIL_TINT } from "./block.ts";
export type { FireworksOptions } from "./sky.ts";
export { PALM_COS_PHI } from "./burst.ts";
export { TRAIL_GAP_BOUND, TRAIL_JITTER, TRAIL_SIDE, TRAIL_SINK } from "./rise.ts";
