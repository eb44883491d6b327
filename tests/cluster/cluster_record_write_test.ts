/**
 * A scene record write whose answer was lost (sent into a NATS server that died) is tried again by
 * the owner (`JetStreamSceneLog`); the retry is refused as stale when the first try landed, and
 * `revisionOf` then tells the owner's own write (byte for byte the record sent) from another
 * owner's, against a real nats-server.
 */
import assert from "node:assert/strict";
import { NatsLink } from "../../server/cluster/nats_link.ts";
import {
  createRecord,
  revisionOf,
  type SceneRecord,
  StaleRecordError,
  updateRecord,
} from "../../server/cluster/scene_records.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { requireNats, startNatsCluster } from "../../testing/nats_cluster.ts";

const NAME = "a record write that landed unanswered is told from another owner's";

Deno.test({ name: NAME, ignore: !requireNats(NAME) }, async () => {
  const nats = await startNatsCluster({ size: 1 });
  const link = await NatsLink.open(
    { natsUrls: nats.urls, ...nats.auth, nodeId: "a", replicas: 1, leaseTtlMs: 3000 },
    () => {},
  );
  try {
    const record: SceneRecord = {
      seed: 7,
      epoch: 1,
      reserved: 0,
      showCursor: 0,
      snapshot: initialSnapshot(),
      snapshotStreamSeq: 0,
    };
    assert.ok(await createRecord(link, "rec", record));
    const created = await revisionOf(link, "rec", record);
    assert.ok(created !== null, "the created record is found as written");
    const next: SceneRecord = { ...record, reserved: 30 };
    // The first try lands (its answer lost); the retry at the same revision is refused.
    const landed = await updateRecord(link, "rec", next, created);
    const retry = await updateRecord(link, "rec", next, created).then(() => null, (e) => e);
    assert.ok(retry instanceof StaleRecordError, `the retry is stale: ${retry}`);
    assert.equal(await revisionOf(link, "rec", next), landed, "ours: adopted at its revision");
    // Another owner's record at a later revision is not ours.
    await updateRecord(link, "rec", { ...next, reserved: 60 }, landed);
    assert.equal(await revisionOf(link, "rec", next), null, "another's write is not adopted");
  } finally {
    await link.close();
    await nats.stop();
  }
});
