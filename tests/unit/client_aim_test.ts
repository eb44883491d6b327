/**
 * Aim maths: a ray through the burst volume bursts on the ray, a ground click bursts above the
 * ground point (or on its screen column when the point is outside the launch field), everything
 * stays in the launch field and the burst limits, and in the fitted default views of 1280×720,
 * 390×844 and 844×390 every pixel can be aimed.
 */
import assert from "node:assert/strict";
import * as THREE from "three";
import { AIM_HEIGHT_MAX, AIM_HEIGHT_MIN, aimLaunch } from "../../client/input/aim.ts";
import { aimError, fitDefaultView } from "../../client/render/camera_fit.ts";
import { LAUNCH_HALF_EXTENT } from "../../shared/constants.ts";
import { SHOW_HALF_EXTENT } from "../../shared/show.ts";

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
  const burst = new THREE.Vector3();
  assert.equal(aimLaunch(skyward, camera, focus, burst), "sky");
  assertInVolume(burst);
  assert.ok(skyward.distanceToPoint(burst) < 1e-6, "the burst is on the clicked ray");
  assert.ok(Math.abs(burst.z) < 1e-6, `at the focus plane z = 0, got ${burst.z}`);
});

Deno.test("aim launches from the clicked ground and bursts above it", () => {
  const focus = new THREE.Vector3(0, 30, 0);
  const camera = cameraAt([0, 40, 110], focus);
  const down = ray([0, 40, 110], [0.2, -40, -100]);
  const ground = down.at(-40 / down.direction.y, new THREE.Vector3());
  const burst = new THREE.Vector3();
  assert.equal(aimLaunch(down, camera, focus, burst), "ground");
  assert.ok(Math.abs(burst.x - ground.x) < 1e-6 && Math.abs(burst.z - ground.z) < 1e-6);
  assertInVolume(burst);
});

Deno.test("aim moves ground clicks in front of the field onto its near edge", () => {
  const focus = new THREE.Vector3(0, 30, 0);
  const camera = cameraAt([0, 40, 150], focus);
  const near = ray([0, 40, 150], [0, -1, -0.3]); // hits the ground at z ≈ 138
  const burst = new THREE.Vector3();
  assert.equal(aimLaunch(near, camera, focus, burst), "ground");
  assert.equal(burst.z, LAUNCH_HALF_EXTENT);
  assertInVolume(burst);
});

Deno.test("aim keeps a ground click outside the field on the clicked screen column", () => {
  const focus = new THREE.Vector3(0, 30, 0);
  // An eye below the lowest burst: no ray to the ground crosses the burst volume on the way.
  const eye: [number, number, number] = [0, 15, 150];
  const camera = cameraAt(eye, focus);
  // Ground beside the field and in front of it, off to the side.
  for (const ground of [[100, 0, 40], [25, 0, 110]] as [number, number, number][]) {
    const toGround = ray(eye, [ground[0] - eye[0], ground[1] - eye[1], ground[2] - eye[2]]);
    const burst = new THREE.Vector3();
    assert.equal(aimLaunch(toGround, camera, focus, burst), "ground");
    assertInVolume(burst);
    // The launch point lies on the ground line from below the eye through the clicked point.
    const cross = (burst.x - eye[0]) * (ground[2] - eye[2]) -
      (burst.z - eye[2]) * (ground[0] - eye[0]);
    assert.ok(Math.abs(cross) < 1e-6, `launch (${burst.x}, ${burst.z}) on the line`);
    const clicked = new THREE.Vector3(...ground).project(camera);
    const seen = burst.clone().project(camera);
    assert.ok(Math.abs(seen.x - clicked.x) < 0.08, `column ${clicked.x} → ${seen.x}`);
    assert.ok(seen.y > clicked.y, "the burst is above the click");
  }
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
    const burst = new THREE.Vector3();
    aimLaunch(ray(origin, direction), camera, focus, burst);
    assertInVolume(burst);
  }
});

/** The three viewports of issue 15. */
const VIEWPORTS = [[1280, 720], [390, 844], [844, 390]] as const;

function defaultCamera(aspect: number) {
  const view = fitDefaultView(aspect);
  const camera = new THREE.PerspectiveCamera(view.fov, aspect, 0.5, 5000);
  camera.position.copy(view.position);
  camera.lookAt(view.target);
  camera.updateMatrixWorld(true);
  camera.updateProjectionMatrix();
  return { view, camera };
}

Deno.test("the default view shows the show's launch area at its burst heights", async (t) => {
  for (const [width, height] of VIEWPORTS) {
    await t.step(`${width}×${height}`, () => {
      const { view, camera } = defaultCamera(width / height);
      const l = SHOW_HALF_EXTENT;
      // A tall phone may cut the stage's near corners (every pixel must stay aimable); its
      // middle line (z = 0) is always on screen.
      const depths = view.wholeStage ? [-l, 0, l] : [0];
      assert.equal(view.wholeStage, width > height, "landscape shows the whole stage");
      for (const x of [-l, 0, l]) {
        for (const z of depths) {
          for (const y of [0, AIM_HEIGHT_MIN, 50]) {
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

Deno.test("in the default view every pixel bursts where it was aimed", async (t) => {
  const raycaster = new THREE.Raycaster();
  for (const [width, height] of VIEWPORTS) {
    await t.step(`${width}×${height}`, () => {
      const { view, camera } = defaultCamera(width / height);
      let sky = 0, ground = 0, worst = 0;
      for (let i = 0; i <= 24; i++) {
        for (let j = 0; j <= 24; j++) {
          const ndc = new THREE.Vector2(-0.99 + 0.0825 * i, -0.99 + 0.0825 * j);
          raycaster.setFromCamera(ndc, camera);
          const burst = new THREE.Vector3();
          const kind = aimLaunch(raycaster.ray, camera, view.target, burst);
          assertInVolume(burst);
          if (kind === "sky") sky++;
          else ground++;
          // From the pixel (sky) or its column (ground), as a share of the width.
          const error = aimError(camera, view.target, ndc.x, ndc.y);
          worst = Math.max(worst, error);
          assert.ok(
            error <= 0.05,
            `${kind} click at (${ndc.x.toFixed(2)}, ${ndc.y.toFixed(2)}) bursts ` +
              `${(error * 100).toFixed(1)} % of the width away`,
          );
        }
      }
      assert.ok(sky > 100 && ground > 100, `both kinds sampled: ${sky} sky, ${ground} ground`);
    });
  }
});
