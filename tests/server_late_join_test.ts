/**
 * A late joiner's world, rebuilt from its welcome alone (snapshot at T − W plus the window's
 * events), hashes equal to a veteran's world that has followed the scene since tick 0.
 */
import assert from "node:assert/strict";
import { WINDOW_TICKS } from "../shared/constants.ts";
import type { ServerMessage } from "../shared/protocol.ts";
import type { SceneEvent } from "../shared/types.ts";
import { worldFromWindow } from "../shared/world.ts";
import { eventually, TestClient, withServer } from "./helpers/server_harness.ts";

/** Scene time runs 4× faster than real time, so the window W passes in two real seconds. */
const SPEED = 4;

function asEvent(m: ServerMessage): SceneEvent | null {
  if (m.t !== "event") return null;
  const { t: _t, ...event } = m;
  return event;
}

Deno.test("a late joiner's replay hash equals a veteran's at a common tick", async () => {
  await withServer({ monotonic: () => performance.now() * SPEED }, async (server) => {
    const scene = "late-comer-1";
    const { client: veteran, welcome: wa } = await TestClient.join(server.url, scene);
    assert.equal(wa.snapshot.tick, 0, "the veteran joined a young scene: it sees everything");
    veteran.send({
      t: "settings",
      settings: { windSpeed: 7, windDirection: 200, theme: "blue-silver", snow: 0.2 },
    });
    veteran.send({ t: "launch", x: 10, z: -12 });
    veteran.send({ t: "gun", origin: [0, 3, 40], direction: [0.1, 0.4, -1] });
    const settingsEvent = await veteran.waitFor((m) =>
      m.t === "event" && m.body.type === "settings"
    );
    const settingsTick = settingsEvent.t === "event" ? settingsEvent.tick : 0;

    // Let the settings change fall out of the window, then launch once more just before B joins.
    await veteran.waitFor((m) => m.t === "tick" && m.n > settingsTick + WINDOW_TICKS + 60, 10_000);
    veteran.send({ t: "launch", x: -20, z: 5, theme: "rainbow" });
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
    assert.equal(lateWorld.hash(), veteranWorld.hash());
    await Promise.all([veteran.close(), late.close()]);
  });
});
