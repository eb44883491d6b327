/**
 * A late joiner's world, rebuilt from its welcome alone (snapshot at T − W plus the window's
 * events), hashes equal to a veteran's world that has followed the scene since tick 0.
 */
import assert from "node:assert/strict";
import { WINDOW_TICKS } from "../../shared/constants.ts";
import type { ServerMessage } from "../../shared/protocol.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { worldFromWindow } from "../../shared/world.ts";
import { derivedLaunchesOver } from "../../shared/derived.ts";
import { finaleEnd } from "../../shared/finale.ts";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import { RESUME_MARGIN_TICKS } from "../../server/local/room.ts";
import { SceneStore } from "../../server/local/store.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer, withServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

/** Scene time runs 4× faster than real time, so the window W passes in two real seconds. */
const SPEED = 4;

function asEvent(m: ServerMessage): SceneEvent | null {
  if (m.t !== "event") return null;
  const { t: _t, ...event } = m;
  return event;
}

Deno.test("a late joiner's replay hash equals a veteran's at a common tick", async () => {
  // The scene's show is on (the default) and its creator starts a countdown whose finale plays in
  // the late joiner's window: both are derived by each world, not stored (issue 33, item 4).
  await withServer({ monotonic: () => performance.now() * SPEED }, async (server) => {
    const scene = "late-comer-1";
    const { client: veteran, welcome: wa } = await TestClient.join(server.url, scene);
    assert.equal(wa.snapshot.tick, 0, "the veteran joined a young scene: it sees everything");
    veteran.submit({
      type: "settings",
      settings: { windSpeed: 7, windDirection: 200, theme: "blue-silver", snow: 0.2 },
    });
    veteran.submit({ type: "launch", x: 10, z: -12 });
    veteran.submit({ type: "gun", origin: [0, 3, 40], direction: [0.1, 0.4, -1] });
    veteran.send({
      t: "host",
      action: { do: "countdown", in: 5, seconds: 10, intensity: 3 },
    });
    await veteran.waitFor((m) =>
      m.t === "event" && m.body.type === "rules" && m.body.do === "countdown"
    );
    const settingsEvent = await veteran.waitFor((m) =>
      m.t === "event" && m.body.type === "settings"
    );
    const settingsTick = settingsEvent.t === "event" ? settingsEvent.tick : 0;

    // Let the settings change fall out of the window, then launch once more just before B joins.
    await veteran.waitFor((m) => m.t === "tick" && m.n > settingsTick + WINDOW_TICKS + 60, 10_000);
    veteran.submit({ type: "launch", x: -20, z: 5, theme: "rainbow" });
    await veteran.waitFor((m) =>
      m.t === "event" && m.by === wa.you.id && m.tick > settingsTick + WINDOW_TICKS
    );

    const { client: late, welcome: wb } = await TestClient.join(server.url, scene);
    assert.ok(wb.snapshot.tick > settingsTick, "the settings change is inside the snapshot");
    assert.equal(wb.snapshot.tick, wb.horizon - WINDOW_TICKS);
    assert.equal(wb.snapshot.settings.windSpeed, 7);
    assert.equal(wb.snapshot.settings.theme, "blue-silver");
    assert.ok(wb.events.every((e) => e.tick >= wb.snapshot.tick));

    await eventually(
      "the veteran has every event the late joiner has",
      () => veteran.events().some((e) => e.seq === wb.lastSeq) || wb.lastSeq === wa.lastSeq,
    );
    const veteranEvents = [
      ...wa.events,
      ...veteran.messages.map(asEvent).filter((e): e is SceneEvent => e !== null),
    ].filter((e) => e.seq <= wb.lastSeq);
    const common = wb.horizon + 30;
    const options = { seed: wa.seed, capacity: wb.skyCap, tick: common };
    const veteranWorld = worldFromWindow({
      ...options,
      snapshot: wa.snapshot,
      events: veteranEvents,
    });
    const lateWorld = worldFromWindow({ ...options, snapshot: wb.snapshot, events: wb.events });
    assert.ok(lateWorld.liveParticles() > 0, "the comparison covers live fireworks");
    const countdown = advanceSnapshot(wb.snapshot, wb.events, common).rules?.countdown ?? null;
    assert.ok(countdown !== null, "the late joiner knows the countdown");
    const finale = derivedLaunchesOver(wa.seed, wb.snapshot, wb.events, wb.snapshot.tick, common)
      .filter((l) => l.tick >= countdown.tick && l.tick < finaleEnd(countdown));
    assert.ok(finale.length >= 5, `the finale plays in the window (${finale.length} launches)`);
    assert.ok(
      veteranEvents.every((e) => e.by !== "show"),
      "neither the show nor the finale stored a launch",
    );
    assert.equal(lateWorld.derivedSkipped + veteranWorld.derivedSkipped, 0);
    assert.equal(lateWorld.hash(), veteranWorld.hash());
    await Promise.all([veteran.close(), late.close()]);
  });
});

Deno.test("the stored snapshot moves forward and welcomes stay exact, also after a restart", async () => {
  // 50× scene time: the snapshot trails T − W − 60 s and steps every 10 s of scene time.
  const fast = {
    now: () => performance.timeOrigin + performance.now() * 50,
    monotonic: () => performance.now() * 50,
  };
  const dataDir = await Deno.makeTempDir({ prefix: "snowfire-snapshot-" });
  const scene = "long-night-1";
  try {
    const first = await startTestServer({ dataDir, ...fast });
    const { client, welcome } = await TestClient.join(first.url, scene);
    client.submit({ type: "settings", settings: { windSpeed: 9, windDirection: 120 } });
    const changed = await client.waitFor((m) => m.t === "event" && m.body.type === "settings");
    assert.ok(changed.t === "event");
    const changedTick = changed.tick;
    const changedSeq = changed.seq;
    // Past the resume margin and one snapshot step, the change is folded into the stored snapshot.
    await client.waitFor(
      (m) => m.t === "tick" && m.n > changedTick + WINDOW_TICKS + RESUME_MARGIN_TICKS + 1200,
      20_000,
    );
    client.submit({ type: "settings", settings: { snow: 0.9 } });
    await client.waitFor((m) =>
      m.t === "event" && m.body.type === "settings" && m.seq > changedSeq
    );
    await client.close();
    const stored = new SceneStore(dataDir);
    const row = stored.getScene(scene)!;
    await stored.close();
    assert.ok(row.snapshot.tick > changedTick, "the stored snapshot moved past the change");
    await first.shutdown();

    const second = await startTestServer({ dataDir, ...fast });
    try {
      const { client: late, welcome: wb } = await TestClient.join(second.url, scene);
      const log = await (await fetch(`${second.url}/api/scenes/${scene}/log?limit=5000`)).json();
      const expected = advanceSnapshot(initialSnapshot(), log.events, wb.horizon - WINDOW_TICKS);
      assert.deepEqual(wb.snapshot, expected);
      assert.equal(wb.snapshot.settings.windSpeed, 9);
      assert.deepEqual(
        wb.events,
        log.events.filter((e: SceneEvent) => e.tick >= wb.snapshot.tick && e.seq <= wb.lastSeq),
      );
      assert.equal(wb.seed, welcome.seed);
      await late.close();
    } finally {
      await second.shutdown();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
