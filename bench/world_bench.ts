/**
 * World benchmarks (`deno task bench`):
 * - particle-steps per second of the world's stepping path, the gun's tracers (every shot moved
 *   each tick, boxed in the scene), at ~10k, ~100k and ~1M live shots (target ≥ 60 M/s); the
 *   fountain, the other stepped system, is bounded (FOUNTAIN_MAX_LIFE × FOUNTAIN_PER_TICK
 *   drops) and measured in fountain_bench.ts;
 * - fireworks at ~10k, ~100k and ~1M live particles in closed form as the World runs them (a
 *   step spawns the births and counts deaths, no spark moves: live sparks advanced per second),
 *   and, for reference only, the stepped mode that no World runs any more (tests compare the
 *   closed form with it slot for slot);
 * - the same maths as a naive one-object-per-particle loop, and the ratio (expect ≥ 8×);
 * - the late-join rebuild of a busy window with ~50k live particles (target ≤ 100 ms);
 * - a sky of ~1M live sparks (closed-form fireworks): a step, a checkpoint hash, a late join.
 * Each bench prints its own particle-steps/s (live particles per step × steps / time) from its
 * best iteration, since on a shared machine the mean mostly measures the other load.
 */
import process from "node:process";
import { BURST_HEIGHT_MAX, WINDOW_TICKS } from "../shared/constants.ts";
import { COLOR_STEPS } from "../shared/firework_colors.ts";
import { RISE_MAX } from "../shared/firework_plan.ts";
import { Fireworks } from "../shared/fireworks/mod.ts";
import { AGE_BASE, DROP, REACH, STYLE_COLORS, STYLE_STRIDE } from "../shared/firework_motion.ts";
import { advanceSnapshot, initialSnapshot } from "../shared/settings.ts";
import { World, worldFromWindow } from "../shared/world.ts";
import { eventCost } from "../shared/budget.ts";
import { busyScenario } from "../testing/world_scenarios.ts";
import { FIREWORK_KINDS } from "../shared/firework_kinds.ts";
import { Gun, GUN_SHOTS, GUN_SPAWN_TICKS } from "../shared/gun.ts";
import type { SceneEvent } from "../shared/types.ts";

/** User + system CPU milliseconds of a `process.cpuUsage()` difference. */
function cpuMs(usage: { user: number; system: number }): number {
  return (usage.user + usage.system) / 1000;
}

/** Ticks timed per iteration: bursts are young, so no particle dies of old age meanwhile. */
const TIMED_TICKS = 20;
/** Live particles per launch right after its apex (trail tail + burst), measured. */
const LIVE_PER_LAUNCH = 980;

/** A system with `launches` fireworks all just past their apex: the sky at its fullest. */
function fullSky(launches: number, closedForm = false): { fw: Fireworks; tick: number } {
  const fw = new Fireworks(42, launches * 3600, { closedForm });
  for (let seq = 1; seq <= launches; seq++) {
    const x = (seq % 90) - 45, z = (Math.floor(seq / 90) % 90) - 45;
    fw.launch(seq, 0, { x, z, y: BURST_HEIGHT_MAX }, "auto");
  }
  let tick = 0;
  for (; tick <= RISE_MAX; tick++) fw.step(tick);
  return { fw, tick };
}

/** One object per particle: the layout the SoA pool replaces. */
interface NaiveParticle {
  x: number;
  y: number;
  z: number;
  px: number;
  py: number;
  pz: number;
  ox: number;
  oy: number;
  oz: number;
  vx: number;
  vy: number;
  vz: number;
  r: number;
  g: number;
  b: number;
  a: number;
  life: number;
  maxLife: number;
  style: number;
}

/** The pool's live particles copied into objects. */
function naiveCopy(fw: Fireworks): NaiveParticle[] {
  const { position, origin, velocity, life, maxLife, style } = fw.pool;
  const out: NaiveParticle[] = [];
  for (let i = 0; i < fw.pool.count; i++) {
    if (life[i] <= 0) continue;
    out.push({
      x: position[i * 3],
      y: position[i * 3 + 1],
      z: position[i * 3 + 2],
      px: 0,
      py: 0,
      pz: 0,
      ox: origin[i * 3],
      oy: origin[i * 3 + 1],
      oz: origin[i * 3 + 2],
      vx: velocity[i * 3],
      vy: velocity[i * 3 + 1],
      vz: velocity[i * 3 + 2],
      r: 0,
      g: 0,
      b: 0,
      a: 0,
      life: life[i],
      maxLife: maxLife[i],
      style: style[i],
    });
  }
  return out;
}

