/**
 * Durable scenes: node:sqlite in WAL mode under DATA_DIR. `scenes` holds each scene's seed, epoch,
 * the snapshot kept at or before T − W, the last tick it promised and its show cursor; `events`
 * the full event log. An event is written (committed) before it is broadcast.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { join } from "node:path";
import type { EventBody, SceneEvent, WorldSnapshot } from "../shared/types.ts";

/** One row of `scenes`. */
export interface SceneRow {
  id: string;
  seed: number;
  /** Wall ms of tick 0. */
  epoch: number;
  snapshot: WorldSnapshot;
  /** Highest tick known to have been promised to clients (heartbeat or event). */
  lastTick: number;
  /** First tick whose show launches have not been emitted yet. */
  showCursor: number;
}

/** The scene database. Every method is synchronous: a returned write is committed. */
export class SceneStore {
  readonly #db: DatabaseSync;
  readonly #insertScene: StatementSync;
  readonly #selectScene: StatementSync;
  readonly #insertEvent: StatementSync;
  readonly #selectEventsFromSeq: StatementSync;
  readonly #selectEventsFromTick: StatementSync;
  readonly #selectLastEvent: StatementSync;
  readonly #updateProgress: StatementSync;
  readonly #updateSnapshot: StatementSync;
  readonly #countScenes: StatementSync;

  readonly #path: string;
  #checkpointer: Worker | undefined;

