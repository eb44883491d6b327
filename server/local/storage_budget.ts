/**
 * How `DB_MAX_MB` is split between the three files SQLite keeps in WAL mode: the database
 * (`scenes.db`, capped by `max_page_count`), its write-ahead log (`-wal`, checkpointed and
 * truncated before it reaches its part) and the WAL index (`-shm`, 32 KiB for every ~4,000 log
 * pages). The three together stay within the budget; and how much of the database one scene, and
 * one spender (a network prefix), may hold.
 */

/** SQLite's page size here (the default). */
export const PAGE_BYTES = 4096;

/** One scene may hold at most this part of the database's bytes (by {@link rowBytes}). */
export const SCENE_SHARE = 1 / 8;

/** One spender (a network prefix) may hold at most this part of the database's bytes. */
export const SPENDER_SHARE = 1 / 4;

/** Bytes of one WAL index (`-shm`) block: it covers 4,062 log pages. */
const SHM_BLOCK_BYTES = 32 * 1024;
const PAGES_PER_SHM_BLOCK = 4062;

/** How `maxBytes` is split (all in bytes, except `maxPages`). */
export interface StorageBudget {
  /** The whole budget: database + WAL + shm. */
  maxBytes: number;
  /** The database file's `max_page_count`. */
  maxPages: number;
  /** The WAL's part: past it writes are refused until a checkpoint has truncated the log. */
  walBytes: number;
  /** Past this the WAL is checkpointed and truncated at once (`wal_checkpoint(TRUNCATE)`). */
  walPressureBytes: number;
  /** `journal_size_limit`: the WAL file is cut back to this whenever the log restarts. */
  journalSizeLimit: number;
  /** The shm's part (its size for a WAL of `walBytes`, plus one block). */
  shmBytes: number;
  /** Room left for the one commit that may land between two WAL checks. */
  slackBytes: number;
}

/**
 * Splits `maxBytes`: an eighth for the WAL (between 96 KiB and 32 MiB), the shm that log needs,
 * 64 KiB of slack for the last commit past a check, the rest for the database.
 *
 * @example
 * ```ts
 * const budget = storageBudget(8 * 1024 * 1024);
 * budget.maxPages * 4096 + budget.walBytes + budget.shmBytes + budget.slackBytes <= 8 * 1024 * 1024; // true
 * ```
 */
export function storageBudget(maxBytes: number): StorageBudget {
  const walBytes = Math.min(32 * 1024 * 1024, Math.max(96 * 1024, Math.floor(maxBytes / 8)));
  const walPages = Math.ceil(walBytes / PAGE_BYTES);
  const shmBytes = SHM_BLOCK_BYTES * (Math.ceil(walPages / PAGES_PER_SHM_BLOCK) + 1);
  const slackBytes = 64 * 1024;
  const dbBytes = maxBytes - walBytes - shmBytes - slackBytes;
  return {
    maxBytes,
    // At least a handful of pages, so a tiny budget still opens (and refuses writes at once).
    maxPages: Math.max(8, Math.floor(dbBytes / PAGE_BYTES)),
    walBytes,
    walPressureBytes: Math.floor(walBytes / 2),
    journalSizeLimit: Math.floor(walBytes / 4),
    shmBytes,
    slackBytes,
  };
}

/**
 * What one stored event costs the database, in bytes, as the shares count it: its row in `events`
 * (scene, seq, tick, by, body, record and cell headers), its entry in `events_by_tick`, and the
 * pages' free space (B-tree pages run about 70 % full). Calibrated on this store: measured file
 * growth per event was 0.98-1.04 of it for bodies of 60-560 bytes.
 *
 * @example
 * ```ts
 * rowBytes("quiet-pine-4821", "p1abc", '{"type":"launch","x":1,"z":2}'); // 110
 * ```
 */
export function rowBytes(scene: string, by: string, body: string): number {
  return Math.ceil((2 * scene.length + by.length + body.length + 40) * ROW_FILL);
}

/** File bytes per row byte (appends in seq order leave pages nearly full; the index adds a little). */
export const ROW_FILL = 1.05;

/** The SQL of {@link rowBytes} over `events` rows (for the stored bytes of a scene). */
export const ROW_BYTES_SQL =
  `coalesce(sum((2 * length(scene) + length(by) + length(body) + 40) * ${ROW_FILL}), 0)`;
