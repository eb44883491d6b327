import assert from "node:assert/strict";
import { eventCost } from "../../shared/budget.ts";
import {
  BREAK_GAP_TICKS,
  BREAK_OFFSET_MAX,
  BURST_DROOP_MAX,
  BURST_REACH_MAX,
  BURST_RISE_MAX,
  BURST_SCALE,
} from "../../shared/constants.ts";
import { cos, sin, TAU } from "../../shared/dmath.ts";
import {
  PALETTE_SIZE,
  RAINBOW_FIRST,
  RAINBOW_HUES,
  strobe,
  STROBE_DIM,
} from "../../shared/firework_colors.ts";
import { FIREWORK_KINDS, type FireworkKind } from "../../shared/firework_kinds.ts";
import { AGE_STRIDE, DROP, MOTION, MOTIONS } from "../../shared/firework_motion.ts";
import { RECIPES } from "../../shared/firework_recipes.ts";
import { type FireworkBlock, Fireworks, type LaunchSpec } from "../../shared/fireworks/mod.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { World } from "../../shared/world.ts";

const SEED = 4242;

/** One launch at tick 0, stepped until `tick` (exclusive: the state is "at tick"). */
function launched(
  spec: LaunchSpec,
  tick: number,
  seq = 1,
): { fw: Fireworks; block: FireworkBlock } {
  const fw = new Fireworks(SEED, 60_000);
  fw.launch(seq, 0, spec, "auto");
  const block = fw.pool.blocks[0];
  for (let t = 0; t < tick; t++) fw.step(t);
  return { fw, block };
}

