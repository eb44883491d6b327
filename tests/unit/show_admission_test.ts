import assert from "node:assert/strict";
import { eventCost } from "../../shared/budget.ts";
import { priceShow } from "../../server/scene/show_admission.ts";
import type { ShowCue } from "../../shared/types.ts";

const seqOf = (i: number) => -1 - i;
/** Slots one cue of this shape takes (a peony at the origin, keyed like cue `i`). */
const slots = (i: number, tick: number) =>
  eventCost(7, { seq: seqOf(i), tick, by: "show", body: { type: "launch", x: 0, z: 0 } });

Deno.test("show pricing admits a show that fits and names the first cue that does not", () => {
  const cues: ShowCue[] = [{ at: 0, x: 0, z: 0 }, { at: 10, x: 0, z: 0 }, { at: 20, x: 0, z: 0 }];
  const start = 1000;
  const need = cues.map((c, i) => slots(i, start + c.at).particles);
  const base = { seed: 7, from: 601, seqOf, start, cues, others: [] };
  // Room for all three at once: admitted.
  const all = need[0] + need[1] + need[2];
  assert.equal(priceShow({ ...base, cap: all, base: () => 0 }), null);
  // Room for two only: the third (in launch order) is named, by its submitted index.
  const refusal = priceShow({
    ...base,
    cap: all - 1,
    base: () => 0,
    cues: [cues[2], cues[0], cues[1]].sort((a, b) => a.at - b.at),
    order: [1, 2, 0],
  });
  assert.equal(refusal?.cue, 0, "stored index 2 was submitted as index 0");
  assert.equal(refusal?.tick, start + 20);
  assert.match(refusal!.message, /cue 1 \(at 0.33 s into the show\)/);
  // What the sky holds counts: a click's reservation at the start crowds the first cue out.
  const held = all - need[0] + 1;
  const crowded = priceShow({ ...base, cap: all, base: (t) => (t < start + 5 ? held : 0) });
  assert.equal(crowded?.cue, 0);
  // Other sources' launches count over their lives.
  const other = { tick: start + 15, seq: -99, body: { type: "launch" as const, x: 5, z: 5 } };
  const busy = priceShow({ ...base, cap: all, base: () => 0, others: [other] });
  // 1787 + 2717 + the other's 3016 > the cap of 1787 + 2717 + 2283: cue 1 no longer fits.
  assert.equal(busy?.cue, 1, "the first cue that no longer fits beside the other launch");
});
