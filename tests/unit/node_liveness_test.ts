/**
 * `NodeLiveness` against an in-memory bucket: a process's key is written on passes a third of the
 * TTL apart, another process is alive while its key is there, and "alive" answers are reused for
 * a third of the TTL (a crowd's refused name claims ask about the same few processes).
 */
import assert from "node:assert/strict";
import type { KV } from "@nats-io/kv";
import { NodeLiveness } from "../../server/cluster/node_liveness.ts";
import { eventually } from "../../testing/wait.ts";

class MemoryKeys {
  readonly keys = new Set<string>();
  puts = 0;
  gets = 0;

  put(key: string): Promise<number> {
    this.keys.add(key);
    this.puts++;
    return Promise.resolve(this.puts);
  }

  get(key: string) {
    this.gets++;
    return Promise.resolve(this.keys.has(key) ? { operation: "PUT" } : null);
  }

  delete(key: string): Promise<void> {
    this.keys.delete(key);
    return Promise.resolve();
  }
}

Deno.test("node liveness writes its key every third of the TTL and tells who is alive", async () => {
  const kv = new MemoryKeys();
  let now = 0;
  const a = new NodeLiveness(kv as unknown as KV, "node-a", 3000, () => now);
  const b = new NodeLiveness(kv as unknown as KV, "node-b", 3000, () => now);
  assert.match(a.instance, /^node-a\.[0-9a-f]{8}$/);
  /** Writes so far (read through a call: an assertion on it must not narrow the later reads). */
  const puts = () => kv.puts;
  a.pass(0);
  assert.equal(puts(), 1);
  // Passes at 999 and 1000 go on (as the scheduler's do) until the one at 1000 writes, once the
  // first write has ended: the pass at 999 just before it, in the same turn, met no write in
  // flight either, and wrote nothing.
  await eventually("a pass a third of the TTL later writes", () => {
    a.pass(999);
    assert.equal(puts(), 1, "not before a third of the TTL");
    a.pass(1000);
    return puts() === 2;
  });

  assert.equal(await b.isAlive(a.instance), true);
  assert.equal(await b.isAlive(b.instance), true, "itself, without asking");
  assert.equal(kv.gets, 1);
  now = 999;
  assert.equal(await b.isAlive(a.instance), true);
  assert.equal(kv.gets, 1, "an alive answer is reused for a third of the TTL");

  // Node a stops: its key goes (as it would expire), and b hears it once its answer is old.
  await a.close();
  assert.equal(await b.isAlive(a.instance), true, "still the cached answer");
  now = 1000;
  assert.equal(await b.isAlive(a.instance), false);
  assert.equal(await b.isAlive(a.instance), false, "a dead answer is not cached as alive");
  assert.equal(kv.gets, 3);
});
