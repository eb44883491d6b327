/**
 * `NameClaims` against a bucket that keeps revisions like a NATS KV bucket (create refused when
 * the key is live, update and delete by revision) and a set of live processes: one holder per
 * name, names given back on leaving and when taking another, a dead process's names taken over,
 * renewed while held, and never someone else's claim deleted.
 */
import assert from "node:assert/strict";
import type { KV } from "@nats-io/kv";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import {
  NAME_RENEW_MS,
  nameClaimKey,
  NameClaims,
  type ProcessLiveness,
} from "../../server/cluster/name_claims.ts";
import { eventually } from "../../testing/wait.ts";

function wrongLastSequence(): JetStreamApiError {
  return new JetStreamApiError({
    code: 400,
    err_code: JetStreamApiCodes.StreamWrongLastSequence,
    description: "wrong last sequence",
  });
}

/** The part of a KV bucket `NameClaims` uses, in memory. */
class MemoryBucket {
  readonly keys = new Map<string, number>();
  readonly values = new Map<string, string>();
  writes = 0;
  #revision = 0;

  create(key: string, data: Uint8Array): Promise<number> {
    if (this.keys.has(key)) return Promise.reject(wrongLastSequence());
    return Promise.resolve(this.#write(key, data));
  }

  update(key: string, data: Uint8Array, revision: number): Promise<number> {
    if (this.keys.get(key) !== revision) return Promise.reject(wrongLastSequence());
    return Promise.resolve(this.#write(key, data));
  }

  get(key: string) {
    const revision = this.keys.get(key);
    if (revision === undefined) return Promise.resolve(null);
    const value = this.values.get(key)!;
    return Promise.resolve({ revision, operation: "PUT", string: () => value });
  }

  delete(key: string, options: { previousSeq: number }): Promise<void> {
    if (this.keys.get(key) !== options.previousSeq) return Promise.reject(wrongLastSequence());
    this.keys.delete(key);
    return Promise.resolve();
  }

  #write(key: string, data: Uint8Array): number {
    this.keys.set(key, ++this.#revision);
    this.values.set(key, new TextDecoder().decode(data));
    this.writes++;
    return this.#revision;
  }

  /** The TTL passed for `key` (its holder's node died). */
  expire(key: string): void {
    this.keys.delete(key);
  }
}

const holder = (id: string) => ({ id, gone: false });

/** Processes alive: a node's liveness is its instance's presence in `alive`. */
const alive = new Set<string>();
function process(instance: string): ProcessLiveness {
  alive.add(instance);
  return { instance, isAlive: (other) => Promise.resolve(alive.has(other)) };
}
Deno.test("name claims: one holder per name, given back on leaving and renaming", async () => {
  const bucket = new MemoryBucket();
  const a = new NameClaims(bucket as unknown as KV, process("node-a"), () => {});
  const b = new NameClaims(bucket as unknown as KV, process("node-b"), () => {});
  const ana = holder("p1");
  const other = holder("p2");
  assert.equal(await a.claim("pine", ana, "Ana"), true);
  assert.equal(await b.claim("pine", other, "ANA"), false, "same key on another node");
  assert.equal(await b.claim("birch", other, "Ana"), true, "another scene is another key");
  assert.equal(await a.claim("pine", ana, "ana"), true, "the holder's own name (a case change)");
  assert.equal(bucket.writes, 2);

  // Renaming gives the old name back.
  assert.equal(await a.claim("pine", ana, "Bo"), true);
  await eventually(
    "the old name was given back",
    () => !bucket.keys.has(nameClaimKey("pine", "Ana")),
  );
  assert.equal(await b.claim("pine", holder("p3"), "Ana"), true);

  // Leaving gives it back.
  a.release(ana);
  await eventually("the name was given back", () => !bucket.keys.has(nameClaimKey("pine", "Bo")));
  assert.equal(a.size, 0);
});

Deno.test("name claims: renewed while held, never deleting a newer claim", async () => {
  const bucket = new MemoryBucket();
  const a = new NameClaims(bucket as unknown as KV, process("node-a"), () => {});
  const ana = holder("p1");
  await a.claim("pine", ana, "Ana");
  const key = nameClaimKey("pine", "Ana");
  const first = bucket.keys.get(key)!;
  a.pass(0);
  await eventually("renewed", () => bucket.keys.get(key)! > first);
  // Passes go on (as the scheduler's do) until the one a period later renews it, once the first
  // renewal has ended.
  const once = bucket.keys.get(key)!;
  await eventually("renewed a period after its last write", () => {
    a.pass(NAME_RENEW_MS);
    return bucket.keys.get(key)! > once;
  });
  // A pass 1 s later renews nothing; it runs just before one two periods on, in the same turn,
  // which renews: so it met no renewal in flight either.
  const renewed = bucket.keys.get(key)!;
  await eventually("renewed two periods on", () => {
    a.pass(NAME_RENEW_MS + 1000);
    assert.equal(bucket.keys.get(key), renewed, "not more often than the renewal period");
    a.pass(2 * NAME_RENEW_MS);
    return bucket.keys.get(key)! > renewed;
  });

  // Expired (NATS unreachable past the TTL) and taken by someone else meanwhile: the renewal
  // does not take it back, and leaving does not delete the newcomer's claim.
  bucket.expire(key);
  const b = new NameClaims(bucket as unknown as KV, process("node-b"), () => {});
  assert.equal(await b.claim("pine", holder("p9"), "Ana"), true);
  const theirs = bucket.keys.get(key);
  await eventually("the lost name is forgotten", () => {
    a.pass(3 * NAME_RENEW_MS);
    return a.size === 0;
  });
  a.release(ana);
  // A later claim's round trip through the same bucket: a delete the release asked for came first.
  assert.equal(await a.claim("pine", holder("p4"), "Cy"), true);
  assert.equal(bucket.keys.get(key), theirs, "their claim stands");
});

Deno.test("name claims: a holder that left while its claim was asked gives it back", async () => {
  const bucket = new MemoryBucket();
  const a = new NameClaims(bucket as unknown as KV, process("node-a"), () => {});
  const peer = { id: "p1", gone: false };
  const asked = a.claim("pine", peer, "Ana");
  peer.gone = true;
  a.release(peer);
  assert.equal(await asked, true);
  await eventually("the name was given back", () => bucket.keys.size === 0);
  assert.equal(a.size, 0);
});

Deno.test("name claims: a failing bucket lets the name through, logged once", async () => {
  const logged: string[] = [];
  const broken = {
    create: () => Promise.reject(new Error("timeout")),
  };
  const a = new NameClaims(broken as unknown as KV, process("node-a"), (m) => logged.push(m));
  assert.equal(await a.claim("pine", holder("p1"), "Ana"), true);
  assert.equal(await a.claim("pine", holder("p2"), "Ana"), true);
  assert.equal(logged.length, 1);
  assert.match(logged[0], /names bucket failed \(timeout\)/);
});

Deno.test("name claims: each name renewed on its own period, at most 50 a pass", async () => {
  const bucket = new MemoryBucket();
  const a = new NameClaims(bucket as unknown as KV, process("node-a"), () => {});
  for (let i = 0; i < 60; i++) await a.claim("pine", holder(`p${i}`), `Early ${i}`);
  /**
   * The writes of the pass at `nowMs` that renews something (passes go on, as the scheduler's do,
   * until one does: the round before it has ended then). With `quietMs`, a pass at that time runs
   * just before each of them, in the same turn, and must write nothing: when the later one renews,
   * the quiet one met no round in flight either.
   */
  let round = Promise.resolve();
  const renewals = async (nowMs: number, quietMs?: number, quiet?: string) => {
    const before = bucket.writes;
    await eventually(`a pass at ${nowMs} renews`, () => {
      if (quietMs !== undefined) {
        a.pass(quietMs);
        assert.equal(bucket.writes, before, quiet ?? "a pass before its time writes nothing");
      }
      round = a.pass(nowMs);
      return bucket.writes > before;
    });
    return bucket.writes - before;
  };
  assert.equal(await renewals(0), 50, "a backlog goes 50 a pass");
  assert.equal(await renewals(45), 10);
  await round;
  const renewedAll = bucket.writes;
  a.pass(90);
  assert.equal(bucket.writes, renewedAll, "all 60 renewed at 0 or 45: none due");
  a.pass(5000);
  for (let i = 0; i < 10; i++) await a.claim("pine", holder(`q${i}`), `Late ${i}`);
  const period = NAME_RENEW_MS;
  assert.equal(
    await renewals(period, period - 10, "nothing due before its period"),
    50,
    "renewed a period after their last write",
  );
  assert.equal(await renewals(period + 45), 10);
  assert.equal(
    await renewals(
      period + 5_000,
      period + 4_990,
      "names claimed later are not renewed with the others",
    ),
    10,
  );
  assert.equal(a.size, 70);
});

Deno.test("name claims: a name held by a process that died is taken over, a live one's is not", async () => {
  const bucket = new MemoryBucket();
  const a = new NameClaims(bucket as unknown as KV, process("node-a.1"), () => {});
  const b = new NameClaims(bucket as unknown as KV, process("node-b.1"), () => {});
  const key = nameClaimKey("pine", "Ana");
  assert.equal(await a.claim("pine", holder("p1"), "Ana"), true);
  assert.equal(bucket.values.get(key), "node-a.1 p1", "the key names the holding process");
  assert.equal(await b.claim("pine", holder("p2"), "Ana"), false, "node a is alive");

  // Node a's process dies: its key stays (nobody deleted it), but no longer counts.
  alive.delete("node-a.1");
  assert.equal(await b.claim("pine", holder("p2"), "Ana"), true, "taken over");
  assert.equal(bucket.values.get(key), "node-b.1 p2");
  // A restarted node a is another process, and node b's holder is alive.
  const a2 = new NameClaims(bucket as unknown as KV, process("node-a.2"), () => {});
  assert.equal(await a2.claim("pine", holder("p3"), "Ana"), false);
});

Deno.test("name claims: liveness that cannot be told keeps the name its holder's", async () => {
  const bucket = new MemoryBucket();
  const a = new NameClaims(bucket as unknown as KV, process("node-a.9"), () => {});
  assert.equal(await a.claim("pine", holder("p1"), "Ana"), true);
  const blind: ProcessLiveness = {
    instance: "node-b.9",
    isAlive: () => Promise.reject(new Error("timeout")),
  };
  const b = new NameClaims(bucket as unknown as KV, blind, () => {});
  assert.equal(await b.claim("pine", holder("p2"), "Ana"), false);
  assert.equal(bucket.values.get(nameClaimKey("pine", "Ana")), "node-a.9 p1");
});

Deno.test("name claims: people here asking for one name at once ask the bucket once", async () => {
  const bucket = new MemoryBucket();
  let asked = 0;
  const counting = Object.assign(Object.create(bucket), {
    create: (key: string, data: Uint8Array) => {
      asked++;
      return bucket.create(key, data);
    },
  });
  const a = new NameClaims(counting as unknown as KV, process("node-a.5"), () => {});
  const crowd = Array.from({ length: 10 }, (_, i) => holder(`c${i}`));
  const granted = await Promise.all(crowd.map((h) => a.claim("pine", h, "Load")));
  assert.equal(granted.filter((g) => g).length, 1, "one of them holds it");
  assert.equal(asked, 1, "the others were refused here, without a round trip");
  // Given back, it can be asked for again.
  a.release(crowd[granted.indexOf(true)]);
  await eventually("the name was given back", () => bucket.keys.size === 0);
  assert.equal(await a.claim("pine", crowd[0], "Load"), true);
});