/** Live slots of break `b`'s sparks as [x, y, z] (block-relative indices). */
function sparks(fw: Fireworks, block: FireworkBlock, b = 0): [number, number, number][] {
  const { position, life } = fw.pool;
  const out: [number, number, number][] = [];
  const first = block.start + block.plan.sparkStart[b];
  for (let n = 0; n < block.plan.sparkCount[b]; n++) {
    const i = first + n;
    if (life[i] > 0) out.push([position[i * 3], position[i * 3 + 1], position[i * 3 + 2]]);
  }
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

Deno.test("an aimed launch bursts at its aim point; the shell rises from below it", () => {
  for (const [x, y, z] of [[10, 18, -20], [-44, 55, 44], [0, 33.3, 0]]) {
    const { fw, block } = launched({ x, y, z, kind: "peony" }, 0);
    const p = fw.pool.position;
    assert.ok(p[1] === 0, "the shell starts on the ground");
    assert.ok(Math.hypot(p[0] - x, p[2] - z) < 3, "below the burst point, up to its drift");
    for (let t = 0; t < block.plan.riseTicks; t++) fw.step(t);
    const shell = block.start * 3;
    assert.ok(Math.abs(p[shell] - x) < 0.01 && Math.abs(p[shell + 2] - z) < 0.01, "over the aim");
    assert.ok(Math.abs(p[shell + 1] - y) < 0.01, `at height ${p[shell + 1]} for ${y}`);
  }
});

Deno.test("ring sparks stay in their tilted plane and on a circle", () => {
  for (const seq of [1, 2, 3]) {
    const { fw, block } = launched({ x: 0, z: 0, y: 40, kind: "ring" }, 0, seq);
    const plan = block.plan;
    const [ax, ay, az, bx, by, bz] = plan.plane;
    const nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    for (let t = 0; t < plan.riseTicks + 100; t++) {
      fw.step(t);
      const age = t + 1 - plan.riseTicks;
      if (age < 5 || age % 19 !== 0) continue;
      const points = sparks(fw, block);
      assert.ok(points.length > 250);
      const cx = mean(points.map((p) => p[0]));
      const cy = mean(points.map((p) => p[1]));
      const cz = mean(points.map((p) => p[2]));
      const radii = points.map((p) => Math.hypot(p[0] - cx, p[1] - cy, p[2] - cz));
      const r = mean(radii);
      for (const p of points) {
        const off = (p[0] - cx) * nx + (p[1] - cy) * ny + (p[2] - cz) * nz;
        assert.ok(Math.abs(off) < 0.02, `age ${age}: ${off} m out of the plane`);
      }
      for (const d of radii) {
        assert.ok(Math.abs(d - r) < r * 0.08, `age ${age}: radius ${d} vs ${r}`);
      }
    }
  }
});

Deno.test("heart sparks lie near their parametric curve", () => {
  const curve: [number, number][] = [];
  for (let k = 0; k < 2000; k++) {
    const t = (TAU * k) / 2000, s = sin(t), c = cos(t);
    curve.push([s * s * s, (13 * c - 5 * cos(2 * t) - 2 * cos(3 * t) - cos(4 * t)) / 16]);
  }
  const { fw, block } = launched({ x: 5, z: 5, y: 35, kind: "heart" }, 0);
  const plan = block.plan;
  for (let t = 0; t < plan.riseTicks + 60; t++) fw.step(t);
  const age = 60;
  // The centre carries the shell's apex velocity and falls by the motion's DROP.
  const a = MOTION.spark * AGE_STRIDE + age;
  const points = sparks(fw, block);
  const cx = mean(points.map((p) => p[0])), cz = mean(points.map((p) => p[2]));
  // The shell's leftover apex speed is a rounding remainder; the shift is fitted below anyway.
  const cy0 = plan.burstY - DROP[a];
  const [e1x, e1y, e1z, e2x, e2y, e2z] = plan.plane;
  let worst = 0;
  const scaled = points.map((p) => {
    const dx = p[0] - cx, dy = p[1] - cy0, dz = p[2] - cz;
    return [dx * e1x + dy * e1y + dz * e1z, dx * e2x + dy * e2y + dz * e2z] as const;
  });
  // Fit the scale from the curve's width and the vertical shift from the means.
  const span = Math.max(...scaled.map((q) => q[0])) - Math.min(...scaled.map((q) => q[0]));
  const scale = span / 2; // the curve's x spans [−1, 1]
  const yShift = mean(scaled.map((q) => q[1])) / scale - mean(curve.map((q) => q[1]));
  for (const [u, v] of scaled) {
    const px = u / scale, py = v / scale - yShift;
    let best = Infinity;
    for (const [qx, qy] of curve) best = Math.min(best, Math.hypot(px - qx, py - qy));
    worst = Math.max(worst, best);
  }
  assert.ok(worst < 0.06, `every spark within ${worst} of the curve (curve size ~2)`);
  assert.ok(points.length > 300);
});

Deno.test("willow droops more than peony, and peony droops more than before", () => {
  for (let a = 20; a < 200; a += 20) {
    assert.ok(
      DROP[MOTION.willow * AGE_STRIDE + a] > DROP[MOTION.spark * AGE_STRIDE + a],
      `age ${a}`,
    );
  }
  const drop = (kind: FireworkKind, age: number) => {
    const { fw, block } = launched({ x: 0, z: 0, y: 40, kind }, 0);
    for (let t = 0; t < block.plan.riseTicks + age; t++) fw.step(t);
    return 40 - mean(sparks(fw, block).map((p) => p[1]));
  };
  const peony = drop("peony", 100), willow = drop("willow", 100);
  assert.ok(willow > peony + 2, `willow ${willow} m vs peony ${peony} m after 100 ticks`);
  // The issue measured a droop of 4.1 m over 2.3 s; a peony now sinks about twice that.
  assert.ok(drop("peony", 138) > 7, "peony centre sinks more than 7 m in 2.3 s");
});

Deno.test("crossette stars each split into exactly four, across their flight", () => {
  const { fw, block } = launched({ x: 0, z: 0, y: 40, kind: "crossette" }, 0);
  const plan = block.plan;
  const stars = plan.sparkCount[0];
  assert.equal(plan.splitCount[0], stars, "every star splits");
  assert.equal(plan.emberStart[0] - plan.childStart[0], 4 * stars, "four child slots per star");
  const { life, maxLife, velocity } = fw.pool;
  const born = new Int32Array(plan.slots).fill(-1);
  const v = new Float64Array(3);
  for (let t = 0; t < block.endTick - 1; t++) {
    fw.step(t);
    const first = block.start + plan.childStart[0];
    for (let k = 0; k < 4 * stars; k++) {
      const i = first + k;
      const k0 = i - block.start;
      if (born[k0] < 0 && life[i] > 0 && life[i] === maxLife[i]) born[k0] = t + 1;
    }
  }
  for (let j = 0; j < stars; j++) {
    const first = block.start + plan.childStart[0] + 4 * j;
    const ticks = new Set<number>();
    for (let k = 0; k < 4; k++) ticks.add(born[first - block.start + k]);
    assert.equal(ticks.size, 1, `star ${j}: its four children are born together`);
    assert.equal(
      [...ticks][0],
      plan.riseTicks + block.delays[0][j],
      `star ${j} splits at its delay`,
    );
    // Children minus their common carried velocity: ±f1, ±f2, perpendicular to the star's flight.
    const parent = block.start + plan.sparkStart[0] + j;
    fw.velocityAt(parent, block.delays[0][j], v);
    const d: number[][] = [];
    const c = [0, 1, 2].map((axis) => {
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += velocity[(first + k) * 3 + axis];
      return sum / 4;
    });
    for (let k = 0; k < 4; k++) {
      d.push([0, 1, 2].map((axis) => velocity[(first + k) * 3 + axis] - c[axis]));
    }
    const dot = (p: number[], q: number[]) => p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
    const vl = Math.sqrt(dot([...v], [...v]));
    const s = Math.sqrt(dot(d[0], d[0]));
    assert.ok(s > 3, "children fly apart");
    assert.ok(Math.abs(dot(d[0], d[2])) < 1e-3 * s * s, "the two arms are perpendicular");
    assert.ok(
      Math.abs(dot(d[0], d[1]) + s * s) < 1e-3 * s * s,
      "each arm has two opposite children",
    );
    for (const arm of d) assert.ok(Math.abs(dot(arm, [...v])) < 1e-3 * s * vl, "across the flight");
  }
});

Deno.test("crackle flickers and has a crackling second break", () => {
  const { fw, block } = launched({ x: 0, z: 0, y: 40, kind: "crackle" }, 0);
  const plan = block.plan;
  assert.ok(plan.splitCount[0] > plan.sparkCount[0] * 0.25, "a third of the sparks pop");
  const { life, flicker } = fw.pool;
  for (let t = 0; t < plan.riseTicks; t++) fw.step(t);
  const first = block.start + plan.sparkStart[0];
  for (let n = 0; n < plan.sparkCount[0]; n++) {
    assert.ok(flicker[first + n] > 0, "burst sparks strobe");
  }
  const children = block.start + plan.childStart[0];
  const childCount = plan.emberStart[0] - plan.childStart[0];
  let secondBreakTick = -1;
  for (let t = plan.riseTicks; t < plan.riseTicks + 80; t++) {
    fw.step(t);
    let live = 0;
    for (let k = 0; k < childCount; k++) if (life[children + k] > 0) live++;
    if (live > 0 && secondBreakTick < 0) secondBreakTick = t + 1;
  }
  assert.ok(secondBreakTick >= plan.riseTicks + RECIPES.crackle.split!.delay[0], "pops come later");
  // Changed deliberately (issue 15: "the crackle has no visible pops"): a pop is a steady flash,
  // brighter and wider than the burst's sparks, not one more strobing spark.
  for (let k = 0; k < childCount; k++) {
    assert.equal(flicker[children + k], 0, "pops flash steadily");
  }
  const pop = MOTIONS[RECIPES.crackle.split!.motion], spark = MOTIONS[RECIPES.crackle.motion];
  assert.ok(pop.gain >= 2 * spark.gain && pop.size > spark.size, "a pop outshines a spark");
  // The strobe: steady particles stay lit, strobing ones alternate lit and dim.
  assert.equal(strobe(123, 0), 1);
  const seen = new Set<number>();
  for (let tick = 0; tick < 32; tick++) seen.add(strobe(tick, flicker[first]));
  assert.deepEqual([...seen].sort(), [STROBE_DIM, 1].sort());
});

Deno.test("chrysanthemum sparks leave trails of embers behind them", () => {
  const { fw, block } = launched({ x: 0, z: 0, y: 40, kind: "chrysanthemum" }, 0);
  const plan = block.plan;
  for (let t = 0; t < plan.riseTicks + 30; t++) fw.step(t);
  const { life, style, position } = fw.pool;
  const trail = RECIPES.chrysanthemum.trail!;
  let embers = 0;
  for (let n = 0; n < plan.trailCount[0]; n++) {
    const spark = block.start + plan.sparkStart[0] + n;
    for (let m = 0; m < trail.ring; m++) {
      const i = block.start + plan.emberStart[0] + n * trail.ring + m;
      if (life[i] <= 0) continue;
      embers++;
      assert.equal(Math.floor(style[i] / PALETTE_SIZE), MOTION.ember);
      const gap = Math.hypot(
        position[i * 3] - position[spark * 3],
        position[i * 3 + 1] - position[spark * 3 + 1],
        position[i * 3 + 2] - position[spark * 3 + 2],
      );
      // Close next to the burst's ~13 m radius (both scale with BURST_SCALE).
      assert.ok(gap < 3 * BURST_SCALE, `an ember trails its spark closely (${gap} m)`);
    }
  }
  assert.ok(
    embers >= plan.sparkCount[0] * 2,
    `${embers} embers behind ${plan.sparkCount[0]} sparks`,
  );
});

Deno.test("palm throws a few thick comets upwards, each with a dense trail", () => {
  const { fw, block } = launched({ x: 0, z: 0, y: 35, kind: "palm" }, 0);
  const plan = block.plan;
  for (let t = 0; t < plan.riseTicks + 40; t++) fw.step(t);
  const comets = plan.sparkCount[0];
  const [fewest, most] = RECIPES.palm.sparks;
  assert.ok(comets >= fewest && comets <= most && most <= 30, `${comets} comets: a few`);
  const { size, velocity, life } = fw.pool;
  const apex = fw.velocityAt(block.start, plan.riseTicks, new Float64Array(3));
  for (let n = 0; n < comets; n++) {
    const i = block.start + plan.sparkStart[0] + n;
    assert.ok(size[i] >= 1, "thick");
    assert.ok(velocity[i * 3 + 1] - apex[1] > 0, "thrown upwards");
  }
  assert.equal(plan.trailCount[0], comets);
  let embers = 0;
  for (let i = plan.emberStart[0]; i < plan.slots; i++) if (life[block.start + i] > 0) embers++;
  assert.ok(embers >= comets * 15, `${embers} trail embers`);
});

Deno.test("a multi-break shell bursts once per break, BREAK_GAP_TICKS apart", () => {
  for (const kind of FIREWORK_KINDS) {
    for (const breaks of [1, 2, 3]) {
      const { fw, block } = launched({ x: 0, z: 0, y: 30, kind, breaks }, 0);
      const plan = block.plan;
      assert.equal(plan.breaks, breaks);
      const bursts: number[] = [];
      const { life } = fw.pool;
      const spawned = new Array(breaks).fill(false);
      for (let t = 0; t < block.endTick - 1; t++) {
        fw.step(t);
        for (let b = 0; b < breaks; b++) {
          const first = block.start + plan.sparkStart[b];
          if (!spawned[b] && life[first + plan.sparkCount[b] - 1] > 0) {
            spawned[b] = true;
            bursts.push(t + 1);
          }
        }
      }
      assert.deepEqual(
        bursts,
        Array.from({ length: breaks }, (_, b) => plan.riseTicks + b * BREAK_GAP_TICKS),
        `${kind} × ${breaks}`,
      );
    }
  }
});

Deno.test("rainbow mixes its hues per spark, not per hemisphere", () => {
  const { fw, block } = launched({ x: 0, z: 0, y: 40, kind: "peony", theme: "rainbow" }, 0);
  for (let t = 0; t < block.plan.riseTicks; t++) fw.step(t);
  const { style, velocity } = fw.pool;
  const apex = fw.velocityAt(block.start, block.plan.riseTicks, new Float64Array(3));
  const halves = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()];
  for (let n = 0; n < block.plan.sparkCount[0]; n++) {
    const i = block.start + block.plan.sparkStart[0] + n;
    const tint = style[i] % PALETTE_SIZE;
    assert.ok(tint >= RAINBOW_FIRST && tint < RAINBOW_FIRST + RAINBOW_HUES);
    halves[velocity[i * 3] > apex[0] ? 0 : 1].add(tint);
    halves[velocity[i * 3 + 1] > apex[1] ? 2 : 3].add(tint);
  }
  for (const half of halves) assert.equal(half.size, RAINBOW_HUES, "every half has every hue");
});

