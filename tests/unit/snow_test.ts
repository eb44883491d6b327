import assert from "node:assert/strict";
import { DT, SCENE_HALF_EXTENT } from "../../shared/constants.ts";
import { Hasher } from "../../shared/hash.ts";
import { applySettings, initialSnapshot } from "../../shared/settings.ts";
import {
  Snow,
  SNOW_DRIFT,
  SNOW_FALL_SPEED,
  SNOW_HEIGHT,
  SNOW_SPIN,
  SNOW_SWAY_AMPLITUDE,
  SNOW_VARIANTS,
  SNOW_WIND_FACTOR,
  sway,
} from "../../shared/snow.ts";

const CAPACITY = 4000;
const WIDTH = 2 * SCENE_HALF_EXTENT;
/** float32 storage: metres-scale positions round to ~4e-6, sums of three terms a bit more. */
const F32_SLACK = 2e-5;

function calm(snow = 1) {
  return initialSnapshot({ snow, windSpeed: 0, windDirection: 0 });
}

function positions(snow: Snow, time: number): Float32Array {
  const out = new Float32Array(snow.capacity * 3);
  snow.fill(time, out);
  return out;
}

/** The shortest signed distance from a to b on a circle of circumference `period`. */
function wrappedDelta(a: number, b: number, period: number): number {
  const d = b - a;
  return d - Math.round(d / period) * period;
}

Deno.test("snow fill is a closed form of time, independent of call history", () => {
  const a = new Snow(11, CAPACITY);
  const b = new Snow(11, CAPACITY);
  a.setClimate(initialSnapshot({ snow: 1 }));
  b.setClimate(initialSnapshot({ snow: 1 }));
  for (let t = 0; t < 200; t += 7) positions(a, t + 0.25);
  positions(a, 1e7);
  assert.deepEqual(positions(a, 1234.5), positions(b, 1234.5));
  assert.notDeepEqual(positions(a, 1234.5), positions(a, 1235.5));
});

Deno.test("snow flakes fall at their own speed and wrap to the top at the ground", async (t) => {
  const snow = new Snow(5, CAPACITY);
  snow.setClimate(calm());
  const start = positions(snow, 0);

  await t.step("heights follow y0 − speed·t modulo the box height", () => {
    for (const time of [0, 0.5, 59.75, 3600, 1e6 + 0.125, 5e9]) {
      const out = positions(snow, time);
      for (let i = 0; i < snow.count; i++) {
        const unwrapped = snow.originY[i] - snow.fallPerTick[i] * time;
        const expected = ((unwrapped % SNOW_HEIGHT) + SNOW_HEIGHT) % SNOW_HEIGHT;
        const error = Math.abs(wrappedDelta(expected, out[i * 3 + 1], SNOW_HEIGHT));
        assert.ok(error < 1e-4 + Math.abs(unwrapped) * 1e-15, `flake ${i} at ${time}: ${error}`);
      }
    }
  });

  await t.step("fall speeds span the configured range", () => {
    let slowest = Infinity, fastest = 0;
    for (let i = 0; i < snow.count; i++) {
      const speed = snow.fallPerTick[i] / DT;
      slowest = Math.min(slowest, speed);
      fastest = Math.max(fastest, speed);
    }
    assert.ok(slowest >= SNOW_FALL_SPEED[0] - 1e-6 && slowest < SNOW_FALL_SPEED[0] + 0.05);
    assert.ok(fastest <= SNOW_FALL_SPEED[1] + 1e-6 && fastest > SNOW_FALL_SPEED[1] - 0.05);
  });

  await t.step("flakes reaching the ground reappear at the top", () => {
    let wrapped = 0;
    let previous = start;
    for (let tick = 1; tick <= 300; tick++) {
      const now = positions(snow, tick);
      for (let i = 0; i < snow.count; i++) {
        const before = previous[i * 3 + 1], after = now[i * 3 + 1];
        if (after > before) {
          wrapped++;
          assert.ok(before < 0.05, `flake ${i} jumped up from ${before}`);
          assert.ok(after > SNOW_HEIGHT - 0.05, `flake ${i} reappeared at ${after}`);
        }
      }
      previous = now;
    }
    // ~5 s of fall at ~1.1 m/s over a 120 m box: about 4.5 % of flakes wrap.
    assert.ok(wrapped > snow.count * 0.02, `only ${wrapped} flakes wrapped`);
  });

  await t.step("without wind, flakes drift at their own velocity and sway around it", () => {
    // Changed deliberately (issue 15, seed 003): windless flakes drift sideways and in depth.
    const later = positions(snow, 777.5);
    for (let i = 0; i < snow.count; i++) {
      const reach = Math.hypot(snow.swayX[i], snow.swayZ[i]) * 1.002 + F32_SLACK;
      const dx = wrappedDelta(start[i * 3], later[i * 3], WIDTH) - snow.driftX[i] * 777.5;
      const dz = wrappedDelta(start[i * 3 + 2], later[i * 3 + 2], WIDTH) - snow.driftZ[i] * 777.5;
      assert.ok(Math.abs(wrappedDelta(0, dx, WIDTH)) <= 2 * reach + 0.01);
      assert.ok(Math.abs(wrappedDelta(0, dz, WIDTH)) <= 2 * reach + 0.01);
    }
  });
});

