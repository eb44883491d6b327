/**
 * Host-composed shows as the world sees them: one stored `show` event (and perhaps a
 * `show-cancel`) becomes a cue list every page expands by itself into launches at
 * `start + at` (the derived launches of shared/derived.ts; each cue's random streams keyed by
 * the show's seq and the cue's index). This file folds those events into a snapshot's live
 * shows, drops the shows that are over, and turns a live show into its cue list.
 *
 * @example
 * ```ts
 * import { foldShowEvent, showCueList } from "./show_cues.ts";
 * import { initialSnapshot } from "./settings.ts";
 *
 * const cues = [{ at: 60, x: 5, z: 0 }, { at: 0, x: -5, z: 0, kind: "willow" as const }];
 * const body = { type: "show" as const, title: "Duet", cues, start: 900 };
 * const snap = foldShowEvent(initialSnapshot(), { seq: 4, tick: 600, by: "ana", body });
 * const list = showCueList(snap.shows![0]);
 * console.log(list.start, list.cues.map((c) => c.at)); // 900 [0, 60]: sorted by `at`
 * ```
 */
import { TICK_RATE } from "./constants.ts";
import { SHOW_MAX_LIVE, SHOW_MAX_TICKS } from "./protocol.ts";
import type {
  LaunchBody,
  LiveShow,
  SceneEvent,
  ShowBody,
  ShowCue,
  WorldSnapshot,
} from "./types.ts";

/** One cue of a cue list: `at` ticks after the list's start, launching `body`. */
export interface ShowListCue {
  at: number;
  body: LaunchBody;
}

/**
 * A show as a derived source: `id` (its seq) keys its launches' streams, cue `i` launches at
 * `start + cues[i].at` for ticks before `end` (a cancel's tick + 1; Infinity without one).
 */
export interface ShowCueList {
  id: number;
  start: number;
  end: number;
  /** Sorted by `at`, ties in the stored order. */
  cues: readonly ShowListCue[];
}

/** The launch body a cue stands for: the cue's launch fields, as a click would send them. */
export function cueLaunchBody(cue: ShowCue): LaunchBody {
  const body: LaunchBody = { type: "launch", x: cue.x, z: cue.z };
  if (cue.y !== undefined) body.y = cue.y;
  if (cue.kind !== undefined) body.kind = cue.kind;
  if (cue.theme !== undefined) body.theme = cue.theme;
  if (cue.breaks !== undefined) body.breaks = cue.breaks;
  return body;
}

/**
 * The cues sorted by `at` (stable: ties keep their order), and for each sorted cue its index in
 * `cues`. The server stores a show's cues in this order, so a cue's stored index is its key.
 */
export function sortCues(cues: readonly ShowCue[]): { cues: ShowCue[]; order: number[] } {
  const order = cues.map((_, i) => i);
  order.sort((a, b) => cues[a].at - cues[b].at || a - b);
  return { cues: order.map((i) => cues[i]), order };
}

/** Whether the cues are sorted by `at`. */
function sorted(cues: readonly ShowCue[]): boolean {
  for (let i = 1; i < cues.length; i++) if (cues[i].at < cues[i - 1].at) return false;
  return true;
}

/** The last tick a show's cues launch at. */
export function showLastTick(show: ShowBody): number {
  let last = 0;
  for (const cue of show.cues) if (cue.at > last) last = cue.at;
  return show.start + last;
}

/**
 * The tick a show's music ends at: its start plus the track's length (`track.ms`, rounded up to
 * a tick, at most SHOW_MAX_TICKS); the show's start when it names no track or no length.
 */
export function showTrackEnd(show: ShowBody): number {
  const ms = show.track?.ms;
  if (ms === undefined) return show.start;
  return show.start + Math.min(Math.ceil((ms * TICK_RATE) / 1000), SHOW_MAX_TICKS);
}

