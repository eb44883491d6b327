/**
 * Burst size against the default view, from the simulation and the fitted camera alone (no
 * browser): a peony at its fullest spans about a quarter of a 1280×720 screen's width, and the
 * show's highest bursts stay on screen whole, in landscape and in portrait.
 */
import assert from "node:assert/strict";
import * as THREE from "three";
import { AIM_HEIGHT_PREFERRED } from "../../client/input/aim.ts";
import { fitDefaultView } from "../../client/render/camera_fit.ts";
import { BURST_HEIGHT_DEFAULT_MAX } from "../../shared/constants.ts";
import { SHOW_HALF_EXTENT } from "../../shared/show.ts";
import { FIREWORK_KINDS, type FireworkKind } from "../../shared/firework_kinds.ts";
import { Fireworks } from "../../shared/fireworks/mod.ts";

const SEED = 2026;
const VIEWS = [
  // Landscape: "roughly a quarter" of the width. Portrait: the view comes as close as it must for
  // every pixel to be aimable (camera_fit.ts), so a burst takes about half the narrow screen.
  // Lower bounds down deliberately (issue 15): a peony is now seed 002's filled ball (speeds over
  // 2.67×, direction noise) with the same outer reach, and the 2nd–98th percentile of a ball's
  // sparks is narrower than a thin shell's.
  { label: "1280×720", aspect: 1280 / 720, band: [0.15, 0.35] },
  { label: "390×844", aspect: 390 / 844, band: [0.3, 0.7] },
  { label: "844×390", aspect: 844 / 390, band: [0.1, 0.35] },
] as const;

function defaultCamera(aspect: number): THREE.PerspectiveCamera {
  const view = fitDefaultView(aspect);
  const camera = new THREE.PerspectiveCamera(view.fov, aspect, 0.5, 5000);
  camera.position.copy(view.position);
  camera.lookAt(view.target);
  camera.updateMatrixWorld(true);
  camera.updateProjectionMatrix();
  return camera;
}

/**
 * Steps one launch to its end, calling `visit` with the NDC position of every live particle of
 * its bursts (not its rising shell and trail) at every tick.
 */
function eachBurstParticle(
  camera: THREE.Camera,
  seq: number,
  launch: { x: number; y?: number; z: number; kind: FireworkKind },
  visit: (tick: number, ndc: THREE.Vector3) => void,
  endOfTick?: (tick: number) => void,
): void {
  const fw = new Fireworks(SEED, 60_000);
  fw.launch(seq, 0, launch, "auto");
  const block = fw.pool.blocks[0];
  const { position, life } = fw.pool;
  const ndc = new THREE.Vector3();
  for (let t = 0; t < block.endTick; t++) {
    fw.step(t);
    for (let i = block.start + block.plan.trailEnd; i < block.start + block.plan.slots; i++) {
      if (life[i] <= 0) continue;
      visit(t, ndc.fromArray(position, i * 3).project(camera));
    }
    endOfTick?.(t);
  }
}

/** The widest a peony gets on screen, as a fraction of the width (2nd–98th percentile of x). */
function peonySpan(camera: THREE.Camera, seq: number, y?: number): number {
  let xs: number[] = [];
  let widest = 0;
  eachBurstParticle(
    camera,
    seq,
    { x: 0, y, z: 0, kind: "peony" },
    (_, ndc) => xs.push(ndc.x),
    () => {
      // Only while most of the burst is there: the last few long-lived sparks are not its size.
      if (xs.length >= 300) {
        xs.sort((a, b) => a - b);
        const left = xs[Math.floor(0.02 * (xs.length - 1))];
        const right = xs[Math.ceil(0.98 * (xs.length - 1))];
        widest = Math.max(widest, (right - left) / 2);
      }
      xs = [];
    },
  );
  return widest;
}

Deno.test("a peony at the default view spans about a quarter of the screen's width", async (t) => {
  for (const view of VIEWS) {
    await t.step(view.label, () => {
      const camera = defaultCamera(view.aspect);
      const spans: number[] = [];
      // Ground clicks burst at AIM_HEIGHT_PREFERRED; the show's launches at their seeded heights.
      for (const seq of [1, 2, 3, 4, 5, 6]) {
        spans.push(peonySpan(camera, seq, seq <= 3 ? AIM_HEIGHT_PREFERRED : undefined));
      }
      for (const span of spans) {
        assert.ok(
          span >= view.band[0] && span <= view.band[1],
          `${view.label}: peony spans ${span.toFixed(3)} of the width (${
            spans.map((s) => s.toFixed(3))
          })`,
        );
      }
    });
  }
});

Deno.test("at the default view the show's highest bursts stay on screen whole", async (t) => {
  for (const view of VIEWS) {
    await t.step(view.label, () => {
      const camera = defaultCamera(view.aspect);
      const l = SHOW_HALF_EXTENT;
      // A tall phone is framed on the stage's middle: its corners may be cut at the sides, not
      // at the top.
      const y = BURST_HEIGHT_DEFAULT_MAX;
      for (const kind of FIREWORK_KINDS) {
        for (const [x, z] of [[0, 0], [-l, l], [l, l], [-l, -l], [l, -l]]) {
          let top = -Infinity;
          eachBurstParticle(camera, 7, { x, y, z, kind }, (_, ndc) => {
            top = Math.max(top, ndc.y);
          });
          assert.ok(top < 1, `${kind} at (${x}, ${y}, ${z}): top at NDC ${top}`);
        }
      }
    });
  }
});