/** The fireworks' per-tick maths (ageing, closed-form motion, colour) over objects. */
function naiveStep(particles: NaiveParticle[]): void {
  for (const p of particles) {
    if (p.life <= 0) continue;
    p.life -= 1;
    const age = p.maxLife - p.life;
    const a = AGE_BASE[p.style] + age;
    p.px = p.x;
    p.py = p.y;
    p.pz = p.z;
    p.x = p.ox + p.vx * REACH[a];
    p.y = p.oy + p.vy * REACH[a] - DROP[a];
    p.z = p.oz + p.vz * REACH[a];
    if (p.life === 0) {
      p.a = 0;
      continue;
    }
    const o = p.style * STYLE_STRIDE + (((age * COLOR_STEPS) / p.maxLife + 0.5) | 0) * 4;
    p.r = STYLE_COLORS[o];
    p.g = STYLE_COLORS[o + 1];
    p.b = STYLE_COLORS[o + 2];
    p.a = STYLE_COLORS[o + 3];
  }
}

/** Live particles integrated over the timed ticks (the same for every iteration: deterministic). */
function liveSteps(launches: number): number {
  const { fw, tick } = fullSky(launches);
  let steps = 0;
  for (let t = tick; t < tick + TIMED_TICKS; t++) {
    steps += fw.live();
    fw.step(t);
  }
  return steps;
}

const sizes = [["10k", 10_000], ["100k", 100_000], ["1M", 1_000_000]] as const;

/**
 * `volleys` gun volleys fired at tick 0 from the middle of the scene, fanned out and upward,
 * stepped until every shot is out: the stepped path's busiest state (no more spawns after it).
 */
function gunSky(volleys: number): { gun: Gun; tick: number } {
  const gun = new Gun(42, volleys * GUN_SHOTS);
  for (let seq = 1; seq <= volleys; seq++) {
    const angle = seq * 2.39996;
    gun.fire(seq, 0, [0, 1.5, 0], [Math.cos(angle), 1.4, Math.sin(angle)]);
  }
  let tick = 0;
  for (; tick < GUN_SPAWN_TICKS; tick++) gun.step(tick);
  return { gun, tick };
}

for (const [label, target] of sizes) {
  // Live shots per volley once all are out, measured on a probe.
  const probe = gunSky(20);
  const volleys = Math.max(1, Math.round((target * 20) / Math.max(1, probe.gun.live())));
  let steps = 0, live = 0, bestMs = Infinity, bestCpuMs = Infinity;
  {
    const { gun, tick } = gunSky(volleys);
    live = gun.live();
    for (let t = tick; t < tick + TIMED_TICKS; t++) {
      steps += gun.live();
      gun.step(t);
    }
  }
  Deno.bench({
    name: `gun step (stepped, as the world runs it), ${label} live shots`,
    group: `gun ${label}`,
    n: label === "1M" ? 6 : 12,
    warmup: 2,
    fn(b) {
      const { gun, tick } = gunSky(volleys);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      b.start();
      for (let t = tick; t < tick + TIMED_TICKS; t++) gun.step(t);
      b.end();
      bestMs = Math.min(bestMs, performance.now() - t0);
      bestCpuMs = Math.min(bestCpuMs, cpuMs(process.cpuUsage(c0)));
    },
  });
  addEventListener("unload", () => {
    if (bestMs === Infinity) return;
    const m = (ms: number) => (steps / ms / 1000).toFixed(1);
    console.log(
      `gun ${label}: ${live} live shots (${volleys} volleys); ${m(bestMs)} M particle-steps/s ` +
        `wall, ${m(bestCpuMs)} M/s cpu (target ≥ 60 M/s)`,
    );
  });
}

