import assert from "node:assert/strict";
import { DT, FOUNTAIN_BASIN_RADIUS, WINDOW_TICKS } from "../../shared/constants.ts";
import {
  bounceVelocity,
  Fountain,
  FOUNTAIN_COUNT_LOW,
  FOUNTAIN_GRAVITY,
  FOUNTAIN_JETS,
  FOUNTAIN_LIFE,
  FOUNTAIN_MAX_LIFE,
  FOUNTAIN_SURFACES,
  POOL_LEVEL,
  surfaceHeight,
  TOUCHED_POOL,
} from "../../shared/fountain.ts";
import { Hasher } from "../../shared/hash.ts";

const F32 = 1e-5;

function digest(f: Fountain): string {
  const h = new Hasher();
  f.hashInto(h);
  return h.digest();
}

function alive(f: Fountain, slot: number): boolean {
  return f.view.color[slot * 4 + 3] > 0;
}

/** Puts a live particle into `slot`. */
function inject(f: Fountain, slot: number, position: number[], velocity: number[]): void {
  f.inject(slot, position, velocity);
}

function surface(name: string) {
  const found = FOUNTAIN_SURFACES.find((s) => s.name === name);
  assert.ok(found, name);
  return found;
}

function dot(a: number[], b: number[]): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

Deno.test("fountain bounce obeys v' = (1 − μ)·v_t − ε·v_n", async (t) => {
  await t.step("for a tilted plane, component by component", () => {
    const len = Math.hypot(0.3, 1, -0.2);
    const n = [0.3 / len, 1 / len, -0.2 / len];
    const v = [1.5, -4, 0.7];
    const out = new Float64Array(3);
    bounceVelocity(v[0], v[1], v[2], n[0], n[1], n[2], 0.2, 0.4, out);
    const vn = dot(v, n);
    const after = [...out];
    const afterN = dot(after, n);
    assert.ok(Math.abs(afterN - -0.4 * vn) < 1e-12, `normal ${afterN} vs ${-0.4 * vn}`);
    for (let k = 0; k < 3; k++) {
      const tangentBefore = v[k] - vn * n[k];
      const tangentAfter = after[k] - afterN * n[k];
      assert.ok(Math.abs(tangentAfter - 0.8 * tangentBefore) < 1e-12, `tangent ${k}`);
    }
  });

  await t.step("a velocity leaving the plane is unchanged", () => {
    const out = new Float64Array(3);
    bounceVelocity(1, 2, 3, 0, 1, 0, 0.5, 0.5, out);
    assert.deepEqual([...out], [1, 2, 3]);
  });

  await t.step(
    "a drop falling on the upper dish bounces off its tangent plane where it meets it",
    () => {
      const dish = surface("upper-dish");
      const f = new Fountain(1);
      const slot = 5 * f.perTick; // row 5, not the row retired at tick 10
      const p = [0.6, surfaceHeight(dish, Math.hypot(0.6, 0.2)) + 0.05, 0.2];
      const v = [0.4, -3, -0.3];
      inject(f, slot, p, v);
      // Independent expectation: the contact by bisection on the height above the dome.
      const g = FOUNTAIN_GRAVITY;
      const at = (t: number) => [p[0] + v[0] * t, p[1] + v[1] * t - g * t * t / 2, p[2] + v[2] * t];
      const above = (t: number) => {
        const q = at(t);
        return q[1] - surfaceHeight(dish, Math.hypot(q[0], q[2]));
      };
      let lo = 0, hi = 0.1;
      for (let k = 0; k < 80; k++) {
        const mid = (lo + hi) / 2;
        if (above(mid) > 0) lo = mid;
        else hi = mid;
      }
      const tc = hi, q = at(tc);
      const vc = [v[0], v[1] - g * tc, v[2]];
      const gx = 2 * dish.curve * q[0], gz = 2 * dish.curve * q[2];
      const len = Math.hypot(gx, 1, gz);
      const n = [gx / len, 1 / len, gz / len];
      const vn = dot(vc, n);
      const out = vc.map((c, k) => (1 - dish.mu) * (c - vn * n[k]) - dish.eps * vn * n[k]);
      assert.ok(tc < DT, "meets the dish within the first tick");
      f.step(f.tick, false);
      const u = DT - tc;
      const expected = [out[0], out[1] - g * u, out[2]];
      const got = [...f.view.velocity.subarray(slot * 3, slot * 3 + 3)];
      for (let k = 0; k < 3; k++) assert.ok(Math.abs(got[k] - expected[k]) < 1e-4, `v[${k}]`);
      assert.ok(got[1] > 0, "bounced upwards");
      const y = f.view.position[slot * 3 + 1];
      assert.ok(
        Math.abs(y - (q[1] + out[1] * u - g * u * u / 2)) < 1e-4,
        "left the dish from the contact",
      );
      assert.ok(f.touched[slot] & 1, "touched the upper dish");
      assert.ok(alive(f, slot));
    },
  );

  await t.step("a drop under a dish is not caught by it", () => {
    const dish = surface("lower-dish");
    const f = new Fountain(1);
    const slot = 7 * f.perTick;
    const p = [1, surfaceHeight(dish, 1) - 0.3, 0];
    inject(f, slot, p, [0, -1, 0]);
    f.step(f.tick, false);
    assert.ok(f.view.velocity[slot * 3 + 1] < -1, "keeps falling");
  });
});

