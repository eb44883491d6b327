/** Unit tests of the server's small parts: clock, token bucket, sky ledger, event window, votes. */
import assert from "node:assert/strict";
import { TICK_MS } from "../shared/constants.ts";
import { SceneClock, ServerClock } from "../server/clock.ts";
import { optionsFromEnv, resolveConfig } from "../server/config.ts";
import { HashVotes } from "../server/desync.ts";
import { SkyLedger } from "../server/ledger.ts";
import { randomPeerName, randomSceneId } from "../server/names.ts";
import { TokenBucket } from "../server/ratelimit.ts";
import { RecentEvents } from "../server/recent_events.ts";
import { originAllowed } from "../server/app.ts";
import { SceneId } from "../shared/protocol.ts";
import type { SceneEvent } from "../shared/types.ts";

function fakeTime(startWall: number) {
  const t = { wall: startWall, mono: 1000 };
  return { t, now: () => t.wall, monotonic: () => t.mono };
}

Deno.test("scene clock counts ticks from the epoch on the monotonic clock", async (t) => {
  await t.step("ticks follow monotonic time, not later wall-clock jumps", () => {
    const { t: time, now, monotonic } = fakeTime(1_000_000);
    const server = new ServerClock(now, monotonic);
    const clock = new SceneClock(server, 1_000_000 - 10.5 * TICK_MS, 0);
    assert.equal(clock.tick(), 10);
    time.mono += 100 * TICK_MS;
    time.wall -= 3_600_000; // the wall clock steps back an hour: ignored while running
    assert.equal(clock.tick(), 110);
  });
  await t.step(
    "never reports a tick below its floor (restart after the wall clock stepped back)",
    () => {
      const { now, monotonic } = fakeTime(1_000_000);
      const server = new ServerClock(now, monotonic);
      const clock = new SceneClock(server, 1_000_000, 500);
      assert.equal(clock.tick(), 500);
      assert.ok(clock.exactTick() >= 500);
    },
  );
});

Deno.test("token bucket grants a burst then refills at its rate", () => {
  const bucket = new TokenBucket({ perSecond: 2, burst: 3 }, 0);
  assert.deepEqual([bucket.take(0), bucket.take(0), bucket.take(0)], [0, 0, 0]);
  const wait = bucket.take(0);
  assert.equal(wait, 500);
  assert.ok(bucket.take(499) > 0);
  assert.equal(bucket.take(500), 0);
});

Deno.test("sky ledger admits up to its cap and says when room frees up", () => {
  const ledger = new SkyLedger(1000);
  assert.deepEqual(ledger.admit(600, 100, 0), { ok: true });
  assert.deepEqual(ledger.admit(300, 50, 0), { ok: true });
  assert.deepEqual(ledger.admit(400, 200, 10), { ok: false, retryAfterTicks: 40 });
  assert.equal(ledger.used(10), 900);
  assert.deepEqual(ledger.admit(400, 200, 50), { ok: true }, "the 300 expired at tick 50");
  assert.deepEqual(ledger.admit(2000, 300, 60), { ok: false, retryAfterTicks: null });
  assert.deepEqual(ledger.admit(0, 60, 60), { ok: true }, "settings cost nothing");
  assert.equal(ledger.used(60), 1000);
  assert.equal(ledger.used(100), 400);
  assert.equal(ledger.used(100_000), 0, "a long idle gap releases everything");
  for (let i = 0; i < 10_000; i++) ledger.restore(1, 100_001 + (i % 400), 100_000);
  assert.equal(ledger.used(100_000), 10_000);
  assert.equal(ledger.used(100_200), 5_000, "reservations end at their own ticks");
  assert.throws(() => ledger.restore(1, 200_000, 100_200), RangeError);
});

function event(seq: number, tick: number): SceneEvent {
  return { seq, tick, by: "p", body: { type: "launch", x: 0, z: 0 } };
}

Deno.test("recent events answer by tick and by seq and trim from the front", () => {
  const recent = new RecentEvents();
  for (let i = 1; i <= 10; i++) recent.push(event(i, i * 10));
  assert.deepEqual(recent.fromTick(45).map((e) => e.seq), [5, 6, 7, 8, 9, 10]);
  assert.deepEqual(recent.fromSeq(9).map((e) => e.seq), [9, 10]);
  assert.deepEqual(recent.fromSeq(11), []);
  assert.equal(recent.tickFromEnd(1), 100);
  assert.equal(recent.tickFromEnd(3), 80);
  recent.dropBeforeTick(70);
  assert.equal(recent.firstSeq, 7);
  assert.equal(recent.length, 4);
  assert.deepEqual(recent.fromSeq(1).map((e) => e.seq), [7, 8, 9, 10]);
  assert.throws(() => recent.push(event(12, 200)), RangeError, "a seq gap is refused");
  assert.throws(() => recent.push(event(11, 5)), RangeError, "a tick going back is refused");
});

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

Deno.test("names are valid scene ids and readable peer names", () => {
  for (let i = 0; i < 200; i++) {
    const id = randomSceneId();
    assert.ok(SceneId.safeParse(id).success, id);
    assert.match(id, /^[a-z]+-[a-z]+-\d{4}$/);
    assert.match(randomPeerName(), /^[A-Z][a-z]+ [A-Z][a-z]+$/);
  }
});

Deno.test("origin check allows same host, listed origins and non-browsers only", () => {
  const own = "http://localhost:8000";
  assert.ok(originAllowed("http://localhost:8000", own, []));
  assert.ok(originAllowed(undefined, own, []));
  assert.ok(!originAllowed("http://evil.test", own, []));
  assert.ok(originAllowed("http://friend.test", own, ["http://friend.test"]));
  assert.ok(originAllowed("http://anyone.test", own, ["*"]));
  assert.ok(!originAllowed("not a url", own, []));
  // The scheme counts: an http page is not the https site, nor the other way round.
  assert.ok(!originAllowed("https://localhost:8000", own, []));
  assert.ok(!originAllowed("http://snow.example", "https://snow.example", []));
  assert.ok(originAllowed("https://snow.example", "https://snow.example:443", []));
});

Deno.test("config reads the environment and rejects nonsense", () => {
  const env: Record<string, string> = {
    PORT: "9000",
    SKY_CAP: "5000",
    ALLOWED_ORIGINS: "http://a.test, http://b.test",
    RATE_LAUNCH: "10/20",
  };
  const options = optionsFromEnv((name) => env[name]);
  const config = resolveConfig(options);
  assert.equal(config.port, 9000);
  assert.equal(config.hostname, "0.0.0.0");
  assert.equal(config.skyCap, 5000);
  assert.deepEqual(config.allowedOrigins, ["http://a.test", "http://b.test"]);
  assert.deepEqual(config.rateLimits.launch, { perSecond: 10, burst: 20 });
  assert.equal(config.rateLimits.gun.perSecond, 10);
  assert.throws(() => optionsFromEnv((n) => (n === "RATE_GUN" ? "fast" : undefined)), RangeError);
  assert.throws(() => resolveConfig({ dataDir: "x", port: -1 }), RangeError);
  assert.throws(() => resolveConfig({ dataDir: "x", heartbeatMs: 80 }), RangeError);
});
