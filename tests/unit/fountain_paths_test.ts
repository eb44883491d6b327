/**
 * Seed 004's fountain (issue 36): every jet's water reflects off both dishes before it falls into
 * the pool, each tick's spawn count and each drop's life come from the tick's seeded stream, and
 * the hosts' rotation and spiral settings are deterministic and keep the two bounces.
 */
import assert from "node:assert/strict";
import {
  Fountain,
  FOUNTAIN_JETS,
  FOUNTAIN_LIFE,
  FOUNTAIN_MAX_LIFE,
  type FountainMotion,
  TOUCHED_POOL,
  TOUCHED_SPAWNED,
} from "../../shared/fountain.ts";
import { Hasher } from "../../shared/hash.ts";

/** Per jet (0: central, 1: the ring jets), drops spawned and drops that went upper, lower, pool. */
function paths(seed: number, motion: FountainMotion): { spawned: number[]; twice: number[] } {
  const f = new Fountain(seed);
  const ringFrom = f.perTick - (FOUNTAIN_JETS.length - 1) * Math.floor(f.perTick * 0.1);
  const spawned = [0, 0], twice = [0, 0];
  for (let tick = 0; tick < 900; tick++) {
    f.step(tick, true, motion);
    // The row spawned FOUNTAIN_MAX_LIFE − 1 ticks ago is final: its drops have all died.
    const spawn = tick - (FOUNTAIN_MAX_LIFE - 1);
    if (spawn < 300) continue;
    const row = spawn % FOUNTAIN_MAX_LIFE;
    for (let k = 0; k < f.perTick; k++) {
      const mask = f.touched[row * f.perTick + k];
      if (!(mask & TOUCHED_SPAWNED)) continue;
      const jet = k >= ringFrom ? 1 : 0;
      spawned[jet]++;
      // Surface bits: 1 upper dish, 2 lower dish (FOUNTAIN_SURFACES order).
      if ((mask & 3) === 3 && (mask & TOUCHED_POOL)) twice[jet]++;
    }
  }
  return { spawned, twice };
}

Deno.test("every jet's water bounces on both dishes before the pool", async (t) => {
  for (
    const [name, motion] of [
      ["still", {}],
      ["turning and spiralling", { fountainSpin: true, fountainSpiral: true }],
    ] as const
  ) {
    await t.step(name, () => {
      const { spawned, twice } = paths(777, motion);
      const share = (twice[0] + twice[1]) / (spawned[0] + spawned[1]);
      console.log(
        `${name}: central ${(twice[0] / spawned[0] * 100).toFixed(1)} % of ${spawned[0]}, ` +
          `ring ${(twice[1] / spawned[1] * 100).toFixed(1)} % of ${spawned[1]}, ` +
          `all ${(share * 100).toFixed(1)} %`,
      );
      assert.ok(share >= 0.9, `two-bounce share ${share}`);
      assert.ok(twice[0] / spawned[0] >= 0.9, "the central jet");
      assert.ok(twice[1] / spawned[1] >= 0.9, "the ring jets");
    });
  }
});

Deno.test("spawn counts and drop lives vary per tick, from the seeded stream", () => {
  const f = new Fountain(31);
  const counts = new Set<number>();
  for (let tick = 0; tick < 40; tick++) {
    f.step(tick, true);
    const row = tick % FOUNTAIN_MAX_LIFE;
    let n = 0;
    for (let k = 0; k < f.perTick; k++) if (f.touched[row * f.perTick + k]) n++;
    counts.add(n);
  }
  assert.ok(counts.size >= 8, `only ${counts.size} different counts`);
  // Lives: each drop spawned at tick 0 has its own, drawn from the same stream.
  const g = new Fountain(31);
  g.step(0, true);
  const lives = new Set<number>();
  for (let k = 0; k < g.perTick; k++) {
    if (g.view.color[k * 4 + 3] > 0) lives.add(g.lifeOf(k));
  }
  assert.ok(lives.size >= 15, `${lives.size} different lives`);
  for (const life of lives) assert.ok(life >= FOUNTAIN_LIFE[0] && life <= FOUNTAIN_LIFE[1]);
});

Deno.test("the fountain's rotation and spiral are deterministic and change the water", () => {
  const run = (motion: FountainMotion) => {
    const f = new Fountain(12);
    for (let tick = 1000; tick < 1300; tick++) f.step(tick, true, motion);
    const h = new Hasher();
    f.hashInto(h);
    return h.digest();
  };
  const still = run({});
  const spin = run({ fountainSpin: true });
  const spiral = run({ fountainSpiral: true });
  assert.equal(run({ fountainSpin: true }), spin);
  assert.equal(run({ fountainSpiral: true }), spiral);
  assert.equal(run({ fountainSpin: false, fountainSpiral: false }), still);
  assert.notEqual(spin, still);
  assert.notEqual(spiral, still);
  assert.notEqual(spin, spiral);
});
