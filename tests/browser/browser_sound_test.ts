/**
 * Firework sound in headless Chromium, measured instead of listened to.
 *
 * Offline: the real graph (`client/firework_voices.ts`, bundled) renders into an
 * `OfflineAudioContext`, and the samples are measured: a launch makes a thump and a rising
 * whistle in its first half second; a burst's boom arrives distance / 343 s late and is quieter
 * (and duller) farther away; crackle kinds add crackle; notes start without clicks and without DC
 * offset; 40 simultaneous bursts stay below full scale and at most MAX_VOICES voices sound; muted
 * is silent.
 *
 * In the page (Chromium's default autoplay policy, under which an `AudioContext` started before a
 * gesture logs a console warning): no running context before the first gesture, a running one
 * after it, a launch's cues reach the voices, no console warning; the mute button mutes the sound,
 * a reload remembers it, M unmutes.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { bundleScript } from "../../tools/bundle.ts";
import { browserTest, clickLikeAPerson, launchBrowser, openScene } from "../../testing/browser.ts";
import {
  crossingRate,
  edge,
  largestStep,
  mean,
  onset,
  peak,
  type Rendered,
  rms,
} from "../../testing/audio_measures.ts";
import { MAX_VOICES, OUTPUT_CEILING, SPEED_OF_SOUND } from "../../client/audio/firework_voices.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { TICK_RATE } from "../../shared/constants.ts";

const RATE = 48_000;

/** One call on the voices, all made at context time 0. */
type Call =
  | { kind: "launch"; distance: number }
  | { kind: "burst"; distance: number; crackle: boolean }
  | { kind: "mute" };

/** Renders `calls` for `seconds` in the page's OfflineAudioContext; voices active after them. */
async function render(
  page: Page,
  seconds: number,
  calls: Call[],
): Promise<Rendered & { voices: number }> {
  const { base64, voices } = await page.evaluate(async ({ seconds, calls, rate }) => {
    const { FireworkVoices } = (globalThis as unknown as {
      SnowfireSound: typeof import("../../client/audio/firework_voices.ts");
    }).SnowfireSound;
    const context = new OfflineAudioContext(1, Math.ceil(seconds * rate), rate);
    const voices = new FireworkVoices(context);
    for (const call of calls) {
      if (call.kind === "launch") voices.launch(call.distance);
      else if (call.kind === "burst") {
        voices.burst(call.distance, { crackle: call.crackle, size: 1 });
      } else voices.setMuted(true);
    }
    const active = voices.activeVoices;
    const data = (await context.startRendering()).getChannelData(0);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return { base64: btoa(text), voices: active };
  }, { seconds, calls, rate: RATE });
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return { samples: new Float32Array(bytes.buffer), rate: RATE, voices };
}

const round = (value: number) => Number(value.toPrecision(3));
/** JSON of measures with numbers cut to 3 significant digits. */
const show = (measures: unknown) =>
  JSON.stringify(measures, (_, v) => typeof v === "number" ? round(v) : v);