for (const [label, target] of sizes) {
  const launches = Math.max(1, Math.round(target / LIVE_PER_LAUNCH));
  const stepsPerIteration = liveSteps(launches);
  let live = 0, bestMs = Infinity, bestNaiveMs = Infinity, bestCpuMs = Infinity;
  let bestNaiveCpuMs = Infinity, bestClosedMs = Infinity, bestClosedCpuMs = Infinity;
  Deno.bench({
    name: `fireworks step (stepped: reference, no World runs it), ${label} live particles`,
    group: `fireworks ${label}`,
    baseline: true,
    n: label === "1M" ? 6 : 12,
    warmup: 2,
    fn(b) {
      const { fw, tick } = fullSky(launches);
      live = fw.live();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      b.start();
      for (let t = tick; t < tick + TIMED_TICKS; t++) fw.step(t);
      b.end();
      bestMs = Math.min(bestMs, performance.now() - t0);
      bestCpuMs = Math.min(bestCpuMs, cpuMs(process.cpuUsage(c0)));
    },
  });
  Deno.bench({
    // What the world runs (World's fireworks are closed form): the same sky and ticks, a step
    // spawning what is born (and marking trails and embers born); the live sparks advanced per
    // second.
    name: `fireworks step (closed form, as the world runs), ${label} live particles`,
    group: `fireworks ${label}`,
    n: label === "1M" ? 6 : 12,
    warmup: 2,
    fn(b) {
      const { fw, tick } = fullSky(launches, true);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      b.start();
      for (let t = tick; t < tick + TIMED_TICKS; t++) fw.step(t);
      b.end();
      bestClosedMs = Math.min(bestClosedMs, performance.now() - t0);
      bestClosedCpuMs = Math.min(bestClosedCpuMs, cpuMs(process.cpuUsage(c0)));
    },
  });
  Deno.bench({
    name: `naive objects, ${label} live particles`,
    group: `fireworks ${label}`,
    n: label === "1M" ? 6 : 12,
    warmup: 2,
    fn(b) {
      const { fw } = fullSky(launches);
      const particles = naiveCopy(fw);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      b.start();
      for (let t = 0; t < TIMED_TICKS; t++) naiveStep(particles);
      b.end();
      bestNaiveMs = Math.min(bestNaiveMs, performance.now() - t0);
      bestNaiveCpuMs = Math.min(bestNaiveCpuMs, cpuMs(process.cpuUsage(c0)));
    },
  });
  addEventListener("unload", () => {
    if (bestMs === Infinity) return;
    // Best iteration, not the mean: on a shared machine the mean mostly measures other load.
    // CPU time too: with other processes on the cores, wall time overstates the cost.
    const m = (ms: number) => (stepsPerIteration / ms / 1000).toFixed(1);
    console.log(
      `fireworks ${label}: ${live} live; stepped (reference) ${
        m(bestMs)
      } M particle-steps/s wall, ` +
        `${m(bestCpuMs)} M/s cpu; naive objects ${m(bestNaiveMs)} wall, ${
          m(bestNaiveCpuMs)
        } cpu; ` +
        `ratio ${(bestNaiveMs / bestMs).toFixed(1)}x wall, ${
          (bestNaiveCpuMs / bestCpuMs).toFixed(1)
        }x cpu; closed form (the world) ${m(bestClosedMs)} M/s wall, ${m(bestClosedCpuMs)} cpu`,
    );
  });
}

// Late join: a busy window, rebuilt from the snapshot at T − W and the window's events.
const SEED = 77;
// Launches every ~4 ticks: with the eight kinds' budgets (willows and chrysanthemums cost 3–4k
// slots) a gap of 3 would overfill the 200k sky, which the server would refuse.
const events = busyScenario({ key: 9, ticks: 1500, launchGap: 4, gunGap: 30, settingsGap: 200 });
const T = 1400;
const snapshot = advanceSnapshot(initialSnapshot(), events, T - WINDOW_TICKS);
const windowEvents = events.filter((e) => e.tick >= T - WINDOW_TICKS && e.tick < T);
{
  const probe = new World({ seed: SEED });
  for (const e of events) probe.apply(e);
  probe.advanceTo(T);
  console.log(
    `late join window: ${windowEvents.length} events, ${probe.liveParticles()} live particles ` +
      `at T (fireworks ${probe.fireworks.count} slots, gun ${probe.gun.count}, fountain)`,
  );
}
Deno.bench({
  name: "late join: worldFromWindow (construct the world + simulate the window)",
  group: "late join",
  baseline: true,
  n: 10,
  warmup: 3,
  fn() {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    worldFromWindow({ seed: SEED, snapshot, events: windowEvents, tick: T });
    bestRebuildMs = Math.min(bestRebuildMs, performance.now() - t0);
    bestRebuildCpuMs = Math.min(bestRebuildCpuMs, cpuMs(process.cpuUsage(c0)));
  },
});
let bestRebuildMs = Infinity, bestRebuildCpuMs = Infinity;
addEventListener("unload", () => {
  if (bestRebuildMs === Infinity) return;
  console.log(
    `late join rebuild: best ${bestRebuildMs.toFixed(1)} ms wall, ` +
      `${bestRebuildCpuMs.toFixed(1)} ms cpu (target ≤ 100 ms)`,
  );
});
Deno.bench({
  name: "late join: simulate the window only (world constructed outside the timing)",
  group: "late join",
  n: 10,
  warmup: 3,
  fn(b) {
    const world = new World({ seed: SEED, snapshot });
    for (const e of windowEvents) {
      if (e.body.type === "settings" || eventCost(SEED, e).endTick > T) world.apply(e);
    }
    b.start();
    world.fastForwardTo(T);
    b.end();
  },
});