Deno.test("fountain drops splash once at the pool surface, then die there", () => {
  // Changed deliberately (issue 15: "a splash at impacts"): a drop reaching the pool fast jumps
  // back up once as a smaller, scattered droplet; the droplet dies when it comes down again.
  const f = new Fountain(2);
  const slot = 4 * f.perTick + 1;
  inject(f, slot, [3.5, POOL_LEVEL + 0.01, -1], [0.2, -4, 0]);
  f.view.size[slot] = 0.07;
  f.step(f.tick, false);
  assert.ok(alive(f, slot), "it splashed");
  const vy = f.view.velocity[slot * 3 + 1];
  assert.ok(vy > 0.5 && vy < 2, `the droplet jumps up at ${vy} m/s`);
  assert.ok(f.view.position[slot * 3 + 1] > POOL_LEVEL, "above the pool");
  assert.ok(f.touched[slot] & TOUCHED_POOL, "reached the pool");
  assert.ok(f.view.size[slot] < 0.05, "a smaller droplet");
  let tick = f.tick;
  while (alive(f, slot) && tick < 200) f.step(tick++, false);
  assert.ok(tick < 120, "the droplet dies when it falls back");
  // A slow drop does not splash: it is gone once it reaches the pool (0.02 s down).
  inject(f, slot, [3.5, POOL_LEVEL + 0.01, -1], [0.2, -0.5, 0]);
  f.view.size[slot] = 0.07;
  f.step(f.tick, false);
  assert.ok(alive(f, slot), "still above the pool after a tick");
  f.step(f.tick, false);
  assert.equal(alive(f, slot), false);
  assert.equal(f.touched[slot] & TOUCHED_POOL, TOUCHED_POOL);
  assert.equal(f.live(), 0);
  assert.equal(f.view.count, 0);
  const words = new Uint32Array(f.view.position.buffer);
  assert.ok(words.every((w) => w === 0), "dead slots are all zero");
  // Outside the basin a drop falls through the pool's level to the ground and dies there.
  const outside = new Fountain(2);
  inject(outside, slot, [FOUNTAIN_BASIN_RADIUS + 3, POOL_LEVEL + 0.01, 0], [0, -2, 0]);
  outside.step(outside.tick, false);
  assert.ok(alive(outside, slot), "above the ground");
  for (let k = 0; k < 30; k++) outside.step(outside.tick, false);
  assert.equal(alive(outside, slot), false, "gone at the ground");
});

