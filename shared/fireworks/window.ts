/**
 * The births window: a closed-form sky keeps no birth state per slot (`ParticlePool.windowBirths`).
 * A launch's births are written when something reads them (its evaluation for a hash or a count,
 * its row, a renderer's shell row or burst frame) into the pool's one-block window, at slot 0,
 * and forgotten after: `openWindow` moves the launch's `start` to 0 for the read (every part of
 * the fireworks indexes births by `start`), writes the shell and, when asked, every birth so far
 * from nothing (`writeBirths` with nothing counted written: the same births a pool that kept them
 * holds, ring slots included), and `closeWindow` puts `start` back. Evaluated state and hashes
 * are the same bits as from a pool that keeps every slot's births (the births are a function of
 * the launch and how far it has come, never of what was written before).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000, { closedForm: true });
 * fw.pool.windowed; // true: 0 bytes of births per slot
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "willow" }, "auto");
 * for (let t = 0; t < 120; t++) fw.step(t);
 * fw.live(); // its births written into the window and evaluated there
 * ```
 */
import { WARM_WHITE } from "../firework_colors.ts";
import { MOTION, MOTIONS, styleOf } from "../firework_motion.ts";
import type { FireworkBlock } from "./block.ts";
import { writeBirths } from "./births.ts";
import { place, type Sky } from "./sky.ts";

/** The shell's style (warm white, shell motion). */
const SHELL_STYLE = styleOf(MOTION.shell, WARM_WHITE);

/**
 * Writes the rising shell's birth into slot `block.start`: on the ground upwind of the launch's
 * point by its drift, so that it bursts above it (a launch's first slot; closed form: birth only).
 */
export function placeShell(sky: Sky, block: FireworkBlock): void {
  const plan = block.plan;
  const i = block.start;
  place(
    sky,
    i,
    block.x - plan.driftX * plan.driftReach,
    0,
    block.z - plan.driftZ * plan.driftReach,
    plan.driftX,
    plan.shellSpeed,
    plan.driftZ,
  );
  // The block, not the life counter, ends the shell at its apex; a long nominal life keeps its
  // colour near the hot start of the curve while it rises.
  const pool = sky.pool;
  pool.maxLife[i] = plan.riseTicks * 4;
  pool.style[i] = SHELL_STYLE;
  pool.size[i] = MOTIONS[MOTION.shell].size;
  pool.born[i] = 0;
}

/**
 * Windowed pool: moves `block` to slot 0 of the births window (returns its `start`, for
 * `closeWindow`) and writes its shell there; with `births`, every birth it has so far too
 * (bursts, children, the trail's and embers' rings), the rest of its slots reading as never
 * spawned. Valid until the next `openWindow`; call `closeWindow` (in a `finally`) before anything
 * else reads `block.start`.
 */
export function openWindow(sky: Sky, block: FireworkBlock, births: boolean): number {
  const start = block.start;
  sky.pool.window(births ? block.size : 1);
  block.start = 0;
  placeShell(sky, block);
  if (births) {
    block.burstsWritten = 0;
    block.trailWritten = 0;
    block.emberWritten.fill(0);
    writeBirths(sky, block);
  }
  return start;
}

/** Puts `block` back at `start` after `openWindow`. */
export function closeWindow(block: FireworkBlock, start: number): void {
  block.start = start;
}