Deno.test("snow stays inside the scene box at any time and wind", () => {
  const snow = new Snow(99, CAPACITY);
  snow.setClimate(initialSnapshot({ snow: 1, windSpeed: 12, windDirection: 217 }));
  for (const time of [0, 0.5, 1000.3, 1e7 + 0.9, 2.5e9 + 0.75]) {
    const out = positions(snow, time);
    for (let i = 0; i < snow.count; i++) {
      const x = out[i * 3], y = out[i * 3 + 1], z = out[i * 3 + 2];
      assert.ok(x >= -SCENE_HALF_EXTENT && x <= SCENE_HALF_EXTENT, `x ${x} at ${time}`);
      assert.ok(y >= 0 && y <= SNOW_HEIGHT, `y ${y} at ${time}`);
      assert.ok(z >= -SCENE_HALF_EXTENT && z <= SCENE_HALF_EXTENT, `z ${z} at ${time}`);
    }
  }
});

Deno.test("snow drifts with the wind, scaled per flake", () => {
  const snow = new Snow(3, CAPACITY);
  snow.setClimate(initialSnapshot({ snow: 1, windSpeed: 10, windDirection: 0 }));
  const before = positions(snow, 6000);
  const after = positions(snow, 6060); // one second: 10 m of wind integral along +x
  let sum = 0, least = Infinity, most = 0;
  for (let i = 0; i < snow.count; i++) {
    const dx = wrappedDelta(before[i * 3], after[i * 3], WIDTH);
    const dz = wrappedDelta(before[i * 3 + 2], after[i * 3 + 2], WIDTH);
    const swayReach = 2 * Math.hypot(snow.swayX[i], snow.swayZ[i]) * 1.002 + F32_SLACK;
    const ownX = snow.driftX[i] * 60, ownZ = snow.driftZ[i] * 60;
    assert.ok(Math.abs(dx - ownX - 10 * snow.windFactor[i]) <= swayReach, `flake ${i} dx ${dx}`);
    assert.ok(Math.abs(dz - ownZ) <= swayReach, `flake ${i} dz ${dz}`);
    const drift = (dx - ownX) / 10;
    sum += drift;
    least = Math.min(least, drift);
    most = Math.max(most, drift);
  }
  const mean = sum / snow.count;
  assert.ok(Math.abs(mean - 1) < 0.03, `mean drift factor ${mean}`);
  assert.ok(least < SNOW_WIND_FACTOR[0] + 0.15, `least drift ${least}`);
  assert.ok(most > SNOW_WIND_FACTOR[1] - 0.15, `most drift ${most}`);
});

