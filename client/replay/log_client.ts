/**
 * Reads a scene's stored log from `/api/scenes/:id/log` for the replay: a window (the snapshot
 * at a tick and the events from there on) and the pages that follow it.
 */
import { type LogPage, LogPageSchema } from "../../shared/protocol.ts";

/** One page as the server sends it (one definition for both: `LogPageSchema`). */
export type { LogPage };

/** The server refused a page (a pruned moment: `pruned`; others). */
export class LogError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Events per page the replay asks for: about a minute of a busy scene. */
export const REPLAY_PAGE = 600;

/**
 * Fetches pages of one scene's log.
 *
 * @example
 * ```ts
 * const log = new LogClient("quiet-pine");
 * const window = await log.window(36000 - 480); // snapshot at that tick + events from it
 * const more = window.next ? await log.page(window.next) : null;
 * ```
 */
export class LogClient {
  readonly scene: string;
  readonly #fetch: typeof fetch;

  constructor(scene: string, fetcher: typeof fetch = fetch.bind(globalThis)) {
    this.scene = scene;
    this.#fetch = fetcher;
  }

  /** Where the log starts and the scene's epoch (one event's worth of page). */
  head(): Promise<LogPage> {
    return this.#get(`limit=1`);
  }

  /** The snapshot at `tick` and the events with tick ≥ `tick`, one page of them. */
  window(tick: number, limit = REPLAY_PAGE): Promise<LogPage> {
    return this.#get(`tick=${Math.max(0, Math.floor(tick))}&snapshot=1&limit=${limit}`);
  }

  /** The page from seq `cursor` on. */
  page(cursor: number, limit = REPLAY_PAGE): Promise<LogPage> {
    return this.#get(`cursor=${cursor}&limit=${limit}`);
  }

  async #get(query: string): Promise<LogPage> {
    const res = await this.#fetch(`/api/scenes/${this.scene}/log?${query}`, {
      headers: { accept: "application/json" },
    });
    const body = await res.json();
    if (!res.ok) {
      const error = body?.error ?? {};
      throw new LogError(res.status, error.code ?? "error", error.message ?? res.statusText);
    }
    const page = LogPageSchema.safeParse(body);
    if (!page.success) {
      throw new LogError(
        res.status,
        "bad_page",
        `the server sent a malformed log page: ${page.error.message}`,
      );
    }
    return page.data;
  }
}
