/**
 * Whether the disk under the database takes writes: a probe file of {@link PROBE_BYTES} is
 * written beside it and removed. SQLite alone cannot tell: its WAL reuses the file's space from
 * the start after each checkpoint, so a small write can succeed on a full disk while the next
 * checkpoint (which grows the database file) fails.
 */

/** Bytes the probe writes: room for a few hundred events and a checkpoint's growth. */
export const PROBE_BYTES = 256 * 1024;

const PROBE = new Uint8Array(PROBE_BYTES);

/**
 * Writes and removes `<dbPath>-probe`; null when that worked, else why not (`ENOSPC` and all).
 *
 * @example
 * ```ts
 * const fault = probeDisk("/var/lib/snowfire/scenes.db"); // null, or "the disk is full: ..."
 * ```
 */
export function probeDisk(dbPath: string): string | null {
  const path = `${dbPath}-probe`;
  try {
    Deno.writeFileSync(path, PROBE);
    return null;
  } catch (e) {
    const full = e instanceof Error && /ENOSPC|No space left|EDQUOT|quota/i.test(e.message);
    return `${full ? "the disk is full" : "the disk refuses writes"}: ${(e as Error).message}`;
  } finally {
    try {
      Deno.removeSync(path);
    } catch {
      // Not created.
    }
  }
}

/**
 * A file's size in bytes; 0 when it does not exist.
 *
 * @example
 * ```ts
 * fileSize("/var/lib/snowfire/scenes.db-wal"); // 0 right after a truncating checkpoint
 * ```
 */
export function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}
