/**
 * A NATS link's close leaves no request timer behind, even for a request made while it closes:
 * the client library ends pending requests before it counts itself closed, and one made in
 * between would keep its timeout timer running (this file's leak check fails without
 * `cancelLateRequests` in `NatsLink.close`).
 */
import assert from "node:assert/strict";
import { errors } from "@nats-io/transport-node";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";

const NAME = "a NATS link's close ends a request made while it was closing";

Deno.test({ name: NAME, ignore: !requireNats(NAME) }, async () => {
  const nats = await startNatsCluster({ size: 1 });
  try {
    const link = await NatsLink.open(nats.nodeOptions("closing"), () => {});
    const closing = link.close();
    // Still accepted: the client counts itself closed only after its listeners have stopped.
    const late = link.nc.request("snowfire.nobody.answers", "", { timeout: 5000 });
    await closing;
    await assert.rejects(late, (e) => e instanceof errors.RequestError);
    assert.equal(link.nc.isClosed(), true);
  } finally {
    await nats.stop();
  }
});