browserTest("browser sound: the synthesised cues, rendered offline and measured", async (t) => {
  const script = await bundleScript(
    new URL("../../client/audio/firework_voices.ts", import.meta.url),
    "SnowfireSound",
  );
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.setContent("<!doctype html><title>sound</title>");
    await page.addScriptTag({ content: script });

    await t.step("a launch thumps and whistles in its first half second", async () => {
      const distance = 20;
      const delay = distance / SPEED_OF_SOUND;
      const launch = await render(page, 1.5, [{ kind: "launch", distance }]);
      const measures = {
        before: rms(launch, 0, delay - 0.005),
        firstHalfSecond: rms(launch, delay, delay + 0.5),
        thump: rms(launch, delay, delay + 0.15),
        whistleHz: crossingRate(launch, delay + 0.4, delay + 0.8),
        after: rms(launch, delay + 1.05, 1.5),
        peak: peak(launch),
        largestStep: largestStep(launch),
        dc: mean(launch),
      };
      console.log("launch at 20 m:", show(measures));
      assert.ok(measures.before < 1e-4, "silent before the sound arrives");
      assert.ok(measures.firstHalfSecond > 0.02, "audible in its first half second");
      assert.ok(measures.thump > measures.firstHalfSecond, "the thump is its loud start");
      // The whistle rises from 900 Hz to 2.1 kHz over its 0.9 s.
      assert.ok(
        measures.whistleHz > 900 && measures.whistleHz < 2200,
        `a whistle at ${measures.whistleHz} Hz`,
      );
      assert.ok(measures.after < 1e-3, "it ends");
      // No click where the notes start: neighbouring samples never jump by a tenth of the peak
      // (a pure tone of this loudness moves by far less per sample).
      assert.ok(
        measures.largestStep < 0.1 * measures.peak,
        `largest step ${measures.largestStep} vs peak ${measures.peak}`,
      );
      assert.ok(Math.abs(measures.dc) < 0.002, `DC offset ${measures.dc}`);
    });

    await t.step("a burst booms distance / 343 s late, quieter and duller far away", async () => {
      const near = await render(page, 2.5, [{ kind: "burst", distance: 100, crackle: false }]);
      const far = await render(page, 3, [{ kind: "burst", distance: 300, crackle: false }]);
      const arrive = (signal: Rendered) => onset(signal, 0.05 * peak(signal));
      const nearAt = arrive(near), farAt = arrive(far);
      const nearLevel = rms(near, nearAt, nearAt + 1), farLevel = rms(far, farAt, farAt + 1);
      // Edge per level: how much of the sound is high frequency.
      const nearBright = edge(near, nearAt, nearAt + 1) / nearLevel;
      const farBright = edge(far, farAt, farAt + 1) / farLevel;
      console.log(
        "burst at 100 m / 300 m:",
        show({
          onset: [nearAt, farAt],
          expected: [100 / SPEED_OF_SOUND, 300 / SPEED_OF_SOUND],
          rms: [nearLevel, farLevel],
          peak: [peak(near), peak(far)],
          edgePerRms: [nearBright, farBright],
          dc: [mean(near), mean(far)],
        }),
      );
      // The boom starts within a few ms of its travel time (its 4 ms attack and the limiter's
      // look-ahead come on top), and the two arrivals are 200 m / 343 m/s apart.
      for (const [at, distance] of [[nearAt, 100], [farAt, 300]]) {
        const late = at - distance / SPEED_OF_SOUND;
        assert.ok(late >= 0 && late < 0.015, `boom at ${distance} m is ${late * 1000} ms late`);
      }
      assert.ok(
        Math.abs(farAt - nearAt - 200 / SPEED_OF_SOUND) < 0.003,
        `arrivals ${nearAt} s and ${farAt} s`,
      );
      assert.ok(rms(near, 0, nearAt - 0.01) < 1e-4, "silent before the boom arrives");
      assert.ok(
        farLevel < 0.7 * nearLevel,
        `300 m (${farLevel}) quieter than 100 m (${nearLevel})`,
      );
      assert.ok(farBright < nearBright, "300 m sounds duller than 100 m");
      for (const signal of [near, far]) {
        assert.ok(Math.abs(mean(signal)) < 0.002, `DC offset ${mean(signal)}`);
      }
    });

    await t.step("crackle kinds add crackle after the boom", async () => {
      const plain = await render(page, 2.5, [{ kind: "burst", distance: 100, crackle: false }]);
      const crackle = await render(page, 2.5, [{ kind: "burst", distance: 100, crackle: true }]);
      const at = 100 / SPEED_OF_SOUND;
      const window = [at + 0.45, at + 1.7] as const;
      const plainEdge = edge(plain, ...window), crackleEdge = edge(crackle, ...window);
      console.log("crackle edge:", round(crackleEdge), "plain edge:", round(plainEdge));
      assert.ok(crackleEdge > 3 * plainEdge, `crackle ${crackleEdge} vs plain ${plainEdge}`);
    });

    await t.step("40 simultaneous bursts do not clip; voices are capped", async () => {
      const calls: Call[] = [];
      for (let i = 0; i < 40; i++) {
        calls.push({ kind: "burst", distance: 20 + (i % 10) * 4, crackle: i % 3 === 0 });
      }
      const many = await render(page, 2.5, calls);
      const one = await render(page, 2.5, [calls[0]]);
      const loudest = peak(many);
      let finite = true;
      for (const sample of many.samples) finite &&= Number.isFinite(sample);
      console.log(
        "40 bursts:",
        show({ peak: loudest, rms: rms(many), voices: many.voices, onePeak: peak(one) }),
      );
      assert.ok(finite, "every sample is a number");
      assert.ok(loudest <= OUTPUT_CEILING && loudest <= 1, `peak ${loudest}`);
      assert.ok(loudest > peak(one), "many bursts are louder than one (not silenced)");
      assert.equal(many.voices, MAX_VOICES, "the 16 voices beyond the cap were stolen");
      // No hole: the sky keeps sounding through the boom's first second.
      for (let from = 0.1; from < 1.1; from += 0.1) {
        assert.ok(rms(many, from, from + 0.1) > 0.01, `sound at ${from.toFixed(1)} s`);
      }
    });

    await t.step("muted is silent", async () => {
      const muted = await render(page, 1.5, [
        { kind: "mute" },
        { kind: "burst", distance: 60, crackle: true },
      ]);
      assert.ok(peak(muted) < 0.01, `peak ${peak(muted)}`);
    });

    await t.step("no page errors", () => assert.deepEqual(problems, []));
  } finally {
    await browser.close();
  }
});

