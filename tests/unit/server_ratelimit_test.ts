/** Per-connection token buckets. */
import assert from "node:assert/strict";
import { TokenBucket } from "../../server/scene/ratelimit.ts";

Deno.test("token bucket grants a burst then refills at its rate", () => {
  const bucket = new TokenBucket({ perSecond: 2, burst: 3 }, 0);
  assert.deepEqual([bucket.take(0), bucket.take(0), bucket.take(0)], [0, 0, 0]);
  const wait = bucket.take(0);
  assert.equal(wait, 500);
  assert.ok(bucket.take(499) > 0);
  assert.equal(bucket.take(500), 0);
});
