/**
 * A submitted show, decided and priced for the sequencer: the show body to stamp at `now` with
 * seq `seq`, or a refusal naming why (its start, the scene's live shows, or the first cue the
 * sky cannot hold at its tick). Every cue is priced beside the sky's reservations (clicks and
 * launches flying, from the ledger) and every launch the other derived sources (the seeded
 * show, a finale, other shows) will make over the show's whole span, as they will be once the
 * show is stamped (the seeded show holds while it plays).
 *
 * @example
 * ```ts
 * import { decideAndPriceShow } from "./show_submit.ts";
 * import { initialSnapshot } from "../../shared/settings.ts";
 * const decided = decideAndPriceShow({
 *   seed: 7,
 *   cap: 1_000_000,
 *   now: 600,
 *   seq: 1,
 *   by: "p1",
 *   request: { type: "show", title: "Duet", cues: [{ at: 0, x: 0, z: 0 }] },
 *   head: initialSnapshot(),
 *   reservedAt: () => 0,
 *   reservedUntil: 600,
 * });
 * console.log("body" in decided); // true
 * ```
 */
import { WINDOW_TICKS } from "../../shared/constants.ts";
import { DERIVED_SOURCE, derivedLaunches, derivedSeq, sourcesOf } from "../../shared/derived.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import { advanceSnapshot } from "../../shared/settings.ts";
import { showCuesEnd } from "../../shared/show_cues.ts";
import type { SceneEvent, ShowBody, ShowRequestBody, WorldSnapshot } from "../../shared/types.ts";
import { errorMessage } from "./errors.ts";
import { priceShow } from "./show_admission.ts";
import { decideShow } from "./show_stamp.ts";

/** What deciding and pricing a show needs. */
export interface ShowSubmit {
  seed: number;
  cap: number;
  /** The tick it would be stamped at. */
  now: number;
  /** The seq it would be stamped with. */
  seq: number;
  by: string;
  request: ShowRequestBody;
  /** Settings, rules and shows after every event stamped. */
  head: WorldSnapshot;
  /**
   * Slots reserved at a tick ≥ now + 1 by what no derived source will make after `now`: clicks,
   * volleys and launches flying (the ledger without the derived launches planned after now).
   */
  reservedAt: (tick: number) => number;
  /** Past this tick (plus a life, W) nothing but derived launches is reserved. */
  reservedUntil: number;
}

/** The show body to stamp, or why not. */
export function decideAndPriceShow(o: ShowSubmit): { body: ShowBody } | ErrorMessage {
  const decided = decideShow(o.request, o.now, o.head.shows ?? []);
  if ("t" in decided) return decided;
  const { body, order } = decided;
  const event: SceneEvent = { seq: o.seq, tick: o.now, by: o.by, body };
  const after = advanceSnapshot({ ...o.head, tick: o.now }, [event], o.now + 1);
  const live = after.shows?.find((s) => s.seq === o.seq);
  // Priced up to its last cue's burst: its music after that launches nothing.
  const end = live ? showCuesEnd(live) + WINDOW_TICKS : o.now + 1;
  const seqOf = (i: number) => derivedSeq(DERIVED_SOURCE.cues, o.seq, i);
  const own = new Set(body.cues.map((_, i) => seqOf(i)));
  const others = derivedLaunches(o.seed, sourcesOf(after), o.now + 1, end)
    .filter((launch) => !own.has(launch.seq));
  const until = o.reservedUntil + WINDOW_TICKS;
  const refusal = priceShow({
    seed: o.seed,
    cap: o.cap,
    from: o.now + 1,
    base: (tick) => (tick < until ? o.reservedAt(tick) : 0),
    others,
    seqOf,
    start: body.start,
    cues: body.cues,
    order,
  });
  if (refusal === null) return { body };
  const error = errorMessage("sky_full", refusal.message);
  error.cue = refusal.cue;
  return error;
}
