import assert from "node:assert/strict";
import { Session } from "../../scripts/load/session.ts";
import { startTarget } from "../../scripts/load/target.ts";

Deno.test("load session drives agent processes against a child raw server", async () => {
  const target = await startTarget("raw");
  let session: Session | undefined;
  try {
    session = await Session.open(target, 2);
    const connect = await session.populate([{ scene: "s", clients: 6 }]);
    assert.equal(connect.connected, 6);
    assert.equal(session.clientsByScene.get("s"), 6);
    const load = await session.measure([{ scene: "s", launchesPerSecond: 10 }], {
      warmupMs: 300,
      measureMs: 1000,
      drainMs: 300,
      quietWaitMs: 0,
    });
    // Both agents send their share; every accepted launch reaches all 6 clients across processes.
    assert.ok(load.sent >= 8 && load.sent <= 12, `sent ${load.sent}`);
    assert.equal(load.accepted, load.sent);
    assert.equal(load.expectedDeliveries, load.sent * 6);
    assert.equal(load.deliveries, load.expectedDeliveries);
    assert.equal(load.latencyMs.samples, load.deliveries);
    assert.ok(load.latencyMs.p50 >= 0 && load.latencyMs.p99 < 1000, JSON.stringify(load.latencyMs));
    assert.ok(load.serverRssKiB > 1000);
  } finally {
    await session?.close();
    assert.equal(await target.stop(), 0);
  }
});
