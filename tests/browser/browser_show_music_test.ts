/**
 * A show's music in sync on every page, measured in headless Chromium: the issue's acceptance as
 * written. A host (a test client) uploads a generated click track and stamps a 60 s show naming
 * it, a cue every 2 s; two pages play it through Web Audio. At ten moments across the show each
 * page reports the track position of the sample leaving its speakers
 * (AudioContext.getOutputTimestamp) with its wall-clock time and its scene tick; the two pages'
 * positions, brought to the same wall-clock moment, differ by at most 40 ms, and each page is
 * within 40 ms of where its own scene clock says the music should be. A third page joins just
 * before 30 s: at the show's 30th second it hears the music at 30 s ± 40 ms (against the first
 * page and its own clock; on a machine too busy to load it by then, when it first hears music). Every cue launches at `start + at` at its spot on each page (the same
 * launches) and bursts in each page's world. A cancel stops the music on every page. A sample
 * the pages were too starved to answer within 300 ms (a busy machine) is taken again a second later.
 *
 * About 80 s of wall time, nearly all of it the show itself: one browser, no page draws.
 * `SNOWFIRE_MUSIC_SECONDS` (default 60) and `SNOWFIRE_MUSIC_JOIN_AT` (default half of it) change
 * the show for a quick local look. Each sample's differences are printed (`music sync:` lines)
 * for the performance notes.
 */
// Audio heard in step within 40 ms on two pages: under the niced tier, a page starved while the
// server and cluster tiers run beside it heard 56-120 ms apart (CI twice).
// test tiers: keeps its priority
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Page } from "playwright-core";
import type { ServerMessage } from "../../shared/protocol.ts";
import { TICK_MS, TICK_RATE } from "../../shared/constants.ts";
import type { MusicPosition } from "../../client/audio/show_music.ts";
import { launchBrowser, openScene, skipBrowserTests } from "../../testing/browser.ts";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { clickTrack } from "../../testing/track_wav.ts";
import { sleep } from "../../testing/wait.ts";
import {
  checkpointsAgree,
  type CueAt,
  cueLaunches,
  watchBursts,
} from "../../testing/show_launches.ts";

type HostFrame = Extract<ServerMessage, { t: "host" }>;

const SECONDS = Number(Deno.env.get("SNOWFIRE_MUSIC_SECONDS") ?? "60");
const JOIN_AT = Number(Deno.env.get("SNOWFIRE_MUSIC_JOIN_AT") ?? SECONDS / 2);
/** How long before `JOIN_AT` the third page is opened (it loads, connects and joins). */
const JOIN_LEAD_S = 8;
const SAMPLES = 10;
const BOUND_MS = 40;

/** The page's music position (null when none plays). */
function music(page: Page): Promise<MusicPosition | null> {
  return page.evaluate(() =>
    (globalThis.snowfire as unknown as { music(): MusicPosition | null }).music()
  );
}

/** The music's position as the page's hook gives it, for functions evaluated in the page. */
type MusicHook = { music(): MusicPosition | null };

/** Waits until `page` hears music (more than `after` seconds in); returns where it is then. */
async function musicFrom(page: Page, after: number, timeoutMs = 30_000): Promise<MusicPosition> {
  const handle = await page.waitForFunction(
    (after) => {
      const p = (globalThis.snowfire as unknown as MusicHook).music();
      return p !== null && p.seconds > after ? p : false;
    },
    after,
    { timeout: timeoutMs, polling: 50 },
  );
  return await handle.jsonValue() as MusicPosition;
}

/** Track seconds at wall-clock 0, from a sample: two pages' values compare at any moment. */
const anchor = (p: MusicPosition) => p.seconds - p.wallMs / 1000;

/** Pages slower than this to answer a sample are starved by a busy machine (audio too). */
const STARVED_MS = 300;
/** Samples taken again, a second later, when the pages were starved (counted, printed). */
let resampled = 0;

