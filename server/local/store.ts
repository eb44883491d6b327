/**
 * Durable scenes: node:sqlite in WAL mode under DATA_DIR. `scenes` holds each scene's seed, epoch,
 * the snapshot kept at or before T − W, the last tick it promised, its show cursor and the
 * settings in force after every stored event; `events` the event log. An event is written
 * (committed) before it is broadcast.
 *
 * The store bounds itself: `maxBytes` (DB_MAX_MB) covers the database, its WAL and the shm (see
 * storage_budget.ts); each scene and each spender holds at most a share of it (storage_shares.ts).
 * When writes fail (a full disk, the budget reached) it says so once, refuses writes with
 * `StorageUnavailableError`, reports it in `health()` (also when it starts on a full disk), and
 * probes every second until writes work again (see write_probe.ts), then says so once.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { inTransaction } from "./sqlite_transaction.ts";
import { join } from "node:path";
import { advanceSnapshot } from "../../shared/settings.ts";
import type { SceneEvent, Settings, WorldSnapshot } from "../../shared/types.ts";
import { eventFromRow } from "./event_row.ts";
import { StorageDamagedError, StorageUnavailableError } from "../scene/errors.ts";
import { ROW_BYTES_SQL, rowBytes, type StorageBudget, storageBudget } from "./storage_budget.ts";
import { StorageShares } from "./storage_shares.ts";
import { fileSize, probeDisk } from "./write_probe.ts";

/** Options of {@link SceneStore}. */
export interface StoreOptions {
  /**
   * Most bytes the database, its WAL and shm may hold together (split by `storageBudget`); past
   * it, writes fail like on a full disk. Default: no cap.
   */
  maxBytes?: number;
  /** Where state changes (writes failing, writes working again) are logged. */
  log?: (msg: string) => void;
  /** Hours a spender's stored bytes count against its share (the retention's age limit). */
  retentionHours?: number;
  /** Wall clock, ms (spenders' hourly buckets). Default `Date.now`. */
  now?: () => number;
}

/** While writes fail, how often the store checks whether they work again. */
export const RECOVERY_PROBE_MS = 1000;

/** Under WAL pressure a scene may write this many events per {@link BUSY_WINDOW_MS}. */
const BUSY_WRITES = 4;
const BUSY_WINDOW_MS = 250;

/** A WAL full for this long is a fault (before, its writes are refused as back-pressure). */
const WAL_STUCK_MS = 3000;

/** Primary SQLite result codes that mean "the storage cannot take this write right now". */
const STORAGE_FAULTS: ReadonlyMap<number, string> = new Map([
  [5, "SQLITE_BUSY"],
  [8, "SQLITE_READONLY"],
  [10, "SQLITE_IOERR"],
  [11, "SQLITE_CORRUPT"],
  [13, "SQLITE_FULL"],
  [14, "SQLITE_CANTOPEN"],
  [26, "SQLITE_NOTADB"],
]);

/** SQLite's messages for the faults of {@link STORAGE_FAULTS} (`sqlite3_errstr`). */
const FAULT_MESSAGES: readonly [RegExp, string][] = [
  [/^database is locked/, "SQLITE_BUSY"],
  [/^attempt to write a readonly database/, "SQLITE_READONLY"],
  [/^disk I\/O error/, "SQLITE_IOERR"],
  [/^database disk image is malformed/, "SQLITE_CORRUPT"],
  [/^database or disk is full/, "SQLITE_FULL"],
  [/^unable to open database file/, "SQLITE_CANTOPEN"],
  [/^file is not a database/, "SQLITE_NOTADB"],
];

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

