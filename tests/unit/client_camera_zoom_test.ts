/**
 * Zoom toward a point (client/render/camera_zoom.ts, client/input/view_gestures.ts): the point
 * under the pointer keeps its place on screen, the camera stops short of it, the fountain and the
 * ground are what a pointer ray picks, and the wheel's scale follows its travel.
 */
import assert from "node:assert/strict";
import * as THREE from "three";
import { zoomPoint, zoomToward } from "../../client/render/camera_zoom.ts";
import { WHEEL_NOTCH_SCALE, wheelScale } from "../../client/input/view_gestures.ts";
import { FOUNTAIN_SURFACES } from "../../shared/fountain.ts";

function camera(): THREE.PerspectiveCamera {
  const c = new THREE.PerspectiveCamera(50, 16 / 9, 0.5, 2000);
  c.position.set(0, 35, 136);
  c.lookAt(0, 42, 0);
  c.updateMatrixWorld();
  return c;
}

Deno.test("zoomToward keeps the picked point under the pointer and stops short of it", async (t) => {
  await t.step("the fountain stays at its pixel over twenty notches", () => {
    const c = camera();
    const target = new THREE.Vector3(0, 42, 0);
    const fountain = new THREE.Vector3(0, 1, 0);
    const ndc = fountain.clone().project(c);
    const ray = new THREE.Raycaster();
    const point = new THREE.Vector3();
    for (let i = 0; i < 20; i++) {
      ray.setFromCamera(new THREE.Vector2(ndc.x, ndc.y), c);
      zoomPoint(ray.ray, c.position.distanceTo(target), point);
      zoomToward(c.position, target, point, WHEEL_NOTCH_SCALE, { near: 4, far: 200 });
      c.lookAt(target);
      c.updateMatrixWorld();
      const now = fountain.clone().project(c);
      assert.ok(Math.abs(now.x - ndc.x) < 0.02 && Math.abs(now.y - ndc.y) < 0.02);
    }
    assert.ok(c.position.distanceTo(point) >= 4 - 1e-9, "stops 4 m short of the point");
    assert.ok(c.position.distanceTo(fountain) < 8, "and is close to the fountain");
  });
  await t.step("zooming out stops at the far limit", () => {
    const position = new THREE.Vector3(0, 0, 100), target = new THREE.Vector3();
    const applied = zoomToward(position, target, new THREE.Vector3(), 4, { near: 4, far: 150 });
    assert.equal(applied, 1.5);
    assert.equal(zoomToward(position, target, new THREE.Vector3(), 2, { near: 4, far: 150 }), 1);
  });
});

Deno.test("zoomPoint picks the fountain's dishes, then the ground, else the sky at a distance", () => {
  const out = new THREE.Vector3();
  const level = new THREE.Ray(new THREE.Vector3(0, 1, 50), new THREE.Vector3(0, 0, -1));
  zoomPoint(level, 30, out);
  // The drum is as wide as the widest dish.
  const drum = Math.max(...FOUNTAIN_SURFACES.map((s) => s.rMax));
  assert.ok(Math.abs(out.z - drum) < 1e-9, `the drum's side at z = ${drum} (${out.z})`);
  const down = new THREE.Ray(new THREE.Vector3(20, 10, 0), new THREE.Vector3(0, -1, 0));
  assert.deepEqual(zoomPoint(down, 30, out).toArray(), [20, 0, 0]);
  const up = new THREE.Ray(new THREE.Vector3(20, 10, 0), new THREE.Vector3(0, 1, 0));
  assert.deepEqual(zoomPoint(up, 30, out).toArray(), [20, 40, 0]);
});

Deno.test("wheelScale zooms in for a scroll up, by one notch per 100 px, at most five", () => {
  assert.ok(Math.abs(wheelScale(-100, 0) - WHEEL_NOTCH_SCALE) < 1e-12);
  assert.ok(Math.abs(wheelScale(100, 0) - 1 / WHEEL_NOTCH_SCALE) < 1e-12);
  assert.ok(Math.abs(wheelScale(-3, 1) - Math.pow(WHEEL_NOTCH_SCALE, 1.2)) < 1e-12);
  assert.ok(Math.abs(wheelScale(-5000, 0) - Math.pow(WHEEL_NOTCH_SCALE, 5)) < 1e-12);
});
