/**
 * Lease renewal against a real nats-server: a renewal whose answer was lost but which landed
 * (a timeout during the leases bucket's leader election) is adopted by the next renewal instead
 * of counting as a lost lease (the owner stepped down for it in cluster_nats_kill_test); a lease
 * another node took is still lost.
 */
import assert from "node:assert/strict";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import { acquireLease, isLeaseLost, renewLease } from "../../server/cluster/lease.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";

const NAME = "lease renewal adopts a renewal of its own that landed unanswered, not another's";

Deno.test({ name: NAME, ignore: !requireNats(NAME) }, async (t) => {
  const nats = await startNatsCluster({ size: 1 });
  const options = (nodeId: string) => ({
    natsUrls: nats.urls,
    ...nats.auth,
    nodeId,
    replicas: 1,
    leaseTtlMs: 3000,
  });
  const log = () => {};
  const a = await NatsLink.open(options("a"), log);
  const b = await NatsLink.open(options("b"), log);
  try {
    const lease = await acquireLease(a, "lease-1", "a");
    assert.ok(lease, "a takes the free lease");

    await t.step("a renewal that landed unanswered is adopted", async () => {
      // The lost answer: the write is stored, the lease still names the revision before it.
      const landed = await a.leases.update(
        "lease-1",
        new TextEncoder().encode("a"),
        lease.revision,
      );
      await renewLease(a, lease, "a");
      assert.equal(lease.revision, landed, "the landed renewal's revision is the lease's now");
      await renewLease(a, lease, "a");
      assert.ok(lease.revision > landed, "and the next renewal goes on from it");
    });

    await t.step("a lease that expired and nobody took is taken again", async () => {
      // As the bucket's TTL removes it (its leader's election outlasted the TTL): no entry.
      const expired = await acquireLease(a, "lease-2", "a");
      assert.ok(expired);
      await a.leases.delete("lease-2");
      await renewLease(a, expired, "a");
      const entry = await b.leases.get("lease-2");
      assert.equal(entry?.string(), "a");
      assert.equal(entry?.revision, expired.revision, "the renewal goes on from the new write");
    });

    await t.step("a lease another node wrote is lost", async () => {
      await b.leases.put("lease-1", new TextEncoder().encode("b"));
      const refused = await renewLease(a, lease, "a").then(() => null, (e) => e);
      assert.ok(refused, "the renewal was refused");
      assert.ok(isLeaseLost(refused), `lost, not a NATS failure: ${refused}`);
    });
  } finally {
    await a.close();
    await b.close();
    await nats.stop();
  }
});
