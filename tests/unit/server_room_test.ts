/** The Room on its own (fake sockets, injected clock, a real store in a temp dir). */
import assert from "node:assert/strict";
import { TICK_MS, WINDOW_TICKS } from "../../shared/constants.ts";
import type { WelcomeMessage } from "../../shared/protocol.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { ServerClock } from "../../server/scene/clock.ts";
import { DEFAULT_RATE_LIMITS } from "../../server/config.ts";
import { Metrics } from "../../server/scene/metrics.ts";
import { Peer } from "../../server/scene/peer.ts";
import { Room } from "../../server/local/room.ts";
import { SceneStore } from "../../server/local/store.ts";

function fakePeer(id: string, sent: string[]): Peer {
  return new Peer({
    id,
    name: id,
    color: "#ffffff",
    socket: {
      readyState: 1,
      bufferedAmount: 0,
      send: (s: string) => void sent.push(s),
      close() {},
    },
    limits: DEFAULT_RATE_LIMITS,
    maxBufferedBytes: 1 << 20,
    stats: new Metrics(),
  });
}

Deno.test("a flood of events shrinks the resume margin but never the window", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "snowfire-room-" });
  const store = new SceneStore(dir);
  try {
    let mono = 0;
    const clock = new ServerClock(() => 0, () => mono);
    const quiet = initialSnapshot({ show: false });
    store.createScene("flood", 7, 0, quiet);
    const room = new Room(store.getScene("flood")!, {
      store,
      metrics: new Metrics(),
      clock,
      skyCap: 1e9,
      maxPeers: 10,
      desyncTimeoutMs: 3000,
      presenceLimit: 8,
      log: () => {},
      maxRecentEvents: 10,
    });
    const sent: string[] = [];
    const sender = fakePeer("sender", sent);
    room.admit(sender);
    room.hello(sender, undefined, undefined);
    for (let i = 0; i < 30; i++) {
      mono = (i * 20 + 0.5) * TICK_MS;
      room.submit(sender, { type: "settings", settings: { windSpeed: i % 12, snow: i / 30 } });
    }
    mono = 2000.5 * TICK_MS;
    room.persist();
    const all = store.eventsFromSeq("flood", 1, 100);
    assert.equal(all.length, 30);
    const late: string[] = [];
    const joiner = fakePeer("late", late);
    room.admit(joiner);
    room.hello(joiner, undefined, 0);
    const welcome = JSON.parse(late[0]) as WelcomeMessage;
    assert.equal(welcome.resumed, false, "seq 1 is no longer in memory: a full welcome instead");
    assert.equal(welcome.horizon, 2000);
    const expected = advanceSnapshot(quiet, all as SceneEvent[], 2000 - WINDOW_TICKS);
    assert.deepEqual(welcome.snapshot, expected);
    assert.ok(store.getScene("flood")!.snapshot.tick >= 20 * 20, "the stored snapshot moved up");
  } finally {
    await store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