Deno.test("no fountain particle outlives FOUNTAIN_MAX_LIFE", async (t) => {
  assert.ok(FOUNTAIN_MAX_LIFE <= WINDOW_TICKS);

  await t.step("a drop still in the air dies when its row is retired, on or off", () => {
    for (const on of [false, true]) {
      const f = new Fountain(3);
      f.step(0, on); // row 0 belongs to spawn tick 0
      const slot = f.perTick - 1;
      // Thrown up outside the basin: it would stay in the air longer than any life.
      inject(f, slot, [FOUNTAIN_BASIN_RADIUS + 5, 0.01, 0], [0, 30, 0]);
      const restingX = FOUNTAIN_BASIN_RADIUS + 5;
      let lastAlive = 0;
      for (let tick = 1; tick < 2 * FOUNTAIN_MAX_LIFE; tick++) {
        f.step(tick, on);
        // When on, the slot is later reused by a new particle at a nozzle, far from restingX.
        if (alive(f, slot) && Math.abs(f.view.position[slot * 3] - restingX) < F32) {
          lastAlive = tick + 1;
        }
      }
      // Off, the slot keeps the full life; on, it took the life drawn for the drop spawned there.
      const least = on ? FOUNTAIN_LIFE[0] : FOUNTAIN_MAX_LIFE;
      assert.ok(
        lastAlive >= least && lastAlive <= FOUNTAIN_MAX_LIFE,
        `on=${on}: alive until state tick ${lastAlive}`,
      );
    }
  });

  await t.step("a fountain switched off is empty FOUNTAIN_MAX_LIFE ticks later", () => {
    const f = new Fountain(3);
    for (let tick = 0; tick < 500; tick++) f.step(tick, true);
    assert.ok(f.live() > 1000);
    for (let tick = 500; tick < 500 + FOUNTAIN_MAX_LIFE - 1; tick++) f.step(tick, false);
    for (let tick = 500 + FOUNTAIN_MAX_LIFE - 1; tick < 500 + FOUNTAIN_MAX_LIFE + 5; tick++) {
      f.step(tick, false);
      assert.equal(f.live(), 0, `tick ${tick}`);
    }
  });
});

Deno.test("fountain hash equals after rebuild from the window", () => {
  const onA = (tick: number) => tick % 200 < 150;
  const veteran = new Fountain(9);
  for (let tick = 0; tick < 1000; tick++) veteran.step(tick, onA(tick));

  // A late joiner starting empty at 600, and one with a different history from 0.
  const joiner = new Fountain(9);
  const other = new Fountain(9);
  for (let tick = 0; tick < 600; tick++) other.step(tick, tick % 7 !== 0);
  for (let tick = 600; tick < 1000; tick++) {
    joiner.step(tick, onA(tick));
    other.step(tick, onA(tick));
    if (tick === 700) assert.notEqual(digest(joiner), digest(other), "differ before a full life");
  }
  assert.equal(digest(joiner), digest(veteran), "joiner equals veteran");
  assert.equal(digest(other), digest(veteran), "other history equals veteran");
});

Deno.test("a late joiner that spawns 239 ticks and places once equals the veteran", () => {
  const motion = (tick: number) => ({
    fountainSpin: tick % 300 < 200,
    fountainSpiral: tick % 170 > 40,
  });
  const on = (tick: number) => tick % 200 < 150;
  const veteran = new Fountain(9);
  for (let tick = 0; tick < 1000; tick++) veteran.step(tick, on(tick), motion(tick));
  const joiner = new Fountain(9);
  for (let tick = 1000 - FOUNTAIN_MAX_LIFE; tick < 999; tick++) {
    joiner.step(tick, on(tick), motion(tick), "spawn");
  }
  joiner.step(999, on(999), motion(999));
  assert.equal(digest(joiner), digest(veteran));
  assert.equal(joiner.live(), veteran.live());
  assert.deepEqual(joiner.view.previous, veteran.view.previous);
  assert.ok(veteran.live() > 5000);
});

Deno.test("a late joiner told when it places skips the drops dead by then and equals the veteran", () => {
  const on = (tick: number) => tick % 300 < 250;
  const veteran = new Fountain(9);
  for (let tick = 0; tick < 1000; tick++) veteran.step(tick, on(tick));
  const joiner = new Fountain(9);
  for (let tick = 1000 - FOUNTAIN_MAX_LIFE; tick < 999; tick++) {
    joiner.step(tick, on(tick), {}, "spawn", 999);
  }
  // Drops spawned 200 ticks or more before 999 may be dead of age by then: some are skipped.
  let skipped = 0;
  for (let age = FOUNTAIN_LIFE[0]; age < FOUNTAIN_MAX_LIFE; age++) {
    const row = (999 - age) % FOUNTAIN_MAX_LIFE;
    for (let k = 0; k < joiner.perTick; k++) {
      if (veteran.touched[row * joiner.perTick + k] && !joiner.touched[row * joiner.perTick + k]) {
        skipped++;
      }
    }
  }
  joiner.step(999, on(999));
  assert.ok(skipped > 100, `skipped ${skipped}`);
  assert.equal(digest(joiner), digest(veteran));
  assert.equal(joiner.live(), veteran.live());
  assert.deepEqual(joiner.view.position, veteran.view.position);
  assert.deepEqual(joiner.view.previous, veteran.view.previous);
  assert.deepEqual(joiner.view.size, veteran.view.size);
});

