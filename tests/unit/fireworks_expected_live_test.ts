import assert from "node:assert/strict";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { Fireworks } from "../../shared/fireworks/mod.ts";

const SEED = 0x5eed18;

/** A launch every 5 ticks until tick 500, of `kind` (or every kind in turn), 1–3 breaks. */
function launchAt(fw: Fireworks, tick: number, kind: string): void {
  if (tick % 5 !== 0 || tick > 500) return;
  const seq = tick / 5 + 1;
  fw.launch(
    seq,
    tick,
    {
      x: (seq % 9) * 8 - 36,
      z: 20 - (seq % 5) * 10,
      kind: kind === "every" ? FIREWORK_KINDS[seq % FIREWORK_KINDS.length] : kind as never,
      breaks: 1 + seq % 3,
    },
    "auto",
  );
}

Deno.test("fireworks expectedLive tracks the exact live count within its spread", async (t) => {
  for (const kind of [...FIREWORK_KINDS, "every"]) {
    await t.step(kind, () => {
      const fw = new Fireworks(SEED, 2_000_000, { closedForm: true, slack: 1.5 });
      let compared = 0;
      for (let tick = 0; tick < 900; tick++) {
        launchAt(fw, tick, kind);
        fw.step(tick);
        if (tick % 10 !== 0) continue;
        const exact = fw.live(), expected = fw.expectedLive();
        // Counts of independent draws: the expectation is off by about a standard deviation,
        // √(alive) at most; the shells and splitting sparks are exact.
        const bound = 3 * Math.sqrt(Math.max(exact, 1)) + 2;
        assert.ok(
          Math.abs(expected - exact) <= bound,
          `tick ${tick + 1}: expected ${expected}, exactly ${exact} (bound ${bound.toFixed(0)})`,
        );
        if (exact > 1000) compared++;
      }
      assert.ok(compared > 10, `the comparison covers a busy sky (${compared} samples)`);
      // Nothing in flight: both are zero (the last launch ends well before tick 900, bar willow's
      // long-lived embers, which the step above covers).
      for (let tick = 900; fw.pool.blocks.length > 0; tick++) fw.step(tick);
      assert.equal(fw.live(), 0);
      assert.equal(fw.expectedLive(), 0);
    });
  }
});

Deno.test("fireworks expectedLive is exact for a rising shell and when stepping", () => {
  const closed = new Fireworks(SEED, 100_000, { closedForm: true });
  const stepped = new Fireworks(SEED, 100_000);
  for (const fw of [closed, stepped]) fw.launch(1, 0, { x: 0, z: 0, kind: "peony" }, "auto");
  assert.equal(closed.expectedLive(), 1, "the shell on the ground");
  // The first rise ticks' trail sparks all outlive them (TRAIL_LIFE_MIN is 18 ticks).
  for (let tick = 0; tick < 10; tick++) {
    closed.step(tick);
    stepped.step(tick);
    assert.equal(closed.expectedLive(), closed.live(), `closed at ${tick + 1}`);
  }
  for (let tick = 10; tick < 400; tick++) {
    stepped.step(tick);
    assert.equal(stepped.expectedLive(), stepped.live(), `stepping at ${tick + 1}`);
  }
});

Deno.test("fireworks expectedLive of a sky jumped to a tick equals the stepped sky's", () => {
  const stepped = new Fireworks(SEED, 2_000_000, { closedForm: true, slack: 1.5 });
  let checked = 0;
  for (let tick = 0; tick < 700; tick++) {
    launchAt(stepped, tick, "every");
    stepped.step(tick);
    if ((tick + 1) % 97 !== 0) continue;
    // A late joiner: every launch so far, then one jump to the stepped sky's tick.
    const jumped = new Fireworks(SEED, 2_000_000, { closedForm: true, slack: 1.5 });
    for (let t = 0; t <= tick; t++) launchAt(jumped, t, "every");
    jumped.jumpTo(tick + 1);
    assert.equal(jumped.expectedLive(), stepped.expectedLive(), `expected at ${tick + 1}`);
    assert.equal(jumped.live(), stepped.live(), `live at ${tick + 1}`);
    checked++;
  }
  assert.equal(checked, 7);
});
