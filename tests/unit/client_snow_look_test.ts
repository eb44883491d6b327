/**
 * Flakes you can see turn (issue 36): at the default view the flakes are big enough for their six
 * shapes to read, and they tumble in world axes, so orbiting the camera changes how a flake looks.
 * The flakes are projected with the default camera's own matrices and the snow shader's size and
 * fade rules (`client/render/snow_flake_look.ts`, the shader's mirror).
 */
import assert from "node:assert/strict";
import * as THREE from "three";
import { fitDefaultView } from "../../client/render/camera_fit.ts";
import {
  flakeEdges,
  flakeFade,
  flakeImage,
  flakeSpriteSide,
} from "../../client/render/snow_flake_look.ts";
import { SNOW_BOX_BEHIND, SNOW_FAR_FADE_SPAN } from "../../client/render/snow_points.ts";
import { SCENE_HALF_EXTENT, TICK_RATE } from "../../shared/constants.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { Snow } from "../../shared/snow.ts";

const WIDTH = 2 * SCENE_HALF_EXTENT;

/** Face-on sizes (pixels) of the flakes visible (opacity ≥ 0.25) at the default view. */
function visibleFlakeSizes(snow: Snow, width: number, height: number, tick: number): number[] {
  const view = fitDefaultView(width / height);
  const camera = new THREE.PerspectiveCamera(view.fov, width / height, 0.5, 2000);
  camera.position.copy(view.position);
  camera.lookAt(view.target);
  camera.updateMatrixWorld();
  camera.updateProjectionMatrix();
  const scale = height / (2 * Math.tan(THREE.MathUtils.degToRad(view.fov) / 2));
  const forward = new THREE.Vector3();
  camera.getWorldDirection(forward);
  forward.y = 0;
  forward.normalize().multiplyScalar(WIDTH / 2 - SNOW_BOX_BEHIND);
  const cx = camera.position.x + forward.x, cz = camera.position.z + forward.z;
  const far = [view.distance, view.distance + SNOW_FAR_FADE_SPAN] as const;
  const xyz = new Float32Array(snow.count * 3);
  snow.fill(tick, xyz);
  const p = new THREE.Vector3();
  const sizes: number[] = [];
  for (let i = 0; i < snow.count; i++) {
    const image = (v: number, c: number) => v - Math.round((v - c) / WIDTH) * WIDTH;
    p.set(image(xyz[i * 3], cx), xyz[i * 3 + 1], image(xyz[i * 3 + 2], cz));
    p.applyMatrix4(camera.matrixWorldInverse);
    const depth = -p.z;
    if (depth <= 0) continue;
    const pixels = (snow.size[i] * scale) / depth;
    if (0.9 * flakeFade(pixels, depth, far) < 0.25) continue;
    p.applyMatrix4(camera.projectionMatrix);
    const margin = pixels / width;
    if (Math.abs(p.x) > 1 + margin || Math.abs(p.y) > 1 + margin) continue;
    sizes.push(pixels);
  }
  return sizes.sort((a, b) => a - b);
}

Deno.test("flakes at the default view are big enough for their shapes to read", async (t) => {
  const snow = new Snow(20261203);
  snow.setClimate(initialSnapshot());
  for (const [width, height, median, big] of [[1280, 720, 3, 500], [390, 844, 2.5, 120]]) {
    await t.step(`${width}×${height}`, () => {
      for (const tick of [600, 54_321]) {
        const sizes = visibleFlakeSizes(snow, width, height, tick);
        const mid = sizes[Math.floor(sizes.length / 2)];
        const eight = sizes.filter((s) => s >= 8).length;
        console.log(
          `${width}×${height} tick ${tick}: ${sizes.length} visible, median ${
            mid.toFixed(2)
          } px, ` +
            `≥ 8 px ${eight}, ≥ 12 px ${sizes.filter((s) => s >= 12).length}`,
        );
        assert.ok(mid >= median, `median ${mid} px`);
        assert.ok(eight >= big, `${eight} flakes ≥ 8 px`);
      }
    });
  }
});

Deno.test("orbiting the camera changes how a tumbling flake looks", () => {
  const snow = new Snow(7, 64);
  const edges = new Float64Array(6), image = new Float64Array(4), other = new Float64Array(4);
  const camera = new THREE.PerspectiveCamera(50, 16 / 9, 0.5, 2000);
  const flake = new THREE.Vector3(3, 20, -4);
  const p = new THREE.Vector3();
  const look = (angle: number, out: Float64Array, i: number, seconds: number) => {
    // The camera orbits the flake at 10 m, level with it.
    camera.position.set(flake.x + 10 * Math.sin(angle), flake.y, flake.z + 10 * Math.cos(angle));
    camera.lookAt(flake);
    camera.updateMatrixWorld();
    const a = snow.phase[i] + snow.spin[i] * seconds;
    const b = snow.phaseY[i] + snow.spin[i] * seconds;
    flakeEdges(a, b, edges);
    p.copy(flake).applyMatrix4(camera.matrixWorldInverse);
    flakeImage(edges, camera.matrixWorldInverse.elements, p.x, p.y, p.z, 0.3, 700, out);
  };
  let changed = 0;
  for (let i = 0; i < 64; i++) {
    const seconds = 1234 / TICK_RATE;
    look(0, image, i, seconds);
    look(Math.PI / 3, other, i, seconds);
    // The flake is the flake: its image from the same place is the same whenever we look.
    const again = new Float64Array(4);
    look(0, again, i, seconds);
    assert.deepEqual(again, image);
    const area = (m: Float64Array) => Math.abs(m[0] * m[3] - m[1] * m[2]);
    if (Math.abs(area(image) - area(other)) > 0.05 * Math.max(area(image), area(other))) changed++;
    assert.ok(flakeSpriteSide(image) <= 0.3 * 70 * Math.SQRT2 + 1e-9);
  }
  // Seen from 60° round, most flakes show a clearly different face (a camera-relative tumble
  // would show every flake exactly as before).
  assert.ok(changed >= 48, `${changed} of 64 flakes changed`);
});

Deno.test("a flake turns about world y first, then world x (source 000's yaw · pitch)", () => {
  const edges = new Float64Array(6);
  const a = 0.7, b = 1.1;
  flakeEdges(a, b, edges);
  const m = new THREE.Matrix4().makeRotationX(a).multiply(new THREE.Matrix4().makeRotationY(b));
  const ex = new THREE.Vector3(1, 0, 0).applyMatrix4(m);
  const ey = new THREE.Vector3(0, 1, 0).applyMatrix4(m);
  for (const [k, v] of [ex.x, ex.y, ex.z, ey.x, ey.y, ey.z].entries()) {
    assert.ok(Math.abs(edges[k] - v) < 1e-12, `edge component ${k}`);
  }
});