/** The first tick at which none of a live show's cues launch any more. */
export function showCuesEnd(live: LiveShow): number {
  const end = showLastTick(live.show) + 1;
  return live.cancel === undefined ? end : Math.min(end, live.cancel + 1);
}

/**
 * The first tick at which a live show is over: its last cue launched and its music (when its
 * track's length is known) ended, or the tick after its cancel. Until then the snapshot keeps it,
 * so a page that joins while the music still plays hears it at the right place.
 */
export function liveShowEnd(live: LiveShow): number {
  const end = Math.max(showLastTick(live.show) + 1, showTrackEnd(live.show));
  return live.cancel === undefined ? end : Math.min(end, live.cancel + 1);
}

const lists = new WeakMap<LiveShow, ShowCueList>();

/**
 * A live show's cue list (made once per live show object: the same object each time, so the
 * derived schedule sees unchanged sources as unchanged).
 */
export function showCueList(live: LiveShow): ShowCueList {
  let list = lists.get(live);
  if (list === undefined) {
    const cues = sorted(live.show.cues) ? live.show.cues : sortCues(live.show.cues).cues;
    list = {
      id: live.seq,
      start: live.show.start,
      end: live.cancel === undefined ? Infinity : live.cancel + 1,
      cues: cues.map((cue) => ({ at: cue.at, body: cueLaunchBody(cue) })),
    };
    lists.set(live, list);
  }
  return list;
}

const NO_LISTS: readonly ShowCueList[] = Object.freeze([]);
const listsOf = new WeakMap<readonly LiveShow[], readonly ShowCueList[]>();

/** The cue lists of a snapshot's live shows, in seq order (the same array while they last). */
export function showCueLists(snapshot: WorldSnapshot): readonly ShowCueList[] {
  const shows = snapshot.shows;
  if (shows === undefined || shows.length === 0) return NO_LISTS;
  let out = listsOf.get(shows);
  if (out === undefined) {
    out = Object.freeze(shows.map(showCueList));
    listsOf.set(shows, out);
  }
  return out;
}

/**
 * The snapshot after a `show` or `show-cancel` event (any other event: the same snapshot). A
 * show joins the live shows; a cancel marks its show (when still live and not cancelled yet).
 */
export function foldShowEvent(snap: WorldSnapshot, event: SceneEvent): WorldSnapshot {
  const body = event.body;
  if (body.type === "show") {
    const live: LiveShow = { seq: event.seq, by: event.by, show: body };
    const shows = [...liveShowsAt(snap, event.tick), live];
    // The server keeps at most SHOW_MAX_LIVE live; a page never drops one the server kept.
    if (shows.length > SHOW_MAX_LIVE) shows.splice(0, shows.length - SHOW_MAX_LIVE);
    return { ...snap, shows };
  }
  if (body.type === "show-cancel") {
    const shows = snap.shows ?? [];
    const i = shows.findIndex((s) => s.seq === body.show);
    if (i < 0 || shows[i].cancel !== undefined) return snap;
    const next = [...shows];
    next[i] = { ...shows[i], cancel: event.tick };
    return { ...snap, shows: next };
  }
  return snap;
}

/**
 * The snapshot without the shows that are over by `tick` (no cue of theirs launches at `tick`
 * or later and their music has ended, see {@link liveShowEnd}): a snapshot at `tick` needs only
 * those. The same snapshot when none is.
 */
export function pruneShows(snap: WorldSnapshot, tick: number): WorldSnapshot {
  const shows = snap.shows;
  if (shows === undefined) return snap;
  const kept = shows.filter((live) => liveShowEnd(live) > tick);
  if (kept.length === shows.length) return snap;
  if (kept.length > 0) return { ...snap, shows: kept };
  const { shows: _gone, ...rest } = snap;
  return rest;
}

/** The live shows of `snap` not over by `tick` (what admission counts against SHOW_MAX_LIVE). */
export function liveShowsAt(snap: WorldSnapshot, tick: number): readonly LiveShow[] {
  return (snap.shows ?? []).filter((live) => liveShowEnd(live) > tick);
}