// A sky of a million: ~1M live firework sparks held by launches of every kind at a steady
// cadence (5.7 a tick), in a world of closed-form fireworks (no spark is stepped).
const MILLION_SEED = 18;
const million = (() => {
  const world = new World({
    seed: MILLION_SEED,
    capacity: 4_000_000,
    snapshot: initialSnapshot({ show: false }),
  });
  const log: SceneEvent[] = [];
  let seq = 0, credit = 0;
  /** Steps to `until`, launching at the sky's cadence (so that it stays at ~1M). */
  const keepTo = (until: number) => {
    while (world.tick < until) step();
  };
  const step = () => {
    credit += 5.7;
    while (credit >= 1) {
      credit--;
      seq++;
      const event: SceneEvent = {
        seq,
        tick: world.tick,
        by: "bench",
        body: {
          type: "launch",
          x: ((seq * 37) % 80) - 40,
          z: ((seq * 53) % 80) - 40,
          kind: FIREWORK_KINDS[seq % FIREWORK_KINDS.length],
        },
      };
      world.apply(event);
      log.push(event);
    }
    world.step();
  };
  keepTo(720);
  return { world, log, keepTo };
})();
let bestHashMs = Infinity, bestHashCpuMs = Infinity, bestStepMs = Infinity;
let bestJoinMs = Infinity, bestJoinCpuMs = Infinity;
Deno.bench({
  name: "1M sky: world.step (closed form: births and ends)",
  group: "1M sky",
  n: 10,
  warmup: 1,
  fn(b) {
    b.start();
    const t0 = performance.now();
    million.world.step();
    bestStepMs = Math.min(bestStepMs, performance.now() - t0);
    b.end();
  },
});
let bestCheckpointCpuMs = Infinity;
/** Every timed checkpoint's CPU (ms), warm-up included: min / median / max at the end. */
const checkpointCpuMs: number[] = [];
Deno.bench({
  name: "1M sky: checkpoint (World.checkpointHash: every launch's row, a rotating sample in full)",
  group: "1M sky",
  n: 16,
  warmup: 4,
  fn(b) {
    // The next checkpoint, the sky kept at its cadence (each turn of the rotation in order). Before
    // the full hash below, which places every launch's births: here, as on a page, a sampled
    // launch's bursts, splits and embers are placed by the checkpoint that first evaluates it.
    million.keepTo((Math.floor(million.world.tick / 60) + 1) * 60);
    b.start();
    const c0 = process.cpuUsage();
    million.world.checkpointHash();
    const used = cpuMs(process.cpuUsage(c0));
    bestCheckpointCpuMs = Math.min(bestCheckpointCpuMs, used);
    checkpointCpuMs.push(used);
    b.end();
  },
});
Deno.bench({
  name: "1M sky: full hash (World.hash: evaluates every live spark's closed form)",
  group: "1M sky",
  n: 10,
  warmup: 1,
  fn(b) {
    million.world.step();
    b.start();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    million.world.hash();
    bestHashMs = Math.min(bestHashMs, performance.now() - t0);
    bestHashCpuMs = Math.min(bestHashCpuMs, cpuMs(process.cpuUsage(c0)));
    b.end();
  },
});
Deno.bench({
  name: "1M sky: late join (worldFromWindow at the sky's tick)",
  group: "1M sky",
  n: 4,
  warmup: 1,
  fn() {
    const T = million.world.tick;
    const from = T - WINDOW_TICKS;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    worldFromWindow({
      seed: MILLION_SEED,
      snapshot: advanceSnapshot(initialSnapshot({ show: false }), million.log, from),
      events: million.log.filter((e) => e.tick >= from && e.tick < T),
      tick: T,
      capacity: 4_000_000,
    });
    bestJoinMs = Math.min(bestJoinMs, performance.now() - t0);
    bestJoinCpuMs = Math.min(bestJoinCpuMs, cpuMs(process.cpuUsage(c0)));
  },
});
addEventListener("unload", () => {
  if (bestHashMs === Infinity) return;
  const fw = million.world.fireworkSystem;
  console.log(
    `1M sky: ${fw.live()} live sparks in ${fw.used()} slots; step best ${
      bestStepMs.toFixed(1)
    } ms; full hash best ${bestHashMs.toFixed(1)} ms wall, ${
      bestHashCpuMs.toFixed(1)
    } ms cpu; checkpoint best ${
      bestCheckpointCpuMs.toFixed(1)
    } ms cpu (min / median / max of ${checkpointCpuMs.length}: ${
      [...checkpointCpuMs].sort((a, b) => a - b).filter((_, i, a) =>
        i === 0 || i === a.length >> 1 || i === a.length - 1
      ).map((v) => v.toFixed(1)).join(" / ")
    }); late join best ${bestJoinMs.toFixed(0)} ms wall, ${
      bestJoinCpuMs.toFixed(0)
    } ms cpu; the pool's births ${
      (fw.pool.bytes / 1e6).toFixed(1)
    } MB for ${fw.pool.allocated} allocated slots (${
      fw.pool.windowed ? "a one-launch window" : "kept per slot"
    })`,
  );
});
