/**
 * Embedding, in headless Chromium: a site that FRAME_ANCESTORS names frames `/s/:scene?embed=1`
 * and the scene runs inside it with no bar, one small launch hint and an "Open in Snowfire" link
 * (on top at its centre, to the full scene); a click on the framed sky launches. A site it does
 * not name gets no scene (the browser refuses the frame). Screenshots of the embed view at
 * 1280×720, 390×844 and 844×390: tests/output/embed-*.png.
 */
import assert from "node:assert/strict";
import type { Frame, Page } from "playwright-core";
import {
  browserTest,
  drawnScreenshot,
  launchBrowser,
  openScene,
  waitConnected,
} from "../../testing/browser.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { eventually } from "../../testing/wait.ts";

/** A tiny other site whose page frames `src()` full size. */
function embedder(src: () => string): { server: Deno.HttpServer; origin: string } {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
    new Response(
      `<!doctype html><title>Blog</title><body style="margin:0">` +
        `<iframe src="${src()}" style="border:0;width:100vw;height:100vh;display:block"></iframe>`,
      { headers: { "content-type": "text/html" } },
    ));
  return { server, origin: `http://127.0.0.1:${server.addr.port}` };
}

/** The frame of the embedder's `<iframe>`, once the page has one. */
async function sceneFrame(page: Page): Promise<Frame> {
  const frame = await (await page.waitForSelector("iframe", { timeout: 30_000 })).contentFrame();
  if (!frame) throw new Error("no frame");
  return frame;
}

browserTest("browser embed: named sites frame a scene with a hint and a way out", async (t) => {
  let sceneUrl = "";
  const allowed = embedder(() => sceneUrl);
  const refused = embedder(() => sceneUrl);
  const server = await startTestServer({ client: true, frameAncestors: [allowed.origin] });
  const browser = await launchBrowser();
  try {
    const scene = `embed-${crypto.randomUUID().slice(0, 8)}`;
    sceneUrl = `${server.url}/s/${scene}?embed=1&test&nodraw`;

    await t.step("a named site frames the scene", async () => {
      const context = await browser.newContext({ viewport: { width: 800, height: 500 } });
      const page = await context.newPage();
      page.setDefaultTimeout(90_000);
      try {
        await page.goto(`${allowed.origin}/`);
        const frame = await sceneFrame(page);
        await frame.waitForFunction(
          () => globalThis.snowfire?.connected() && snowfire.tick() > 0,
          null,
          { timeout: 60_000, polling: 100 },
        );
        const look = await frame.evaluate(() => {
          const shown = (id: string) => {
            const node = document.getElementById(id);
            return !!node && node.getBoundingClientRect().width > 0;
          };
          const link = document.getElementById("embed-open") as HTMLAnchorElement;
          const r = link.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return {
            bar: !!document.querySelector(".hud-bar")!.getBoundingClientRect().width,
            strip: shown("embed-strip"),
            hint: document.getElementById("embed-hint")!.textContent,
            href: link.href,
            target: link.target,
            linkOnTop: hit === link || link.contains(hit),
            linkHeight: r.height,
          };
        });
        assert.equal(look.bar, false, "no bar");
        assert.ok(look.strip, "the hint and link are shown");
        assert.equal(look.hint, "Click the sky to launch a firework");
        assert.equal(look.href, `${server.url}/s/${scene}`);
        assert.equal(look.target, "_blank");
        assert.ok(look.linkOnTop, "the link is on top at its centre");
        assert.ok(look.linkHeight >= 44, "the link is a 44 px target");
        // A click on the framed sky launches.
        await page.mouse.click(400, 150);
        await frame.waitForFunction(
          () => snowfire.recentEvents().some((e) => e.type === "launch" && e.by === snowfire.you),
          null,
          { timeout: 30_000, polling: 100 },
        );
      } finally {
        await context.close();
      }
    });

    await t.step("a site not named gets no scene", async () => {
      const context = await browser.newContext({ viewport: { width: 800, height: 500 } });
      const page = await context.newPage();
      try {
        await page.goto(`${refused.origin}/`);
        const frame = await sceneFrame(page);
        // Until the frame's fate is known: the browser's error page in it (the refusal), or a
        // scene that loaded there after all.
        await eventually(
          "the frame is refused or holds a scene",
          async () =>
            frame.url().startsWith("chrome-error:") ||
            await frame.evaluate(() => "snowfire" in globalThis).catch(() => false),
          30_000,
        );
        const hasScene = await frame.evaluate(() => "snowfire" in globalThis).catch(() => false);
        assert.equal(hasScene, false, `the frame stays empty (${frame.url()})`);
      } finally {
        await context.close();
      }
    });

    await Deno.mkdir("tests/output", { recursive: true });
    for (
      const vp of [
        { label: "1280x720", width: 1280, height: 720, touch: false },
        { label: "390x844", width: 390, height: 844, touch: true },
        { label: "844x390", width: 844, height: 390, touch: true },
      ]
    ) {
      await t.step(`embed view at ${vp.label}`, async () => {
        const { page, problems } = await openScene(browser, server.url, scene, {
          name: "Guest",
          width: vp.width,
          height: vp.height,
          touch: vp.touch,
          draw: false,
        });
        try {
          await page.goto(`${server.url}/s/${scene}?test&nodraw&embed=1`);
          await waitConnected(page);
          await drawnScreenshot(page, `tests/output/embed-${vp.label}.png`);
          const strip = await page.evaluate(() => {
            const r = document.getElementById("embed-strip")!.getBoundingClientRect();
            return { bottom: r.bottom, right: r.right, height: r.height };
          });
          assert.ok(strip.bottom <= vp.height && strip.right <= vp.width, "the strip fits");
          assert.deepEqual(problems, []);
        } finally {
          await page.context().close();
        }
      });
    }
  } finally {
    await browser.close();
    await server.close();
    await allowed.server.shutdown();
    await refused.server.shutdown();
  }
});
