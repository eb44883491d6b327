import assert from "node:assert/strict";
import { BURST_HEIGHT_MAX, BURST_HEIGHT_MIN } from "../../shared/constants.ts";
import { FIREWORK_KINDS, isFireworkKind } from "../../shared/firework_kinds.ts";
import { LaunchBodySchema } from "../../shared/protocol.ts";

const accepts = (body: unknown) => LaunchBodySchema.safeParse(body).success;

Deno.test("launch body validates aim, kind, theme and breaks", async (t) => {
  await t.step("a plain ground launch is still valid", () => {
    assert.equal(accepts({ type: "launch", x: 1, z: -2 }), true);
  });
  await t.step("every kind with a burst height and breaks is valid", () => {
    for (const kind of FIREWORK_KINDS) {
      const body = { type: "launch", x: 0, z: 0, y: 30, kind, theme: "rainbow", breaks: 3 };
      assert.deepEqual(LaunchBodySchema.parse(body), body);
    }
  });
  await t.step("burst heights outside the bounds are refused", () => {
    assert.equal(accepts({ type: "launch", x: 0, z: 0, y: BURST_HEIGHT_MIN }), true);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, y: BURST_HEIGHT_MAX }), true);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, y: BURST_HEIGHT_MIN - 0.01 }), false);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, y: BURST_HEIGHT_MAX + 0.01 }), false);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, y: Number.NaN }), false);
  });
  await t.step("unknown kinds, fractional or out-of-range breaks are refused", () => {
    assert.equal(accepts({ type: "launch", x: 0, z: 0, kind: "dragon" }), false);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, breaks: 0 }), false);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, breaks: 4 }), false);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, breaks: 1.5 }), false);
    assert.equal(accepts({ type: "launch", x: 0, z: 0, colour: "red" }), false);
  });
  await t.step("isFireworkKind tells kinds from other values", () => {
    assert.equal(isFireworkKind("crossette"), true);
    assert.equal(isFireworkKind("Crossette"), false);
    assert.equal(isFireworkKind(3), false);
  });
});
