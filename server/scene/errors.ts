/**
 * Refusals: the HTTP layer turns `HttpError`s into `{error: {code, message}}` responses; the
 * WebSocket layer sends `errorMessage` frames.
 */
import type { ErrorCode, ErrorMessage } from "../../shared/protocol.ts";

/** An error with an HTTP status, a machine-readable code and a human message. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra response headers, e.g. `Allow` on a 405. */
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    // An expected refusal, answered and never logged: no stack trace is captured (capturing one
    // was the largest single cost of a 429 in a flood of refused requests).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * The database cannot take writes right now (disk full, I/O error, read-only, size cap): nothing
 * was stored, and nothing stored before is affected. Launches are refused with this code.
 *
 * @example
 * ```ts
 * try {
 *   store.appendEvent(scene, event);
 * } catch (e) {
 *   if (e instanceof StorageUnavailableError) console.log(e.code); // "storage_unavailable"
 * }
 * ```
 */
export class StorageUnavailableError extends Error {
  readonly code = "storage_unavailable";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StorageUnavailableError";
  }
}

/**
 * The database file is damaged (fails `PRAGMA quick_check`, or is not a database at all). The
 * server refuses to start on it rather than serve half a history.
 *
 * @example
 * ```ts
 * const err = new StorageDamagedError("data/scenes.db: file is not a database");
 * console.log(`snowfire: ${err.code}: ${err.message}`);
 * ```
 */
export class StorageDamagedError extends Error {
  readonly code = "storage_damaged";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StorageDamagedError";
  }
}

/** The `error` frame for a refused WebSocket message: a code and a human reason. */
export function errorMessage(
  code: ErrorCode,
  message: string,
  retryAfterMs?: number,
): ErrorMessage {
  return retryAfterMs === undefined
    ? { t: "error", code, message }
    : { t: "error", code, message, retryAfterMs };
}
