import assert from "node:assert/strict";
import { KEY_SPACE, keyOf, keyX, keyZ } from "../../scripts/load/launch_key.ts";
import { LAUNCH_HALF_EXTENT } from "../../shared/constants.ts";
import { ClientMessageSchema } from "../../shared/protocol.ts";

Deno.test("load launch keys round-trip through positions", async (t) => {
  await t.step("every sampled key decodes to itself, also after a JSON round trip", () => {
    for (let key = 0; key < KEY_SPACE; key += 997) {
      const { x, z } = JSON.parse(JSON.stringify({ x: keyX(key), z: keyZ(key) }));
      assert.equal(keyOf(x, z), key);
    }
    assert.equal(keyOf(keyX(KEY_SPACE - 1), keyZ(KEY_SPACE - 1)), KEY_SPACE - 1);
  });

  await t.step("positions stay inside the launch area and pass the protocol schema", () => {
    for (const key of [0, 1, 1800, 1801, KEY_SPACE - 1, 123_456]) {
      const x = keyX(key);
      const z = keyZ(key);
      assert.ok(Math.abs(x) <= LAUNCH_HALF_EXTENT && Math.abs(z) <= LAUNCH_HALF_EXTENT);
      assert.ok(
        ClientMessageSchema.safeParse({ t: "submit", body: { type: "launch", x, z } }).success,
      );
    }
  });

  await t.step("rounding below 2.5 cm still finds the key", () => {
    const key = 654_321;
    assert.equal(keyOf(keyX(key) + 0.02, keyZ(key) - 0.02), key);
    assert.equal(keyOf(Math.fround(keyX(key)), Math.fround(keyZ(key))), key);
  });

  await t.step("positions outside the grid or not numbers have no key", () => {
    assert.equal(keyOf(NaN, 0), -1);
    assert.equal(keyOf(0, LAUNCH_HALF_EXTENT + 1), -1);
    assert.equal(keyOf(-LAUNCH_HALF_EXTENT - 1, 0), -1);
  });
});
