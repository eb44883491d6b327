/**
 * A show lasts as long as its music, on a single node: a page that joins after the show's last
 * cue and after its event left the welcome's window, while its track (30 s) still plays, gets the
 * show (with its track) in the welcome's snapshot, so it can start the music at the right place;
 * a show without a track length is gone by then.
 */
import assert from "node:assert/strict";
import { WINDOW_TICKS } from "../../shared/constants.ts";
import type { ServerMessage, ShowCue, TrackRef } from "../../shared/protocol.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";

/** Scene time runs 4× faster than real time. */
const SPEED = 4;

type Event = Extract<ServerMessage, { t: "event" }>;

const cues: ShowCue[] = [{ at: 0, x: -4, z: -10 }, { at: 30, x: 4, z: -10 }];
const track = (ms?: number): TrackRef => ({
  id: "ab".repeat(32),
  name: "waltz.wav",
  mime: "audio/wav",
  bytes: 1000,
  ...(ms !== undefined ? { ms } : {}),
});

Deno.test("a page joining after the last cue while the music plays gets the show", async () => {
  const server = await startTestServer({
    refusalNoticeMs: 0,
    monotonic: () => performance.now() * SPEED,
  });
  const scene = "show-music-end-1";
  const clients: TestClient[] = [];
  try {
    const { client: ana } = await TestClient.join(server.url, scene);
    clients.push(ana);
    await ana.waitFor((m) => m.t === "host");
    ana.submit({ type: "settings", settings: { show: false } });
    const isShow = (m: ServerMessage): m is Event => m.t === "event" && m.body.type === "show";
    ana.send({
      t: "submit",
      body: { type: "show", title: "Waltz", cues, track: track(30_000) },
    });
    ana.send({ t: "submit", body: { type: "show", title: "Silent", cues, track: track() } });
    const [waltz, silent] = await ana.waitForCount(isShow, 2) as Event[];
    const start = (waltz.body as { start: number }).start;
    // A welcome's snapshot is at its horizon − W: join when that lies past the last cue (start +
    // 30), the event out of the window, while the music (to start + 1800) plays.
    const joinAfter = start + 30 + WINDOW_TICKS + 120;
    assert.ok(joinAfter < start + 1800);
    await ana.waitFor((m) => m.t === "tick" && m.n > joinAfter, 20_000);
    const { client: cy, welcome } = await TestClient.join(server.url, scene);
    clients.push(cy);
    assert.ok(!welcome.events.some((e) => e.seq === waltz.seq), "not in the window");
    assert.ok(welcome.snapshot.tick > start + 30, "the snapshot is past the last cue");
    const shows = welcome.snapshot.shows ?? [];
    assert.deepEqual(shows.map((s) => s.seq), [waltz.seq], "the waltz only");
    assert.equal(shows[0].show.track?.ms, 30_000);
    assert.ok(!shows.some((s) => s.seq === silent.seq), "no length: over with its cues");
  } finally {
    for (const client of clients) await client.close();
    await server.close();
  }
});
