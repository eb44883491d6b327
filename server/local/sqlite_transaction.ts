/**
 * One SQLite transaction on a `node:sqlite` database, for the store and the retention policy.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { inTransaction } from "./sqlite_transaction.ts";
 * const db = new DatabaseSync(":memory:");
 * db.exec("CREATE TABLE t (x INTEGER)");
 * inTransaction(db, () => db.exec("INSERT INTO t VALUES (1)"), "BEGIN IMMEDIATE");
 * ```
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * Runs `fn` between `begin` (default `BEGIN`) and `COMMIT` and returns its result; when `fn` or
 * the commit throws, rolls back and rethrows.
 */
export function inTransaction<T>(
  db: DatabaseSync,
  fn: () => T,
  begin: "BEGIN" | "BEGIN IMMEDIATE" = "BEGIN",
): T {
  db.exec(begin);
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (e) {
    // A failed COMMIT (full disk) can leave the transaction open: end it either way.
    if (db.isTransaction) db.exec("ROLLBACK");
    throw e;
  }
}
