/**
 * `deno run -A bench/expected_live_run.ts [--target=1000000]`: what the HUD's particle count
 * (`World.expectedParticles` → `Fireworks.expectedLive`) costs a call in a sky held at `target`
 * live sparks the way `bench:sky` holds it (every kind in turn at a steady cadence).
 */
import process from "node:process";
import { initialSnapshot } from "../shared/settings.ts";
import { World } from "../shared/world.ts";
import { skyKeeper } from "./sky_keeper.ts";

const targetArg = Deno.args.find((a) => a.startsWith("--target="));
const target = targetArg ? Number(targetArg.slice(9)) : 1_000_000;
const world = new World({
  seed: 20_261_201,
  snapshot: initialSnapshot({ snow: 1, windSpeed: 3, windDirection: 40, show: false }),
  capacity: Math.max(1_000_000, Math.ceil(target * 3.1 * 1.3)),
});
const keepSky = skyKeeper(world, target);
for (let i = 0; i < 1200; i++) {
  keepSky();
  world.step();
}
const times: number[] = [];
let count = 0, cpu = 0;
const calls = 300;
for (let i = 0; i < calls; i++) {
  keepSky();
  world.step();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  count = world.fireworkSystem.expectedLive();
  const t1 = performance.now();
  const used = process.cpuUsage(c0);
  cpu += used.user + used.system;
  // The same call again at the same tick: the least of a few is the call without the machine's
  // interruptions.
  let least = t1 - t0;
  for (let r = 0; r < 4; r++) {
    const a = performance.now();
    world.fireworkSystem.expectedLive();
    least = Math.min(least, performance.now() - a);
  }
  times.push(least);
}
times.sort((a, b) => a - b);
console.log(
  `expectedLive at ~${count} live sparks, ${world.fireworkSystem.pool.blocks.length} launches: ` +
    `process CPU ${(cpu / calls).toFixed(0)} µs a call (mean of ${calls}); least of 5 calls at a ` +
    `tick: median ${(times[calls >> 1] * 1000).toFixed(0)} µs, min ${
      (times[0] * 1000).toFixed(0)
    } µs`,
);
