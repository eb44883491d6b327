import assert from "node:assert/strict";
import { WINDOW_TICKS } from "../../shared/constants.ts";
import {
  alphaAt,
  brightnessAt,
  COLOR_STEPS,
  colorStep,
  fireworkColor,
  heatColor,
  PALETTE,
  PALETTE_SIZE,
} from "../../shared/firework_colors.ts";
import { BURST_HEIGHT_MAX } from "../../shared/constants.ts";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { MOTION, MOTIONS } from "../../shared/firework_motion.ts";
import {
  FIREWORK_MAX_LIFE,
  planFirework,
  RISE_MAX,
  TRAIL_PER_TICK,
  trailSlot,
} from "../../shared/firework_plan.ts";
import { RECIPES } from "../../shared/firework_recipes.ts";
import {
  type FireworkBlock,
  Fireworks,
  resolveTheme,
  TRAIL_GAP_BOUND,
} from "../../shared/fireworks/mod.ts";

const SEED = 1234;

/** A system with one launch of `seq` at tick 0, stepped to the state right after its apex. */
function burstFirework(seq: number): { fw: Fireworks; block: FireworkBlock } {
  const fw = new Fireworks(SEED, 10_000);
  fw.launch(seq, 0, { x: 0, z: 0 }, "auto");
  const block = fw.pool.blocks[0];
  for (let t = 0; t < block.plan.riseTicks; t++) fw.step(t);
  return { fw, block };
}

Deno.test("fireworks burst with directions uniform on the sphere", () => {
  const octants = new Array(8).fill(0);
  let n = 0, sx = 0, sy = 0, sz = 0;
  for (let seq = 1; seq <= 12; seq++) {
    const { fw, block } = burstFirework(seq);
    const { velocity } = fw.pool;
    const plan = block.plan;
    // Burst velocities are the shell's velocity at its apex plus the burst's own.
    const apex = fw.velocityAt(block.start, plan.riseTicks, new Float64Array(3));
    const [fewest, most] = RECIPES.peony.sparks;
    assert.ok(plan.sparkCount[0] >= fewest && plan.sparkCount[0] <= most);
    for (let k = 0; k < plan.sparkCount[0]; k++) {
      const p = (block.start + plan.sparkStart[0] + k) * 3;
      const dx = velocity[p] - apex[0];
      const dy = velocity[p + 1] - apex[1];
      const dz = velocity[p + 2] - apex[2];
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      assert.ok(len > 0);
      const x = dx / len, y = dy / len, z = dz / len;
      sx += x;
      sy += y;
      sz += z;
      octants[(x > 0 ? 1 : 0) + (y > 0 ? 2 : 0) + (z > 0 ? 4 : 0)]++;
      n++;
    }
  }
  // Each component of a uniform unit vector has variance 1/3: the mean's sd is sqrt(1/(3n)).
  const sd = Math.sqrt(1 / (3 * n));
  for (const mean of [sx / n, sy / n, sz / n]) assert.ok(Math.abs(mean) < 4 * sd, `mean ${mean}`);
  const expected = n / 8, sdCount = Math.sqrt(n * (1 / 8) * (7 / 8));
  for (const count of octants) {
    assert.ok(Math.abs(count - expected) < 4 * sdCount, `octant ${count} vs ${expected}`);
  }
});

