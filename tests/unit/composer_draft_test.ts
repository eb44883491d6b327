import assert from "node:assert/strict";
import { cueEdit, Draft, type DraftEdit, newCueId } from "../../client/hud/composer/draft_state.ts";
import { previewEvents } from "../../client/hud/composer/show_preview.ts";
import { analyseAudio } from "../../client/hud/composer/track_analysis.ts";
import { openShow, showLink, showParam } from "../../client/hud/composer/show_link.ts";
import { DraftEditSchema } from "../../shared/protocol.ts";

Deno.test("composer draft gives every composer the same draft from the relayed edits", () => {
  // Two composers edit cue "a" at once; the server relays both, in its order, to both pages.
  const relayed: [string, DraftEdit[]][] = [
    ["ana", [cueEdit({ id: "a", at: 60, x: 1, z: 2 })]],
    ["bo", [cueEdit({ id: "a", at: 90, x: 1, z: 2, kind: "willow" })]],
    ["ana", [{ do: "title", title: "Finale" }, cueEdit({ id: "b", at: 0, x: 0, z: 0 })]],
    ["bo", [{ do: "cue", id: "b", cue: null }]],
  ];
  const pages = [new Draft(), new Draft()];
  // Each page applied its own edit at once, before the relay.
  pages[0].apply(relayed[0][1], "ana");
  pages[1].apply(relayed[1][1], "bo");
  for (const page of pages) for (const [by, edits] of relayed) page.apply(edits, by);
  for (const page of pages) {
    assert.deepEqual([...page.cues.values()], [{
      id: "a",
      at: 90,
      x: 1,
      z: 2,
      kind: "willow",
      by: "bo",
    }]);
    assert.equal(page.title, "Finale");
  }
  pages[0].apply([{ do: "discard" }], "ana");
  assert.equal(pages[0].cues.size, 0);
  pages[1].replace({
    title: "T",
    track: null,
    cues: [{ id: "c", by: "cy", cue: { at: 5, x: 0, z: 0 } }],
  });
  assert.equal(pages[1].cues.get("c")?.by, "cy");
});

Deno.test("composer draft edits are what the protocol accepts", () => {
  const id = newCueId();
  assert.match(id, /^[A-Za-z0-9_-]{12}$/);
  const edit = cueEdit({ id, at: 12.4, x: 3, z: -4, y: 40, theme: "rainbow", by: "ana" });
  assert.deepEqual(edit, { do: "cue", id, cue: { at: 12, x: 3, z: -4, y: 40, theme: "rainbow" } });
  assert.ok(DraftEditSchema.safeParse(edit).success);
});

Deno.test("composer preview launches each cue at its tick from the playhead", () => {
  const cues = [{ at: 0, x: 0, z: 0 }, { at: 300, x: 5, z: 0, kind: "ring" as const }, {
    at: 600,
    x: 9,
    z: 1,
  }];
  // From show tick 300 with it at world tick 1000: the cue at 0 is too old to be seen.
  const events = previewEvents(cues, 300, 1000);
  assert.deepEqual(events.map((e) => e.tick), [1000, 1300]);
  assert.deepEqual(events[0].body, { type: "launch", x: 5, z: 0, kind: "ring" });
  // From 100: the cue at 0 launched 100 ticks before, so its burst is in the sky at the start.
  assert.deepEqual(previewEvents(cues, 100, 1000).map((e) => e.tick), [900, 1200, 1500]);
});

Deno.test("composer track analysis finds the beats of a click track", () => {
  const rate = 8000;
  const seconds = 12;
  const samples = new Float32Array(rate * seconds);
  // A click every half second from 0.25 s (120 a minute) over quiet noise.
  let seed = 7;
  for (let i = 0; i < samples.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    samples[i] = ((seed / 2 ** 32) - 0.5) * 0.02;
  }
  for (let t = 0.25; t < seconds; t += 0.5) {
    const at = Math.round(t * rate);
    for (let k = 0; k < 300; k++) samples[at + k] = 0.9 * Math.sin(k / 3) * (1 - k / 300);
  }
  const { peaks, beats, bpm } = analyseAudio(samples, rate);
  assert.equal(peaks.length, seconds * 100);
  assert.ok(Math.abs(bpm - 120) < 4, `bpm ${bpm}`);
  assert.ok(beats.length >= 20, `${beats.length} beats`);
  // Every beat within 70 ms of a click.
  for (const beat of beats) {
    const off = Math.abs(((beat - 0.25) % 0.5 + 0.5) % 0.5);
    assert.ok(Math.min(off, 0.5 - off) < 0.07, `beat at ${beat}`);
  }
  assert.deepEqual(analyseAudio(new Float32Array(rate * 2), rate).beats, [], "silence: no beats");
});

Deno.test("composer show link opens the replay at the show's start, or waits for it live", async () => {
  assert.equal(showParam("?show=12&test"), 12);
  assert.equal(showParam("?show=0"), null);
  assert.equal(showParam("?show=x"), null);
  assert.equal(showParam(""), null);
  assert.equal(
    showLink("https://s.example", "quiet-pine", 7),
    "https://s.example/s/quiet-pine?show=7",
  );
  const show = {
    seq: 7,
    tick: 100,
    by: "p1",
    body: { type: "show" as const, title: "Finale", start: 400, cues: [{ at: 0, x: 0, z: 0 }] },
  };
  const log = (events: unknown[]) => ({ page: () => Promise.resolve({ events } as never) });
  const run = async (liveTick: number, events: unknown[]) => {
    const seen: { seek: number[]; said: string[] } = { seek: [], said: [] };
    const start = await openShow(7, {
      log: log(events),
      liveTick: () => liveTick,
      seek: (tick) => seen.seek.push(tick),
      say: (text) => seen.said.push(text),
    });
    return { start, ...seen };
  };
  const past = await run(1000, [show]);
  assert.deepEqual([past.start, past.seek], [400, [400]]);
  const ahead = await run(100, [show]);
  assert.deepEqual(ahead.seek, []);
  assert.match(ahead.said[0], /starts in 5 s/);
  const none = await run(1000, [{ ...show, body: { type: "launch", x: 0, z: 0 } }]);
  assert.equal(none.start, null);
  assert.match(none.said[0], /no show 7/);
});
