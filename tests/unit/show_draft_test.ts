import assert from "node:assert/strict";
import { SHOW_MAX_CUES } from "../../shared/protocol.ts";
import { ShowDraft } from "../../server/scene/show_draft.ts";

const cue = (at: number) => ({ at, x: 0, z: 0 });

Deno.test("show draft keeps the last writer per cue and who edited", () => {
  const draft = new ShowDraft();
  assert.equal(draft.open, false);
  draft.apply("p1", [{ do: "cue", id: "a", cue: cue(0) }, { do: "cue", id: "b", cue: cue(5) }], 0);
  draft.apply("p2", [{ do: "cue", id: "a", cue: cue(9) }, { do: "cue", id: "b", cue: null }], 1);
  const state = draft.state(2)!;
  assert.deepEqual(state.cues, [{ id: "a", by: "p2", cue: cue(9) }]);
  assert.deepEqual(state.editors, ["p2", "p1"]);
  draft.forget("p1");
  assert.deepEqual(draft.state(2)!.editors, ["p2"]);
  assert.deepEqual(draft.state(120_000)!.editors, [], "quiet editors are not named");
  draft.apply("p2", [{ do: "discard" }], 3);
  assert.equal(draft.state(), null);
});

Deno.test("show draft refuses edits that would take it past its cue bound, whole", () => {
  const draft = new ShowDraft();
  for (let i = 0; i < SHOW_MAX_CUES; i += 32) {
    const edits = Array.from({ length: Math.min(32, SHOW_MAX_CUES - i) }, (_, k) => ({
      do: "cue" as const,
      id: `c${i + k}`,
      cue: cue(i + k),
    }));
    assert.equal(draft.check(edits), null);
    draft.apply("p1", edits, 0);
  }
  assert.equal(draft.size, SHOW_MAX_CUES);
  const more = [{ do: "cue" as const, id: "extra", cue: cue(1) }];
  assert.match(draft.check(more)!, /at most 2000 cues/);
  // Replacing a held cue, deleting one to add one, or discarding first all fit.
  assert.equal(draft.check([{ do: "cue", id: "c0", cue: cue(3) }]), null);
  assert.equal(draft.check([{ do: "cue", id: "c0", cue: null }, ...more]), null);
  assert.equal(draft.check([{ do: "discard" }, ...more]), null);
  assert.equal(
    draft.check([...more, { do: "cue", id: "c0", cue: null }]),
    null,
    "a frame is whole",
  );
  assert.notEqual(draft.check([...more, { do: "cue", id: "c0", cue: cue(3) }]), null);
});
