/**
 * Derived launches: launches that are a pure function of the scene seed, stored parameters and
 * the tick, which every page (and the server's sky ledger) expands by itself instead of the
 * server storing one event per launch. Three kinds of source feed it:
 *
 * - the **seeded show** (`settings.show`, coloured by `settings.theme`): one launch per
 *   SHOW_SEGMENT_TICKS segment (shared/show.ts);
 * - the **countdown's finale** (`rules.countdown`, stored by the `rules countdown` event;
 *   shared/finale.ts); the seeded show holds while it plays;
 * - **cue lists** (`cueLists`): a host-composed show's cues at ticks from its start, expanded
 *   as they are (the seeded show holds while one runs).
 *
 * A derived launch is applied at its tick before that tick's stored events, in `seq` order, with
 * the settings and rules in force before them. Its `seq` is negative (see {@link derivedSeq}):
 * its firework draws from its own keyed stream, disjoint from every stored event's, and at one
 * tick it sorts before the stored events, as it is applied.
 *
 * The sources in force come from the snapshot ({@link sourcesOf}), which settings and rules events
 * already move: a late joiner, a replay and the server derive the same launches from the same
 * stored events.
 *
 * @example
 * ```ts
 * import { derivedLaunches, sourcesOf } from "./derived.ts";
 * import { initialSnapshot } from "./settings.ts";
 *
 * const sources = sourcesOf(initialSnapshot()); // the seeded show is on by default
 * const launches = derivedLaunches(7, sources, 0, 600);
 * console.log(launches.length > 0, launches.every((l) => l.seq < 0)); // true true
 * ```
 */
import { finaleEnd, finaleLaunches } from "./finale.ts";
import { mixKey } from "./prng.ts";
import { rulesOf } from "./rules.ts";
import { advanceSnapshot } from "./settings.ts";
import { SHOW_SEGMENT_TICKS, showLaunchBody, showLaunches } from "./show.ts";
import { showCueLists } from "./show_cues.ts";
import type { Countdown, LaunchBody, SceneEvent, ThemeSetting, WorldSnapshot } from "./types.ts";

/** The `by` of a derived launch (as stored show launches had). */
export const DERIVED_BY = "show";

/** One derived launch: at `tick`, with its own (negative) `seq`. */
export interface DerivedLaunch {
  tick: number;
  seq: number;
  body: LaunchBody;
}

/** One cue of a cue list: `at` ticks after the list's start, launching `body`. */
export interface DerivedCue {
  at: number;
  body: LaunchBody;
}

/**
 * A cue list in force (the third kind of source): e.g. a host-composed show stored as one event.
 * Its cues launch at `start + at` for ticks before `end`.
 */
export interface CueListSource {
  /** The list's identity (e.g. its stored event's seq): keys its launches' streams. */
  id: number;
  /** The tick of `at = 0`. */
  start: number;
  /** The first tick at which none of its cues launch any more (a cancel); Infinity if none. */
  end: number;
  /** Its cues, sorted by `at` (ties keep their order). */
  cues: readonly DerivedCue[];
}

/** Everything derived launches depend on besides the seed and the tick. */
export interface DerivedSources {
  /** The seeded show is on. */
  show: boolean;
  /** The scene's theme setting (colours the show when not `auto`, and the finale). */
  theme: ThemeSetting;
  /** The countdown whose finale plays (null: none). */
  countdown: Countdown | null;
  /** Cue lists in force. */
  cueLists: readonly CueListSource[];
}

/** Which source a derived launch comes from (part of its stream's key). */
export const DERIVED_SOURCE = { show: 1, finale: 2, cues: 3 } as const;

/**
 * The seq of a derived launch of source `source` with indices `a` and `b`: a negative integer
 * in [−2³¹, −1]. Stored seqs are positive, so the firework streams keyed by seq (which take it
 * as 32 bits) never meet a stored launch's, and at one tick every derived launch sorts first.
 *
 * @example
 * ```ts
 * import { DERIVED_SOURCE, derivedSeq } from "./derived.ts";
 * derivedSeq(DERIVED_SOURCE.finale, 600, 3) < 0; // true
 * ```
 */
export function derivedSeq(source: number, a: number, b: number): number {
  return -1 - (mixKey(mixKey(mixKey(0x5d1f3a27, source), a >>> 0), b >>> 0) >>> 1);
}

/**
 * The derived sources in force in `snapshot`: its settings and rules, and its cue lists.
 *
 * Plugging in a new source (host shows): fold its stored events into the snapshot (in
 * `advanceSnapshot`, and in `World`'s `#applyNow` and the server's `EventWindow.push`, which fold
 * settings and rules the same way), return its cue lists from {@link cueListsOf}, and every
 * consumer (World, worldFromWindow, replay, the server's sky ledger) derives its launches.
 */
export function sourcesOf(snapshot: WorldSnapshot): DerivedSources {
  return {
    show: snapshot.settings.show,
    theme: snapshot.settings.theme,
    countdown: rulesOf(snapshot).countdown,
    cueLists: cueListsOf(snapshot),
  };
}

