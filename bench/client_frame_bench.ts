/**
 * CPU cost of one client frame outside the browser (no GPU in the way): stepping a world with
 * 100k flakes and ~50k visible firework particles, moving the snow (a frame sets uniforms; the
 * flakes' closed form is evaluated on the CPU only at a rebase, every 240 ticks or when the wind or
 * the intensity changes: see client/snow_points.ts) and packing the visible fireworks and
 * fountain streaks for upload. `deno task bench`.
 */
import { initialSnapshot } from "../shared/settings.ts";
import { eventCost } from "../shared/budget.ts";
import { DEFAULT_SKY_CAP, MAX_FLAKES } from "../shared/constants.ts";
import { World } from "../shared/world.ts";
import * as THREE from "three";
import { SparkStreaks } from "../client/render/spark_streaks.ts";
import { createPointUniforms } from "../client/render/point_uniforms.ts";
import { SnowPoints } from "../client/render/snow_points.ts";
import { STREAK_SECONDS } from "../shared/views.ts";

const SEED = 20_261_129;
const TARGET_VISIBLE = 50_000;
const capacity = Math.max(DEFAULT_SKY_CAP, TARGET_VISIBLE * 8);
const world = new World({
  seed: SEED,
  snapshot: initialSnapshot({ snow: 1, windSpeed: 3, windDirection: 40, show: false }),
  capacity,
});
let seq = 0;
let credit = 0;
/** A steady launch every 3.4 ticks holds the sky near 50k visible particles (as bench/browser/frame_page.ts). */
function keepSkyFull(): void {
  credit += TARGET_VISIBLE / 168_000;
  if (credit < 1) return;
  const event = {
    seq: seq + 1,
    tick: world.tick,
    by: "bench",
    body: { type: "launch" as const, x: ((seq * 37) % 80) - 40, z: ((seq * 53) % 80) - 40 },
  };
  if (world.usedSlots() + eventCost(SEED, event).particles > capacity) return;
  world.apply(event);
  seq++;
  credit -= 1;
}
for (let i = 0; i < 900; i++) {
  keepSkyFull();
  world.step();
}

const phases = new Float32Array(MAX_FLAKES * 4);
const snow = new SnowPoints({
  uniforms: createPointUniforms(),
  atlas: new THREE.Texture(),
  drawShare: 1,
});
snow.bind(world.snow);
const camera = new THREE.PerspectiveCamera(50, 16 / 9, 0.5, 2000);
camera.position.set(0, 57, 133);
camera.lookAt(0, 25, 0);
const common = {
  uniforms: createPointUniforms(),
  viewport: { value: new THREE.Vector2(960, 540) },
  glow: 3,
  intensity: 1,
  renderOrder: 0,
};
const fireworks = new SparkStreaks({ ...common, tail: { ticks: 5 }, tailLight: 0.2 });
fireworks.bind(world.fireworks);
const fountain = new SparkStreaks({
  ...common,
  tail: { ticks: 0, velocitySeconds: STREAK_SECONDS },
  tailLight: 0,
});
fountain.bind(world.fountain);
fireworks.update(0.5, world.tick);
console.log(
  `world: ${world.snow.count} flakes, ${fireworks.drawnCount} visible of ${world.fireworks.count} firework slots`,
);

Deno.bench("client frame: world.step with 100k flakes and ~50k sparks", { group: "frame" }, () => {
  keepSkyFull();
  world.step();
});

Deno.bench("client frame: snow between rebases (uniforms only)", { group: "frame" }, () => {
  snow.update(world.tick - 0.5, camera);
});

Deno.bench("snow rebase: fillPhases of 100k flakes (every 240 ticks)", { group: "rebase" }, () => {
  world.snow.fillPhases(world.tick - 0.5, phases);
});

Deno.bench("client frame: pack visible fireworks + fountain streaks", { group: "frame" }, () => {
  fireworks.update(0.5, world.tick);
  fountain.update(0.5, world.tick);
});
