/**
 * The three NATS JetStream primitives cluster mode is built on, against a real nats-server:
 * a publish with an expected last subject sequence refuses a stale writer; KV create and
 * update-by-revision in a bucket with a TTL; and reading a subject's last message.
 */
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";
import { eventually } from "../../testing/wait.ts";

const haveNats = requireNats("NATS primitives");

Deno.test({
  name: "NATS primitives behave as cluster mode relies on",
  ignore: !haveNats,
  async fn(t) {
    const server = await startNatsCluster({ size: 1 });
    const nc = await connect({ servers: server.urls, ...server.admin });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: "PRIM", subjects: ["prim.>"], storage: "file" });
      const js = jetstream(nc);
      const enc = new TextEncoder();

      await t.step(
        "publish with expected last subject sequence refuses a stale writer",
        async () => {
          const a = await js.publish("prim.a", enc.encode("1"), {
            expect: { lastSubjectSequence: 0 },
          });
          await js.publish("prim.b", enc.encode("other subject"));
          const b = await js.publish("prim.a", enc.encode("2"), {
            expect: { lastSubjectSequence: a.seq },
          });
          assert.ok(b.seq > a.seq);
          // A writer that still believes `a` is the last message on prim.a is refused.
          await assert.rejects(
            js.publish("prim.a", enc.encode("stale"), { expect: { lastSubjectSequence: a.seq } }),
            /wrong last sequence/,
          );
        },
      );

      await t.step("last message for a subject", async () => {
        const last = await jsm.streams.getMessage("PRIM", { last_by_subj: "prim.a" });
        assert.equal(last?.string(), "2");
        const none = await jsm.streams.getMessage("PRIM", { last_by_subj: "prim.none" });
        assert.equal(none, null);
      });

      await t.step("next message for a subject at or after a stream sequence", async () => {
        // prim.a: seqs 1 and 3; prim.b: 2 (from the first step). From 2, prim.a's next is 3.
        const request = { seq: 2, next_by_subj: "prim.a" } as unknown as { seq: number };
        const next = await jsm.streams.getMessage("PRIM", request);
        assert.equal(next?.seq, 3);
        assert.equal(next?.string(), "2");
      });

      await t.step("KV create and update by revision in a TTL bucket", async () => {
        const kv = await new Kvm(nc).create("prim_leases", { ttl: 1000 });
        const rev = await kv.create("scene-1", enc.encode("node-a"));
        await assert.rejects(kv.create("scene-1", enc.encode("node-b")));
        const rev2 = await kv.update("scene-1", enc.encode("node-a"), rev);
        assert.ok(rev2 > rev);
        // A renewal with the old revision is refused: someone else's write came between.
        await assert.rejects(kv.update("scene-1", enc.encode("node-a"), rev));
        // After the bucket TTL the entry is gone and another node can create it.
        await eventually("the entry expired by the bucket TTL", async () => {
          return await kv.get("scene-1") === null;
        }, 10_000);
        const rev3 = await kv.create("scene-1", enc.encode("node-b"));
        assert.ok(rev3 > rev2);
        assert.equal((await kv.get("scene-1"))?.string(), "node-b");
      });
    } finally {
      await nc.close();
      await server.stop();
    }
  },
});
