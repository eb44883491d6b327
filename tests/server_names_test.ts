/** Friendly scene ids and peer names. */
import assert from "node:assert/strict";
import { randomPeerName, randomSceneId } from "../server/scene/names.ts";
import { SceneId } from "../shared/protocol.ts";

Deno.test("names are valid scene ids and readable peer names", () => {
  for (let i = 0; i < 200; i++) {
    const id = randomSceneId();
    assert.ok(SceneId.safeParse(id).success, id);
    assert.match(id, /^[a-z]+-[a-z]+-\d{4}$/);
    assert.match(randomPeerName(), /^[A-Z][a-z]+ [A-Z][a-z]+$/);
  }
});
