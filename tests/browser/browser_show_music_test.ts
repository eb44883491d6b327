/**
 * A show's music in sync on every page, measured in headless Chromium. A host (a test client)
 * uploads a generated click track and stamps a show naming it; two pages play it through Web
 * Audio. At ten moments across the show each page reports the track position of the sample
 * leaving its speakers (AudioContext.getOutputTimestamp) with its wall-clock time and its scene
 * tick; the two pages' positions, brought to the same wall-clock moment, differ by at most 40 ms,
 * and each page is within 40 ms of where its own scene clock says the music should be. A third
 * page joining mid-show starts the music at the right place (± 40 ms against the first page).
 * A cancel stops the music on every page.
 *
 * The show lasts `SNOWFIRE_MUSIC_SECONDS` (default 16 s, the late page joining halfway: CI's time
 * budget); the issue's 60 s show with a page joining at 30 s is `SNOWFIRE_MUSIC_SECONDS=60`.
 * Each sample's differences are printed (`music sync:` lines) for the performance notes.
 */
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

type HostFrame = Extract<ServerMessage, { t: "host" }>;

const SECONDS = Number(Deno.env.get("SNOWFIRE_MUSIC_SECONDS") ?? "24");
const JOIN_AT = Number(Deno.env.get("SNOWFIRE_MUSIC_JOIN_AT") ?? Math.min(30, SECONDS / 3));
const SAMPLES = 10;
const BOUND_MS = 40;

/** The page's music position (null when none plays). */
function music(page: Page): Promise<MusicPosition | null> {
  return page.evaluate(() =>
    (globalThis.snowfire as unknown as { music(): MusicPosition | null }).music()
  );
}

/** Polls `read` every 200 ms (doing `between` in between) until `ok` holds for what it read; returns that. */
async function until<T>(
  what: string,
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 30_000,
  between?: () => Promise<void>,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await between?.();
    await sleep(200);
  }
}

/** Track seconds at wall-clock 0, from a sample: two pages' values compare at any moment. */
const anchor = (p: MusicPosition) => p.seconds - p.wallMs / 1000;

/** A sample of pages taken together: each page's position, and their spread in ms. */
async function sampleTogether(pages: Page[]): Promise<MusicPosition[]> {
  const positions = await Promise.all(pages.map(music));
  for (const p of positions) assert.ok(p, "music plays on every page");
  return positions as MusicPosition[];
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
        pages.push(page);
      }
      await until(
        "every page's audio running",
        () => Promise.all(pages.map((p) => p.evaluate(() => snowfire.sound()?.running ?? false))),
        (running) => running.every(Boolean),
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

      // The late page joins while the others are sampled.
      let late: Promise<number[]> | undefined;
      const joinLate = async (): Promise<number[]> => {
        const { page } = await openScene(browser, server.url, scene, {
          name: "Cy",
          draw: false,
          noWait: true,
        });
        pages.push(page);
        const joined = await until(
          "the late page's music (it must connect before the show ends)",
          () => music(page),
          (p) => p !== null,
          (SECONDS + 15 - JOIN_AT) * 1000,
          () => page.keyboard.press("Shift"),
        ).catch(async (e) => {
          const state = await page.evaluate(() => ({
            connected: snowfire.connected(),
            tick: snowfire.tick(),
            sound: snowfire.sound(),
          }));
          throw new Error(`${(e as Error).message}: the page ${JSON.stringify(state)}`);
        });
        assert.ok(joined!.seconds >= JOIN_AT - 0.5, `started part-way, at ${joined!.seconds} s`);
        const found: number[] = [];
        for (let i = 0; i < 3; i++) {
          const [a, c] = await sampleTogether([pages[0], page]);
          found.push(Math.abs(anchor(a) - anchor(c)) * 1000);
          console.log(
            `music sync: late page at ${c.seconds.toFixed(2)} s, ahead of the server ${
              (ahead(c) * 1000).toFixed(1)
            } ms`,
          );
        }
        return found;
      };

      await t.step(
        `${SAMPLES} samples over a ${SECONDS} s show: two pages within ${BOUND_MS} ms; ` +
          `a page joining at ${JOIN_AT} s starts in the right place`,
        async () => {
          const first = (await until(
            "music playing on both pages",
            () => Promise.all(pages.map(music)),
            (all) => all.every((p) => p !== null && p.seconds > 0.2),
          ))[0]!;
          const betweenPages: number[] = [];
          const againstClock: number[] = [];
          const last = SECONDS - 1.5;
          for (let i = 0; i < SAMPLES; i++) {
            const due = first.seconds + (last - first.seconds) * (i / (SAMPLES - 1));
            if (late === undefined && due >= JOIN_AT) {
              late = joinLate();
              late.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
            }
            await sleep(Math.max(0, first.wallMs + (due - first.seconds) * 1000 - Date.now()));
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
          const lateDiffs = await (late ?? joinLate());
          console.log(`music sync: between pages ${stats(betweenPages)}`);
          console.log(`music sync: page vs its scene clock ${stats(againstClock)}`);
          console.log(`music sync: late page vs first page ${stats(lateDiffs)}`);
          assert.ok(Math.max(...betweenPages) <= BOUND_MS, `between pages ${betweenPages}`);
          assert.ok(Math.max(...againstClock) <= BOUND_MS, `against the clock ${againstClock}`);
          assert.ok(Math.max(...lateDiffs) <= BOUND_MS, `late page ${lateDiffs}`);
        },
      );

      await t.step("a cancel stops the music everywhere", async () => {
        host.send({ t: "submit", body: { type: "show-cancel", show: stamped.seq } });
        await until(
          "the music stopped on every page",
          () => Promise.all(pages.map(music)),
          (all) => all.every((p) => p === null),
          15_000,
        );
      });
    } finally {
      await host.close();
      await browser.close();
      await server.close();
    }
  },
);
