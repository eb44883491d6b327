/**
 * Prints the `eventCost` of every firework kind as a markdown table: slots for 1 break (min, mean,
 * max over 500 launches at their seeded default height) and the means for 2 and 3 breaks, and the
 * longest life in ticks. `deno run scripts/firework_costs.ts` (shared/README.md quotes it).
 */
import { eventCost } from "../shared/budget.ts";
import { FIREWORK_KINDS } from "../shared/firework_kinds.ts";
import { GUN_LIFE_TICKS, GUN_SHOTS } from "../shared/gun.ts";
import type { SceneEvent } from "../shared/types.ts";

const LAUNCHES = 500;

if (import.meta.main) {
  console.log(
    "| kind | slots (1 break) min / mean / max | 2 breaks mean | 3 breaks mean | life ticks (1 break, max) |",
  );
  console.log("|---|---|---|---|---|");
  for (const kind of FIREWORK_KINDS) {
    const cells: string[] = [];
    let life = 0;
    for (const breaks of [1, 2, 3]) {
      const slots: number[] = [];
      for (let seq = 1; seq <= LAUNCHES; seq++) {
        const event: SceneEvent = {
          seq,
          tick: 0,
          by: "costs",
          body: { type: "launch", x: 0, z: 0, kind, breaks },
        };
        const cost = eventCost(1, event);
        slots.push(cost.particles);
        if (breaks === 1) life = Math.max(life, cost.endTick);
      }
      const mean = Math.round(slots.reduce((a, b) => a + b, 0) / slots.length);
      cells.push(
        breaks === 1 ? `${Math.min(...slots)} / ${mean} / ${Math.max(...slots)}` : `${mean}`,
      );
    }
    console.log(`| ${kind} | ${cells.join(" | ")} | ${life} |`);
  }
  console.log(`gun: ${GUN_SHOTS} slots, ${GUN_LIFE_TICKS} ticks`);
}