Deno.test("no spark strays beyond the documented burst reach, rise and droop", () => {
  for (const kind of FIREWORK_KINDS) {
    for (const seq of [1, 2, 3, 4]) {
      const { fw, block } = launched(
        { x: 0, z: 0, y: 40, kind, breaks: seq === 4 ? 3 : 1 },
        0,
        seq,
      );
      const plan = block.plan;
      const { position, life } = fw.pool;
      for (let t = 0; t < block.endTick - 1; t++) {
        fw.step(t);
        if (t + 1 < plan.riseTicks || t % 3) continue;
        for (let i = block.start + plan.trailEnd; i < block.start + plan.slots; i++) {
          if (life[i] <= 0) continue;
          const dx = Math.abs(position[i * 3]) - (plan.breaks > 1 ? BREAK_OFFSET_MAX : 0);
          const dz = Math.abs(position[i * 3 + 2]) - (plan.breaks > 1 ? BREAK_OFFSET_MAX : 0);
          const dy = position[i * 3 + 1] - 40;
          const slack = plan.breaks > 1 ? BREAK_OFFSET_MAX : 0;
          assert.ok(
            Math.hypot(Math.max(0, dx), Math.max(0, dz)) <= BURST_REACH_MAX,
            `${kind} sideways`,
          );
          assert.ok(dy <= BURST_RISE_MAX + slack, `${kind} up ${dy}`);
          assert.ok(-dy <= BURST_DROOP_MAX + slack, `${kind} down ${-dy}`);
        }
      }
    }
  }
});

