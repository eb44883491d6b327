/**
 * The composer's waveform and beat detection on generated audio: clicks at a known tempo over a
 * tone, notes changing pitch, a steady tone (no onsets), noise bursts; and snapping to the grid.
 */
import assert from "node:assert/strict";
import { beats, onsets, snapToBeat, waveform } from "../../client/audio/beats.ts";
import { clickSamples } from "../../testing/track_wav.ts";

const RATE = 22050;

/** The largest distance from each of `expected` to the nearest of `found`. */
function worstMiss(found: number[], expected: number[]): number {
  let worst = 0;
  for (const e of expected) {
    let best = Infinity;
    for (const f of found) best = Math.min(best, Math.abs(f - e));
    worst = Math.max(worst, best);
  }
  return worst;
}

Deno.test("beats finds clicks, notes and tempo in generated audio", async (t) => {
  await t.step("clicks at 120 BPM over a tone: each found within 15 ms, tempo 120", () => {
    const clicks = Array.from({ length: 16 }, (_, i) => 0.25 + i * 0.5);
    const pcm = clickSamples({ seconds: 8.5, sampleRate: RATE, clicksAt: clicks, toneHz: 330 });
    const found = beats(pcm, RATE);
    assert.equal(
      found.onsets.length,
      clicks.length,
      `onsets ${found.onsets.map((s) => s.toFixed(3))}`,
    );
    assert.ok(worstMiss(found.onsets, clicks) <= 0.015, `worst ${worstMiss(found.onsets, clicks)}`);
    assert.ok(Math.abs(found.bpm - 120) < 1.5, `bpm ${found.bpm}`);
    assert.ok(worstMiss(found.beats, clicks) <= 0.02, "the grid lies on the clicks");
    assert.ok(found.beats.length >= 16 && found.beats.length <= 18);
  });

  await t.step("a tempo of 90 BPM with one click missing: the grid fills the gap", () => {
    const period = 60 / 90;
    const all = Array.from({ length: 12 }, (_, i) => 0.4 + i * period);
    const clicks = all.filter((_, i) => i !== 5);
    const pcm = clickSamples({ seconds: 9, sampleRate: RATE, clicksAt: clicks, toneHz: 0 });
    const found = beats(pcm, RATE);
    assert.ok(Math.abs(found.bpm - 90) < 1.5, `bpm ${found.bpm}`);
    assert.ok(worstMiss(found.beats, all) <= 0.02, "a beat where the click was missing");
  });

  await t.step("notes changing pitch are onsets; a steady tone has none", () => {
    const pcm = new Float32Array(4 * RATE);
    const notes = [0.5, 1.5, 2.5, 3.2];
    const pitches = [220, 330, 440, 262];
    for (let i = 0; i < pcm.length; i++) {
      const s = i / RATE;
      let n = -1;
      for (let k = 0; k < notes.length; k++) if (s >= notes[k]) n = k;
      if (n >= 0) pcm[i] = 0.4 * Math.sin(2 * Math.PI * pitches[n] * s);
    }
    const found = onsets(pcm, RATE);
    assert.equal(found.length, notes.length, `onsets ${found}`);
    assert.ok(worstMiss(found, notes) <= 0.03, `worst ${worstMiss(found, notes)}`);
    const steady = new Float32Array(3 * RATE);
    for (let i = 0; i < steady.length; i++) {
      steady[i] = 0.4 * Math.sin((2 * Math.PI * 440 * i) / RATE);
    }
    assert.deepEqual(onsets(steady, RATE).filter((s) => s > 0.1), [], "none after the start");
    assert.equal(beats(steady, RATE).bpm, 0);
  });

  await t.step("the waveform's peaks and RMS follow the signal", () => {
    const pcm = new Float32Array(RATE);
    for (let i = RATE / 2; i < RATE; i++) pcm[i] = i % 2 === 0 ? 0.5 : -0.5;
    const wave = waveform(pcm, RATE, 10);
    assert.equal(wave.peaks.length, 10);
    assert.ok(Math.abs(wave.secondsPerColumn - 0.1) < 1e-9);
    assert.deepEqual([...wave.peaks.subarray(0, 5)], [0, 0, 0, 0, 0]);
    assert.ok(wave.peaks.subarray(5).every((p) => Math.abs(p - 0.5) < 1e-6));
    assert.ok(wave.rms.subarray(5).every((r) => Math.abs(r - 0.5) < 1e-6));
  });

  await t.step("snapToBeat moves a time to the nearest beat within the tolerance", () => {
    const grid = [0.5, 1, 1.5, 2];
    assert.equal(snapToBeat(1.04, grid, 0.1), 1);
    assert.equal(snapToBeat(1.3, grid, 0.1), 1.3, "too far from any");
    assert.equal(snapToBeat(0.2, grid, 0.5), 0.5);
    assert.equal(snapToBeat(5, grid, 3.5), 2);
    assert.equal(snapToBeat(1, [], 1), 1);
  });
});
