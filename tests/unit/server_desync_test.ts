/** Desync arbitration: the server's computed truth, not a majority of reports, decides. */
import assert from "node:assert/strict";
import {
  DEFAULT_DESYNC_LIMITS,
  type DesyncAction,
  DesyncJudge,
} from "../../server/scene/desync.ts";

/** A judge whose truth at every tick is `truth`, recording what it is asked and decides. */
function judgeWith(truth: string | undefined, limits = {}) {
  const asked: number[] = [];
  const acted: DesyncAction[][] = [];
  const stats = { desyncArbitrations: 0, desyncUnsettled: 0 };
  const judge = new DesyncJudge({ ...DEFAULT_DESYNC_LIMITS, ...limits }, (tick) => {
    asked.push(tick);
    return truth === undefined ? undefined : Promise.resolve(truth);
  }, stats);
  const decide = async (nowMs: number, eligible = 3) => {
    judge.decide(nowMs, () => eligible, (actions) => acted.push(actions));
    await Promise.resolve();
  };
  return { judge, asked, acted, stats, decide };
}

Deno.test("desync judge settles agreement without computing anything", async () => {
  const { judge, asked, acted, decide } = judgeWith("aa");
  judge.report(60, "a", "aa", 0);
  judge.report(60, "b", "aa", 0);
  await decide(10, 2);
  assert.equal(judge.pending, false);
  assert.deepEqual(asked, []);
  assert.deepEqual(acted, []);
});

Deno.test("desync judge resyncs only who differs from the computed truth, even a majority", async () => {
  const { judge, asked, acted, stats, decide } = judgeWith("aa");
  judge.report(60, "liar1", "bb", 0);
  judge.report(60, "liar2", "bb", 0);
  judge.report(60, "honest", "aa", 0);
  await decide(10);
  assert.deepEqual(asked, [60]);
  assert.deepEqual(acted, [[
    { kind: "resync", peer: "liar1", tick: 60 },
    { kind: "resync", peer: "liar2", tick: 60 },
  ]]);
  assert.equal(stats.desyncArbitrations, 1);
});

Deno.test("desync judge waits for every eligible report or the timeout", async () => {
  const { judge, asked, decide } = judgeWith("aa", { timeoutMs: 3000 });
  judge.report(120, "a", "aa", 0);
  judge.report(120, "b", "bb", 0);
  await decide(2999, 3);
  assert.deepEqual(asked, [], "one of three still to report");
  await decide(3000, 3);
  assert.deepEqual(asked, [120]);
});

Deno.test("desync judge resyncs nobody when the truth cannot be computed", async () => {
  const { judge, acted, stats, decide } = judgeWith(undefined);
  judge.report(60, "a", "aa", 0);
  judge.report(60, "b", "bb", 0);
  await decide(10, 2);
  assert.deepEqual(acted, []);
  assert.equal(stats.desyncUnsettled, 1);
  assert.equal(judge.pending, false);
});

Deno.test("desync judge disconnects a peer wrong again and again", async () => {
  const { judge, acted, decide } = judgeWith("aa", {
    arbitrationIntervalMs: 0,
    resyncIntervalMs: 0,
    strikesToDisconnect: 3,
  });
  for (let i = 1; i <= 3; i++) {
    judge.report(60 * i, "liar", "bb", i * 100);
    judge.report(60 * i, "honest", "aa", i * 100);
    await decide(i * 100 + 10, 2);
  }
  assert.deepEqual(acted.map((a) => a.map((x) => x.kind)), [["resync"], ["resync"], [
    "disconnect",
  ]]);
  assert.deepEqual(acted[2][0], { kind: "disconnect", peer: "liar", tick: 180, strikes: 3 });
});

Deno.test("desync judge forgets a resynced peer's pending reports", async () => {
  const { judge, acted, decide } = judgeWith("aa", { arbitrationIntervalMs: 0 });
  judge.report(60, "liar", "bb", 0);
  judge.report(60, "honest", "aa", 0);
  // Its report for the next checkpoint describes the world it is about to rebuild.
  judge.report(120, "liar", "cc", 0);
  await decide(10, 2);
  assert.deepEqual(acted, [[{ kind: "resync", peer: "liar", tick: 60 }]]);
  judge.report(120, "honest", "aa", 20);
  await decide(30, 1);
  assert.deepEqual(acted.length, 1, "tick 120 settles on the honest report alone");
});
