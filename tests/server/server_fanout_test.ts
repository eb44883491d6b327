/**
 * Per-scene fan-out budgets (issue 33, failure 1): 250 sockets from 50 loopback addresses in one
 * scene, each reacting every 500 ms, against a child server process with its default limits. A
 * viewer in another scene keeps its heartbeats and launches: its longest heartbeat gap within 3×
 * a quiet window's (or 1 s) and its launch p99 within 1.5× quiet (or 100 ms more: one launch of
 * 16 is at the mercy of a shared machine), both measured in the same run, the quiet windows with
 * the same crowd in its scene but silent; and each crowd socket gets at most a `reactions` frame
 * a quarter second, whatever the crowd's size. (Before: one `reaction` frame per reaction to
 * everyone, N² frames: the other scene's heartbeat gap went 136 ms → 9.2 s.)
 */
// test tiers: alone
import assert from "node:assert/strict";
import { REACTION_FRAME_MS } from "../../server/scene/reaction_tally.ts";
import { reactInChild } from "../../testing/reactor.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { describeWindow, Victim } from "../../testing/victim.ts";
import { eventually, sleep } from "../../testing/wait.ts";

const SOCKETS = 250;
const ADDRESSES = 50;
const REACT_EVERY_MS = 500;
/**
 * How long the crowd sits in its scene before and after it reacts, and how long it reacts; each
 * window is measured inside one of those phases, a margin from either end.
 */
const IDLE_MS = 5000;
const REACT_MS = 5000;
const MARGIN_MS = 500;
const WINDOW_MS = IDLE_MS - 2 * MARGIN_MS;
/**
 * How much later than quiet a window's slowest launch may come back. The p99 of a window's 16
 * launches is its slowest, one sample: CI saw it at 27–66 ms beside the browser tier while the
 * quiet windows' was 8–23 ms (three attempts in one run), and in other runs the other way round
 * (quiet 146 ms, crowd 14 ms). A launch 100 ms late is no stall a person sees; what this test
 * guards against (every reaction sent to everyone) held the other scene for seconds.
 */
const LAUNCH_SLACK_MS = 100;

/**
 * One measurement: the crowd in, sitting quiet; the crowd reacting; the crowd quiet again. The
 * quiet baseline is the worse of the windows before and after (the machine is shared), so the
 * ratio is what the reactions cost, with the same people connected.
 */
async function measure(url: string, victim: Victim, scene: string) {
  const crowd = reactInChild(url, scene, SOCKETS, ADDRESSES, REACT_EVERY_MS, REACT_MS, IDLE_MS);
  await eventually("the crowd is in", async () => {
    const info = await (await fetch(`${url}/api/scenes/${scene}`)).json()
      .catch(() => null) as { people?: unknown[] } | null;
    return (info?.people?.length ?? 0) >= SOCKETS;
  }, 60_000);
  const start = performance.now();
  const window = async (from: number) => {
    await sleep(Math.max(0, start + from + MARGIN_MS - performance.now()));
    victim.reset();
    await sleep(WINDOW_MS);
    return victim.window();
  };
  const before = await window(0);
  const loud = await window(IDLE_MS);
  const after = await window(IDLE_MS + REACT_MS);
  const result = await crowd;
  const quiet = {
    ...before,
    maxGap: Math.max(before.maxGap, after.maxGap),
    launchP99: Math.max(before.launchP99, after.launchP99),
  };
  return { quiet, loud, result };
}

Deno.test("a reacting crowd in one scene does not stall another scene", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "snowfire-fanout-" });
  const server = await startTestServer({ process: true, dataDir });
  const victim = await Victim.join(server.url, "quiet-victim-1");
  try {
    // The victim is under way before the crowd comes: two of its launches came back (its count
    // holds the one in flight too).
    await eventually("the victim's first launches came back", () => victim.window().launches >= 3);
    // On a miss the whole measurement runs again (a new crowd scene), up to three times, so one
    // noisy spell on this shared machine does not decide it.
    for (let attempt = 1;; attempt++) {
      const { quiet, loud, result } = await measure(server.url, victim, `crowd-scene-${attempt}`);
      const seconds = REACT_MS / 1000;
      const framesPerSocket = result.reactionFrames / result.welcomed / seconds;
      const detail = `quiet: ${describeWindow(quiet)}; crowd: ${describeWindow(loud)}; ` +
        `crowd ${result.welcomed} welcomed, ${result.sent} reactions sent, ` +
        `${framesPerSocket.toFixed(2)} reaction frames a second per socket (attempt ${attempt})`;
      console.log(detail);
      assert.equal(result.welcomed, SOCKETS, detail);
      // (The crowd runs niced on a shared machine: it may not keep its pace exactly.)
      assert.ok(result.sent >= SOCKETS * seconds * 1000 / REACT_EVERY_MS * 0.5, detail);
      assert.ok(
        framesPerSocket <= 1000 / REACTION_FRAME_MS + 0.5,
        `at most a reaction frame a quarter second: ${detail}`,
      );
      const gapOk = loud.maxGap <= Math.max(3 * quiet.maxGap, 1000);
      const launchOk = loud.launchP99 <=
        Math.max(1.5 * quiet.launchP99, quiet.launchP99 + LAUNCH_SLACK_MS);
      if ((gapOk && launchOk) || attempt === 3) {
        assert.ok(gapOk, `heartbeat max gap within 3x quiet or 1 s: ${detail}`);
        assert.ok(launchOk, `launch p99 within 1.5x quiet or 100 ms more: ${detail}`);
        break;
      }
    }
  } finally {
    await victim.close();
    await server.kill("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
});
