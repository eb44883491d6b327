/**
 * `deno run -A bench/browser/join_run.ts`: does a late joiner freeze a page already there? A
 * veteran page (its own headless Chromium) holds a sky of `--target` live sparks (default 1M), a
 * tick a frame as a client steps it; once it has run `--baseline` frames (default 240), a joiner
 * (a second Chromium) builds the same scene from the window (`worldFromWindow`), binds a renderer,
 * hashes its first checkpoint and runs 120 frames (bench/browser/join_page.ts). Reported per run:
 * the veteran's longest gap between animation frames before the join and while it goes on (target:
 * while ≤ 2× before), and the joiner's join and first-checkpoint times. `--runs=N` (default 3).
 * `--draw-every=N` (default 0: never drawn, so that the software GPU does not decide the frame
 * rate; N: every n-th frame).
 * `--priorities=V,J` (Linux, root: SCHED_RR priorities for every process of the veteran's browser
 * and of the joiner's, e.g. 20,10): the two pages stand for two people's machines, so the joiner
 * should not take the veteran's CPU; on one shared machine, with both at one round-robin priority,
 * the kernel's 100 ms round-robin slices decide the veteran's gaps. Default: left as started.
 */
import { bundleScript } from "../../tools/bundle.ts";
import { launchBrowser } from "../../testing/browser.ts";
import type { Browser, Page } from "playwright-core";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const found = Deno.args.find((arg) => arg.startsWith(prefix));
  return found ? found.slice(prefix.length) : fallback;
}

const target = Number(flag("target", "1000000"));
const baseline = Number(flag("baseline", "240"));
const runs = Number(flag("runs", "3"));
const drawEvery = Number(flag("draw-every", "0"));
const priorities = flag("priorities", "").split(",").filter((p) => p !== "").map(Number);
const WARMUP = 600;

/** Every process descending from `root` (itself included), from /proc. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // Gone meanwhile.
    }
  }
  const out: number[] = [];
  const visit = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return out;
}

/** This process's children that are browsers (Chromium's main processes), by pid. */
function browserRoots(): number[] {
  return processTree(Deno.pid).filter((pid) => {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === Deno.pid &&
        /chrom/i.test(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
    } catch {
      return false;
    }
  });
}

/** Sets SCHED_RR `priority` on every thread of every process under `root`. */
async function prioritise(root: number, priority: number): Promise<void> {
  for (const pid of processTree(root)) {
    await new Deno.Command("chrt", { args: ["-a", "-r", "-p", String(priority), String(pid)] })
      .output();
  }
}
const URL_ = "http://snowfire-bench.localhost/join";
const script = await bundleScript(new URL("./join_page.ts", import.meta.url));

async function open(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
  await page.route(URL_, (route) =>
    route.fulfill({
      status: 200,
      contentType: "text/html",
      headers: {
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Embedder-Policy": "require-corp",
      },
      body: `<!doctype html><canvas id="scene" width="480" height="270"></canvas>`,
    }));
  await page.goto(URL_);
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  page.setDefaultTimeout(0);
  await page.addScriptTag({ content: script });
  return page;
}

const maxGap = (starts: number[], from: number, to: number) => {
  let gap = 0;
  for (let i = 1; i < starts.length; i++) {
    if (starts[i] < from || starts[i - 1] > to) continue;
    gap = Math.max(gap, starts[i] - starts[i - 1]);
  }
  return gap;
};

const ratios: number[] = [];
for (let run = 1; run <= runs; run++) {
  const running = new Set(browserRoots());
  const veteranBrowser = await launchBrowser();
  const veteranRoot = browserRoots().find((pid) => !running.has(pid));
  const joinerBrowser = await launchBrowser();
  const joinerRoot = browserRoots().find((pid) => !running.has(pid) && pid !== veteranRoot);
  try {
    const veteran = await open(veteranBrowser);
    const joiner = await open(joinerBrowser);
    if (priorities.length === 2) {
      // After the pages opened: their renderer and GPU processes exist now.
      if (veteranRoot === undefined || joinerRoot === undefined) {
        throw new Error("join_run: the browsers' processes were not found in /proc");
      }
      await prioritise(veteranRoot, priorities[0]);
      await prioritise(joinerRoot, priorities[1]);
    }
    await veteran.evaluate(
      ([t, w, d]) => {
        const g = globalThis as unknown as Record<string, unknown>;
        const hold = g.holdSky as (a: number, b: number, c: number, e: number) => unknown;
        g.vet = hold(t, w, w + 4000, d);
      },
      [target, WARMUP, drawEvery],
    );
    await veteran.waitForFunction(
      (n) => (globalThis as unknown as { vet: { starts: number[] } }).vet.starts.length >= n,
      baseline,
    );
    const now = () => veteran.evaluate(() => performance.now());
    const joinFrom = await now();
    const joined = await joiner.evaluate(
      ([t, at, d]) =>
        (globalThis as unknown as {
          joinSky(a: number, b: number, c: number, e: number): Promise<unknown>;
        }).joinSky(t, at, 120, d),
      [target, WARMUP + baseline, drawEvery],
    ) as { joinMs: number; checkpointMs: number };
    const joinTo = await now();
    await veteran.waitForFunction(
      (to) => {
        const starts = (globalThis as unknown as { vet: { starts: number[] } }).vet.starts;
        return starts.length > 0 && starts[starts.length - 1] > to + 1000;
      },
      joinTo,
    );
    const { starts, live } = await veteran.evaluate(() => {
      const vet = (globalThis as unknown as {
        vet: { starts: number[]; live(): number; stop(): void };
      }).vet;
      vet.stop();
      return { starts: vet.starts, live: vet.live() };
    });
    // Before: from the 60th frame (the first frames write every live launch) to the join.
    const before = maxGap(starts, starts[60], joinFrom);
    const during = maxGap(starts, joinFrom, joinTo);
    ratios.push(during / before);
    console.log(
      `run ${run}: ${live} live sparks; veteran's longest frame gap before ${
        before.toFixed(0)
      } ms, while the joiner joined ${during.toFixed(0)} ms (×${
        (during / before).toFixed(2)
      }); joiner: worldFromWindow + renderer ${joined.joinMs.toFixed(0)} ms, first checkpoint ${
        joined.checkpointMs.toFixed(0)
      } ms; join window ${(joinTo - joinFrom).toFixed(0)} ms; load ${
        Deno.loadavg().map((v) => v.toFixed(1)).join(" ")
      }`,
    );
  } finally {
    await veteranBrowser.close();
    await joinerBrowser.close();
  }
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log(
  `longest gap while joining ÷ before: min ×${sorted[0].toFixed(2)}, median ×${
    sorted[sorted.length >> 1].toFixed(2)
  }, max ×${sorted[sorted.length - 1].toFixed(2)} over ${runs} runs`,
);