  /** Opens (creating when needed) `scenes.db` in `dataDir`. */
  constructor(dataDir: string) {
    Deno.mkdirSync(dataDir, { recursive: true });
    this.#path = join(dataDir, "scenes.db");
    this.#db = new DatabaseSync(this.#path);
    // WAL + synchronous=NORMAL: a commit survives the process being killed (the WAL is written
    // before the call returns); only an OS crash can lose the last commits. ~25 µs per event.
    // A small page cache (512 KiB): the server reads only when a scene loads. Checkpoints (the
    // fsyncing part) run on a worker's connection, never on this thread: see checkpointer.ts.
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA busy_timeout = 2000;
      PRAGMA cache_size = -512;
      PRAGMA wal_autocheckpoint = 0;
      CREATE TABLE IF NOT EXISTS scenes (
        id TEXT PRIMARY KEY,
        seed INTEGER NOT NULL,
        epoch REAL NOT NULL,
        snapshot TEXT NOT NULL,
        last_tick INTEGER NOT NULL,
        show_cursor INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS events (
        scene TEXT NOT NULL,
        seq INTEGER NOT NULL,
        tick INTEGER NOT NULL,
        by TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (scene, seq)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS events_by_tick ON events (scene, tick);
    `);
    this.#insertScene = this.#db.prepare(
      `INSERT OR IGNORE INTO scenes (id, seed, epoch, snapshot, last_tick, show_cursor)
       VALUES (?, ?, ?, ?, 0, 0)`,
    );
    this.#selectScene = this.#db.prepare(
      "SELECT id, seed, epoch, snapshot, last_tick, show_cursor FROM scenes WHERE id = ?",
    );
    this.#insertEvent = this.#db.prepare(
      "INSERT INTO events (scene, seq, tick, by, body) VALUES (?, ?, ?, ?, ?)",
    );
    this.#selectEventsFromSeq = this.#db.prepare(
      "SELECT seq, tick, by, body FROM events WHERE scene = ? AND seq >= ? ORDER BY seq LIMIT ?",
    );
    this.#selectEventsFromTick = this.#db.prepare(
      "SELECT seq, tick, by, body FROM events WHERE scene = ? AND tick >= ? ORDER BY seq",
    );
    this.#selectLastEvent = this.#db.prepare(
      "SELECT seq, tick FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1",
    );
    this.#updateProgress = this.#db.prepare(
      "UPDATE scenes SET last_tick = max(last_tick, ?), show_cursor = ? WHERE id = ?",
    );
    this.#updateSnapshot = this.#db.prepare("UPDATE scenes SET snapshot = ? WHERE id = ?");
    this.#countScenes = this.#db.prepare("SELECT count(*) AS n FROM scenes");
  }

  /** Creates a scene; returns false (changing nothing) when the id is taken. */
  createScene(id: string, seed: number, epoch: number, snapshot: WorldSnapshot): boolean {
    const result = this.#insertScene.run(id, seed, epoch, JSON.stringify(snapshot));
    return Number(result.changes) === 1;
  }

  /** The scene's row, or undefined. */
  getScene(id: string): SceneRow | undefined {
    const row = this.#selectScene.get(id) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return {
      id: row.id as string,
      seed: Number(row.seed),
      epoch: Number(row.epoch),
      snapshot: JSON.parse(row.snapshot as string),
      lastTick: Number(row.last_tick),
      showCursor: Number(row.show_cursor),
    };
  }

  /** Commits one event; throws if its seq is already taken (never silently reuses a seq). */
  appendEvent(scene: string, event: SceneEvent): void {
    this.#insertEvent.run(scene, event.seq, event.tick, event.by, JSON.stringify(event.body));
  }

  /** Up to `limit` events with seq ≥ `fromSeq`, in seq order. */
  eventsFromSeq(scene: string, fromSeq: number, limit: number): SceneEvent[] {
    return this.#selectEventsFromSeq.all(scene, fromSeq, limit).map(toEvent);
  }

  /** Every event with tick ≥ `tick`, in seq order. */
  eventsFromTick(scene: string, tick: number): SceneEvent[] {
    return this.#selectEventsFromTick.all(scene, tick).map(toEvent);
  }

  /** Seq and tick of the scene's last event, or undefined when it has none. */
  lastEvent(scene: string): { seq: number; tick: number } | undefined {
    const row = this.#selectLastEvent.get(scene) as Record<string, unknown> | undefined;
    return row ? { seq: Number(row.seq), tick: Number(row.tick) } : undefined;
  }

  /** Records the highest tick promised and the show cursor. */
  saveProgress(scene: string, lastTick: number, showCursor: number): void {
    this.#updateProgress.run(lastTick, showCursor, scene);
  }

  /** Replaces the stored snapshot (kept at or before T − W). */
  saveSnapshot(scene: string, snapshot: WorldSnapshot): void {
    this.#updateSnapshot.run(JSON.stringify(snapshot), scene);
  }

  /** Runs `fn` in one transaction (one commit for many small writes); rolls back if it throws. */
  transaction(fn: () => void): void {
    this.#db.exec("BEGIN");
    try {
      fn();
    } catch (e) {
      this.#db.exec("ROLLBACK");
      throw e;
    }
    this.#db.exec("COMMIT");
  }

  /** Number of scenes stored. */
  countScenes(): number {
    return Number((this.#countScenes.get() as Record<string, unknown>).n);
  }

  /**
   * Starts checkpointing the WAL every `intervalMs` on a worker thread. Without it the log
   * grows until `close`, which checkpoints.
   */
  startCheckpointer(intervalMs: number, log: (msg: string) => void): void {
    if (this.#checkpointer) return;
    const worker = new Worker(new URL("./checkpointer.ts", import.meta.url), { type: "module" });
    worker.onmessage = (e: MessageEvent) => {
      if (e.data !== "stopped") log(`store: ${e.data}`);
    };
    worker.postMessage({ path: this.#path, intervalMs });
    this.#checkpointer = worker;
  }

  /** Stops the checkpoint worker (after its current checkpoint) and closes the database. */
  async close(): Promise<void> {
    const worker = this.#checkpointer;
    this.#checkpointer = undefined;
    if (worker) {
      const stopped = new Promise<void>((resolve) => {
        worker.onmessage = (e: MessageEvent) => e.data === "stopped" && resolve();
      });
      worker.postMessage("stop");
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([stopped, new Promise((r) => timer = setTimeout(r, 2000))]);
      clearTimeout(timer);
      worker.terminate();
    }
    if (this.#db.isOpen) this.#db.close();
  }
}

function toEvent(row: Record<string, unknown>): SceneEvent {
  return {
    seq: Number(row.seq),
    tick: Number(row.tick),
    by: row.by as string,
    body: JSON.parse(row.body as string) as EventBody,
  };
}
