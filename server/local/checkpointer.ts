/**
 * Worker that checkpoints the scene database's WAL on its own connection and thread. A checkpoint
 * copies the log into the database and fsyncs, which here took up to ~260 ms; on the server's
 * thread that would stall every heartbeat. Protocol: the server posts `{path, intervalMs}` once
 * and later `"stop"`; the worker answers `"stopped"` after closing its connection.
 */
/// <reference lib="deno.worker" />
import { DatabaseSync } from "node:sqlite";

/** Log length (pages, 4 KiB each) past which the checkpoint also rewinds the log. */
const RESTART_AFTER_FRAMES = 2000;

let db: DatabaseSync | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

self.onmessage = (e: MessageEvent) => {
  if (e.data === "stop") {
    if (timer !== undefined) clearInterval(timer);
    db?.close();
    db = undefined;
    self.postMessage("stopped");
    return;
  }
  const { path, intervalMs } = e.data as { path: string; intervalMs: number };
  db = new DatabaseSync(path);
  db.exec("PRAGMA busy_timeout = 1000");
  timer = setInterval(() => {
    try {
      const result = db?.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as
        | { log: number; checkpointed: number }
        | undefined;
      // The log rewinds by itself when a write finds it fully copied; under a steady stream of
      // writes that may never happen, so past a size a RESTART checkpoint rewinds it. It holds
      // writers back only while it copies the few frames the passive one left, then syncs.
      if (result && result.log > RESTART_AFTER_FRAMES) {
        db?.exec("PRAGMA wal_checkpoint(RESTART)");
      }
    } catch (err) {
      // Busy or locked: the next interval tries again; the log only grows meanwhile.
      self.postMessage(`checkpoint failed: ${(err as Error).message}`);
    }
  }, intervalMs);
};
