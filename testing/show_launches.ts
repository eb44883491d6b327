/**
 * A show's cues as a page's world launched and burst them, for browser tests: the page notes
 * every launch whose sparks it holds ({@linkcode watchBursts}), and {@linkcode cueLaunches}
 * reads which cues it saw launch (`snowfire.showEvents`, at their tick and spot) and burst.
 * A page a busy machine starved long enough to rebuild its world (fast-forward, resync) did not
 * apply the launches in the skipped ticks one by one: those cues are `excused`, not `missing`
 * (the rebuilt world holds them; checkpoint hashes compare it with other pages).
 *
 * @example
 * ```ts ignore
 * await watchBursts(page);
 * // ... the show plays ...
 * const seen = await cueLaunches(page, [{ tick: 1200, x: 0, z: 0 }], 1300);
 * assert.deepEqual(seen.missing, []);
 * ```
 */
import type { Page } from "playwright-core";
import type { SnowfireDebug } from "../client/debug/debug_hook.ts";

declare global {
  var snowfire: SnowfireDebug;
  var seenBursts: Set<number> | undefined;
  var burstWatch: ReturnType<typeof setInterval> | undefined;
}

/** Sparks a launch must hold to count as burst (a rising shell holds a few). */
export const BURST_SPARKS = 20;
/** Ticks after its launch by which a cue has burst and faded (a burst lasts seconds). */
export const BURST_TICKS = 300;

/**
 * Has the page note, four times a second, every launch (by seq) whose live sparks number at least
 * {@linkcode BURST_SPARKS} (`globalThis.seenBursts`); {@linkcode stopWatchingBursts} ends it.
 */
export function watchBursts(page: Page): Promise<void> {
  return page.evaluate((sparks) => {
    const seen = globalThis.seenBursts = new Set<number>();
    clearInterval(globalThis.burstWatch);
    globalThis.burstWatch = setInterval(() => {
      for (const c of snowfire.fireworkCentroids()) if (c.count >= sparks) seen.add(c.seq);
    }, 250);
  }, BURST_SPARKS);
}

/** Ends {@linkcode watchBursts} on the page. */
export function stopWatchingBursts(page: Page): Promise<void> {
  return page.evaluate(() => clearInterval(globalThis.burstWatch));
}

/** A cue as the world launches it: its tick (`start + at`) and spot. */
export interface CueAt {
  tick: number;
  x: number;
  z: number;
}

/** What a page's world did with a show's cues (see {@linkcode cueLaunches}). */
export interface CueLaunches {
  /** Each cue seen launched at its tick and spot (`tick x z`), with the launch's seq. */
  launched: Map<string, number>;
  /** Cues neither launched nor inside a rebuilt stretch. */
  missing: string[];
  /** Cues inside ticks the world skipped by rebuilding. */
  excused: string[];
  /** Cues launched whose burst the page never held (none excused by a rebuild). */
  unburst: string[];
}

/**
 * The cues of `cues` at ticks up to `upTo` (they have burst by then) as the page saw them:
 * launched at their tick and spot and burst, or skipped by a rebuild of its world.
 */
export async function cueLaunches(
  page: Page,
  cues: readonly CueAt[],
  upTo: number,
): Promise<CueLaunches> {
  const seen = await page.evaluate(() => ({
    launches: snowfire.showEvents!(),
    rebuilds: snowfire.rebuilds!(),
    bursts: [...(globalThis.seenBursts ?? [])],
  }));
  const key = (c: CueAt) => `${c.tick} ${c.x} ${c.z}`;
  const launched = new Map<string, number>();
  for (const e of seen.launches) launched.set(key(e), e.seq);
  const skipped = (from: number, to: number) =>
    seen.rebuilds.some((r) => r.from < to && r.to >= from);
  const out: CueLaunches = { launched: new Map(), missing: [], excused: [], unburst: [] };
  for (const cue of cues) {
    if (cue.tick > upTo) continue;
    const k = key(cue);
    const seq = launched.get(k);
    if (seq === undefined) {
      (skipped(cue.tick, cue.tick) ? out.excused : out.missing).push(k);
      continue;
    }
    out.launched.set(k, seq);
    if (!seen.bursts.includes(seq) && !skipped(cue.tick, cue.tick + BURST_TICKS)) {
      out.unburst.push(k);
    }
  }
  return out;
}

/**
 * The checkpoint hashes that every page of `pages` recorded at ticks in `[from, to]`, by tick,
 * with the ticks where pages differ (empty when the worlds agree: the same launches).
 */
export async function checkpointsAgree(
  pages: readonly Page[],
  from: number,
  to: number,
): Promise<{ compared: number[]; differing: number[] }> {
  const each = await Promise.all(pages.map((page) =>
    page.evaluate(([from, to]) => {
      const out: [number, string][] = [];
      for (const tick of snowfire.checkpoints()) {
        const hash = tick >= from && tick <= to ? snowfire.hashAt(tick) : undefined;
        if (hash !== undefined) out.push([tick, hash]);
      }
      return out;
    }, [from, to] as const)
  ));
  const maps = each.map((list) => new Map(list));
  const compared = [...maps[0].keys()].filter((tick) => maps.every((m) => m.has(tick)));
  const differing = compared.filter((tick) => maps.some((m) => m.get(tick) !== maps[0].get(tick)));
  return { compared, differing };
}
