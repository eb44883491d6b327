import assert from "node:assert/strict";
import { fitDefaultView } from "../../client/render/camera_fit.ts";
import { GUN_ORIGIN_HALF_EXTENT, GUN_ORIGIN_HEIGHT } from "../../shared/constants.ts";
import { GunBodySchema } from "../../shared/protocol.ts";

const accepts = (origin: unknown, direction: unknown = [0, 0, -1]) =>
  GunBodySchema.safeParse({ type: "gun", origin, direction }).success;

Deno.test("gun body takes any camera position as its origin, and nothing beyond", async (t) => {
  await t.step("the default views' cameras, outside the scene's box, are valid origins", () => {
    for (const aspect of [1280 / 720, 390 / 844]) {
      const eye = fitDefaultView(aspect).position;
      assert.equal(accepts([eye.x, eye.y, eye.z]), true, `camera at ${eye.toArray()}`);
      // The orbit controls let a viewer pull back to 1.4 × the fitted distance.
      assert.equal(accepts([eye.x * 1.4, eye.y * 1.4, eye.z * 1.4]), true);
    }
  });
  await t.step("origins at the bounds pass, beyond them or not finite are refused", () => {
    const l = GUN_ORIGIN_HALF_EXTENT, h = GUN_ORIGIN_HEIGHT;
    assert.equal(accepts([-l, 0, l]), true);
    assert.equal(accepts([l, h, -l]), true);
    assert.equal(accepts([l + 0.01, 10, 0]), false);
    assert.equal(accepts([0, 10, -l - 0.01]), false);
    assert.equal(accepts([0, -0.01, 0]), false);
    assert.equal(accepts([0, h + 0.01, 0]), false);
    assert.equal(accepts([0, Number.POSITIVE_INFINITY, 0]), false);
    assert.equal(accepts([0, 10]), false);
  });
  await t.step("a zero direction is still refused", () => {
    assert.equal(accepts([0, 10, 0], [0, 0, 0]), false);
  });
});
