/** The events a room keeps in memory for welcomes and resumes. */
import assert from "node:assert/strict";
import { RecentEvents } from "../../server/scene/recent_events.ts";
import type { SceneEvent } from "../../shared/types.ts";

function event(seq: number, tick: number): SceneEvent {
  return { seq, tick, by: "p", body: { type: "launch", x: 0, z: 0 } };
}

Deno.test("recent events answer by tick and by seq and trim from the front", () => {
  const recent = new RecentEvents();
  for (let i = 1; i <= 10; i++) recent.push(event(i, i * 10));
  assert.deepEqual(recent.fromTick(45).map((e) => e.seq), [5, 6, 7, 8, 9, 10]);
  assert.deepEqual(recent.fromSeq(9).map((e) => e.seq), [9, 10]);
  assert.deepEqual(recent.fromSeq(11), []);
  assert.equal(recent.tickFromEnd(1), 100);
  assert.equal(recent.tickFromEnd(3), 80);
  recent.dropBeforeTick(70);
  assert.equal(recent.firstSeq, 7);
  assert.equal(recent.length, 4);
  assert.deepEqual(recent.fromSeq(1).map((e) => e.seq), [7, 8, 9, 10]);
  assert.throws(() => recent.push(event(12, 200)), RangeError, "a seq gap is refused");
  assert.throws(() => recent.push(event(11, 5)), RangeError, "a tick going back is refused");
});