Deno.test("firework colours follow the life curve", async (t) => {
  await t.step(
    "the curve is seed 002's: white, yellow, orange, dark red with brightness ∝ √life",
    () => {
      // Expectation changed deliberately (issue 15): the curve is now seed 002's formula, white at
      // the start and dark red (not near black) at the end; see tests/unit/firework_seed_test.ts.
      const rgb = [0, 0, 0];
      heatColor(0, rgb);
      assert.deepEqual(rgb, [1, 1, 1], "white");
      heatColor(0.3, rgb);
      assert.ok(rgb[0] === 1 && rgb[1] > 0.75 && rgb[2] < 0.6, "yellow");
      heatColor(0.6, rgb);
      assert.ok(rgb[0] === 1 && rgb[1] > 0.45 && rgb[1] < 0.65 && rgb[2] < 0.3, "orange");
      heatColor(1, rgb);
      assert.ok(rgb[0] === 1 && rgb[1] <= 0.3 && rgb[2] <= 0.1, "red at the end");
      for (let j = 1; j <= COLOR_STEPS; j++) {
        const t0 = (j - 1) / COLOR_STEPS, t1 = j / COLOR_STEPS;
        assert.ok(brightnessAt(t1) < brightnessAt(t0), "brightness falls");
        assert.equal(brightnessAt(t1), Math.sqrt(1 - t1));
        assert.ok(alphaAt(t1) <= alphaAt(t0), "alpha never rises");
      }
      assert.equal(alphaAt(0.5), 1);
      assert.equal(alphaAt(1), 0);
    },
  );
  await t.step("every live particle's colour is the curve at its age, tinted", () => {
    const fw = new Fireworks(SEED, 10_000);
    fw.launch(1, 0, { x: 10, z: -10, theme: "red-gold" }, "auto");
    fw.launch(2, 0, { x: -10, z: 10, theme: "rainbow", kind: "crackle" }, "auto");
    fw.launch(3, 0, { x: -10, z: 10, kind: "chrysanthemum", breaks: 2 }, "auto");
    const { color, life, maxLife, style } = fw.pool;
    const expected = [0, 0, 0, 0];
    let checked = 0;
    for (let tick = 0; tick < 300; tick++) {
      fw.step(tick);
      if (tick % 7 !== 0) continue;
      for (let i = 0; i < fw.pool.count; i++) {
        if (life[i] <= 0) continue;
        const s = style[i];
        const tint = PALETTE[s % PALETTE_SIZE];
        const motion = MOTIONS[Math.floor(s / PALETTE_SIZE)];
        const step = colorStep(maxLife[i] - life[i], maxLife[i]);
        fireworkColor(step / COLOR_STEPS, tint[0], tint[1], tint[2], motion, expected);
        for (let c = 0; c < 3; c++) expected[c] *= motion.gain;
        for (let c = 0; c < 4; c++) {
          assert.ok(Math.abs(color[i * 4 + c] - expected[c]) < 1e-6, `slot ${i} channel ${c}`);
        }
        checked++;
      }
    }
    assert.ok(checked > 10_000);
  });
});

Deno.test("firework trails have no gaps at top speed", () => {
  assert.ok(TRAIL_GAP_BOUND < MOTIONS[MOTION.trail].size, "consecutive sparks overlap as sprites");
  // The fastest shells are those with the longest rise (the highest bursts): check some of them
  // and some seeded ones.
  let fastest = 0;
  for (let seq = 1; seq <= 12; seq++) {
    const y = seq <= 6 ? BURST_HEIGHT_MAX : undefined;
    const fw = new Fireworks(SEED, 10_000);
    fw.launch(seq, 0, { x: 0, z: 0, y }, "auto");
    const block = fw.pool.blocks[0];
    const { position } = fw.pool;
    fastest = Math.max(fastest, block.plan.riseTicks);
    let lx = 0, ly = 0, lz = 0; // the launch point starts the line
    // The shell starts upwind of its burst point by its drift.
    const p0 = block.start * 3;
    lx = position[p0];
    lz = position[p0 + 2];
    for (let k = 0; k < block.plan.riseTicks; k++) {
      fw.step(k);
      for (let n = 0; n < TRAIL_PER_TICK; n++) {
        const p = (block.start + trailSlot(k, n)) * 3;
        const gap = Math.hypot(position[p] - lx, position[p + 1] - ly, position[p + 2] - lz);
        assert.ok(gap <= TRAIL_GAP_BOUND, `seq ${seq} tick ${k} spark ${n}: gap ${gap}`);
        lx = position[p];
        ly = position[p + 1];
        lz = position[p + 2];
      }
    }
  }
  assert.equal(fastest, RISE_MAX, "the fastest shell (longest rise) was among those checked");
});