Deno.test("snow positions are continuous across a wind change", () => {
  const before = initialSnapshot({ snow: 1, windSpeed: 3, windDirection: 40 });
  const change = 1800;
  const after = applySettings(before, change, { windSpeed: 12, windDirection: 250 });
  const oldWind = new Snow(8, CAPACITY);
  const newWind = new Snow(8, CAPACITY);
  oldWind.setClimate(before);
  newWind.setClimate(after);
  const a = positions(oldWind, change);
  const b = positions(newWind, change);
  for (let i = 0; i < a.length; i++) {
    const period = i % 3 === 1 ? SNOW_HEIGHT : WIDTH;
    assert.ok(Math.abs(wrappedDelta(a[i], b[i], period)) < F32_SLACK, `component ${i}`);
  }
  // A tenth of a tick later, flakes have moved at most (wind 12·1.4 + fall + sway) · dt/10.
  const c = positions(newWind, change + 0.1);
  let moved = 0;
  for (let i = 0; i < a.length; i++) {
    const period = i % 3 === 1 ? SNOW_HEIGHT : WIDTH;
    const step = Math.abs(wrappedDelta(b[i], c[i], period));
    assert.ok(step < 0.05, `component ${i} jumped ${step}`);
    moved = Math.max(moved, step);
  }
  assert.ok(moved > 0.01, "the new wind moves flakes");
});

Deno.test("snow intensity selects a prefix of the flakes", () => {
  const snow = new Snow(21, CAPACITY);
  snow.setClimate(initialSnapshot({ snow: 1 }));
  assert.equal(snow.count, CAPACITY);
  const full = positions(snow, 4321.5);
  snow.setClimate(initialSnapshot({ snow: 0.3 }));
  assert.equal(snow.count, Math.round(0.3 * CAPACITY));
  const light = new Float32Array(snow.count * 3);
  snow.fill(4321.5, light);
  assert.deepEqual(light, full.subarray(0, snow.count * 3));
  snow.setClimate(initialSnapshot({ snow: 0 }));
  assert.equal(snow.count, 0);
});

Deno.test("snow per-flake attributes cover their ranges", () => {
  const snow = new Snow(4, CAPACITY);
  const variants = new Set<number>();
  let left = 0, near = 0;
  for (let i = 0; i < CAPACITY; i++) {
    variants.add(snow.variant[i]);
    // Seed 000: tumbling at 5.0–5.9 rad/s about the flake's x and y axes, from random angles.
    assert.ok(snow.spin[i] >= SNOW_SPIN[0] && snow.spin[i] <= SNOW_SPIN[1] + 1e-6);
    assert.ok(snow.phaseY[i] >= 0 && snow.phaseY[i] < 6.3);
    // Seed 003: a random windless drift, either way along x and z.
    assert.ok(Math.abs(snow.driftX[i]) <= SNOW_DRIFT / 60 + 1e-9);
    assert.ok(Math.abs(snow.driftZ[i]) <= SNOW_DRIFT / 60 + 1e-9);
    if (snow.driftX[i] < 0) left++;
    if (snow.driftZ[i] < 0) near++;
    const amplitude = Math.hypot(snow.swayX[i], snow.swayZ[i]);
    assert.ok(amplitude >= SNOW_SWAY_AMPLITUDE[0] - 1e-6);
    assert.ok(amplitude <= SNOW_SWAY_AMPLITUDE[1] + 1e-6);
    assert.ok(snow.size[i] > 0);
    assert.ok(snow.phase[i] >= 0 && snow.phase[i] < 6.3);
  }
  assert.deepEqual([...variants].sort(), Array.from({ length: SNOW_VARIANTS }, (_, k) => k));
  assert.equal(SNOW_VARIANTS, 6, "seed 000's six flake textures");
  assert.ok(left > CAPACITY * 0.45 && left < CAPACITY * 0.55, "drifts either way along x");
  assert.ok(near > CAPACITY * 0.45 && near < CAPACITY * 0.55, "drifts either way along z");
});

