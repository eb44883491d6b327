/**
 * Aim maths: a ray through the burst volume bursts on the ray, a ground click bursts above the
 * ground point, everything stays in the launch area and the burst limits, and in the fitted
 * default views every click bursts on screen.
 */
import assert from "node:assert/strict";
import * as THREE from "three";
import { AIM_HEIGHT_MAX, AIM_HEIGHT_MIN, aimLaunch } from "../client/input/aim.ts";
import { fitDefaultView } from "../client/render/camera_fit.ts";
import { LAUNCH_HALF_EXTENT } from "../shared/constants.ts";

function ray(origin: [number, number, number], direction: [number, number, number]): THREE.Ray {
  return new THREE.Ray(new THREE.Vector3(...origin), new THREE.Vector3(...direction).normalize());
}

function cameraAt(position: [number, number, number], target: THREE.Vector3, aspect = 16 / 9) {
  const camera = new THREE.PerspectiveCamera(50, aspect, 0.5, 2000);
  camera.position.set(...position);
  camera.lookAt(target);
  camera.updateMatrixWorld(true);
  camera.updateProjectionMatrix();
  return camera;
}

function assertInVolume(point: THREE.Vector3): void {
  assert.ok(Math.abs(point.x) <= LAUNCH_HALF_EXTENT, `x ${point.x}`);
  assert.ok(Math.abs(point.z) <= LAUNCH_HALF_EXTENT, `z ${point.z}`);
  assert.ok(point.y >= AIM_HEIGHT_MIN && point.y <= AIM_HEIGHT_MAX, `y ${point.y}`);
}

Deno.test("aim bursts on a sky ray that crosses the burst volume, near the focus depth", () => {
  const focus = new THREE.Vector3(0, 30, 0);
  const camera = cameraAt([0, 10, 100], focus);
  const skyward = ray([0, 10, 100], [0.1, 0.3, -1]);
  const burst = aimLaunch(skyward, camera, focus, new THREE.Vector3());
  assertInVolume(burst);
  assert.ok(skyward.distanceToPoint(burst) < 1e-6, "the burst is on the clicked ray");
  assert.ok(Math.abs(burst.z) < 1e-6, `at the focus plane z = 0, got ${burst.z}`);
});

Deno.test("aim launches from the clicked ground and bursts above it", () => {
  const focus = new THREE.Vector3(0, 30, 0);
  const camera = cameraAt([0, 40, 110], focus);
  const down = ray([0, 40, 110], [0.2, -40, -100]);
  const ground = down.at(-40 / down.direction.y, new THREE.Vector3());
  const burst = aimLaunch(down, camera, focus, new THREE.Vector3());
  assert.ok(Math.abs(burst.x - ground.x) < 1e-6 && Math.abs(burst.z - ground.z) < 1e-6);
  assertInVolume(burst);
});

Deno.test("aim clamps ground clicks outside the launch area onto its edge", () => {
  const focus = new THREE.Vector3(0, 30, 0);
  const camera = cameraAt([0, 40, 150], focus);
  const near = ray([0, 40, 150], [0, -1, -0.3]); // hits the ground at z ≈ 138
  const burst = aimLaunch(near, camera, focus, new THREE.Vector3());
  assert.equal(burst.z, LAUNCH_HALF_EXTENT);
  assertInVolume(burst);
});

Deno.test("aim keeps rays past the volume inside it", () => {
  const focus = new THREE.Vector3(0, 30, 0);
  for (
    const [origin, direction] of [
      [[0, 10, 100], [0, 1, -0.2]], // steeply up from far away: over the volume's top
      [[-100, 80, 0], [0, 1, 0.2]], // above the volume looking up
      [[0, 30, 300], [1, 0, 0]], // level, beside the scene
      [[0, 30, 0], [0, 1, 0]], // from inside, straight up
    ] as [[number, number, number], [number, number, number]][]
  ) {
    const camera = cameraAt(origin, focus);
    assertInVolume(aimLaunch(ray(origin, direction), camera, focus, new THREE.Vector3()));
  }
});

Deno.test("the default view shows the launch area at every burst height", async (t) => {
  for (const [label, aspect] of [["1280×720", 1280 / 720], ["390×844", 390 / 844]] as const) {
    await t.step(label, () => {
      const view = fitDefaultView(aspect);
      const camera = new THREE.PerspectiveCamera(view.fov, aspect, 0.5, 5000);
      camera.position.copy(view.position);
      camera.lookAt(view.target);
      camera.updateMatrixWorld(true);
      camera.updateProjectionMatrix();
      const l = LAUNCH_HALF_EXTENT;
      for (const x of [-l, 0, l]) {
        for (const z of [-l, 0, l]) {
          for (const y of [0, AIM_HEIGHT_MIN, AIM_HEIGHT_MAX]) {
            const p = new THREE.Vector3(x, y, z).project(camera);
            assert.ok(
              p.z < 1 && Math.abs(p.x) < 1 && Math.abs(p.y) < 1,
              `(${x}, ${y}, ${z}) on screen`,
            );
          }
        }
      }
    });
  }
});

Deno.test("in the default view every click bursts on screen", async (t) => {
  const raycaster = new THREE.Raycaster();
  for (const [label, aspect] of [["1280×720", 1280 / 720], ["390×844", 390 / 844]] as const) {
    await t.step(label, () => {
      const view = fitDefaultView(aspect);
      const camera = new THREE.PerspectiveCamera(view.fov, aspect, 0.5, 5000);
      camera.position.copy(view.position);
      camera.lookAt(view.target);
      camera.updateMatrixWorld(true);
      camera.updateProjectionMatrix();
      let sky = 0;
      for (let i = 0; i <= 10; i++) {
        for (let j = 0; j <= 10; j++) {
          const ndc = new THREE.Vector2(-0.98 + 0.196 * i, -0.98 + 0.196 * j);
          raycaster.setFromCamera(ndc, camera);
          const burst = aimLaunch(raycaster.ray, camera, view.target, new THREE.Vector3());
          assertInVolume(burst);
          const p = burst.clone().project(camera);
          assert.ok(
            p.z < 1 && Math.abs(p.x) < 1 && Math.abs(p.y) < 1,
            `click at (${ndc.x.toFixed(2)}, ${ndc.y.toFixed(2)}) bursts at ` +
              `(${p.x.toFixed(2)}, ${p.y.toFixed(2)}) on screen`,
          );
          if (raycaster.ray.distanceToPoint(burst) < 1e-3) sky++;
        }
      }
      assert.ok(
        sky >= 5,
        `clicks on the burst volume burst right at the clicked pixel (${sky} of 121)`,
      );
    });
  }
});