Deno.test("fountain is reproducible and keyed by seed", () => {
  const run = (seed: number) => {
    const f = new Fountain(seed);
    for (let tick = 0; tick < 240; tick++) f.step(tick, true);
    return digest(f);
  };
  assert.equal(run(4), run(4));
  assert.notEqual(run(4), run(5));
});

Deno.test("fountain spawn velocities lie in each jet's thin cylindrical ring", () => {
  const f = new Fountain(6, { perTick: 2000 });
  f.step(0, true);
  let slot = 0;
  for (const jet of FOUNTAIN_JETS) {
    const n = slot === 0
      ? 2000 - FOUNTAIN_JETS.slice(1).reduce((sum, j) => sum + Math.floor(2000 * j.share), 0)
      : Math.floor(2000 * jet.share);
    let sumX = 0, sumZ = 0, spawned = 0;
    for (let k = 0; k < n; k++, slot++) {
      if (!alive(f, slot)) continue; // this tick's count fell short of the jet's slots
      spawned++;
      const v = f.view.velocity.subarray(slot * 3, slot * 3 + 3);
      const ox = v[0] - jet.vx, oz = v[2] - jet.vz;
      const radius = Math.hypot(ox, oz);
      assert.ok(radius >= jet.ringRadius - F32, `radius ${radius}`);
      assert.ok(radius <= jet.ringRadius + jet.ringWidth + F32, `radius ${radius}`);
      const vy = v[1] + FOUNTAIN_GRAVITY * DT; // one tick of gravity since the nozzle
      assert.ok(vy >= jet.vyMin - F32 && vy <= jet.vyMax + F32, `vy ${vy}`);
      sumX += ox / radius;
      sumZ += oz / radius;
    }
    // The jet's count this tick: at least FOUNTAIN_COUNT_LOW of its slots.
    assert.ok(spawned >= Math.ceil(n * FOUNTAIN_COUNT_LOW) && spawned <= n, `${spawned} of ${n}`);
    // Angles uniform around the axis: the mean unit offset is near zero.
    assert.ok(Math.hypot(sumX, sumZ) / spawned < 0.12, `jet at ${jet.x},${jet.z}`);
  }
});

Deno.test("fountain water lands on both dishes and stays in the basin", () => {
  const f = new Fountain(8);
  for (let tick = 0; tick < 400; tick++) f.step(tick, true);
  const upper = surface("upper-dish"), lower = surface("lower-dish");
  let onUpper = 0, onLower = 0, live = 0;
  for (let i = 0; i < f.view.count; i++) {
    if (!alive(f, i)) continue;
    live++;
    const x = f.view.position[i * 3], y = f.view.position[i * 3 + 1];
    const z = f.view.position[i * 3 + 2];
    const r = Math.hypot(x, z);
    assert.ok(r < FOUNTAIN_BASIN_RADIUS, `escaped to r = ${r}`);
    assert.ok(y >= POOL_LEVEL - F32, `below the pool: ${y}`);
    if (r < upper.rMax && Math.abs(y - surfaceHeight(upper, r)) < 0.05) onUpper++;
    if (r < lower.rMax && Math.abs(y - surfaceHeight(lower, r)) < 0.05) onLower++;
  }
  assert.equal(live, f.live());
  assert.ok(onUpper > 10, `upper dish holds ${onUpper}`);
  assert.ok(onLower > 200, `lower dish holds ${onLower}`);
});

Deno.test("fountain refuses a bad spawn rate or tick", () => {
  assert.throws(() => new Fountain(1, { perTick: 0 }), /fountain_rate/);
  assert.throws(() => new Fountain(1, { perTick: 2.5 }), /fountain_rate/);
  assert.throws(() => new Fountain(1).step(-1, true), /fountain_tick/);
  assert.throws(() => new Fountain(1).step(0.5, true), /fountain_tick/);
});
