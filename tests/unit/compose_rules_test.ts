import assert from "node:assert/strict";
import { decideHost, type HostDecision } from "../../server/scene/host_rules.ts";
import {
  applyRules,
  DEFAULT_RULES,
  mayCompose,
  publicEvent,
  publicSnapshot,
} from "../../shared/rules.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { Rules, RulesBody } from "../../shared/types.ts";

const BO = "b".repeat(64);
const CY = "c".repeat(64);
const host: Rules = { ...DEFAULT_RULES, hosts: ["h1"] };
const ctx = (person?: string) => ({ now: 100, wallMs: 0, person, present: true });

/** The body a decision stamps (throws on a refusal or nothing to stamp). */
function stamped(decision: HostDecision): RulesBody {
  if (!("body" in decision) || decision.body === null) {
    throw new Error(`nothing stamped: ${JSON.stringify(decision)}`);
  }
  return decision.body;
}

function code(decision: HostDecision): string | undefined {
  return "refusal" in decision ? decision.refusal.code : undefined;
}

Deno.test("the right to compose follows the person", async (t) => {
  const grant = stamped(decideHost(host, "h1", { do: "compose", peer: "p1", on: true }, ctx(BO)));
  const granted = applyRules(host, grant);

  await t.step("a grant records the person; clients see neither hash", () => {
    assert.deepEqual(grant, { type: "rules", do: "compose", peer: "p1", on: true, person: BO });
    assert.deepEqual(granted.composers, ["p1"]);
    assert.deepEqual(granted.composerPeople, { p1: BO });
    assert.ok(!("person" in publicEvent({ seq: 1, tick: 1, by: "h1", body: grant }).body));
    const open = publicSnapshot({ ...initialSnapshot(), rules: granted });
    assert.equal(open.rules?.composerPeople, undefined);
  });

  await t.step("the same browser on a new connection may compose and claims the right", () => {
    assert.ok(mayCompose(granted, "p2", BO));
    assert.ok(!mayCompose(granted, "p2", CY), "another browser does not inherit it");
    assert.ok(!mayCompose(granted, "p2"), "nor a connection without a token");
    const self = stamped(
      decideHost(granted, "p2", { do: "compose", peer: "p2", on: true }, ctx(BO)),
    );
    assert.deepEqual(self, { type: "rules", do: "compose", peer: "p2", on: true, person: BO });
    const other = decideHost(granted, "p3", { do: "compose", peer: "p3", on: true }, ctx(CY));
    assert.equal(code(other), "forbidden");
  });

  await t.step("on:false takes it from every connection of the person", () => {
    const both = applyRules(granted, {
      type: "rules",
      do: "compose",
      peer: "p2",
      on: true,
      person: BO,
    });
    const off = stamped(decideHost(both, "h1", { do: "compose", peer: "p2", on: false }, ctx(BO)));
    assert.deepEqual(off.do === "compose" && off.drop, ["p1"]);
    const after = applyRules(both, off);
    assert.deepEqual(after.composers, []);
    assert.equal(after.composerPeople, undefined);
    for (const peer of ["p1", "p2", "p9"]) assert.ok(!mayCompose(after, peer, BO));
    // As a page folds it (no person): the dropped connection goes too.
    const { person: _person, ...open } = off as Extract<RulesBody, { do: "compose" }>;
    assert.deepEqual(applyRules({ ...both, composerPeople: undefined }, open).composers, []);
  });

  await t.step("removing the person takes it as well", () => {
    const after = applyRules(granted, { type: "rules", do: "remove", peer: "p1", person: BO });
    assert.deepEqual(after.composers, []);
    assert.equal(after.composerPeople, undefined);
    assert.ok(!mayCompose(after, "p2", BO));
  });

  await t.step("hosts always may", () => {
    assert.ok(mayCompose(host, "h1"));
  });
});