/** The cue lists in force in `snapshot`: its live host shows' (shared/show_cues.ts). */
export function cueListsOf(snapshot: WorldSnapshot): readonly CueListSource[] {
  return showCueLists(snapshot);
}

/**
 * The derived launches in [`fromTick`, `toTick`) across source changes: `snapshot` is at or
 * before `fromTick` and `events` (sorted by tick, seq; launches among them are ignored) move
 * the sources; an event at tick t changes the launches from t + 1 on (a tick's derived
 * launches apply before its events).
 *
 * @example
 * ```ts
 * import { derivedLaunchesOver } from "./derived.ts";
 * import { initialSnapshot } from "./settings.ts";
 * const off = { seq: 1, tick: 300, by: "ana", body: { type: "settings", settings: { show: false } } } as const;
 * derivedLaunchesOver(7, initialSnapshot(), [off], 0, 900).every((l) => l.tick <= 300); // true
 * ```
 */
export function derivedLaunchesOver(
  seed: number,
  snapshot: WorldSnapshot,
  events: readonly SceneEvent[],
  fromTick: number,
  toTick: number,
): DerivedLaunch[] {
  const out: DerivedLaunch[] = [];
  let snap = snapshot;
  let cursor = fromTick;
  for (const event of events) {
    const type = event.body.type;
    if (event.tick < snapshot.tick || type === "launch" || type === "gun") continue;
    if (event.tick >= toTick) break;
    if (event.tick >= cursor) {
      for (const launch of derivedLaunches(seed, sourcesOf(snap), cursor, event.tick + 1)) {
        out.push(launch);
      }
      cursor = event.tick + 1;
    }
    snap = advanceSnapshot(snap, [event], event.tick + 1);
  }
  for (const launch of derivedLaunches(seed, sourcesOf(snap), cursor, toTick)) out.push(launch);
  return out;
}

/** Whether the two sources derive the same launches (cue lists compared by identity). */
export function sameSources(a: DerivedSources, b: DerivedSources): boolean {
  if (a.show !== b.show || a.theme !== b.theme || a.cueLists.length !== b.cueLists.length) {
    return false;
  }
  const ca = a.countdown, cb = b.countdown;
  if (ca !== cb) {
    if (ca === null || cb === null) return false;
    if (ca.tick !== cb.tick || ca.seconds !== cb.seconds || ca.intensity !== cb.intensity) {
      return false;
    }
  }
  for (let i = 0; i < a.cueLists.length; i++) {
    const la = a.cueLists[i], lb = b.cueLists[i];
    if (la !== lb && (la.id !== lb.id || la.start !== lb.start || la.end !== lb.end)) return false;
  }
  return true;
}

/** The last tick a cue list launches at, plus one (its running span's end). */
export function cueListEnd(list: CueListSource): number {
  const last = list.cues.length > 0 ? list.start + list.cues[list.cues.length - 1].at + 1 : 0;
  return Math.min(last, list.end);
}

/** Whether the seeded show holds at `tick`: a finale or a cue list plays then. */
function showHolds(sources: DerivedSources, tick: number): boolean {
  const c = sources.countdown;
  if (c !== null && tick >= c.tick && tick < finaleEnd(c)) return true;
  for (const list of sources.cueLists) {
    if (tick >= list.start && tick < cueListEnd(list)) return true;
  }
  return false;
}

/**
 * The derived launches with `fromTick ≤ tick < toTick` while `sources` stay in force, sorted by
 * (tick, seq). Pure and random access: any split of a range gives the same launches.
 */
export function derivedLaunches(
  seed: number,
  sources: DerivedSources,
  fromTick: number,
  toTick: number,
): DerivedLaunch[] {
  const out: DerivedLaunch[] = [];
  if (toTick <= fromTick) return out;
  if (sources.show) {
    for (const launch of showLaunches(seed, fromTick, toTick)) {
      if (showHolds(sources, launch.tick)) continue;
      const segment = Math.floor(launch.tick / SHOW_SEGMENT_TICKS);
      out.push({
        tick: launch.tick,
        seq: derivedSeq(DERIVED_SOURCE.show, segment, Math.floor(segment / 4294967296)),
        body: showLaunchBody(launch, sources.theme),
      });
    }
  }
  const c = sources.countdown;
  if (c !== null) {
    const finale = finaleLaunches(seed, c, fromTick, toTick, sources.theme);
    for (const { tick, k, body } of finale) {
      out.push({ tick, seq: derivedSeq(DERIVED_SOURCE.finale, c.tick, k), body });
    }
  }
  for (const list of sources.cueLists) {
    const from = Math.max(fromTick, list.start), to = Math.min(toTick, list.end);
    if (to <= from) continue;
    const cues = list.cues;
    for (let i = 0; i < cues.length; i++) {
      const tick = list.start + cues[i].at;
      if (tick < from) continue;
      if (tick >= to) break;
      out.push({ tick, seq: derivedSeq(DERIVED_SOURCE.cues, list.id, i), body: cues[i].body });
    }
  }
  out.sort(byTickThenSeq);
  return out;
}

function byTickThenSeq(a: DerivedLaunch, b: DerivedLaunch): number {
  return a.tick - b.tick || a.seq - b.seq;
}
