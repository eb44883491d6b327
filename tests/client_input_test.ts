/** Where a click launches: the ground under the pointer, or under where a sky ray reaches 35 m. */
import assert from "node:assert/strict";
import * as THREE from "three";
import { launchPointForRay } from "../client/input.ts";
import { LAUNCH_HALF_EXTENT } from "../shared/constants.ts";

function ray(origin: [number, number, number], direction: [number, number, number]): THREE.Ray {
  return new THREE.Ray(new THREE.Vector3(...origin), new THREE.Vector3(...direction).normalize());
}

Deno.test("launch point is where a downward ray meets the ground", () => {
  const point = launchPointForRay(ray([0, 10, 40], [0, -1, -1]), new THREE.Vector3());
  assert.ok(Math.abs(point.x) < 1e-9);
  assert.ok(Math.abs(point.z - 30) < 1e-9);
  assert.equal(point.y, 0);
});

Deno.test("launch point for a sky click is below where the ray crosses burst height", () => {
  const point = launchPointForRay(ray([0, 5, 40], [0, 1, -1]), new THREE.Vector3());
  assert.ok(Math.abs(point.z - 10) < 1e-9, `z ${point.z}`);
  assert.equal(point.y, 0);
});

Deno.test("launch point is clamped into the launch area", () => {
  const far = launchPointForRay(ray([0, 2, 0], [1, -0.001, 0]), new THREE.Vector3());
  assert.equal(far.x, LAUNCH_HALF_EXTENT);
  const high = launchPointForRay(ray([-100, 80, 0], [0, 1, 0.2]), new THREE.Vector3());
  assert.equal(high.x, -LAUNCH_HALF_EXTENT, "above the burst height looking up: ahead, clamped");
  assert.ok(Math.abs(high.z) <= LAUNCH_HALF_EXTENT);
});
