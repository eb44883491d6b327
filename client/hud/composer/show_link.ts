/**
 * Show links: `/s/<scene>?show=<n>` opens the replay at the start of show `n` (the seq of its
 * stamped `show` event), the way a moment link opens one at its moment (client/replay/moment.ts).
 * A show that has not started yet is waited for live, with a word of when it starts.
 */
import { TICK_RATE } from "../../../shared/constants.ts";
import type { LogClient } from "../../replay/log_client.ts";

/**
 * The show number a page address asks for, or null.
 *
 * @example
 * ```ts
 * import { showParam } from "./show_link.ts";
 *
 * showParam("?show=12"); // 12
 * showParam("?show=x"); // null
 * ```
 */
export function showParam(search: string): number | null {
  const raw = new URLSearchParams(search).get("show");
  if (raw === null || !/^[1-9]\d{0,14}$/.test(raw)) return null;
  return Number(raw);
}

/** The link of show `n` of a scene. */
export function showLink(origin: string, scene: string, n: number): string {
  return `${origin}/s/${scene}?show=${n}`;
}

/** What opening a show link needs. */
export interface ShowLinkDeps {
  log: Pick<LogClient, "page">;
  /** The live scene's tick now. */
  liveTick(): number;
  /** Opens the replay at `tick`. */
  seek(tick: number): void;
  say(text: string, options?: { error?: boolean }): void;
}

/**
 * Opens show `n`: the replay at its start, or (not started yet) a word of when it starts.
 * Resolves with the show's start tick, or null when there is no such show.
 */
export async function openShow(n: number, deps: ShowLinkDeps): Promise<number | null> {
  let event;
  try {
    event = (await deps.log.page(n, 1)).events[0];
  } catch (e) {
    deps.say(`Could not open that show: ${(e as Error).message}`, { error: true });
    return null;
  }
  if (!event || event.seq !== n || event.body.type !== "show") {
    deps.say(`This scene has no show ${n} (its log may no longer keep it).`, { error: true });
    return null;
  }
  const { start, title } = event.body;
  const ahead = start - deps.liveTick();
  if (ahead > 0) {
    deps.say(`“${title}” starts in ${Math.ceil(ahead / TICK_RATE)} s: watch it here, live.`);
  } else {
    deps.say(`Replaying “${title}” from its start.`);
    deps.seek(start);
  }
  return start;
}
