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

/** Times a page refused for reading too much at once (429/503 with `Retry-After`) is retried. */
export const LOG_RETRIES = 3;

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
  readonly #sleep: (ms: number) => Promise<void>;

  /**
   * @param fetcher how pages are fetched
   * @param sleep how a refusal's `Retry-After` is waited out (a 429 or 503 for reading too much
   *   at once is tried again, up to {@link LOG_RETRIES} times, after at most 5 s each)
   */
  constructor(
    scene: string,
    fetcher: typeof fetch = fetch.bind(globalThis),
    sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.scene = scene;
    this.#fetch = fetcher;
    this.#sleep = sleep;
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
    let res: Response;
    let body;
    for (let attempt = 0;; attempt++) {
      res = await this.#fetch(`/api/scenes/${this.scene}/log?${query}`, {
        headers: { accept: "application/json" },
      });
      body = await res.json();
      const retryAfter = Number(res.headers.get("retry-after"));
      const busy = (res.status === 429 || res.status === 503) && retryAfter > 0;
      if (!busy || attempt >= LOG_RETRIES) break;
      await this.#sleep(Math.min(retryAfter, 5) * 1000);
    }
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
