import assert from "node:assert/strict";
import { SubmitOrder } from "../server/cluster/submit_order.ts";

Deno.test("SubmitOrder keeps a person's submits in order while one is retried", async (t) => {
  await t.step("submits go straight through while nothing is retried", () => {
    const order = new SubmitOrder<string, string>();
    assert.equal(order.hold("ana", "launch 1"), false);
    assert.equal(order.hold("ana", "launch 2"), false);
    // Answered without a retry: nothing waited behind them.
    assert.equal(order.settled("ana", "launch 1"), undefined);
    assert.equal(order.settled("ana", "launch 2"), undefined);
    assert.equal(order.waiting("ana"), 0);
  });

  await t.step("later submits wait behind the retried one and go one at a time", () => {
    const order = new SubmitOrder<string, string>();
    assert.equal(order.hold("ana", "settings"), false);
    order.retrying("ana", "settings");
    assert.equal(order.hold("ana", "launch"), true);
    assert.equal(order.hold("ana", "gun"), true);
    assert.equal(order.waiting("ana"), 2);
    // Another person is not held up.
    assert.equal(order.hold("ben", "launch"), false);
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
    assert.equal(order.hold("ana", "launch 3"), false, "no longer held");
  });

  await t.step("a released submit that finds no owner again is waited for in turn", () => {
    const order = new SubmitOrder<string, string>();
    order.retrying("ana", "a");
    order.hold("ana", "b");
    order.hold("ana", "c");
    assert.equal(order.settled("ana", "a"), "b");
    order.retrying("ana", "b");
    assert.equal(order.hold("ana", "d"), true);
    assert.equal(order.settled("ana", "b"), "c");
    assert.equal(order.settled("ana", "c"), "d");
  });

  await t.step("only the submit waited for releases the others", () => {
    const order = new SubmitOrder<string, string>();
    order.retrying("ana", "first");
    // Sent before the hold began and retried too: it does not take the lead.
    order.retrying("ana", "concurrent");
    order.hold("ana", "later");
    assert.equal(order.settled("ana", "concurrent"), undefined);
    assert.equal(order.waiting("ana"), 1);
    assert.equal(order.settled("ana", "first"), "later");
  });

  await t.step("a person who left, or a closed edge, leaves nothing waiting", () => {
    const order = new SubmitOrder<string, string>();
    order.retrying("ana", "a");
    order.hold("ana", "b");
    order.retrying("ben", "x");
    order.hold("ben", "y");
    order.drop("ana");
    assert.equal(order.settled("ana", "a"), undefined);
    assert.equal(order.hold("ana", "c"), false);
    order.clear();
    assert.equal(order.waiting("ben"), 0);
    assert.equal(order.settled("ben", "x"), undefined);
  });
});
