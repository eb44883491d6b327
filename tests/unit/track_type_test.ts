import assert from "node:assert/strict";
import { trackType } from "../../server/http/track_type.ts";
import { byteRange } from "../../server/http/track_range.ts";
import { clickTrack } from "../../testing/track_wav.ts";

const text = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));

/** Two MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz (417 bytes each), optionally tagged. */
function mp3(tag = false): Uint8Array {
  const frame = new Uint8Array(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  const id3 = tag ? [...text("ID3"), 4, 0, 0, 0, 0, 0, 20, ...new Array(20).fill(0)] : [];
  return new Uint8Array([...id3, ...frame, ...frame]);
}

function ogg(codec: string): Uint8Array {
  return new Uint8Array([...text("OggS"), 0, 2, ...new Array(20).fill(0), 1, 19, ...text(codec)]);
}

function m4a(major: string, compatible: string[] = []): Uint8Array {
  const size = 16 + 4 * compatible.length;
  return new Uint8Array([
    0,
    0,
    0,
    size,
    ...text("ftyp"),
    ...text(major),
    0,
    0,
    0,
    0,
    ...compatible.flatMap((b) => [...text(b)]),
    ...text("\0\0\0\bfree"),
  ]);
}

Deno.test("trackType tells audio from its bytes alone", async (t) => {
  await t.step("WAV, Ogg Opus and Vorbis, M4A, MP3 with and without ID3", () => {
    assert.equal(trackType(clickTrack({ seconds: 0.1 }))?.mime, "audio/wav");
    assert.equal(trackType(ogg("OpusHead"))?.mime, "audio/ogg");
    assert.equal(trackType(ogg("\x01vorbis"))?.mime, "audio/ogg");
    assert.equal(trackType(m4a("M4A "))?.ext, "m4a");
    assert.equal(trackType(m4a("mp42", ["isom", "M4A "]))?.mime, "audio/mp4");
    assert.equal(trackType(mp3())?.mime, "audio/mpeg");
    assert.equal(trackType(mp3(true))?.mime, "audio/mpeg");
  });
  await t.step("what only looks like one is refused", () => {
    assert.equal(trackType(text("<!doctype html><title>song.mp3</title>")), undefined);
    assert.equal(trackType(text("RIFF\0\0\0\0AVI LIST")), undefined, "an AVI");
    assert.equal(trackType(ogg("\x80theora")), undefined, "an Ogg video");
    assert.equal(trackType(m4a("qt  ")), undefined, "a QuickTime movie");
    const lone = mp3().subarray(0, 420);
    lone[417] = 0; // the second frame's sync is gone: a stray 0xFFFB is not a stream
    assert.equal(trackType(lone), undefined);
    assert.equal(trackType(new Uint8Array(0)), undefined);
  });
});

Deno.test("byteRange reads one byte range and ignores the rest", () => {
  assert.deepEqual(byteRange("bytes=0-99", 1000), { start: 0, end: 99 });
  assert.deepEqual(byteRange("bytes=990-2000", 1000), { start: 990, end: 999 });
  assert.deepEqual(byteRange("bytes=-100", 1000), { start: 900, end: 999 });
  assert.deepEqual(byteRange("bytes=-5000", 1000), { start: 0, end: 999 });
  assert.deepEqual(byteRange("bytes=500-", 1000), { start: 500, end: 999 });
  assert.equal(byteRange("bytes=1000-", 1000), "unsatisfiable");
  assert.equal(byteRange("bytes=-0", 1000), "unsatisfiable");
  assert.equal(byteRange("bytes=0-1,5-9", 1000), undefined, "several ranges: the whole");
  assert.equal(byteRange("items=0-1", 1000), undefined);
  assert.equal(byteRange(undefined, 1000), undefined);
});
