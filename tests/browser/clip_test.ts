/**
 * Clips saved through the replay bar, pressed like a person, in headless Chromium (software GL):
 * a 5 s clip is a WebM whose video track holds frames (the file is parsed: tracks and their
 * SimpleBlocks); a page that draws nothing while it records (drawing switched off, as a test page
 * can) downloads no empty file and says why in words.
 */
import assert from "node:assert/strict";
import type { Download } from "playwright-core";
import { browserTest, clickLikeAPerson, launchBrowser, openScene } from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { readWebm } from "../../testing/webm.ts";

const OUTPUT = new URL("../output/", import.meta.url);

browserTest(
  "browser clip: a saved clip holds video frames; an empty one is not saved",
  async (t) => {
    await Deno.mkdir(OUTPUT, { recursive: true });
    const server = await startTestServer({ client: true });
    const browser = await launchBrowser();
    try {
      const scene = `clip-${crypto.randomUUID().slice(0, 8)}`;

      await t.step("a 5 s clip through the bar is a WebM with video frames", async () => {
        // A page as a visitor has it (no test mode: the drawing buffer is not kept), small.
        const { page, problems } = await openScene(browser, server.url, scene, {
          name: "Ana",
          width: 480,
          height: 270,
          test: false,
        });
        try {
          await clickLikeAPerson(page, "#replay-open");
          assert.equal(await page.inputValue(".replay-length"), "5", "5 s is the first length");
          const download = page.waitForEvent("download", { timeout: 90_000 });
          await clickLikeAPerson(page, ".replay-record");
          // The indicator shows while recording (polled on a timer: frames are slow here).
          await page.waitForFunction(
            () => document.querySelector<HTMLElement>(".replay-rec")?.hidden === false,
            null,
            { timeout: 20_000, polling: 50 },
          );
          const file = await download;
          assert.match(file.suggestedFilename(), new RegExp(`^snowfire-${scene}-.*\\.webm$`));
          const path = new URL("clip-5s.webm", OUTPUT).pathname;
          await file.saveAs(path);
          const bytes = await Deno.readFile(path);
          const clip = readWebm(bytes);
          const video = clip.tracks.find((track) => track.type === 1);
          console.log(`clip: ${bytes.length} bytes, tracks ${JSON.stringify(clip.tracks)}`);
          assert.ok(clip.webm, "a WebM file");
          assert.ok(video, "a video track");
          // Software GL here draws 0.5–2 frames a second at this size beside other tests.
          assert.ok(video.frames >= 2, `video frames: ${video.frames}`);
          assert.deepEqual(problems, []);
        } finally {
          await page.context().close();
        }
      });

      await t.step("a page that draws nothing saves no empty clip and says why", async () => {
        const { page, problems } = await openScene(browser, server.url, scene, {
          name: "Bo",
          width: 480,
          height: 270,
          draw: false,
        });
        try {
          let downloaded: Download | null = null;
          page.on("download", (d) => (downloaded = d));
          await clickLikeAPerson(page, "#replay-open");
          await clickLikeAPerson(page, ".replay-record");
          const said = await page.waitForFunction(
            () => {
              const text = document.getElementById("toasts")!.textContent ?? "";
              return /No clip saved: the scene drew no pictures/.test(text) && text;
            },
            null,
            { timeout: 60_000, polling: 100 },
          );
          console.log(`said: ${await said.jsonValue()}`);
          assert.equal(downloaded, null, "no file was offered");
          assert.equal(await page.isHidden(".replay-rec"), true, "the indicator is gone");
          assert.deepEqual(problems, []);
        } finally {
          await page.context().close();
        }
      });
    } finally {
      await browser.close();
      await server.close();
    }
  },
);