Deno.test("eventCost equals the slots a launch of every kind uses, each slot at least once", () => {
  for (const kind of FIREWORK_KINDS) {
    for (const breaks of [1, 2, 3]) {
      const event: SceneEvent = {
        seq: 3,
        tick: 0,
        by: "t",
        body: { type: "launch", x: 1, z: 1, kind, breaks },
      };
      const cost = eventCost(SEED, event);
      // Show off: the world counts only this launch, not the seeded show it derives itself.
      const world = new World({ seed: SEED, snapshot: initialSnapshot({ show: false }) });
      world.apply(event);
      world.step();
      assert.equal(world.usedSlots(), cost.particles, `${kind} × ${breaks}`);
      const used = new Uint8Array(cost.particles);
      const view = world.fireworks;
      for (let t = 1; t < cost.endTick; t++) {
        for (let i = 0; i < view.count; i++) if (view.color[i * 4 + 3] > 0) used[i] = 1;
        world.step();
      }
      assert.equal(world.usedSlots(), 0, "freed at its end tick");
      assert.equal(
        used.reduce((a, b) => a + b, 0),
        cost.particles,
        `${kind} × ${breaks}: no idle slot`,
      );
    }
  }
});

Deno.test("motion classes keep seed 002's drag for burst sparks", () => {
  for (const kind of FIREWORK_KINDS) {
    const drag = MOTIONS[RECIPES[kind].motion].drag;
    assert.ok(drag >= 0.98 && drag <= 0.995, `${kind} drag ${drag}`);
  }
});

Deno.test("peony: 10–20 % of its sparks burst again, each into its children", () => {
  for (const seq of [1, 2, 3, 4, 5]) {
    const { fw, block } = launched({ x: 0, z: 0, kind: "peony" }, 0, seq);
    const plan = block.plan;
    const share = plan.splitCount[0] / plan.sparkCount[0];
    assert.ok(share >= 0.095 && share <= 0.2, `seq ${seq}: ${share} of the sparks burst again`);
    const children = RECIPES.peony.split!.children;
    const { life } = fw.pool;
    const born = new Set<number>();
    for (let t = 0; t < block.endTick - 1; t++) {
      fw.step(t);
      for (let k = 0; k < plan.splitCount[0] * children; k++) {
        if (life[block.start + plan.childStart[0] + k] > 0) born.add(k);
      }
    }
    assert.equal(born.size, plan.splitCount[0] * children, "every secondary burst went off");
  }
});
