import assert from "node:assert/strict";
import { ShowMusicList } from "../../client/audio/show_music_list.ts";
import type { SceneEvent, TrackRef } from "../../shared/types.ts";

const track = (n: number): TrackRef => ({
  id: String(n).repeat(64).slice(0, 64),
  name: `t${n}.wav`,
  mime: "audio/wav",
  bytes: 100,
});

const show = (seq: number, tick: number, start: number, n?: number): SceneEvent => ({
  seq,
  tick,
  by: "p1",
  body: {
    type: "show",
    title: "S",
    start,
    cues: [{ at: 0, x: 0, z: 0 }],
    ...(n !== undefined ? { track: track(n) } : {}),
  },
});

Deno.test("ShowMusicList says which show's music plays at a tick", async (t) => {
  await t.step("a show plays from its start (or its lead) until its track ends", () => {
    const list = new ShowMusicList();
    list.event(show(3, 100, 400, 1));
    assert.equal(list.playing(399), undefined);
    assert.equal(list.playing(399, 10)?.seq, 3, "within the lead: made ready");
    assert.equal(list.playing(400)?.seq, 3);
    list.setLength(track(1).id, 600);
    assert.equal(list.playing(999)?.seq, 3);
    assert.equal(list.playing(1000), undefined, "past the track's end");
  });

  await t.step("shows without a track are no music; a later start takes over", () => {
    const list = new ShowMusicList();
    list.event(show(1, 0, 100, 1));
    list.event(show(2, 10, 150));
    list.event(show(3, 20, 500, 2));
    assert.equal(list.playing(200)?.seq, 1);
    assert.equal(
      list.playing(450, 100)?.seq,
      1,
      "a show playing keeps the music in another's lead",
    );
    assert.equal(list.playing(500)?.seq, 3);
  });

  await t.step("a cancel stops the music at its tick", () => {
    const list = new ShowMusicList();
    list.event(show(5, 0, 100, 1));
    list.event({ seq: 6, tick: 300, by: "p1", body: { type: "show-cancel", show: 5 } });
    assert.equal(list.playing(299)?.seq, 5);
    assert.equal(list.playing(300), undefined);
  });

  await t.step("a late joiner learns shows from the welcome's snapshot and window", () => {
    const list = new ShowMusicList();
    const live = show(7, 0, 100, 1);
    list.welcome(
      [{ seq: 7, by: "p1", show: live.body as never }],
      [show(9, 50, 900, 2)],
    );
    assert.deepEqual(list.shows.map((s) => s.seq), [7, 9]);
    assert.equal(list.playing(1000)?.seq, 9);
    list.welcome(undefined, []);
    assert.equal(list.shows.length, 0, "a new welcome starts over");
  });
});
