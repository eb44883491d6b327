import assert from "node:assert/strict";
import { advanceSnapshot, initialSnapshot } from "../../shared/settings.ts";
import {
  cueLaunchBody,
  foldShowEvent,
  liveShowEnd,
  pruneShows,
  showCueList,
  showCueLists,
  showCuesEnd,
  showTrackEnd,
  sortCues,
} from "../../shared/show_cues.ts";
import { SHOW_MAX_TICKS } from "../../shared/protocol.ts";
import type { SceneEvent, ShowBody } from "../../shared/types.ts";

const show = (start: number, ats: number[]): ShowBody => ({
  type: "show",
  title: "t",
  start,
  cues: ats.map((at, i) => ({ at, x: i, z: 0 })),
});
const stamped = (seq: number, tick: number, body: ShowBody): SceneEvent => ({
  seq,
  tick,
  by: "p1",
  body,
});
const cancel = (seq: number, tick: number, n: number): SceneEvent => ({
  seq,
  tick,
  by: "p1",
  body: { type: "show-cancel", show: n },
});

Deno.test("show cues sort stably by at and carry a click's launch fields", () => {
  const { cues, order } = sortCues(show(0, [30, 0, 30, 10]).cues);
  assert.deepEqual(cues.map((c) => c.at), [0, 10, 30, 30]);
  assert.deepEqual(order, [1, 3, 0, 2]);
  assert.deepEqual(cueLaunchBody({ at: 5, x: 1, z: 2, kind: "willow", breaks: 2 }), {
    type: "launch",
    x: 1,
    z: 2,
    kind: "willow",
    breaks: 2,
  });
});

Deno.test("a show folds into the snapshot, a cancel ends it, and it leaves once over", () => {
  const events = [stamped(3, 100, show(400, [0, 60, 600])), cancel(4, 500, 3)];
  const live = advanceSnapshot(initialSnapshot(), events.slice(0, 1), 200);
  assert.equal(live.shows?.length, 1);
  const list = showCueList(live.shows![0]);
  assert.deepEqual([list.id, list.start, list.end], [3, 400, Infinity]);
  assert.equal(showCueLists(live)[0], list, "the same list object each time");
  const cancelled = foldShowEvent(live, events[1]);
  assert.equal(cancelled.shows![0].cancel, 500);
  assert.equal(showCueList(cancelled.shows![0]).end, 501, "cues at the cancel's tick still go");
  assert.equal(liveShowEnd(cancelled.shows![0]), 501);
  assert.equal(advanceSnapshot(live, events, 501).shows, undefined, "over: pruned");
  assert.equal(advanceSnapshot(live, events, 500).shows?.length, 1, "not yet");
  // Without the cancel it lasts to its last cue.
  assert.equal(pruneShows(live, 1000).shows?.length, 1);
  assert.equal(pruneShows(live, 1001).shows, undefined);
});

Deno.test("a cancel of an unknown or already cancelled show changes nothing", () => {
  const live = foldShowEvent(initialSnapshot(), stamped(3, 100, show(400, [0])));
  assert.equal(foldShowEvent(live, cancel(4, 150, 99)), live);
  const once = foldShowEvent(live, cancel(4, 150, 3));
  assert.equal(foldShowEvent(once, cancel(5, 160, 3)), once);
});

Deno.test("a show with a track lasts as long as its music", async (t) => {
  const track = (ms?: number) => ({
    id: "ab".repeat(32),
    name: "waltz.ogg",
    mime: "audio/ogg" as const,
    bytes: 1000,
    ...(ms !== undefined ? { ms } : {}),
  });
  const withTrack = (ms?: number): ShowBody => ({ ...show(400, [0, 60]), track: track(ms) });
  const live = (body: ShowBody, cancelAt?: number) => {
    const snap = foldShowEvent(initialSnapshot(), stamped(3, 100, body));
    return cancelAt === undefined ? snap : foldShowEvent(snap, cancel(4, cancelAt, 3));
  };

  await t.step("its music past the last cue keeps it live, to the tick", () => {
    // 30 s of music from tick 400: to tick 2200; its cues end at 461.
    const snap = live(withTrack(30_000));
    assert.equal(showCuesEnd(snap.shows![0]), 461);
    assert.equal(liveShowEnd(snap.shows![0]), 2200);
    assert.equal(pruneShows(snap, 2199).shows?.length, 1, "the music still plays");
    assert.equal(pruneShows(snap, 2200).shows, undefined);
    // A page joining then starts from a snapshot that still names the show and its track.
    assert.equal(advanceSnapshot(snap, [], 2000).shows?.[0].show.track?.ms, 30_000);
  });

  await t.step("a length is rounded up to a tick", () => {
    assert.equal(showTrackEnd(withTrack(1001)), 400 + 61);
  });

  await t.step("music shorter than the cues, or of unknown length, ends with the cues", () => {
    assert.equal(liveShowEnd(live(withTrack(500)).shows![0]), 461);
    assert.equal(liveShowEnd(live(withTrack()).shows![0]), 461);
  });

  await t.step("a cancel ends it, music or not", () => {
    assert.equal(liveShowEnd(live(withTrack(30_000), 1000).shows![0]), 1001);
  });

  await t.step("a length past the 20-minute limit counts as 20 minutes", () => {
    assert.equal(showTrackEnd(withTrack(3_600_000)), 400 + SHOW_MAX_TICKS);
  });
});