Deno.test("no firework particle outlives its max lifetime", () => {
  assert.ok(FIREWORK_MAX_LIFE <= WINDOW_TICKS);
  const fw = new Fireworks(SEED, 40_000);
  const launches = 8;
  for (let seq = 1; seq <= launches; seq++) {
    fw.launch(
      seq,
      0,
      { x: seq, z: -seq, kind: FIREWORK_KINDS[seq - 1], breaks: 1 + seq % 3 },
      "auto",
    );
  }
  const { life, maxLife } = fw.pool; // after the launches: the pool may have grown
  const endTicks = fw.pool.blocks.map((b) => b.endTick);
  // Slots do not move while no block expires, so we can follow each slot's age.
  const born = new Int32Array(fw.pool.count).fill(-1);
  for (let i = 0; i < fw.pool.count; i++) if (life[i] > 0) born[i] = 0;
  const lastLife = Float32Array.from(life.subarray(0, fw.pool.count));
  const firstExpiry = Math.min(...endTicks);
  let secondaries = 0;
  for (let tick = 0; tick + 1 < firstExpiry; tick++) {
    fw.step(tick);
    for (let i = 0; i < fw.pool.count; i++) {
      // A slot at full life just spawned (trail ring slots are reused once their spark died).
      if (life[i] > 0 && life[i] === maxLife[i]) {
        assert.equal(lastLife[i] <= 1, true, `slot ${i} reused while its particle still lived`);
        born[i] = tick + 1;
      }
      lastLife[i] = life[i];
      if (life[i] > 0) {
        assert.ok(tick + 1 - born[i] < maxLife[i], `slot ${i} age within its max life`);
        assert.equal(
          life[i],
          maxLife[i] - (tick + 1 - born[i]),
          "life counts down by one per tick",
        );
      }
    }
  }
  for (const block of fw.pool.blocks) {
    const plan = block.plan;
    for (let i = plan.childStart[0]; i < plan.emberStart[0]; i++) {
      if (born[block.start + i] >= 0) secondaries++;
    }
    assert.ok(block.endTick - block.tick <= FIREWORK_MAX_LIFE);
  }
  assert.ok(secondaries > 0, "secondary bursts went off");
  for (let tick = firstExpiry - 1; fw.pool.blocks.length > 0; tick++) fw.step(tick);
  assert.equal(fw.live(), 0);
});

/** How long before its end tick a launch's last spark may die (observed: 2–6 ticks). */
const END_TICK_SLACK = 15;

Deno.test("every particle of a launch is dead at its end tick", () => {
  for (let seq = 1; seq <= 6; seq++) {
    const fw = new Fireworks(SEED, 10_000);
    fw.launch(seq, 0, { x: 0, z: 0, kind: FIREWORK_KINDS[seq], breaks: seq % 3 + 1 }, "auto");
    const block = fw.pool.blocks[0];
    const endTick = block.endTick;
    let lastLive = -1;
    for (let tick = 0; tick < endTick - 1; tick++) {
      fw.step(tick);
      if (fw.live() > 0) lastLive = tick;
    }
    // The reservation ends soon after the last spark: the end tick is a close bound, not a guess.
    assert.ok(
      lastLive >= endTick - 1 - END_TICK_SLACK,
      `seq ${seq}: last spark at ${lastLive}, end tick ${endTick}`,
    );
    fw.step(endTick - 1);
    assert.equal(fw.live(), 0, `seq ${seq}`);
    assert.equal(fw.pool.blocks.length, 0, "its block is gone");
    assert.equal(fw.pool.count, 0);
  }
});

