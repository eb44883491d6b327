/**
 * Admission control: the exact particle slots an event occupies and the tick its slots free up.
 * Computed with the same plan function the fireworks simulate with, so the server's accounting
 * and every client's pool agree slot for slot. An event occupies its slots for the ticks in
 * [event.tick, endTick).
 */
import { FireworkPlan, planFirework } from "./firework_plan.ts";
import { GUN_LIFE_TICKS, GUN_SHOTS } from "./gun.ts";
import type { SceneEvent } from "./types.ts";

const scratch = new FireworkPlan();

/** What an event costs the sky. */
export interface EventCost {
  /** Particle slots the event reserves (its exact maximum live particles). */
  particles: number;
  /** The first tick at which all of them are dead and their slots are free again. */
  endTick: number;
}

/**
 * The slots `event` occupies in a scene with `seed`, and when they free up.
 *
 * @example
 * ```ts
 * import { eventCost } from "./budget.ts";
 *
 * const launch = { seq: 1, tick: 600, by: "ana", body: { type: "launch", x: 0, z: 0 } } as const;
 * const { particles, endTick } = eventCost(42, launch);
 * console.log(particles > 0, endTick > 600); // true true: admit it if `particles` fit the sky
 * ```
 */
export function eventCost(seed: number, event: SceneEvent): EventCost {
  switch (event.body.type) {
    case "launch": {
      const plan = planFirework(seed, event.seq, event.body, scratch);
      return { particles: plan.slots, endTick: event.tick + plan.lifeTicks };
    }
    case "gun":
      return { particles: GUN_SHOTS, endTick: event.tick + GUN_LIFE_TICKS };
    case "settings":
    case "rules":
    // A show's own event reserves nothing: its cues are priced one by one (show_cues.ts).
    case "show":
    case "show-cancel":
      return { particles: 0, endTick: event.tick };
  }
}
