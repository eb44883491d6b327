/** The client's quality governor: resolution follows the frame rate, with hysteresis. */
import assert from "node:assert/strict";
import { QualityGovernor, SHARPNESS_FLOOR } from "../../client/render/quality_governor.ts";

/** Feeds `seconds` of frames at `fps`; returns how many times the ratio changed. */
function run(governor: QualityGovernor, fps: number, seconds: number): number {
  let changes = 0;
  for (let i = 0; i < fps * seconds; i++) if (governor.frame(1000 / fps)) changes++;
  return changes;
}

Deno.test("quality governor lowers the pixel ratio while frames are slow, down to the floor", () => {
  const governor = new QualityGovernor({ maxPixelRatio: 2, minPixelRatio: 0.5 });
  assert.equal(run(governor, 20, 2.1), 1);
  assert.equal(governor.pixelRatio, 1.6);
  run(governor, 20, 60);
  // Changed deliberately (issue 15: "a blocky quarter resolution"): never below 0.75 per CSS px.
  assert.equal(governor.pixelRatio, SHARPNESS_FLOOR);
  const lowDevice = new QualityGovernor({ maxPixelRatio: 0.6, minPixelRatio: 0.5 });
  run(lowDevice, 20, 60);
  assert.equal(lowDevice.pixelRatio, 0.6, "a device below the floor keeps its own ratio");
});

Deno.test("quality governor raises the ratio only after several fast windows", () => {
  const governor = new QualityGovernor({ maxPixelRatio: 1, minPixelRatio: 0.5 });
  run(governor, 20, 2.1);
  const lowered = governor.pixelRatio;
  assert.ok(lowered < 1);
  run(governor, 60, 4.1);
  assert.equal(governor.pixelRatio, lowered, "two fast windows are not enough");
  run(governor, 60, 2.1);
  assert.ok(governor.pixelRatio > lowered && governor.pixelRatio <= 1);
});

Deno.test("quality governor ignores hiccups and steady middling rates", () => {
  const governor = new QualityGovernor({ maxPixelRatio: 1, minPixelRatio: 0.5 });
  for (let i = 0; i < 50; i++) assert.equal(governor.frame(5_000), false);
  assert.equal(run(governor, 48, 20), 0);
  assert.equal(governor.pixelRatio, 1);
});

Deno.test("quality governor switches the glow off, then thins the flakes, once the ratio is at its floor", () => {
  const governor = new QualityGovernor({ maxPixelRatio: 1, minPixelRatio: 0.5 });
  assert.deepEqual(governor.level, { pixelRatio: 1, glow: true, flakeShare: 1 });
  run(governor, 20, 4.1); // two slow windows: 1 → 0.8 → 0.75
  assert.deepEqual(governor.level, { pixelRatio: SHARPNESS_FLOOR, glow: true, flakeShare: 1 });
  run(governor, 20, 2.05);
  assert.deepEqual(governor.level, { pixelRatio: SHARPNESS_FLOOR, glow: false, flakeShare: 1 });
  run(governor, 20, 2.05);
  assert.deepEqual(governor.level, { pixelRatio: SHARPNESS_FLOOR, glow: false, flakeShare: 0.4 });
  assert.equal(run(governor, 20, 20), 0, "nothing left to give");
  // Fast again: the flakes come back first, then the glow, then sharpness.
  run(governor, 60, 8.1);
  assert.deepEqual(governor.level, { pixelRatio: SHARPNESS_FLOOR, glow: false, flakeShare: 1 });
  run(governor, 60, 8.1);
  assert.deepEqual(governor.level, { pixelRatio: SHARPNESS_FLOOR, glow: true, flakeShare: 1 });
  run(governor, 60, 8.1);
  assert.ok(governor.pixelRatio > SHARPNESS_FLOOR);
});

Deno.test("quality governor steps down at software GL's one or two frames a second", () => {
  const governor = new QualityGovernor({ maxPixelRatio: 1, minPixelRatio: 0.5 });
  for (let i = 0; i < 12; i++) governor.frame(1_500);
  assert.deepEqual(governor.level, {
    pixelRatio: SHARPNESS_FLOOR,
    glow: false,
    flakeShare: 0.4,
  });
});
