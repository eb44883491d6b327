import assert from "node:assert/strict";
import {
  clampAt,
  clampSpot,
  cueRows,
  type DraftCue,
  pasteCues,
  raiseCue,
  shiftCue,
  SHOW_MAX_TICKS,
  showCues,
  showTime,
} from "../../client/hud/composer/cue_model.ts";
import { beatTicks, snapTick, stepBeat } from "../../client/hud/composer/beat_snap.ts";
import {
  parseShowFile,
  sha256Hex,
  showFileText,
  toBase64,
  trackBytes,
} from "../../client/hud/composer/show_file.ts";

const cue = (id: string, at: number, more: Partial<DraftCue> = {}): DraftCue => ({
  id,
  at,
  x: 0,
  z: 0,
  ...more,
});

Deno.test("composer cue model edits cues inside the show's limits", async (t) => {
  await t.step("ticks are whole and within 20 minutes", () => {
    assert.equal(clampAt(-5), 0);
    assert.equal(clampAt(12.6), 13);
    assert.equal(clampAt(SHOW_MAX_TICKS + 100), SHOW_MAX_TICKS);
    assert.equal(clampAt(NaN), 0);
    assert.equal(shiftCue(cue("a", 30), -60).at, 0);
    assert.equal(shiftCue(cue("a", 30), 6).at, 36);
  });
  await t.step("spots stay in the launch field and the burst heights", () => {
    assert.deepEqual(clampSpot(120.123, -3.456, 80), { x: 90, z: -3.46, y: 62 });
    assert.deepEqual(clampSpot(1, 2), { x: 1, z: 2 });
    assert.equal(raiseCue(cue("a", 0), 2).y, 46);
    assert.equal(raiseCue(cue("a", 0, { y: 61 }), 4).y, 62);
  });
  await t.step("the stamped list is in tick order without ids or editors", () => {
    const out = showCues([
      cue("b", 90, { by: "p1", kind: "willow" }),
      cue("a", 30, { theme: "rainbow", breaks: 1 }),
      cue("c", 30, { breaks: 2, y: 40 }),
    ]);
    assert.deepEqual(out, [
      { at: 30, x: 0, z: 0, theme: "rainbow" },
      { at: 30, x: 0, z: 0, y: 40, breaks: 2 },
      { at: 90, x: 0, z: 0, kind: "willow" },
    ]);
  });
  await t.step("a paste keeps the copied cues' spacing from the paste point", () => {
    let n = 0;
    const pasted = pasteCues(
      [cue("b", 100, { x: 5, by: "p1" }), cue("a", 40, { kind: "ring" })],
      1000,
      () => `n${n++}`,
    );
    assert.deepEqual(pasted, [
      { id: "n0", at: 1000, x: 0, z: 0, kind: "ring" },
      { id: "n1", at: 1060, x: 5, z: 0 },
    ]);
    assert.equal(pasteCues([cue("a", 0), cue("b", 600)], SHOW_MAX_TICKS - 10, () => "x").length, 1);
  });
  await t.step("rows keep cues drawn side by side from overlapping", () => {
    const { row, rows } = cueRows([cue("a", 0), cue("b", 10), cue("c", 20), cue("d", 40)], 30);
    assert.equal(rows, 3);
    assert.deepEqual([row.get("a"), row.get("b"), row.get("c"), row.get("d")], [0, 1, 2, 0]);
    assert.equal(cueRows([], 30).rows, 1);
  });
  await t.step("times read as minutes, seconds and tenths", () => {
    assert.equal(showTime(0), "0:00.0");
    assert.equal(showTime(3930), "1:05.5");
  });
});

Deno.test("composer beat snap moves a tick to a beat within reach", () => {
  const beats = beatTicks([1.5, 0.5, 1, 1.004, -1, NaN]);
  assert.deepEqual(beats, [30, 60, 90]);
  assert.equal(snapTick(64, beats), 60);
  assert.equal(snapTick(46, beats), 60);
  assert.equal(snapTick(44, beats), 30);
  assert.equal(snapTick(200, beats), 200, "out of reach stays");
  assert.equal(snapTick(75, beats, 10), 75);
  assert.equal(snapTick(10, []), 10);
  assert.equal(stepBeat(60, beats, 1), 90);
  assert.equal(stepBeat(60, beats, -1), 30);
  assert.equal(stepBeat(61, beats, -1), 60);
  assert.equal(stepBeat(90, beats, 1), 90, "no beat after the last");
  assert.equal(stepBeat(10, beats, -1), 10);
});

Deno.test("composer show file exports and imports, and names what is wrong", async (t) => {
  await t.step("a show survives export and import", () => {
    const cues = [{ at: 0, x: 1, z: 2, kind: "willow" as const }, { at: 60, x: -3, z: 4, y: 30 }];
    const read = parseShowFile(showFileText("Finale", cues));
    assert.ok("show" in read);
    assert.equal(read.show.title, "Finale");
    assert.deepEqual(read.show.cues, cues);
  });
  await t.step("files that are not shows are refused with a reason", () => {
    const bad = (text: string) => {
      const read = parseShowFile(text);
      assert.ok("error" in read, text);
      return read.error;
    };
    assert.equal(bad("{nope").code, "not_json");
    assert.equal(bad('{"snowfire":"clip"}').code, "not_a_show");
    const far = bad(
      '{"snowfire":"show","version":1,"title":"","cues":[{"at":80000,"x":0,"z":0}]}',
    );
    assert.equal(far.code, "bad_show");
    assert.match(far.message, /cues\.0\.at/);
    assert.match(
      bad('{"snowfire":"show","version":1,"title":"","cues":[{"at":1,"x":0,"z":0,"kind":"x"}]}')
        .message,
      /cues\.0\.kind/,
    );
    assert.equal(bad('{"snowfire":"show","version":2,"title":"","cues":[]}').code, "bad_show");
  });
  await t.step("a track's bytes come back only when they match its size and hash", async () => {
    const bytes = new TextEncoder().encode("RIFF....WAVEfmt ");
    const id = await sha256Hex(bytes);
    const track = { name: "t.wav", id, mime: "audio/wav" as const, bytes: bytes.length };
    const text = showFileText("T", [], { ...track, data: toBase64(bytes) });
    const read = parseShowFile(text);
    assert.ok("show" in read && read.show.track);
    const back = await trackBytes(read.show.track);
    assert.deepEqual(back, bytes);
    assert.equal(await trackBytes(track), null, "no data, no bytes");
    const wrong = await trackBytes({ ...track, data: toBase64(new Uint8Array(bytes.length)) });
    assert.ok(wrong && "error" in wrong && wrong.error.code === "bad_track");
  });
});
