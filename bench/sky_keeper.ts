/**
 * Holds a bench's sky near a target of live sparks the way `bench:sky` does: every kind in turn
 * at a steady cadence, each launch at its own spot, refused launches waiting as the server's
 * admission would make them wait.
 *
 * @example
 * ```ts
 * import { World } from "../shared/world.ts";
 * import { skyKeeper } from "./sky_keeper.ts";
 * const world = new World({ seed: 1 });
 * const keepSky = skyKeeper(world, 100_000);
 * for (let i = 0; i < 600; i++) { keepSky(); world.step(); }
 * ```
 */
import type { SceneEvent } from "../shared/types.ts";
import type { World } from "../shared/world.ts";
import { FIREWORK_KINDS } from "../shared/firework_kinds.ts";

/** Live sparks per launch per tick of cadence at steady state (every kind in turn, measured). */
export const LIVE_PER_LAUNCH_RATE = 176_000;

/** A function to call once a tick, before `world.step()`, that launches what keeps `target`. */
export function skyKeeper(world: World, target: number): () => void {
  const rate = target / LIVE_PER_LAUNCH_RATE;
  let seq = 0;
  let credit = 0;
  return () => {
    credit += rate;
    while (credit >= 1) {
      credit -= 1;
      const event: SceneEvent = {
        seq: seq + 1,
        tick: world.tick,
        by: "bench",
        body: {
          type: "launch",
          x: ((seq * 37) % 80) - 40,
          z: ((seq * 53) % 80) - 40,
          kind: FIREWORK_KINDS[seq % FIREWORK_KINDS.length],
        },
      };
      try {
        world.apply(event);
        seq++;
      } catch {
        return; // sky_full: wait, as the server's admission would
      }
    }
  };
}