/** The statements a store runs, by name (prepared once when it opens: `Store.#sql`). */
const STATEMENTS = {
  insertScene:
    `INSERT OR IGNORE INTO scenes (id, seed, epoch, snapshot, last_tick, show_cursor, settings)
       VALUES (?, ?, ?, ?, 0, 0, ?)`,
  selectScene: "SELECT id, seed, epoch, snapshot, last_tick, show_cursor FROM scenes WHERE id = ?",
  insertEvent: "INSERT INTO events (scene, seq, tick, by, body) VALUES (?, ?, ?, ?, ?)",
  selectEventsFromSeq:
    "SELECT seq, tick, by, body FROM events WHERE scene = ? AND seq >= ? ORDER BY seq LIMIT ?",
  selectEventsFromTick:
    "SELECT seq, tick, by, body FROM events WHERE scene = ? AND tick >= ? ORDER BY seq",
  selectLastEvent: "SELECT seq, tick FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1",
  updateProgress: "UPDATE scenes SET last_tick = max(last_tick, ?), show_cursor = ? WHERE id = ?",
  updateSnapshot: "UPDATE scenes SET snapshot = ? WHERE id = ?",
  countScenes: "SELECT count(*) AS n FROM scenes",
  selectSettings: "SELECT settings FROM scenes WHERE id = ?",
  updateSettings: "UPDATE scenes SET settings = ? WHERE id = ?",
  mergeSettings:
    "UPDATE scenes SET settings = json_patch(settings, ?) WHERE id = ? AND settings IS NOT NULL",
  probeWrite: "INSERT OR REPLACE INTO store_probe (id, at) VALUES (1, ?)",
};

/** STATEMENTS, each prepared on one database. */
type Prepared = { readonly [K in keyof typeof STATEMENTS]: StatementSync };

/** Prepares every statement of STATEMENTS on `db`. */
function prepareAll(db: DatabaseSync): Prepared {
  const entries = Object.entries(STATEMENTS).map(([name, sql]) => [name, db.prepare(sql)]);
  return Object.fromEntries(entries) as Prepared;
}

/** The scene database. Every method is synchronous: a returned write is committed. */
export class SceneStore {
  readonly #db: DatabaseSync;
  /** Its statements (STATEMENTS), prepared once its tables and columns exist. */
  readonly #sql: Prepared;

  readonly #path: string;
  #checkpointer: Worker | undefined;

  readonly #log: (msg: string) => void;
  /** The size budget (`maxBytes`) split between the files, if any. */
  #budget: StorageBudget | undefined;
  /** The scenes' and spenders' shares of the budget (with one). */
  #shares: StorageShares | undefined;
  #selectSceneBytes: StatementSync | undefined;
  /** The WAL's size when last looked at, and writes since. */
  #walSize = 0;
  #writesSinceWalCheck = 0;
  /** When the checkpointer was last asked for a checkpoint (monotonic ms). */
  #checkpointAskedMs = -Infinity;
  /** Writes per scene in the current busy window (only counted while the WAL is under pressure). */
  readonly #recentWrites = new Map<string, number>();
  #busyWindowMs = -Infinity;
  /** Since when (monotonic ms) the WAL has been full, or null. */
  #walFullSince: number | null = null;
  /** Why the last write failed, or null while writes work. */
  #writeFault: string | null = null;
  /** While writes fail: the timer of the probe that sees them work again. */
  #recovery: ReturnType<typeof setInterval> | undefined;
  /** Damage a read ran into (corrupt page, I/O error), or null. It does not heal by itself. */
  #damage: string | null = null;