Deno.test("a launch's theme comes from its body, else the setting, else its own roll", () => {
  assert.equal(resolveTheme("rainbow", "red-gold", 0), "rainbow");
  assert.equal(resolveTheme(undefined, "blue-silver", 0.99), "blue-silver");
  assert.equal(resolveTheme(undefined, "auto", 0), "red-gold");
  assert.equal(resolveTheme(undefined, "auto", 0.99), "rainbow");
  const rolls = new Set<string>();
  for (let seq = 1; seq <= 60; seq++) {
    rolls.add(resolveTheme(undefined, "auto", planFirework(SEED, seq, { x: 0, z: 0 }).themeRoll));
  }
  assert.equal(rolls.size, 4, "auto picks every theme");
  const fw = new Fireworks(SEED, 10_000);
  fw.launch(1, 0, { x: 0, z: 0, theme: "green-purple" }, "auto");
  for (let t = 0; t < fw.pool.blocks[0].plan.riseTicks; t++) fw.step(t);
  const { style } = fw.pool;
  const b = fw.pool.blocks[0];
  const tints = new Set<number>();
  for (let k = 0; k < b.plan.sparkCount[0]; k++) {
    const s = style[b.start + b.plan.sparkStart[0] + k];
    assert.equal(Math.floor(s / PALETTE_SIZE), MOTION.spark);
    tints.add(s % PALETTE_SIZE);
  }
  for (const tint of tints) assert.ok([7, 8, 9].includes(tint), `green-purple tint ${tint}`);
});

Deno.test("fireworks jumped to a tick equal fireworks stepped there, slot for slot", () => {
  // Every kind, single and multi-break, some aimed, overlapping in time.
  const launches: [number, number][] = [
    [1, 0],
    [2, 3],
    [3, 40],
    [4, 41],
    [5, 90],
    [6, 91],
    [7, 130],
    [8, 170],
    [9, 171],
    [10, 200],
  ];
  const spec = (seq: number) => ({
    x: seq * 3,
    z: -seq,
    y: seq % 2 ? 20 + seq * 3 : undefined,
    kind: FIREWORK_KINDS[(seq - 1) % FIREWORK_KINDS.length],
    breaks: 1 + (seq % 3),
  });
  const stepped = new Fireworks(SEED, 100_000);
  const ticks = [
    1,
    2,
    36,
    37,
    38,
    99,
    100,
    101,
    135,
    136,
    137,
    180,
    222,
    260,
    300,
    333,
    420,
    470,
    530,
    600,
    680,
  ];
  let tick = 0;
  for (const T of ticks) {
    for (; tick < T; tick++) {
      for (const [seq, at] of launches) {
        if (at === tick) stepped.launch(seq, at, spec(seq), "auto");
      }
      stepped.step(tick);
    }
    const jumped = new Fireworks(SEED, 100_000);
    for (const [seq, at] of launches) {
      if (at < T) jumped.launch(seq, at, spec(seq), "auto");
    }
    jumped.jumpTo(T);
    assert.equal(jumped.live(), stepped.live(), `live at ${T}`);
    assert.equal(jumped.pool.count, stepped.pool.count, `slots at ${T}`);
    const a = stepped.pool, b = jumped.pool;
    for (const name of ["position", "previous", "origin", "velocity", "color", "life"] as const) {
      const n = a.count * (name === "color" ? 4 : name === "life" ? 1 : 3);
      for (let i = 0; i < n; i++) {
        if (!Object.is(a[name][i], b[name][i])) {
          throw new Error(
            `${name}[${i}] at tick ${T}: stepped ${a[name][i]}, jumped ${b[name][i]}`,
          );
        }
      }
    }
    for (let k = 0; k < a.blocks.length; k++) {
      assert.equal(b.blocks[k].lo, a.blocks[k].lo);
      assert.equal(b.blocks[k].hi, a.blocks[k].hi);
    }
  }
});
