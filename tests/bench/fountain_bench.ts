/**
 * Fountain particle-steps per second at about 10k, 100k and 1M live particles. Each bench warms a
 * fountain to its steady state (a full life of spawns) and then times further steps; the number of
 * live particles per step is printed so steps/s = live × steps / time.
 */
import { Fountain, FOUNTAIN_MAX_LIFE } from "../../shared/fountain.ts";

// Measured steady state: ~154 live particles per particle spawned per tick.
const LIVE_PER_SPAWN = 154;

function warmed(targetLive: number): Fountain {
  const fountain = new Fountain(1, {
    perTick: Math.max(1, Math.round(targetLive / LIVE_PER_SPAWN)),
  });
  for (let tick = 0; tick < FOUNTAIN_MAX_LIFE; tick++) fountain.step(tick, true);
  return fountain;
}

for (const [label, target] of [["10k", 10_000], ["100k", 100_000], ["1M", 1_000_000]] as const) {
  const fountain = warmed(target);
  let tick = FOUNTAIN_MAX_LIFE;
  console.log(`fountain ${label}: ${fountain.live()} live, capacity ${fountain.capacity}`);
  Deno.bench({
    name: `fountain step, ${label} live particles (${fountain.live()})`,
    group: "fountain",
    fn() {
      fountain.step(tick++, true);
    },
  });
}
