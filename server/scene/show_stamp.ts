/**
 * What a submitted show or show cancel comes to, before the sky prices it (show_admission.ts):
 * the show body to stamp (its start filled in, its cues sorted by `at`, with each stored cue's
 * submitted index), or a refusal with a code and a human reason. Who may submit them is the host
 * rules' question (`refuseSubmit`), asked before this.
 *
 * @example
 * ```ts
 * import { decideShow } from "./show_stamp.ts";
 * const request = { type: "show" as const, title: "Duet", cues: [{ at: 60, x: 0, z: 0 }] };
 * const decided = decideShow(request, 600, []);
 * console.log("body" in decided && decided.body.start); // 900: five seconds after now
 * ```
 */
import {
  type ErrorMessage,
  SHOW_LEAD_TICKS,
  SHOW_MAX_LEAD_TICKS,
  SHOW_MAX_LIVE,
} from "../../shared/protocol.ts";
import { liveShowEnd, sortCues } from "../../shared/show_cues.ts";
import type { LiveShow, ShowBody, ShowCancelBody, ShowRequestBody } from "../../shared/types.ts";
import { errorMessage } from "./errors.ts";

/** A show to stamp, or why not. */
export type ShowDecision = { body: ShowBody; order: number[] } | ErrorMessage;

/**
 * Decides a show submitted at tick `now` with the scene's `shows` (after every event stamped):
 * its start must come after `now` and at most SHOW_MAX_LEAD_TICKS ahead (omitted: now +
 * SHOW_LEAD_TICKS), and fewer than SHOW_MAX_LIVE shows may be playing or to come.
 */
export function decideShow(
  request: ShowRequestBody,
  now: number,
  shows: readonly LiveShow[],
): ShowDecision {
  const start = request.start ?? now + SHOW_LEAD_TICKS;
  if (start <= now) {
    return errorMessage(
      "bad_message",
      `show: its start (tick ${start}) has passed (the scene is at tick ${now})`,
    );
  }
  if (start - now > SHOW_MAX_LEAD_TICKS) {
    return errorMessage("bad_message", "show: its start must be within an hour from now");
  }
  const live = shows.filter((show) => liveShowEnd(show) > now).length;
  if (live >= SHOW_MAX_LIVE) {
    return errorMessage(
      "sky_full",
      `this scene already has ${live} shows playing or to come, its most; ` +
        "cancel one or wait for one to end",
    );
  }
  const { cues, order } = sortCues(request.cues);
  const body: ShowBody = { type: "show", title: request.title, cues, start };
  if (request.track !== undefined) body.track = request.track;
  return { body, order };
}

/** Null when show `cancel.show` is playing or to come (not cancelled yet); else why not. */
export function refuseCancel(
  cancel: ShowCancelBody,
  now: number,
  shows: readonly LiveShow[],
): ErrorMessage | null {
  const show = shows.find((s) => s.seq === cancel.show);
  if (show === undefined || show.cancel !== undefined || liveShowEnd(show) <= now) {
    return errorMessage(
      "bad_message",
      `show-cancel: show ${cancel.show} is not playing or to come`,
    );
  }
  return null;
}

/**
 * Stored events a show spends of its sender's address and network budgets (EVENTS_PER_MINUTE):
 * one, and one more per ten cues, so a 2,000-cue show spends 201 of an address's 1,200 a minute.
 * Its bytes count against the sender's storage share as they are.
 */
export function showEventCost(cues: number): number {
  return 1 + Math.ceil(cues / 10);
}