browserTest(
  "browser sound: starts on the first gesture; the mute button is remembered",
  async (t) => {
    const server = await startTestServer({ client: true });
    // Chromium's default policy: an AudioContext made (and resumed) before a gesture stays
    // suspended and logs "The AudioContext was not allowed to start…" as a console warning.
    const browser = await launchBrowser();
    try {
      const scene = `sound-${crypto.randomUUID().slice(0, 8)}`;
      const ana = await openScene(browser, server.url, scene, {
        name: "Ana",
        width: 640,
        height: 400,
        // Sound follows the world and the gestures: nothing reads pixels.
        draw: false,
      });
      const page = ana.page;

      await t.step("no audio before a gesture", async () => {
        // A few frames with events flowing, no gesture yet: the display runs 1.5 s of scene time
        // and passes a show launch that came after now (its cue would have sounded).
        const from = await page.evaluate(() => snowfire.renderTime());
        await page.waitForFunction(
          ({ from, ticks }) => {
            const shown = snowfire.renderTime();
            return shown >= from + ticks &&
              (snowfire.showEvents?.() ?? []).some((e) => e.tick > from && e.tick <= shown);
          },
          { from, ticks: 1.5 * TICK_RATE },
          // The show's next launch can be many seconds off, and a starved page's display slow:
          // CI once waited 30 s for one.
          { timeout: 60_000, polling: 50 },
        );
        const sound = await page.evaluate(() => snowfire.sound());
        assert.deepEqual(sound, { running: false, muted: false, voices: 0 });
      });

      await t.step("the first key press starts the audio context", async () => {
        await page.focus("#scene");
        await page.keyboard.press("Shift");
        await page.waitForFunction(() => snowfire.sound()?.running === true, null, {
          timeout: 10_000,
        });
      });

      await t.step("launches sound: their cues reach the voices (F, and the show)", async () => {
        await page.keyboard.press("f");
        // The launch cue plays when the display reaches its tick, the boom at the burst; each
        // voice lasts 1–1.8 s, so polling sees them.
        await page.waitForFunction(() => (snowfire.sound()?.voices ?? 0) > 0, null, {
          timeout: 60_000,
          polling: 100,
        });
      });

      await t.step("the mute button mutes, and a reload remembers it", async () => {
        await clickLikeAPerson(page, "#mute");
        assert.equal(await page.getAttribute("#mute", "aria-pressed"), "true");
        assert.equal((await page.evaluate(() => snowfire.sound()))?.muted, true);
        await page.reload();
        await page.waitForFunction(() => globalThis.snowfire?.connected(), null, {
          timeout: 60_000,
        });
        assert.equal(await page.getAttribute("#mute", "aria-pressed"), "true");
        assert.equal((await page.evaluate(() => snowfire.sound()))?.muted, true);
        // M (after the reload's first gesture) unmutes.
        await page.focus("#scene");
        await page.keyboard.press("m");
        assert.equal(await page.getAttribute("#mute", "aria-pressed"), "false");
        const sound = await page.evaluate(() => snowfire.sound());
        assert.equal(sound?.muted, false);
        assert.equal(sound?.running, true);
      });

      await t.step("no console error or warning (no autoplay warning)", () => {
        assert.deepEqual(ana.problems, []);
      });
    } finally {
      await browser.close();
      await server.close();
    }
  },
);
