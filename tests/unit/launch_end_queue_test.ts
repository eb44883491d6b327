import assert from "node:assert/strict";
import { LaunchEndQueue } from "../../client/render/launch_end_queue.ts";

Deno.test("launch end queue gives back each launch's value once it has ended, earliest end first", () => {
  const queue = new LaunchEndQueue<{ endTick: number }>();
  // End ticks in a scrambled order, some equal (a multiplicative walk over 0..96).
  const ends: number[] = [];
  for (let i = 0; i < 97; i++) ends.push(((i * 37) % 97) >> 1);
  ends.forEach((endTick, value) => queue.push({ endTick }, value));
  assert.equal(queue.size, 97);
  let seen = 0;
  for (let tick = 0; tick <= 50; tick++) {
    for (let value = queue.popEnded(tick); value >= 0; value = queue.popEnded(tick)) {
      assert.ok(ends[value] <= tick, `launch ${value} ends at ${ends[value]}, not by ${tick}`);
      // Nothing that ended earlier is still held.
      for (let i = 0; i < queue.size; i++) assert.ok(queue.itemAt(i).endTick >= ends[value]);
      ends[value] = Infinity;
      seen++;
    }
    for (let i = 0; i < queue.size; i++) assert.ok(queue.itemAt(i).endTick > tick);
  }
  assert.equal(seen, 97);
  assert.equal(queue.popEnded(1000), -1);
  queue.push({ endTick: 5 }, 7);
  queue.clear();
  assert.equal(queue.size, 0);
});
