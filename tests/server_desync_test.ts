/** Desync detection by majority vote over checkpoint hashes. */
import assert from "node:assert/strict";
import { HashVotes } from "../server/scene/desync.ts";

Deno.test("hash votes find the minority once a majority reported", async (t) => {
  await t.step("waits for a majority of eligible peers", () => {
    const votes = new HashVotes(3000);
    votes.report(60, "a", "aa", 0);
    votes.report(60, "b", "aa", 0);
    assert.deepEqual(votes.decide(10, () => 5), []);
    votes.report(60, "c", "bb", 0);
    assert.deepEqual(votes.decide(10, () => 5), [{ tick: 60, minority: ["c"], tie: false }]);
    assert.deepEqual(votes.decide(20, () => 5), [], "a decided tick is not decided twice");
    votes.report(60, "d", "aa", 30);
    votes.report(60, "e", "cc", 30);
    assert.deepEqual(
      votes.decide(40, () => 5),
      [{ tick: 60, minority: ["e"], tie: false }],
      "a late report is judged against the settled majority",
    );
  });
  await t.step("decides with what came after the timeout; a tie blames nobody", () => {
    const votes = new HashVotes(3000);
    votes.report(120, "a", "aa", 0);
    votes.report(120, "b", "bb", 0);
    assert.deepEqual(votes.decide(2999, () => 10), []);
    assert.deepEqual(votes.decide(3000, () => 10), [{ tick: 120, minority: [], tie: true }]);
  });
});