Deno.test("snow sway approximates a sine within 0.0011", () => {
  for (let k = 0; k < 4096; k++) {
    const u = k / 4096;
    assert.ok(Math.abs(sway(u) - Math.sin(2 * Math.PI * u)) < 0.0011, `u ${u}`);
  }
});

Deno.test("snow hash depends on seed, tick and intensity only", () => {
  const of = (seed: number, tick: number, snow = 0.5) => {
    const h = new Hasher();
    const s = new Snow(seed, CAPACITY);
    s.setClimate(initialSnapshot({ snow }));
    s.hashInto(h, tick);
    return h.digest();
  };
  assert.equal(of(1, 600), of(1, 600));
  assert.notEqual(of(1, 600), of(2, 600));
  assert.notEqual(of(1, 600), of(1, 601));
  assert.notEqual(of(1, 600, 0.5), of(1, 600, 0.7));
});

Deno.test("snow fill refuses a buffer that is too short", () => {
  const snow = new Snow(1, CAPACITY);
  snow.setClimate(initialSnapshot({ snow: 1 }));
  assert.throws(() => snow.fill(0, new Float32Array(10)), /snow_fill_short/);
  assert.throws(() => new Snow(1, -5), /snow_capacity/);
});

Deno.test("snow flake constants depend only on seed and index, not on capacity", () => {
  const small = new Snow(17, 1000);
  const large = new Snow(17, CAPACITY);
  const fields = ["originX", "originY", "fallPerTick", "swayX", "size", "variant", "spin"] as const;
  for (const field of fields) {
    assert.deepEqual(small[field], large[field].subarray(0, 1000), field);
  }
  assert.notDeepEqual(new Snow(18, 1000).originX, small.originX);
});

Deno.test("snow phases carried forward by ticks and wind equal the closed form (the GPU path)", () => {
  const snow = new Snow(42, CAPACITY);
  snow.setClimate(initialSnapshot({ snow: 1, windSpeed: 7, windDirection: 130 }));
  const base = 123_456.25;
  const phases = new Float32Array(CAPACITY * 4);
  snow.fillPhases(base, phases);
  for (const elapsed of [0, 0.5, 37.75, 240]) {
    const time = base + elapsed;
    const expected = positions(snow, time);
    const windX = (snow.windOffsetX(time) - snow.windOffsetX(base)) / WIDTH;
    const windZ = (snow.windOffsetZ(time) - snow.windOffsetZ(base)) / WIDTH;
    let worst = 0;
    for (let i = 0; i < CAPACITY; i++) {
      // The vertex shader's arithmetic, in box units (client/snow_points.ts).
      const cycle = phases[i * 4 + 3] + snow.swayFrequency[i] * elapsed;
      const s = sway(cycle - Math.floor(cycle)) / WIDTH;
      const x = phases[i * 4] + (snow.driftX[i] / WIDTH) * elapsed + snow.windFactor[i] * windX +
        snow.swayX[i] * s;
      const y = phases[i * 4 + 1] - snow.fallPerTick[i] / SNOW_HEIGHT * elapsed;
      const z = phases[i * 4 + 2] + (snow.driftZ[i] / WIDTH) * elapsed +
        snow.windFactor[i] * windZ +
        snow.swayZ[i] * s;
      const carried = [
        (x - Math.floor(x)) * WIDTH - SCENE_HALF_EXTENT,
        (y - Math.floor(y)) * SNOW_HEIGHT,
        (z - Math.floor(z)) * WIDTH - SCENE_HALF_EXTENT,
      ];
      for (let axis = 0; axis < 3; axis++) {
        const period = axis === 1 ? SNOW_HEIGHT : WIDTH;
        const delta = Math.abs(wrappedDelta(expected[i * 3 + axis], carried[axis], period));
        worst = Math.max(worst, delta);
      }
    }
    assert.ok(worst < 1e-3, `after ${elapsed} ticks the carried form is off by ${worst} m`);
  }
});
