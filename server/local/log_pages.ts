/**
 * Pages of a scene's stored log, read on a worker thread with its own read-only SQLite
 * connection (`log_pages_worker.ts`): a page of the log API never runs a query on the server's
 * thread, so heartbeats and stamping do not wait for a tool paging through an hour of history.
 */
import type { SceneEvent } from "../../shared/types.ts";
import type { EncodedEvents, LogPageResult, PageRequest } from "../scene/log_page.ts";
import { StorageDamagedError, StorageUnavailableError } from "../scene/errors.ts";

export type { EncodedEvents, PageRequest, PageStart } from "../scene/log_page.ts";

/** One page of a scene's log, as the worker reads it: its events as objects. */
export type LogPage = LogPageResult & { events: SceneEvent[] };

/** A {@link LogPage} whose events come as JSON text. */
export type EncodedLogPage = LogPageResult & { events: EncodedEvents };

/** What the worker answers. */
export type PageReply =
  | { id: number; page: LogPage | EncodedLogPage }
  | {
    id: number;
    error: string;
    errcode?: number;
    /** Opening the database failed and the file is to blame (see `pageFailure`). */
    damaged?: true;
    /** Opening failed for now: no descriptor free, or the database busy. */
    unavailable?: true;
  };

/** SQLite primary codes of a damaged file: SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_NOTADB. */
const DAMAGE_CODES: ReadonlySet<number> = new Set([10, 11, 26]);

/**
 * The error a failed page read rejects with: damage (a corrupt page, an I/O error, or a file the
 * worker cannot open) is a `StorageDamagedError`, a passing failure (no descriptor free) a
 * `StorageUnavailableError`; both keep the SQLite code, if any, as `errcode`. Anything else is a
 * plain `Error`.
 */
export function pageFailure(
  reply: { error: string; errcode?: number; damaged?: true; unavailable?: true },
): Error {
  const { error, errcode } = reply;
  const damaged = reply.damaged === true ||
    (typeof errcode === "number" && DAMAGE_CODES.has(errcode & 0xff));
  const err = damaged
    ? new StorageDamagedError(`the log could not be read: ${error}`)
    : reply.unavailable
    ? new StorageUnavailableError(`the log could not be read right now: ${error}`)
    : new Error(error);
  return Object.assign(err, { errcode });
}

/**
 * Reads log pages on a worker. Requests are answered in order; one worker per server.
 *
 * @example
 * ```ts
 * const pages = new LogPages("/data/scenes.db");
 * const page = await pages.read({ scene: "quiet-pine", start: { tick: 3600 }, limit: 200 });
 * console.log(page.events.length, page.firstSeq);
 * await pages.close();
 * ```
 */
export class LogPages {
  #worker: Worker;
  readonly #path: string;
  /** The worker failed (say it could not load its code while the process had no file left). */
  #broken = false;
  /** Reads sent to the worker by id, waiting for its reply. */
  readonly #waiting = new Map<number, PromiseWithResolvers<LogPage | EncodedLogPage>>();
  #nextId = 1;
  #closed = false;
  /** Settled when the worker says it closed its connection. */
  readonly #connectionClosed = Promise.withResolvers<void>();

  /** Starts the worker on the database at `path` (opened read-only there). */
  constructor(path: string) {
    this.#path = path;
    this.#worker = this.#spawn();
  }

  #spawn(): Worker {
    const worker = new Worker(new URL("./log_pages_worker.ts", import.meta.url), {
      type: "module",
    });
    worker.postMessage({ path: this.#path });
    worker.onmessage = (e: MessageEvent<PageReply | { closed: true }>) => {
      const reply = e.data;
      if ("closed" in reply) return this.#connectionClosed.resolve();
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) return;
      this.#waiting.delete(reply.id);
      // Damage the worker ran into is the store's damage too (`pageFailure`).
      if ("error" in reply) waiting.reject(pageFailure(reply));
      else waiting.resolve(reply.page);
    };
    // A worker that fails (one started while a flood held every file descriptor could not load
    // its modules, CI saw it) must not end the server: its reads fail, the next starts another.
    worker.onerror = (e) => {
      e.preventDefault();
      for (const waiting of this.#waiting.values()) {
        waiting.reject(new Error(`the log reader failed: ${e.message}`));
      }
      this.#waiting.clear();
      worker.terminate();
      this.#broken = true;
    };
    return worker;
  }

  /** Reads one page (the query runs on the worker). */
  read(request: PageRequest): Promise<LogPage> {
    return this.#ask(request, false) as Promise<LogPage>;
  }

  /**
   * Reads one page with its events as JSON text (see {@link EncodedEvents}): what the log API
   * serves, so a page costs the server's thread a string copy, not a parse and a stringify.
   */
  readEncoded(request: PageRequest): Promise<EncodedLogPage> {
    return this.#ask(request, true) as Promise<EncodedLogPage>;
  }

  #ask(request: PageRequest, encoded: boolean): Promise<LogPage | EncodedLogPage> {
    if (this.#closed) return Promise.reject(new Error("the log reader is closed"));
    if (this.#broken) {
      this.#broken = false;
      this.#worker = this.#spawn();
    }
    const id = this.#nextId++;
    const waiting = Promise.withResolvers<LogPage | EncodedLogPage>();
    this.#waiting.set(id, waiting);
    this.#worker.postMessage({ id, request, encoded });
    return waiting.promise;
  }

  /**
   * Stops the worker once it closed its connection (at most a second: a read in progress finishes
   * first); pending reads fail.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiting of this.#waiting.values()) waiting.reject(new Error("closed"));
    this.#waiting.clear();
    this.#worker.postMessage("close");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((done) => (timer = setTimeout(done, 1000)));
    await Promise.race([this.#connectionClosed.promise, late]);
    clearTimeout(timer);
    this.#worker.terminate();
  }
}
