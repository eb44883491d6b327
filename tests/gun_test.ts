import assert from "node:assert/strict";
import {
  Gun,
  GUN_LIFE_TICKS,
  GUN_MAX_LIFE,
  GUN_SHOTS,
  GUN_SPAWN_TICKS,
  GUN_SPEED,
  GUN_SPREAD,
  insideScene,
} from "../shared/gun.ts";

const SEED = 5;

Deno.test("gun fires a volley along the normalised direction with a small spread", () => {
  const gun = new Gun(SEED, 1000);
  const direction: [number, number, number] = [3, 4, 0]; // length 5: the world normalises it
  gun.fire(1, 0, [0, 10, 0], direction);
  for (let t = 0; t < GUN_SPAWN_TICKS; t++) gun.step(t);
  assert.equal(gun.live(), GUN_SHOTS);
  const { velocity } = gun.pool;
  for (let i = 0; i < GUN_SHOTS; i++) {
    const vx = velocity[i * 3], vy = velocity[i * 3 + 1], vz = velocity[i * 3 + 2];
    const speed = Math.hypot(vx, vy, vz);
    const cosine = (vx * 0.6 + vy * 0.8) / speed;
    // Spread ≤ GUN_SPREAD per axis ⇒ angle ≤ ~√3·GUN_SPREAD; gravity bends it a little more.
    assert.ok(cosine > Math.cos(2 * GUN_SPREAD), `shot ${i} within the spread (cos ${cosine})`);
  }
});

Deno.test("gun shots die when they leave the scene's bounding box", () => {
  const gun = new Gun(SEED, 1000);
  gun.fire(1, 0, [50, 5, 0], [1, 0, 0]); // 10 m from the +x wall at GUN_SPEED
  const { position, life } = gun.pool;
  let maxTicks = 0;
  for (let t = 0; t < 60; t++) {
    gun.step(t);
    for (let i = 0; i < gun.pool.count; i++) {
      const p = i * 3;
      if (life[i] > 0) {
        assert.ok(
          insideScene(position[p], position[p + 1], position[p + 2]),
          "live shots are inside",
        );
      }
    }
    if (gun.live() > 0) maxTicks = t + 1;
  }
  assert.equal(gun.live(), 0);
  // The last shots leave the muzzle GUN_SPAWN_TICKS in and need a few ticks to cross 10 m.
  assert.ok(maxTicks < GUN_SPAWN_TICKS + 10, `all shots left within ${maxTicks} ticks`);
});

Deno.test("gun fires a long stream of fast tracers, not a puff", () => {
  const gun = new Gun(SEED, 1000);
  gun.fire(1, 0, [0, 2, 50], [0, 0.05, -1]);
  for (let t = 0; t < GUN_SPAWN_TICKS; t++) gun.step(t);
  const { position, life, color } = gun.pool;
  let near = Infinity, far = -Infinity, bright = 0;
  for (let i = 0; i < gun.pool.count; i++) {
    if (life[i] <= 0) continue;
    near = Math.min(near, 50 - position[i * 3 + 2]);
    far = Math.max(far, 50 - position[i * 3 + 2]);
    if (color[i * 4] + color[i * 4 + 1] + color[i * 4 + 2] > 2.5) bright++;
  }
  assert.ok(GUN_SPEED >= 60, "tracers are fast");
  assert.ok(far - near > GUN_SPEED * 0.5, `the stream stretches ${far - near} m along the view`);
  assert.equal(bright, GUN_SHOTS, "every tracer is bright");
});

Deno.test("gun shots never outlive their max life and the volley ends at its end tick", () => {
  const gun = new Gun(SEED, 1000);
  // The longest flight the box allows: low along the floor's diagonal.
  gun.fire(1, 0, [-59, 1, -59], [1, 0.02, 1]);
  const { life, maxLife } = gun.pool;
  for (let t = 0; t < GUN_LIFE_TICKS; t++) {
    gun.step(t);
    for (let i = 0; i < gun.pool.count; i++) {
      assert.ok(life[i] <= maxLife[i] && maxLife[i] <= GUN_MAX_LIFE);
    }
  }
  assert.equal(gun.live(), 0);
  assert.equal(gun.pool.count, 0, "the volley's block is released at its end tick");
});

Deno.test("gun volleys are keyed by seq, not by when or how often they are stepped", () => {
  const a = new Gun(SEED, 1000), b = new Gun(SEED, 1000);
  a.fire(4, 10, [0, 5, 0], [0, 0, 1]);
  b.fire(9, 0, [0, 5, 0], [0, 0, 1]);
  b.fire(4, 10, [0, 5, 0], [0, 0, 1]);
  for (let t = 0; t < 10; t++) b.step(t);
  for (let t = 10; t < 20; t++) {
    a.step(t);
    b.step(t);
  }
  const volleyA = a.pool.blocks[0], volleyB = b.pool.blocks[1];
  for (let i = 0; i < GUN_SHOTS * 3; i++) {
    assert.equal(a.pool.position[volleyA.start * 3 + i], b.pool.position[volleyB.start * 3 + i]);
  }
});