/**
 * A sample of pages taken together: each page's position. When the pages take longer than
 * {@linkcode STARVED_MS} to answer, the machine is starving them (their audio threads too: a
 * rendering underrun puts the music behind, which then measures the machine, not the sync), so
 * the sample is taken again a second later, up to twice; every retake is printed.
 */
async function sampleTogether(pages: Page[]): Promise<MusicPosition[]> {
  for (let tries = 0;; tries++) {
    const asked = performance.now();
    const positions = await Promise.all(pages.map(music));
    const took = performance.now() - asked;
    for (const p of positions) assert.ok(p, "music plays on every page");
    if (took <= STARVED_MS || tries >= 2) return positions as MusicPosition[];
    resampled++;
    console.log(`music sync: the pages took ${took.toFixed(0)} ms to answer: sampled again`);
    // fixed wait: a breather for a starved machine; no page state says it is less busy now.
    await sleep(1000);
  }
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(1)} median ${sorted[sorted.length >> 1].toFixed(1)} max ${
    sorted[sorted.length - 1].toFixed(1)
  } ms (n=${values.length})`;
};

Deno.test(
  "show music plays in step on every page, and from the right place on a late join",
  { ignore: skipBrowserTests },
  async (t) => {
    const server = await startTestServer({
      client: true,
      trackUploads: { perSecond: 10, burst: 10 },
    });
    const browser = await launchBrowser();
    const scene = "music-sync-1";
    const { client: host, welcome } = await TestClient.join(server.url, scene);
    try {
      const key = ((await host.waitFor((m) => m.t === "host" && !!m.key)) as HostFrame).key!;
      const clicks = Array.from({ length: Math.floor(SECONDS * 2) }, (_, i) => i * 0.5);
      // A cue every 2 s for the whole track (a show is live, so a late joiner learns of it from
      // the welcome's snapshot, until its last cue).
      const cues = Array.from({ length: (SECONDS + 20) / 2 }, (_, i) => ({
        at: i * 120,
        x: -40 + (i % 5) * 20,
        z: 0,
      }));
      // Longer than the sampled span: a late page slow to load (a busy machine) still finds music.
      const wav = clickTrack({ seconds: SECONDS + 20, clicksAt: clicks });
      const id = createHash("sha256").update(wav).digest("hex");
      const uploaded = await fetch(`${server.url}/s/${scene}/tracks`, {
        method: "POST",
        body: wav,
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(uploaded.status, 201);
      await uploaded.body?.cancel();

      const pages: Page[] = [];
      for (const name of ["Ana", "Bo"]) {
        const { page } = await openScene(browser, server.url, scene, { name, draw: false });
        // A key press is the gesture that lets the page's audio start.
        await page.keyboard.press("Shift");
        await watchBursts(page);
        pages.push(page);
      }
      // Every page's audio running.
      await Promise.all(
        pages.map((page) =>
          page.waitForFunction(() => snowfire.sound()?.running === true, null, {
            timeout: 30_000,
            polling: 50,
          })
        ),
      );

      // Stamped without a start: it begins 5 s later, time for the pages to load the track.
      host.send({
        t: "submit",
        body: {
          type: "show",
          title: "Clicks",
          cues,
          track: { id, name: "clicks.wav", mime: "audio/wav", bytes: wav.length },
        },
      });
      const stamped = await host.waitFor((m) => m.t === "event" && m.body.type === "show");
      assert.ok(stamped.t === "event" && stamped.body.type === "show");
      assert.ok(stamped.body.start > welcome.horizon);
      const start = stamped.body.start;

      const { epoch } = await (await fetch(`${server.url}/api/scenes/${scene}`)).json();
      /** Seconds a page's music is ahead of the server's own clock (same machine, same wall). */
      const ahead = (p: MusicPosition) =>
        p.seconds - ((p.wallMs - epoch) / TICK_MS - start) / TICK_RATE;

      /** Where and when each cue launches. */
      const launches: CueAt[] = cues.map((c) => ({ tick: start + c.at, x: c.x, z: c.z }));

      // The third page opens a little before JOIN_AT (it loads, connects and joins meanwhile).
      let lateReady: Promise<{ page: Page; joined: MusicPosition }> | undefined;
      const openLate = async () => {
        const { page } = await openScene(browser, server.url, scene, {
          name: "Cy",
          draw: false,
          noWait: true,
        });
        pages.push(page);
        // Until it has music (it must connect before the show ends): connected, a key press (the
        // gesture that lets its audio start), its audio running, then the music.
        const deadline = performance.now() + (SECONDS + 15 - JOIN_AT) * 1000;
        const left = () => Math.max(1, deadline - performance.now());
        const joined = await (async () => {
          await page.waitForFunction(() => globalThis.snowfire?.connected() === true, null, {
            timeout: left(),
            polling: 50,
          });
          await page.keyboard.press("Shift");
          await page.waitForFunction(() => snowfire.sound()?.running === true, null, {
            timeout: left(),
            polling: 50,
          });
          return await musicFrom(page, 0, left());
        })().catch(async (e) => {
          const state = await page.evaluate(() => ({
            connected: globalThis.snowfire?.connected(),
            tick: globalThis.snowfire?.tick(),
            sound: globalThis.snowfire?.sound(),
          }));
          throw new Error(
            `the late page's music (it must connect before the show ends): ${
              (e as Error).message
            }: the page ${JSON.stringify(state)}`,
          );
        });
        await watchBursts(page);
        return { page, joined };
      };

      await t.step(
        `${SAMPLES} samples over a ${SECONDS} s show: two pages within ${BOUND_MS} ms; ` +
          `a page joining at ${JOIN_AT} s hears ${JOIN_AT} s ± ${BOUND_MS} ms`,
        async () => {
          // Music playing on both pages; the first page's position then is the anchor.
          const first = (await Promise.all(pages.map((page) => musicFrom(page, 0.2))))[0];
          /** Sleeps until the first page's music is `seconds` in. */
          const sleepTo = (seconds: number) =>
            sleep(Math.max(0, first.wallMs + (seconds - first.seconds) * 1000 - Date.now()));
          const betweenPages: number[] = [];
          const againstClock: number[] = [];
          const last = SECONDS - 1.5;
          const moments = Array.from({ length: SAMPLES }, (_, i) => ({
            at: first.seconds + (last - first.seconds) * (i / (SAMPLES - 1)),
            late: false,
          }));
          moments.push({ at: JOIN_AT, late: true });
          moments.sort((x, y) => x.at - y.at);
          let lateFound: string[] = [];
          for (const moment of moments) {
            if (lateReady === undefined && moment.at >= JOIN_AT - JOIN_LEAD_S) {
              await sleepTo(JOIN_AT - JOIN_LEAD_S);
              lateReady = openLate();
              lateReady.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
            }
            await sleepTo(moment.at);
            if (moment.late) {
              const { page, joined } = await lateReady!;
              const [a, c] = await sampleTogether([pages[0], page]);
              const apart = Math.abs(anchor(a) - anchor(c)) * 1000;
              const own = Math.abs(c.seconds - c.expected) * 1000;
              console.log(
                `music sync: the late page (music from ${joined.seconds.toFixed(2)} s) at ` +
                  `${c.seconds.toFixed(3)} s when the first page is at ${
                    a.seconds.toFixed(3)
                  } s: ` +
                  `${apart.toFixed(1)} ms apart, ${own.toFixed(1)} ms from its own clock, ahead ` +
                  `of the server ${(ahead(c) * 1000).toFixed(1)} ms`,
              );
              assert.ok(joined.seconds > 1, `the late page joined mid-show (${joined.seconds} s)`);
              // A machine too busy to load the page in time: it is sampled when it hears music.
              if (c.seconds > JOIN_AT + 1) console.log(`music sync: the late page was late`);
              lateFound = [
                `${apart.toFixed(1)} ms from the first page`,
                `${own.toFixed(1)} ms from its clock`,
              ];
              assert.ok(apart <= BOUND_MS, `late page vs first page: ${apart} ms`);
              assert.ok(own <= BOUND_MS, `late page vs its clock: ${own} ms`);
              continue;
            }
            const [a, b] = await sampleTogether(pages.slice(0, 2));
            betweenPages.push(Math.abs(anchor(a) - anchor(b)) * 1000);
            againstClock.push(
              Math.abs(a.seconds - a.expected) * 1000,
              Math.abs(b.seconds - b.expected) * 1000,
            );
            console.log(
              `music sync: at ${a.seconds.toFixed(2)} s the pages differ by ` +
                `${((anchor(a) - anchor(b)) * 1000).toFixed(1)} ms; ahead of the server ` +
                `${(ahead(a) * 1000).toFixed(1)} / ${(ahead(b) * 1000).toFixed(1)} ms; reseeks ` +
                `${a.reseeks} / ${b.reseeks}; rates ${a.rate} / ${b.rate}`,
            );
          }
          console.log(`music sync: between pages ${stats(betweenPages)} (${resampled} retaken)`);
          console.log(`music sync: page vs its scene clock ${stats(againstClock)}`);
          console.log(`music sync: late page at ${JOIN_AT} s: ${lateFound.join(", ")}`);
          assert.equal(betweenPages.length, SAMPLES);
          assert.ok(Math.max(...betweenPages) <= BOUND_MS, `between pages ${betweenPages}`);
          assert.ok(Math.max(...againstClock) <= BOUND_MS, `against the clock ${againstClock}`);
        },
      );

      await t.step("every cue launches at its tick on each page and bursts there", async () => {
        await lateReady!;
        // Up to 3 s ago: those launches have burst by now.
        const ticks = await Promise.all(pages.map((p) => p.evaluate(() => snowfire.tick())));
        const upTo = Math.min(...ticks) - 3 * TICK_RATE;
        const seen = await Promise.all(pages.map((page) => cueLaunches(page, launches, upTo)));
        for (const [i, page] of seen.entries()) {
          console.log(
            `music cues: page ${i} saw ${page.launched.size} launch and burst` +
              (page.excused.length > 0 ? `, ${page.excused.length} inside a rebuild` : ""),
          );
          assert.deepEqual(page.missing, [], `page ${i}: each cue at its tick and spot`);
          assert.deepEqual(page.unburst, [], `page ${i}: each launch burst in its world`);
        }
        // The two first pages were there from the start: most cues are seen one by one.
        for (const page of seen.slice(0, 2)) assert.ok(page.launched.size >= (SECONDS - 4) / 4);
        assert.ok(seen[2].launched.size > 0, "the late page saw cues launch");
        // The same launches (seq by cue) wherever two pages saw one, and the same worlds.
        for (const page of seen.slice(1)) {
          for (const [cue, seq] of page.launched) {
            const first = seen[0].launched.get(cue);
            if (first !== undefined) assert.equal(seq, first, `cue ${cue}: the same launch`);
          }
        }
        const agree = await checkpointsAgree([pages[0], pages[1]], start, upTo);
        assert.ok(agree.compared.length >= 5, `checkpoints compared: ${agree.compared.length}`);
        assert.deepEqual(agree.differing, [], "the two pages' worlds agree at every checkpoint");
      });

      await t.step("a cancel stops the music everywhere", async () => {
        host.send({ t: "submit", body: { type: "show-cancel", show: stamped.seq } });
        // The music stopped on every page.
        await Promise.all(pages.map((page) =>
          page.waitForFunction(
            () => (globalThis.snowfire as unknown as MusicHook).music() === null,
            null,
            { timeout: 15_000, polling: 50 },
          )
        ));
      });
    } finally {
      await host.close();
      await browser.close();
      await server.close();
    }
  },
);
