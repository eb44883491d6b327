/**
 * The composer's cue list, pure: cues with ids (so a shared draft can say which one changed),
 * adding, moving, copying and deleting them, and the cue list a show is stamped with. No DOM, no
 * clocks: the panel and the draft relay call these and draw what they return.
 */
import {
  BURST_HEIGHT_MAX,
  BURST_HEIGHT_MIN,
  LAUNCH_HALF_EXTENT,
} from "../../../shared/constants.ts";
import { SHOW_MAX_CUES, SHOW_MAX_TICKS, type ShowCue } from "../../../shared/protocol.ts";

export { SHOW_MAX_CUES, SHOW_MAX_TICKS, type ShowCue };

/** A cue in the composer: a show cue with an id, and who last edited it (a peer id). */
export interface DraftCue extends ShowCue {
  id: string;
  by?: string;
}

/** A cue's tick, whole and inside the show's 20 minutes. */
export function clampAt(at: number): number {
  if (!Number.isFinite(at)) return 0;
  return Math.min(SHOW_MAX_TICKS, Math.max(0, Math.round(at)));
}

/** A burst point inside the launch field and the burst heights, to the centimetre. */
export function clampSpot(x: number, z: number, y?: number): { x: number; z: number; y?: number } {
  const cm = (v: number) => Math.round(v * 100) / 100;
  const field = (v: number) => cm(Math.min(LAUNCH_HALF_EXTENT, Math.max(-LAUNCH_HALF_EXTENT, v)));
  const spot: { x: number; z: number; y?: number } = { x: field(x), z: field(z) };
  if (y !== undefined) spot.y = cm(Math.min(BURST_HEIGHT_MAX, Math.max(BURST_HEIGHT_MIN, y)));
  return spot;
}

/** Cues in show order: by tick, then by id (so every page lists a draft alike). */
export function sortCues<T extends DraftCue>(cues: Iterable<T>): T[] {
  return [...cues].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The cue list a show is stamped with: ids and editors dropped, in tick order, empty fields
 * left out.
 *
 * @example
 * ```ts
 * import { showCues } from "./cue_model.ts";
 *
 * showCues([{ id: "b", at: 90, x: 1, z: 2 }, { id: "a", at: 30, x: 0, z: 0, kind: "willow" }]);
 * // [{ at: 30, x: 0, z: 0, kind: "willow" }, { at: 90, x: 1, z: 2 }]
 * ```
 */
export function showCues(cues: Iterable<DraftCue>): ShowCue[] {
  return sortCues(cues).map(({ at, x, z, y, kind, theme, breaks }) => {
    const cue: ShowCue = { at, x, z };
    if (y !== undefined) cue.y = y;
    if (kind !== undefined) cue.kind = kind;
    if (theme !== undefined) cue.theme = theme;
    if (breaks !== undefined && breaks !== 1) cue.breaks = breaks;
    return cue;
  });
}

/**
 * Copies of `cues` placed so the earliest lands at `at` (the others keep their distance from
 * it), with fresh ids from `newId`. Cues that would fall past the show's end are left out.
 *
 * @example
 * ```ts
 * import { pasteCues } from "./cue_model.ts";
 *
 * let n = 0;
 * pasteCues([{ id: "a", at: 60, x: 0, z: 0 }, { id: "b", at: 90, x: 5, z: 0 }], 600, () => `c${n++}`);
 * // [{ id: "c0", at: 600, x: 0, z: 0 }, { id: "c1", at: 630, x: 5, z: 0 }]
 * ```
 */
export function pasteCues(
  cues: readonly DraftCue[],
  at: number,
  newId: () => string,
): DraftCue[] {
  if (cues.length === 0) return [];
  const first = Math.min(...cues.map((cue) => cue.at));
  const out: DraftCue[] = [];
  for (const cue of sortCues(cues)) {
    const tick = Math.round(at) + cue.at - first;
    if (tick < 0 || tick > SHOW_MAX_TICKS) continue;
    const { by: _by, ...rest } = cue;
    out.push({ ...rest, id: newId(), at: tick });
  }
  return out;
}

/** `cue` moved by `ticks` in time (kept inside the show). */
export function shiftCue<T extends DraftCue>(cue: T, ticks: number): T {
  return { ...cue, at: clampAt(cue.at + ticks) };
}

/** `cue` raised (or lowered) by `metres`, inside the burst heights; no height yet starts at 44. */
export function raiseCue<T extends DraftCue>(cue: T, metres: number): T {
  const y = Math.min(BURST_HEIGHT_MAX, Math.max(BURST_HEIGHT_MIN, (cue.y ?? 44) + metres));
  return { ...cue, y: Math.round(y * 100) / 100 };
}

/** The show's length in ticks: its last cue's tick (0 for none). */
export function showLength(cues: Iterable<DraftCue>): number {
  let last = 0;
  for (const cue of cues) last = Math.max(last, cue.at);
  return last;
}

/**
 * Rows for drawing cues on a time line without overlap: each cue, in show order, goes to the
 * first row whose last cue ends (at `width` ticks after its start) before it begins. Returns
 * each cue's row by id, and how many rows were used.
 *
 * @example
 * ```ts
 * import { cueRows } from "./cue_model.ts";
 *
 * cueRows([{ id: "a", at: 0, x: 0, z: 0 }, { id: "b", at: 10, x: 0, z: 0 }], 30).rows; // 2
 * ```
 */
export function cueRows(
  cues: Iterable<DraftCue>,
  width: number,
): { row: Map<string, number>; rows: number } {
  const ends: number[] = [];
  const row = new Map<string, number>();
  for (const cue of sortCues(cues)) {
    let r = ends.findIndex((end) => end <= cue.at);
    if (r < 0) r = ends.push(0) - 1;
    ends[r] = cue.at + width;
    row.set(cue.id, r);
  }
  return { row, rows: Math.max(1, ends.length) };
}

/** "1:05.5": a show tick as minutes, seconds and tenths. */
export function showTime(tick: number): string {
  const tenths = Math.round(tick / 6);
  const minutes = Math.floor(tenths / 600);
  const seconds = Math.floor((tenths % 600) / 10);
  return `${minutes}:${String(seconds).padStart(2, "0")}.${tenths % 10}`;
}