  /**
   * Opens (creating when needed) `scenes.db` in `dataDir` and checks it with `PRAGMA
   * quick_check`. Throws StorageDamagedError when the file is damaged.
   */
  constructor(dataDir: string, options: StoreOptions = {}) {
    Deno.mkdirSync(dataDir, { recursive: true });
    this.#path = join(dataDir, "scenes.db");
    this.#log = options.log ?? (() => {});
    try {
      this.#db = new DatabaseSync(this.#path);
      this.#check();
    } catch (e) {
      if (e instanceof StorageDamagedError) throw e;
      // SQLITE_CORRUPT (11) or SQLITE_NOTADB (26), by node:sqlite's `errcode`, not the text.
      const errcode = (e as { errcode?: unknown }).errcode;
      const primary = typeof errcode === "number" ? errcode & 0xff : -1;
      if (primary === 11 || primary === 26) {
        throw new StorageDamagedError(`${this.#path}: ${(e as Error).message}`, { cause: e });
      }
      throw e;
    }
    if (options.maxBytes !== undefined) {
      const budget = storageBudget(options.maxBytes);
      this.#budget = budget;
      this.#db.exec(`PRAGMA max_page_count = ${budget.maxPages}`);
      this.#db.exec(`PRAGMA journal_size_limit = ${budget.journalSizeLimit}`);
      this.#shares = new StorageShares({
        maxPages: budget.maxPages,
        windowHours: options.retentionHours ?? 72,
        now: options.now ?? Date.now,
      });
    }
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
        show_cursor INTEGER NOT NULL,
        settings TEXT
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
      CREATE TABLE IF NOT EXISTS store_probe (id INTEGER PRIMARY KEY, at REAL NOT NULL);
    `);
    this.#keepSettingsInForce();
    this.#sql = prepareAll(this.#db);
    if (this.#budget) {
      this.#selectSceneBytes = this.#db.prepare(
        `SELECT ${ROW_BYTES_SQL} AS bytes FROM events WHERE scene = ?`,
      );
    }
    // A store opened on a full disk (or over its budget) says so from the start: /healthz must
    // not answer ok while every launch fails.
    const fault = this.#probe();
    if (fault !== null) this.#fault(fault);
  }

  /**
   * The `scenes.settings` column: every appended `settings` event is merged into its scene's
   * settings in the same transaction (JSON merge, as `applySettings` does; see `appendEvent`), so
   * the settings in force are one row read, never a fold of the log. Retention only drops events
   * the settings already include, so it never touches the column. A database from before the
   * column gets it empty (NULL); `settingsInForce` fills a scene's on first read. The trigger an
   * earlier version kept it with goes: it parsed every event's JSON on insert (3-4 % of a
   * launch's stamp, store and fan-out to 1000 peers), and only settings events need the merge.
   */
  #keepSettingsInForce(): void {
    const columns = this.#db.prepare("PRAGMA table_info(scenes)").all() as { name: string }[];
    if (!columns.some((c) => c.name === "settings")) {
      this.#db.exec("ALTER TABLE scenes ADD COLUMN settings TEXT");
    }
    this.#db.exec("DROP TRIGGER IF EXISTS scenes_settings_in_force");
  }

  /** Creates a scene; returns false (changing nothing) when the id is taken. */
  createScene(id: string, seed: number, epoch: number, snapshot: WorldSnapshot): boolean {
    const result = this.#write(
      () =>
        this.#sql.insertScene.run(
          id,
          seed,
          epoch,
          JSON.stringify(snapshot),
          JSON.stringify(snapshot.settings),
        ),
    );
    return Number(result.changes) === 1;
  }

  /** The scene's row, or undefined. */
  getScene(id: string): SceneRow | undefined {
    const row = this.#read(() => this.#sql.selectScene.get(id)) as
      | Record<string, unknown>
      | undefined;
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

  /**
   * The settings in force after every stored event of `scene` (undefined when there is no such
   * scene): one row read, kept as events are appended (see `#keepSettingsInForce`).
   * A scene stored before the column existed is folded once (snapshot + events since) and kept.
   *
   * @example
   * ```ts
   * const snow = store.settingsInForce("quiet-pine-4821")?.snow;
   * ```
   */
  settingsInForce(scene: string): Settings | undefined {
    const row = this.#read(() => this.#sql.selectSettings.get(scene)) as
      | { settings: string | null }
      | undefined;
    if (!row) return undefined;
    if (row.settings !== null) return JSON.parse(row.settings) as Settings;
    const stored = this.getScene(scene)!;
    const settings =
      advanceSnapshot(stored.snapshot, this.eventsFromTick(scene, stored.snapshot.tick), Infinity)
        .settings;
    try {
      this.#write(() => this.#sql.updateSettings.run(JSON.stringify(settings), scene));
    } catch {
      // Not kept (say the disk is full): the next read folds again.
    }
    return settings;
  }

  /**
   * Commits one event; throws if its seq is already taken (never silently reuses a seq).
   * `spender`: whose share of the storage it spends (a network prefix; none for the show's
   * events, which spend only the scene's). Over the scene's or the spender's share it throws
   * `StorageUnavailableError` without marking the store as failing: others still write.
   */
  appendEvent(scene: string, event: SceneEvent, spender?: string): void {
    const body = event.body;
    const json = JSON.stringify(body);
    const shares = this.#shares;
    const bytes = shares ? rowBytes(scene, event.by, json) : 0;
    if (this.#busyUnderPressure(scene)) {
      throw new StorageUnavailableError(
        "the server is still writing earlier events to disk (its write-ahead log is nearly " +
          "full, and this scene wrote the most)",
      );
    }
    if (shares) {
      const over = shares.over(scene, spender, bytes, () => this.#sceneBytes(scene));
      if (over !== null) {
        if (over.first) {
          const who = over.who === "scene" ? `scene ${scene}` : `spender ${spender}`;
          this.#log(`store: ${who} reached its storage share (${mb(over.limit)} MB)`);
        }
        throw new StorageUnavailableError(
          over.who === "scene"
            ? `this scene has stored its share of the server's storage (${
              mb(over.limit)
            } MB); older events are pruned as they age`
            : `your network has stored its share of the server's storage (${mb(over.limit)} MB)`,
        );
      }
    }
    if (body.type !== "settings") {
      this.#write(
        () => this.#sql.insertEvent.run(scene, event.seq, event.tick, event.by, json),
      );
      shares?.spent(scene, spender, bytes);
      return;
    }
    // The event and the settings in force change together or not at all (a savepoint: the
    // append may run inside a caller's `transaction`).
    this.#write(() => {
      this.#db.exec("SAVEPOINT settings_event");
      try {
        this.#sql.insertEvent.run(scene, event.seq, event.tick, event.by, json);
        this.#sql.mergeSettings.run(JSON.stringify(body.settings), scene);
        this.#db.exec("RELEASE settings_event");
      } catch (e) {
        // Some failures (SQLITE_FULL among them) already rolled the whole transaction back.
        if (this.#db.isTransaction) {
          try {
            this.#db.exec("ROLLBACK TO settings_event; RELEASE settings_event");
          } catch {
            // The write's own error is the one to report.
          }
        }
        throw e;
      }
    });
    shares?.spent(scene, spender, bytes);
  }

  /** The retention pruned `bytes` (by `rowBytes`) of `scene`'s events; `Infinity`: all. */
  freed(scene: string, bytes: number): void {
    this.#shares?.freed(scene, bytes);
  }

  /**
   * True when the WAL is past three quarters of its part and `scene` already wrote
   * {@link BUSY_WRITES} events in the current {@link BUSY_WINDOW_MS}: the last quarter is kept for
   * the scenes that write little, so a flood in one scene does not refuse a launch in another while
   * the checkpointer catches up.
   */
  #busyUnderPressure(scene: string): boolean {
    const budget = this.#budget;
    if (budget === undefined || this.#walSize < budget.walBytes * 0.75) return false;
    // Looked at again: a checkpoint may have cut it back since the last write.
    this.#walSize = fileSize(`${this.#path}-wal`);
    if (this.#walSize < budget.walBytes * 0.75) return false;
    const now = performance.now();
    if (now - this.#busyWindowMs >= BUSY_WINDOW_MS) {
      this.#busyWindowMs = now;
      this.#recentWrites.clear();
    }
    const writes = (this.#recentWrites.get(scene) ?? 0) + 1;
    this.#recentWrites.set(scene, writes);
    return writes > BUSY_WRITES;
  }

  /** What `scene`'s stored events cost, by `rowBytes`. */
  #sceneBytes(scene: string): number {
    const row = this.#selectSceneBytes?.get(scene) as { bytes: number } | undefined;
    return Math.ceil(Number(row?.bytes ?? 0));
  }

  /** Up to `limit` events with seq ≥ `fromSeq`, in seq order. */
  eventsFromSeq(scene: string, fromSeq: number, limit: number): SceneEvent[] {
    return this.#read(() => this.#sql.selectEventsFromSeq.all(scene, fromSeq, limit)).map(
      eventFromRow,
    );
  }

  /** Every event with tick ≥ `tick`, in seq order. */
  eventsFromTick(scene: string, tick: number): SceneEvent[] {
    return this.#read(() => this.#sql.selectEventsFromTick.all(scene, tick)).map(eventFromRow);
  }

  /** Seq and tick of the scene's last event, or undefined when it has none. */
  lastEvent(scene: string): { seq: number; tick: number } | undefined {
    const row = this.#read(() => this.#sql.selectLastEvent.get(scene)) as
      | Record<string, unknown>
      | undefined;
    return row ? { seq: Number(row.seq), tick: Number(row.tick) } : undefined;
  }

  /** Records the highest tick promised and the show cursor. */
  saveProgress(scene: string, lastTick: number, showCursor: number): void {
    this.#write(() => this.#sql.updateProgress.run(lastTick, showCursor, scene));
  }

  /** Replaces the stored snapshot (kept at or before T − W). */
  saveSnapshot(scene: string, snapshot: WorldSnapshot): void {
    this.#write(() => this.#sql.updateSnapshot.run(JSON.stringify(snapshot), scene));
  }

  /** Runs `fn` in one transaction (one commit for many small writes); rolls back if it throws. */
  transaction(fn: () => void): void {
    this.#write(() => inTransaction(this.#db, fn));
  }

  /**
   * Whether the database answers and takes writes: reads one row of each table (cheap: one path
   * from each b-tree's root) and reports the last write failure, if writes are failing.
   */
  health(): { ok: true } | { ok: false; code: string; reason: string } {
    if (this.#damage !== null) {
      return { ok: false, code: "storage_damaged", reason: `database damaged: ${this.#damage}` };
    }
    try {
      this.#db.prepare("SELECT id FROM scenes ORDER BY id DESC LIMIT 1").get();
      this.#db.prepare("SELECT seq FROM events ORDER BY scene DESC, seq DESC LIMIT 1").get();
    } catch (e) {
      return {
        ok: false,
        code: "storage_unavailable",
        reason: `reading failed: ${(e as Error).message}`,
      };
    }
    if (this.#writeFault !== null) {
      return {
        ok: false,
        code: "storage_unavailable",
        reason: `writes failing: ${this.#writeFault}`,
      };
    }
    return { ok: true };
  }

  /**
   * Runs `fn` (a read). Damage found while running (a page that went bad after the start-up
   * check) is remembered: from then on `/healthz` reports it, instead of ok while routes fail.
   */
  #read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      this.noteReadFailure(e);
      throw e;
    }
  }

  /**
   * Remembers damage that a read of this database elsewhere ran into (the log pages' worker has
   * its own connection): a corrupt page, an I/O error or a file it could not open
   * (`StorageDamagedError`) makes `/healthz` report it. Other errors are ignored.
   */
  noteReadFailure(e: unknown): void {
    const errcode = (e as { errcode?: unknown } | null)?.errcode;
    const primary = typeof errcode === "number" ? errcode & 0xff : -1;
    let reason: string | undefined;
    if (primary === 11 || primary === 26 || primary === 10) {
      reason = `${STORAGE_FAULTS.get(primary)}: ${(e as Error).message}`;
    } else if (e instanceof StorageDamagedError) {
      // The worker could not open the file (no SQLite code comes with a failed open).
      reason = e.message;
    }
    if (reason === undefined) return;
    if (this.#damage === null) this.#log(`error: store: reading failed (${reason})`);
    this.#damage = reason;
  }

  /**
   * Runs `fn` (a write); storage faults become StorageUnavailableError and are logged once. The
   * fault is over when the recovery probe says so (an in-place update can still succeed on a full
   * disk, so a write that works proves nothing).
   */
  #write<T>(fn: () => T): T {
    // While writes fail, none is tried until the recovery probe sees room again: on a full disk
    // some small writes still fit in the WAL's old space, and letting them through would flap
    // the state (and the log) with every write.
    if (this.#writeFault !== null) {
      throw new StorageUnavailableError(`the server cannot save right now (${this.#writeFault})`);
    }
    const walFull = this.#walFull();
    if (walFull !== null) {
      // A full WAL is back-pressure while the checkpointer catches up; one that stays full
      // (checkpoints failing, a reader holding it) is a fault.
      const now = performance.now();
      this.#walFullSince ??= now;
      if (now - this.#walFullSince >= WAL_STUCK_MS) this.#fault(walFull);
      throw new StorageUnavailableError(
        this.#writeFault === null
          ? "the server is still writing earlier events to disk (its write-ahead log is full)"
          : `the server cannot save right now (${walFull})`,
      );
    }
    this.#walFullSince = null;
    let result: T;
    try {
      result = fn();
    } catch (e) {
      const reason = this.#faultOf(e);
      if (reason === undefined) throw e;
      this.#fault(reason);
      throw new StorageUnavailableError(`the server cannot save right now (${reason})`, {
        cause: e,
      });
    }
    return result;
  }

  /** What a failed write's error says about the storage, or undefined when it is no fault. */
  #faultOf(e: unknown): string | undefined {
    const errcode = (e as { errcode?: unknown } | null)?.errcode;
    // `exec` (COMMIT, RELEASE) throws without a code here: SQLite's message names the fault.
    const fault = typeof errcode === "number"
      ? STORAGE_FAULTS.get(errcode & 0xff)
      : FAULT_MESSAGES.find(([pattern]) => pattern.test(String((e as Error)?.message)))?.[1];
    if (fault === undefined) return undefined;
    let reason = `${fault}: ${(e as Error).message}`;
    if (fault === "SQLITE_FULL" && this.#atBudget()) {
      reason += `; the database reached its size budget of ${
        mb(this.#budget!.maxBytes)
      } MB (DB_MAX_MB)`;
    }
    return reason;
  }

  /** Writes fail for `reason`: logged once, `/healthz` says so, the recovery probe starts. */
  #fault(reason: string): void {
    if (this.#writeFault === null) {
      this.#log(`error: store: writes failing (${reason}); launches get storage_unavailable`);
    }
    this.#writeFault = reason;
    if (this.#recovery !== undefined || !this.#db.isOpen) return;
    this.#recovery = setInterval(() => {
      this.#askCheckpoint("truncate");
      const fault = this.#probe();
      if (fault === null) this.#recovered();
      else this.#writeFault = fault;
    }, RECOVERY_PROBE_MS);
    Deno.unrefTimer(this.#recovery);
  }

  /** Asks the checkpointer for a checkpoint now (at most every 10 ms). */
  #askCheckpoint(kind: "checkpoint" | "truncate"): void {
    const now = performance.now();
    if (now - this.#checkpointAskedMs < 10) return;
    this.#checkpointAskedMs = now;
    this.#checkpointer?.postMessage(kind);
  }

  #recovered(): void {
    clearInterval(this.#recovery);
    this.#recovery = undefined;
    if (this.#writeFault === null) return;
    this.#writeFault = null;
    this.#log("store: writes work again");
  }

  /**
   * Whether a write would work now, without storing anything a reader sees: the disk takes a
   * probe file, the WAL is below its part and the database has pages left within the budget,
   * and SQLite commits a one-row write. Null when it would; else why not.
   */
  #probe(): string | null {
    const disk = probeDisk(this.#path);
    if (disk !== null) return disk;
    const walFull = this.#walFull(true);
    if (walFull !== null) return walFull;
    if (this.#atBudget()) {
      return `the database reached its size budget of ${mb(this.#budget!.maxBytes)} MB (DB_MAX_MB)`;
    }
    try {
      this.#sql.probeWrite.run(Date.now());
    } catch (e) {
      const reason = this.#faultOf(e);
      if (reason === undefined) throw e;
      return reason;
    }
    return null;
  }

  /**
   * Why the WAL can take no more (it reached its part of the budget), or null. The file's size
   * is looked at every 8th write while it is small, at every write once it passes a quarter of
   * its part; from there the checkpointer is asked for a checkpoint at once, past half for one
   * that truncates the file.
   */
  #walFull(now = false): string | null {
    const budget = this.#budget;
    if (budget === undefined) return null;
    if (
      now || ++this.#writesSinceWalCheck >= 8 || this.#walSize >= budget.journalSizeLimit
    ) {
      this.#writesSinceWalCheck = 0;
      this.#walSize = fileSize(`${this.#path}-wal`);
      if (this.#walSize >= budget.walPressureBytes) this.#askCheckpoint("truncate");
      else if (this.#walSize >= budget.journalSizeLimit) this.#askCheckpoint("checkpoint");
    }
    if (this.#walSize < budget.walBytes) return null;
    return `the write-ahead log reached its part of the size budget (${mb(budget.walBytes)} of ${
      mb(budget.maxBytes)
    } MB, DB_MAX_MB) and waits for a checkpoint`;
  }

  /** True when the database has no page left within its budget (not the disk being full). */
  #atBudget(): boolean {
    if (this.#budget === undefined) return false;
    try {
      const row = this.#db.prepare(
        "SELECT page_count, freelist_count FROM pragma_page_count, pragma_freelist_count",
      ).get() as { page_count: number; freelist_count: number };
      return row.page_count + 2 >= this.#budget.maxPages && row.freelist_count < 2;
    } catch {
      return false;
    }
  }

  /** Refuses a damaged file: `quick_check` reports the first problems it finds. */
  #check(): void {
    const rows = this.#db.prepare("PRAGMA quick_check(3)").all() as Record<string, unknown>[];
    const problems = rows.map((r) => String(Object.values(r)[0])).filter((r) => r !== "ok");
    if (problems.length > 0) {
      throw new StorageDamagedError(
        `${this.#path} failed quick_check: ${problems.join("; ").replace(/\s+/g, " ")}`,
      );
    }
  }

  /** Number of scenes stored. */
  countScenes(): number {
    return Number((this.#sql.countScenes.get() as Record<string, unknown>).n);
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
    // A checkpointer that fails (it could not load under a flood that took every file
    // descriptor) must not end the server: the log then grows until the next start or close.
    worker.onerror = (e) => {
      e.preventDefault();
      log(`store: the checkpoint worker failed (${e.message}); checkpoints wait for a restart`);
    };
    worker.postMessage({
      path: this.#path,
      intervalMs,
      journalSizeLimit: this.#budget?.journalSizeLimit,
      truncateBytes: this.#budget?.walPressureBytes,
    });
    this.#checkpointer = worker;
  }

  /** Stops the checkpoint worker (after its current checkpoint) and closes the database. */
  async close(): Promise<void> {
    clearInterval(this.#recovery);
    this.#recovery = undefined;
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

/** Bytes as MB with one decimal (what messages and the log show). */
function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
