import assert from "node:assert/strict";
import {
  Gun,
  GUN_LIFE_TICKS,
  GUN_MAX_LIFE,
  GUN_SHOT_INTERVAL,
  GUN_SHOTS,
  GUN_SPAWN_TICKS,
  GUN_SPEED,
  GUN_SPREAD,
  inPlay,
  insideScene,
} from "../../shared/gun.ts";
import { SCENE_HALF_EXTENT } from "../../shared/constants.ts";

const SEED = 5;

Deno.test("gun fires a volley along the normalised direction with a small spread", () => {
  const gun = new Gun(SEED, 1000);
  // Along the floor's diagonal, the longest flight the box allows: every shot is still inside.
  const direction: [number, number, number] = [3, 0.15, 3]; // the world normalises it
  const length = Math.hypot(...direction);
  gun.fire(1, 0, [-59, 1, -59], direction);
  const { velocity } = gun.pool;
  for (let t = 0; t < GUN_SPAWN_TICKS; t++) {
    gun.step(t);
    if (t % GUN_SHOT_INTERVAL !== 0) continue;
    // The shot fired this tick, before gravity bends it.
    const i = t / GUN_SHOT_INTERVAL;
    const vx = velocity[i * 3], vy = velocity[i * 3 + 1], vz = velocity[i * 3 + 2];
    const speed = Math.hypot(vx, vy, vz);
    const cosine = (vx * direction[0] + vy * direction[1] + vz * direction[2]) / speed / length;
    // Spread ≤ GUN_SPREAD per axis ⇒ angle ≤ ~√3·GUN_SPREAD.
    assert.ok(cosine > Math.cos(2 * GUN_SPREAD), `shot ${i} within the spread (cos ${cosine})`);
  }
  assert.equal(gun.live(), GUN_SHOTS);
});

Deno.test("gun shots die when they leave the scene's bounding box", () => {
  const gun = new Gun(SEED, 1000);
  gun.fire(1, 0, [50, 5, 0], [1, 0, 0]); // 10 m from the +x wall at GUN_SPEED
  const { position, life } = gun.pool;
  let maxTicks = 0;
  for (let t = 0; t < GUN_SPAWN_TICKS + 20; t++) {
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

Deno.test("gun fired from a default camera streams tracers from the camera into the scene", () => {
  // The 1280×720 default view's eye, 3 m right of and 3.5 m below it, looking at its target.
  const eye: [number, number, number] = [3, 53.66, 133.86];
  const target = [0, 36, 0];
  const direction = [0, 1, 2].map((a) => target[a] - eye[a]) as [number, number, number];
  const gun = new Gun(SEED, 1000);
  gun.fire(1, 0, eye, direction);
  const { position, life, color } = gun.pool;
  for (let t = 0; t < GUN_LIFE_TICKS; t++) {
    gun.step(t);
    if (t !== 60) continue;
    // A second in: a stream from just in front of the camera to far into the view.
    let near = Infinity, far = -Infinity, bright = 0, live = 0;
    for (let i = 0; i < gun.pool.count; i++) {
      if (life[i] <= 0) continue;
      const d = Math.hypot(...[0, 1, 2].map((a) => position[i * 3 + a] - eye[a]));
      near = Math.min(near, d);
      far = Math.max(far, d);
      live++;
      if (color[i * 4] + color[i * 4 + 1] + color[i * 4 + 2] > 2.5) bright++;
    }
    assert.equal(live, 31, "one shot every GUN_SHOT_INTERVAL ticks, none lost on the way");
    assert.ok(near < 5, `the stream starts at the camera (${near.toFixed(1)} m)`);
    assert.ok(far > 80, `and reaches far into the view (${far.toFixed(1)} m)`);
    assert.equal(bright, live, "every tracer is bright");
  }
  assert.equal(gun.live(), 0, "all gone by the volley's end tick");
  assert.ok(GUN_SPEED >= 60, "tracers are fast");
  // Where they died: past the box's far side (they flew through the scene), not before it.
  for (let i = 0; i < GUN_SHOTS; i++) {
    assert.ok(position[i * 3 + 2] < -SCENE_HALF_EXTENT, `shot ${i} left through the far side`);
  }
});

Deno.test("gun shots fired away from the scene from outside it are born dead", () => {
  const gun = new Gun(SEED, 1000);
  gun.fire(1, 0, [0, 50, 150], [0, 0, 1]);
  for (let t = 0; t < GUN_SPAWN_TICKS; t++) {
    gun.step(t);
    assert.equal(gun.live(), 0);
  }
  assert.ok(inPlay(0, 50, 150, 0, 0, -90), "flying towards the box: in play");
  assert.ok(!inPlay(0, 50, 150, 0, 0, 90), "flying away from it: out");
  assert.ok(!inPlay(0, 95, 0, 0, 1, 0), "above the box and rising: out");
  assert.ok(inPlay(0, 95, 0, 0, -1, 0), "above the box and falling into it: in play");
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
