/**
 * Fountain particle-steps per second at about 10k, 100k and 1M live particles. Each bench warms a
 * fountain to its steady state (a full life of spawns), then every iteration times 10 further
 * steps. At unload each prints its rate from the best iteration (live particles summed over the
 * timed steps / time), since on a shared machine the mean mostly measures the other load. The
 * "fountain join" group times a late joiner's fountain (spawn 239 ticks, place once) against
 * stepping the same 240 ticks.
 */
import { Fountain, FOUNTAIN_MAX_LIFE } from "../shared/fountain.ts";

/** Measured steady state: ~154 live particles per particle spawned per tick. */
const LIVE_PER_SPAWN = 154;
const TIMED_TICKS = 10;

function warmed(targetLive: number): Fountain {
  const perTick = Math.max(1, Math.round(targetLive / LIVE_PER_SPAWN));
  const fountain = new Fountain(1, { perTick });
  for (let tick = 0; tick < FOUNTAIN_MAX_LIFE; tick++) fountain.step(tick, true);
  return fountain;
}

for (const [label, target] of [["10k", 10_000], ["100k", 100_000], ["1M", 1_000_000]] as const) {
  const fountain = warmed(target);
  let tick = FOUNTAIN_MAX_LIFE;
  let bestRate = 0;
  Deno.bench({
    name: `fountain step, ${label} live particles (${fountain.live()})`,
    group: "fountain",
    fn(b) {
      let steps = 0;
      const t0 = performance.now();
      b.start();
      for (let k = 0; k < TIMED_TICKS; k++) {
        steps += fountain.live();
        fountain.step(tick++, true);
      }
      b.end();
      bestRate = Math.max(bestRate, steps / ((performance.now() - t0) / 1000));
    },
  });
  addEventListener("unload", () => {
    if (bestRate === 0) return;
    console.log(
      `fountain ${label}: ${fountain.live()} live of ${fountain.capacity} slots, ` +
        `${(bestRate / 1e6).toFixed(1)} M particle-steps/s (best iteration)`,
    );
  });
}

// A late joiner's fountain at the default rate: 239 ticks spawned ("spawn": drawn, paths solved,
// nothing placed) and the last placed once, against stepping all 240 ticks.
for (const mode of ["spawn", "full"] as const) {
  Deno.bench({
    name: `fountain late join, ${mode === "spawn" ? "spawn then place once" : "step 240 ticks"}`,
    group: "fountain join",
    baseline: mode === "spawn",
    fn() {
      const fountain = new Fountain(1);
      const end = 36_000;
      for (let tick = end - FOUNTAIN_MAX_LIFE; tick < end - 1; tick++) {
        fountain.step(tick, true, {}, mode);
      }
      fountain.step(end - 1, true);
    },
  });
}
