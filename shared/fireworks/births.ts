/**
 * Closed form writes a spark's birth state into the pool only when something reads it: a step
 * marks bursts, trail ticks and ember waves born; `writeBirths` writes what was marked since the
 * last write, just before a read (`sync`, the hash, the counts, a jump).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000, { closedForm: true });
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "willow" }, "auto");
 * for (let t = 0; t < 120; t++) fw.step(t); // marks births, writes none
 * fw.sync(); // writes them, then evaluates every slot at the current tick
 * ```
 */
import type { FireworkBlock } from "./block.ts";
import { writeBursts } from "./burst.ts";
import { dropEmbers, emberKeyed } from "./embers.ts";
import { writeTrail } from "./rise.ts";
import type { Sky } from "./sky.ts";

/**
 * Closed form: writes what was marked born since the last write into the pool, before anything
 * reads it: the breaks' sparks and children (`writeBursts`), the shell's trail, and the
 * embers — per trailing spark, only the last `ring` it dropped (older ones are overwritten in
 * its ring) — without counting any of them again.
 */
export function writeBirths(sky: Sky, block: FireworkBlock): void {
  if (block.burstsWritten !== block.bursts) writeBursts(sky, block);
  if (block.trailWritten !== block.trailTicks) writeTrail(sky, block);
  const trail = block.recipe.trail;
  if (!trail) return;
  const plan = block.plan;
  const maxLife = sky.pool.maxLife;
  const every = trail.every, ring = trail.ring;
  for (let b = 0; b < plan.breaks; b++) {
    const waves = block.emberWaves[b], written = block.emberWritten[b];
    if (waves === written) continue;
    const first = block.start + plan.sparkStart[b];
    const keyed = emberKeyed(sky, block, b);
    for (let n = 0, count = plan.trailCount[b]; n < count; n++) {
      // Waves this spark dropped: m with (m + 1) · every below its life.
      const dropped = Math.max(0, Math.min(waves, Math.ceil(maxLife[first + n] / every) - 1));
      const from = Math.max(Math.min(written, dropped), dropped - ring);
      if (from < dropped) dropEmbers(sky, block, b, n, from, dropped, keyed);
    }
    block.emberWritten[b] = waves;
  }
}
