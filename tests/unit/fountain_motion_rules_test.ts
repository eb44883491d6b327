/**
 * The fountain's rotation and spiral are the hosts' switches (issue 36): the server refuses them
 * from anyone else, locked scene or not; a scene with no host lets anyone, as for every setting.
 */
import assert from "node:assert/strict";
import { refuseSubmit } from "../../server/scene/host_rules.ts";
import { applyRules, DEFAULT_RULES } from "../../shared/rules.ts";
import type { Rules } from "../../shared/types.ts";

Deno.test("only hosts may switch the fountain's rotation and spiral", () => {
  const hosted: Rules = applyRules(
    { ...DEFAULT_RULES, lock: "everyone" },
    { type: "rules", do: "host", peer: "h1" },
  );
  for (const settings of [{ fountainSpin: true }, { fountainSpiral: false }]) {
    const body = { type: "settings", settings } as const;
    assert.equal(refuseSubmit(hosted, "h1", body), null, "a host may");
    assert.equal(refuseSubmit(hosted, "guest", body)?.code, "forbidden", "a guest may not");
    assert.equal(refuseSubmit(DEFAULT_RULES, "anyone", body), null, "no host: anyone may");
  }
  // Other settings stay everyone's in a scene whose host chose "everyone".
  assert.equal(refuseSubmit(hosted, "guest", { type: "settings", settings: { snow: 1 } }), null);
});
