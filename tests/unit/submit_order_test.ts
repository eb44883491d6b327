import assert from "node:assert/strict";
import { SubmitOrder } from "../../server/cluster/submit_order.ts";

Deno.test("SubmitOrder keeps a person's submits in order, one in flight at a time", async (t) => {
  await t.step("a submit goes at once when none of the person's is in flight", () => {
    const order = new SubmitOrder<string, string>();
    assert.equal(order.hold("ana", "launch 1"), false);
    assert.equal(order.settled("ana", "launch 1"), undefined);
    assert.equal(order.hold("ana", "launch 2"), false);
    // Another person is not held up by ana's.
    assert.equal(order.hold("ben", "launch"), false);
    assert.equal(order.waiting("ana"), 0);
  });

  await t.step("a submit made while one is in flight waits for its answer", () => {
    const order = new SubmitOrder<string, string>();
    assert.equal(order.hold("ana", "settings"), false);
    // Made before the settings change had any answer: it may yet be asked again, so the
    // launch must not overtake it.
    assert.equal(order.hold("ana", "launch"), true);
    assert.equal(order.waiting("ana"), 1);
    assert.equal(order.retried("ana"), false);
    // The settings change finds no owner after the launch was made: still first.
    order.retrying("ana", "settings");
    assert.equal(order.retried("ana"), true);
    assert.equal(order.settled("ana", "settings"), "launch");
    assert.equal(order.retried("ana"), false, "the launch is in flight, not asked again");
    assert.equal(order.settled("ana", "launch"), undefined);
    assert.equal(order.hold("ana", "launch 2"), false, "no longer held");
  });

  await t.step("later submits wait behind the retried one and go one at a time", () => {
    const order = new SubmitOrder<string, string>();
    assert.equal(order.hold("ana", "settings"), false);
    order.retrying("ana", "settings");
    assert.equal(order.hold("ana", "launch"), true);
    assert.equal(order.hold("ana", "gun"), true);
    assert.equal(order.waiting("ana"), 2);
    // Asked again, still no answer: still the one waited for.
    order.retrying("ana", "settings");
    assert.equal(order.waiting("ana"), 2);
    // Stamped: the launch goes, and the gun waits for the launch's answer.
    assert.equal(order.settled("ana", "settings"), "launch");
    assert.equal(order.waiting("ana"), 1);
    // A submit made meanwhile queues after the gun.
    assert.equal(order.hold("ana", "settings 2"), true);
    assert.equal(order.settled("ana", "launch"), "gun");
    assert.equal(order.settled("ana", "gun"), "settings 2");
    assert.equal(order.settled("ana", "settings 2"), undefined);
  });

  await t.step("a released submit that finds no owner again is waited for in turn", () => {
    const order = new SubmitOrder<string, string>();
    order.hold("ana", "a");
    order.retrying("ana", "a");
    order.hold("ana", "b");
    order.hold("ana", "c");
    assert.equal(order.settled("ana", "a"), "b");
    order.retrying("ana", "b");
    assert.equal(order.retried("ana"), true);
    assert.equal(order.hold("ana", "d"), true);
    assert.equal(order.settled("ana", "b"), "c");
    assert.equal(order.settled("ana", "c"), "d");
  });

  await t.step("only the submit in flight releases the others or counts as retried", () => {
    const order = new SubmitOrder<string, string>();
    order.hold("ana", "first");
    order.hold("ana", "later");
    order.retrying("ana", "later");
    assert.equal(order.retried("ana"), false);
    assert.equal(order.settled("ana", "later"), undefined);
    assert.equal(order.waiting("ana"), 1);
    assert.equal(order.settled("ana", "first"), "later");
  });

  await t.step("a person who left, or a closed edge, leaves nothing waiting", () => {
    const order = new SubmitOrder<string, string>();
    order.hold("ana", "a");
    order.hold("ana", "b");
    order.hold("ben", "x");
    order.retrying("ben", "x");
    order.hold("ben", "y");
    order.drop("ana");
    assert.equal(order.settled("ana", "a"), undefined);
    assert.equal(order.hold("ana", "c"), false);
    order.clear();
    assert.equal(order.waiting("ben"), 0);
    assert.equal(order.retried("ben"), false);
    assert.equal(order.settled("ben", "x"), undefined);
  });
});
