/**
 * A NATS link's close leaves no request timer behind, even for a request made while it closes:
 * the client library ends pending requests before it counts itself closed, and one made in
 * between would keep its timeout timer running (this file's leak check fails when the link's
 * connection is not wrapped by `refusingWhileClosing`, server/cluster/closing_connection.ts).
 */
import assert from "node:assert/strict";
import { ClosedConnectionError, errors } from "@nats-io/transport-node";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";

const NAME = "a NATS link's close ends a request made while it was closing";

Deno.test({ name: NAME, ignore: !requireNats(NAME) }, async () => {
  const nats = await startNatsCluster({ size: 1 });
  try {
    const link = await NatsLink.open(nats.nodeOptions("closing"), () => {});
    const early = assert.rejects(
      link.nc.request("snowfire.nobody.answers", "", { timeout: 5000 }),
      (e) => e instanceof errors.RequestError,
    );
    const closing = link.close();
    // The client would still accept this one: it counts itself closed only after its
    // listeners have stopped. The link refuses it at once.
    const late = assert.rejects(
      link.nc.request("snowfire.nobody.answers", "", { timeout: 5000 }),
      (e) => e instanceof ClosedConnectionError,
    );
    await closing;
    await early;
    await late;
    assert.equal(link.nc.isClosed(), true);
  } finally {
    await nats.stop();
  }
});
