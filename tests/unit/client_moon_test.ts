/** The moon hangs inside every screen's default view, inside the sky dome, at one size. */
import assert from "node:assert/strict";
import * as THREE from "three";
import { fitDefaultView } from "../../client/render/camera_fit.ts";
import { MOON_RADIUS, moonPlace } from "../../client/render/moon_place.ts";

/** The fitted default camera for a viewport. */
function fittedCamera(width: number, height: number): THREE.PerspectiveCamera {
  const view = fitDefaultView(width / height);
  const camera = new THREE.PerspectiveCamera(view.fov, width / height, 0.5, 2000);
  camera.position.copy(view.position);
  camera.lookAt(view.target);
  camera.updateMatrixWorld(true);
  camera.updateProjectionMatrix();
  return camera;
}

/** Horizontal screen extent (NDC) of a sprite of `size` metres at `position`. */
function spriteSpan(camera: THREE.PerspectiveCamera, position: THREE.Vector3, size: number) {
  const centre = position.clone().project(camera);
  const right = new THREE.Vector3(1, 0, 0).applyQuaternion(camera.quaternion);
  const edge = position.clone().addScaledVector(right, size / 2).project(camera);
  const half = edge.x - centre.x;
  return { left: centre.x - half, right: centre.x + half, y: centre.y };
}

Deno.test("the moon is whole on screen at 390×844, 844×390 and 1280×720", async (t) => {
  const sizes: number[] = [];
  for (const [width, height] of [[390, 844], [844, 390], [1280, 720]]) {
    await t.step(`${width}×${height}`, () => {
      const camera = fittedCamera(width, height);
      const place = moonPlace(camera, { position: new THREE.Vector3(), scale: 0 });
      const span = spriteSpan(camera, place.position, place.scale);
      assert.ok(span.left > -0.9 && span.right < 0.9, JSON.stringify(span));
      assert.ok(span.y > 0.2 && span.y < 0.8, `upper half, below the top: ${span.y}`);
      assert.ok(Math.abs(place.position.length() - MOON_RADIUS) < 1e-6, "on its sphere");
      assert.ok(MOON_RADIUS < 400, "inside the sky dome");
      sizes.push(place.scale / place.position.distanceTo(camera.position));
    });
  }
  await t.step("looks the same size everywhere", () => {
    for (const size of sizes) assert.ok(Math.abs(size - sizes[0]) < 1e-9);
  });
  await t.step("the old fixed place was cut at the phone's right edge", () => {
    const camera = fittedCamera(390, 844);
    const span = spriteSpan(camera, new THREE.Vector3(150, 150, -280), 46);
    assert.ok(span.right > 1, JSON.stringify(span));
  });
});
