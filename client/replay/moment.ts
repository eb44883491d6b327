/**
 * Moment links: `/s/<scene>?at=2026-12-31T23:59:50Z` (a readable UTC time) or `?at=t<tick>` (for
 * tools). A scene's tick T began at wall time `epoch + T · 1000/60` ms.
 */
import { TICK_MS, TICK_RATE } from "../../shared/constants.ts";

/** A parsed `at` value: a tick, or why it is not one. */
export type MomentParse = { tick: number } | { error: string };

/**
 * The tick an `at` value names: `t<tick>`, or an ISO 8601 time (UTC `Z` or an offset) at or after
 * the scene's epoch. A time names the first tick that begins at or after it, so the moment opens
 * at its own second (the tick before it began a hair earlier, and its clock showed the second
 * before).
 *
 * @example
 * ```ts
 * import { parseMoment } from "./moment.ts";
 *
 * parseMoment("t3600", 0); // { tick: 3600 }
 * parseMoment("1970-01-01T00:01:00Z", 0); // { tick: 3600 }
 * ```
 */
export function parseMoment(text: string, epoch: number): MomentParse {
  const trimmed = text.trim();
  const tickForm = /^t(\d{1,15})$/i.exec(trimmed);
  if (tickForm) return { tick: Number(tickForm[1]) };
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed)) {
    return { error: `“${text}” is not a moment (use 2026-12-31T23:59:50Z or t<tick>)` };
  }
  const ms = Date.parse(trimmed);
  if (Number.isNaN(ms)) return { error: `“${text}” is not a valid time` };
  if (ms < epoch) return { error: `${trimmed} is before this scene began` };
  // (ms − epoch) / TICK_MS lands a hair off a whole tick for exact tick times (60000 / 16.67 is
  // 3599.99…): count in 60ths of a second and forgive a micro-tick of rounding.
  return { tick: Math.ceil(((ms - epoch) * TICK_RATE) / 1000 - 1e-6) };
}

/** Wall time (ms) of tick `tick`. */
export function tickTime(epoch: number, tick: number): number {
  return epoch + tick * TICK_MS;
}

/**
 * The readable UTC form of a tick, to the second: `2026-12-31T23:59:50Z`. The second is rounded
 * up, so the link's moment is never before the tick it was made at (it lands < 1 s later).
 *
 * @example
 * ```ts
 * import { momentText } from "./moment.ts";
 *
 * momentText(0, 3600); // "1970-01-01T00:01:00Z"
 * ```
 */
export function momentText(epoch: number, tick: number): string {
  const ms = Math.ceil(tickTime(epoch, tick) / 1000) * 1000;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The share link of a moment: `origin/s/<scene>?at=<UTC time>`, or `?at=t<tick>` with `exact`.
 *
 * @example
 * ```ts
 * import { momentLink } from "./moment.ts";
 *
 * momentLink("https://snow.example", "quiet-pine", 0, 3600); // ".../s/quiet-pine?at=1970-01-01T00:01:00Z"
 * ```
 */
export function momentLink(
  origin: string,
  scene: string,
  epoch: number,
  tick: number,
  exact = false,
): string {
  const at = exact ? `t${tick}` : momentText(epoch, tick);
  return `${origin}/s/${scene}?at=${at}`;
}

/** Local wall-clock time of a tick, `23:58:12`, for the timeline. */
export function clockText(epoch: number, tick: number): string {
  const date = new Date(tickTime(epoch, tick));
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/**
 * A wall time as a person says it, in local time: "today at 14:02:10", "yesterday at 23:59:50",
 * or "on 3 Dec at 09:15:00" (with the year when it is not this year's).
 *
 * @example
 * ```ts
 * import { friendlyTime } from "./moment.ts";
 *
 * const now = new Date(2026, 11, 3, 15, 0).getTime();
 * friendlyTime(new Date(2026, 11, 3, 14, 2, 10).getTime(), now); // "today at 14:02:10"
 * friendlyTime(new Date(2026, 11, 2, 23, 59, 50).getTime(), now); // "yesterday at 23:59:50"
 * ```
 */
export function friendlyTime(ms: number, nowMs: number): string {
  const date = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  const clock = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  const day = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const now = new Date(nowMs);
  const days = Math.round((day(now) - day(date)) / 86_400_000);
  if (days === 0) return `today at ${clock}`;
  if (days === 1) return `yesterday at ${clock}`;
  const month = date.toLocaleString("en", { month: "short" });
  const year = date.getFullYear() === now.getFullYear() ? "" : ` ${date.getFullYear()}`;
  return `on ${date.getDate()} ${month}${year} at ${clock}`;
}
