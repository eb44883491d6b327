/** The page's calm parts that need no browser: the settings gate and display names. */
import assert from "node:assert/strict";
import { ChangeGate, type GateTimers } from "../../client/hud/change_gate.ts";
import { cleanName } from "../../client/hud/display_name.ts";
import { NAME_MAX_LENGTH } from "../../shared/constants.ts";

/** Timers on a hand-advanced clock. */
function manualTimers(): GateTimers & { advance(ms: number): void } {
  let now = 0;
  let next = 1;
  const due = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    schedule(callback, delayMs) {
      const id = next++;
      due.set(id, { at: now + delayMs, callback });
      return id;
    },
    cancel: (handle) => void due.delete(handle as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        let first: [number, { at: number; callback: () => void }] | undefined;
        for (const entry of due) if (!first || entry[1].at < first[1].at) first = entry;
        if (!first || first[1].at > end) break;
        due.delete(first[0]);
        now = first[1].at;
        first[1].callback();
      }
      now = end;
    },
  };
}

Deno.test("ChangeGate folds key steps into one send after a pause", () => {
  const timers = manualTimers();
  const sent: { at: number; change: Partial<{ wind: number; snow: number }> }[] = [];
  const gate = new ChangeGate<{ wind: number; snow: number }>(
    (change) => void sent.push({ at: timers.now(), change }),
    { timers, quietMs: 600, minGapMs: 1000 },
  );
  for (let step = 1; step <= 10; step++) {
    gate.push({ wind: step });
    timers.advance(120);
  }
  assert.equal(sent.length, 0);
  timers.advance(600);
  assert.deepEqual(sent.map((s) => s.change), [{ wind: 10 }]);
  assert.equal(gate.pending, null);
});

Deno.test("ChangeGate never sends twice within the gap, and merges what waits", () => {
  const timers = manualTimers();
  const sent: { at: number; change: Partial<{ wind: number; snow: number }> }[] = [];
  const gate = new ChangeGate<{ wind: number; snow: number }>(
    (change) => void sent.push({ at: timers.now(), change }),
    { timers, quietMs: 600, minGapMs: 1000 },
  );
  gate.flush({ snow: 1 });
  timers.advance(0);
  gate.flush({ wind: 3 });
  timers.advance(100);
  gate.flush({ snow: 0.5 });
  timers.advance(2000);
  assert.deepEqual(sent, [
    { at: 0, change: { snow: 1 } },
    { at: 1000, change: { wind: 3, snow: 0.5 } },
  ]);
  // Slow key steps, one every 700 ms: each is sent, but never closer than a second apart.
  for (let i = 0; i < 6; i++) {
    gate.push({ wind: i });
    timers.advance(700);
  }
  timers.advance(2000);
  for (let i = 1; i < sent.length; i++) assert.ok(sent[i].at - sent[i - 1].at >= 1000);
  assert.deepEqual(sent.at(-1)?.change, { wind: 5 });
});

Deno.test("cleanName trims, collapses and cuts names to the protocol's limit", () => {
  assert.equal(cleanName("  Ana   Lopez \n"), "Ana Lopez");
  assert.equal(cleanName("   "), undefined);
  assert.equal(cleanName(""), undefined);
  assert.equal(cleanName(null), undefined);
  assert.equal(cleanName("a\u0000b\u0007c"), "a b c");
  const long = cleanName("x".repeat(40));
  assert.equal(long, "x".repeat(NAME_MAX_LENGTH));
  // A snowman (one UTF-16 unit) stays; an emoji (two units) is never cut in half.
  const emoji = cleanName(`${"y".repeat(NAME_MAX_LENGTH - 1)}😀`);
  assert.equal(emoji, "y".repeat(NAME_MAX_LENGTH - 1));
  assert.equal(cleanName("☃ Snow"), "☃ Snow");
});

Deno.test("ChangeGate keeps a change it could not send and sends it once it can", () => {
  const timers = manualTimers();
  let online = false;
  const sent: Partial<{ wind: number; snow: number }>[] = [];
  const gate = new ChangeGate<{ wind: number; snow: number }>((change) => {
    if (!online) return false;
    sent.push(change);
    return true;
  }, { timers, quietMs: 600, minGapMs: 1000 });
  gate.flush({ snow: 1 });
  timers.advance(100);
  gate.push({ wind: 4 });
  timers.advance(3000);
  assert.equal(sent.length, 0);
  assert.deepEqual(gate.pending, { snow: 1, wind: 4 });
  online = true;
  timers.advance(1000);
  assert.deepEqual(sent, [{ snow: 1, wind: 4 }]);
});
