/**
 * Worker that checkpoints the scene database's WAL on its own connection and thread. A checkpoint
 * copies the log into the database and fsyncs, which here took up to ~260 ms; on the server's
 * thread that would stall every heartbeat. Protocol: the server posts
 * `{path, intervalMs, journalSizeLimit?, truncateBytes?}` once, `"checkpoint"` when the log grows
 * fast (past a quarter of its part of DB_MAX_MB), `"truncate"` when it must be cut back now (past
 * half, or writes fail), and later `"stop"`; the
 * worker answers `"stopped"` after closing its connection. It says when checkpoints start failing
 * and when they work again, once each (not once a second while a disk stays full).
 */
/// <reference lib="deno.worker" />
import { DatabaseSync } from "node:sqlite";

/** Log length (pages, 4 KiB each) past which the checkpoint also rewinds the log. */
const RESTART_AFTER_FRAMES = 2000;

let db: DatabaseSync | undefined;
let timer: ReturnType<typeof setInterval> | undefined;
/** Log bytes past which a checkpoint truncates the file (none: rewinds only). */
let truncateBytes = Infinity;
/** Why checkpoints fail, or null while they work. */
let failing: string | null = null;

function checkpoint(truncate: boolean): void {
  try {
    const result = db?.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as
      | { log: number; checkpointed: number }
      | undefined;
    // The log rewinds by itself when a write finds it fully copied; under a steady stream of
    // writes that may never happen, so past a size a RESTART checkpoint rewinds it. It holds
    // writers back only while it copies the few frames the passive one left, then syncs. Past
    // half its part of the budget (or when asked) TRUNCATE also cuts the file to zero bytes.
    if (result && (truncate || result.log * 4096 > truncateBytes)) {
      db?.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } else if (result && result.log > RESTART_AFTER_FRAMES) {
      db?.exec("PRAGMA wal_checkpoint(RESTART)");
    }
    if (failing !== null) {
      failing = null;
      self.postMessage("checkpoints work again");
    }
  } catch (err) {
    // Busy, locked or a full disk: the next interval tries again; the log only grows meanwhile
    // (and the store refuses writes once it reaches its part of the budget).
    const reason = (err as Error).message;
    if (failing === null) self.postMessage(`checkpoint failed: ${reason}`);
    failing = reason;
  }
}

self.onmessage = (e: MessageEvent) => {
  if (e.data === "stop") {
    if (timer !== undefined) clearInterval(timer);
    db?.close();
    db = undefined;
    self.postMessage("stopped");
    return;
  }
  if (e.data === "truncate" || e.data === "checkpoint") {
    checkpoint(e.data === "truncate");
    return;
  }
  const options = e.data as {
    path: string;
    intervalMs: number;
    journalSizeLimit?: number;
    truncateBytes?: number;
  };
  db = new DatabaseSync(options.path);
  db.exec("PRAGMA busy_timeout = 1000");
  if (options.journalSizeLimit !== undefined) {
    db.exec(`PRAGMA journal_size_limit = ${options.journalSizeLimit}`);
  }
  truncateBytes = options.truncateBytes ?? Infinity;
  timer = setInterval(() => checkpoint(false), options.intervalMs);
};
