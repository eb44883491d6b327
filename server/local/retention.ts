/**
 * Keeps each scene's stored log within the retention policy (single node, SQLite). Work is done
 * in small slices between the server's other work — each slice moves one scene's log start
 * forward by at most `sliceRows` events in one short transaction — so stamping never waits
 * behind a big delete. Before events go, the snapshot at the new start (the settings and wind in
 * force there) is stored in `log_starts`: with it the kept log still rebuilds every moment from
 * the start + W on, exactly (the log API serves it). It never prunes past the scene's stored
 * snapshot (a restart restores from there) nor its last event (the next seq follows it). A scene
 * whose every event is past the age limit and that is not loaded is removed entirely.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { inTransaction } from "./sqlite_transaction.ts";
import { TICK_MS } from "../../shared/constants.ts";
import { ROW_BYTES_SQL } from "./storage_budget.ts";
import { applySettings, initialSnapshot } from "../../shared/settings.ts";
import type { EventBody, WorldSnapshot } from "../../shared/types.ts";
import {
  ageCutTick,
  countKeepFromSeq,
  idlePastRetention,
  type RetentionPolicy,
} from "../scene/retention_policy.ts";
import type { StorageStats } from "../scene/scene_host.ts";
export type { StorageStats } from "../scene/scene_host.ts";

/** Options of {@link Retention}. */
export interface RetentionOptions {
  /** The scene database (its own connection is opened here). */
  path: string;
  policy: RetentionPolicy;
  /** Wall clock, ms (ticks are counted from each scene's epoch). */
  now: () => number;
  /** True while a scene is loaded (it is never removed then). */
  loaded: (scene: string) => boolean;
  log?: (msg: string) => void;
  /**
   * Told what each slice pruned from a scene, in `rowBytes` (`Infinity`: the scene is gone), so
   * the store's shares count it (see `SceneStore.freed`).
   */
  freed?: (scene: string, bytes: number) => void;
  /** Most events one slice deletes. Default 256. */
  sliceRows?: number;
}

/**
 * The retention worker of the single-node server.
 *
 * @example
 * ```ts
 * const retention = new Retention({ path, policy, now: Date.now, loaded: (id) => rooms.isLoaded(id) });
 * retention.start(5000); // a pass every 5 s, slices every few ms while there is work
 * console.log(retention.stats());
 * retention.stop();
 * ```
 */
export class Retention {
  readonly #db: DatabaseSync;
  readonly #o: RetentionOptions;
  readonly #slice: number;
  readonly #s: Record<string, StatementSync>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #stats: StorageStats = { events: 0, bytes: 0, fileBytes: 0, pruned: 0, scenesRemoved: 0 };

  constructor(options: RetentionOptions) {
    this.#o = options;
    this.#slice = options.sliceRows ?? 256;
    this.#db = new DatabaseSync(options.path);
    this.#db.exec(`
      PRAGMA busy_timeout = 2000;
      PRAGMA cache_size = -512;
      CREATE TABLE IF NOT EXISTS log_starts (
        scene TEXT PRIMARY KEY,
        tick INTEGER NOT NULL,
        snapshot TEXT NOT NULL
      );
    `);
    const db = this.#db;
    this.#s = {
      scenes: db.prepare("SELECT id, epoch, snapshot, last_tick FROM scenes"),
      start: db.prepare("SELECT tick, snapshot FROM log_starts WHERE scene = ?"),
      first: db.prepare("SELECT seq, tick FROM events WHERE scene = ? ORDER BY seq LIMIT 1"),
      last: db.prepare("SELECT seq, tick FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1"),
      atSeq: db.prepare(
        "SELECT tick FROM events WHERE scene = ? AND seq >= ? ORDER BY seq LIMIT 1",
      ),
      settings: db.prepare(
        `SELECT tick, body FROM events
         WHERE scene = ? AND tick >= ? AND tick < ? AND body LIKE '{"type":"settings"%'
         ORDER BY seq`,
      ),
      upsertStart: db.prepare(
        `INSERT INTO log_starts (scene, tick, snapshot) VALUES (?, ?, ?)
         ON CONFLICT (scene) DO UPDATE SET tick = excluded.tick, snapshot = excluded.snapshot`,
      ),
      deleteBefore: db.prepare("DELETE FROM events WHERE scene = ? AND tick < ?"),
      bytesBefore: db.prepare(
        `SELECT ${ROW_BYTES_SQL} AS bytes FROM events WHERE scene = ? AND tick < ?`,
      ),
      deleteScene: db.prepare("DELETE FROM scenes WHERE id = ?"),
      deleteStart: db.prepare("DELETE FROM log_starts WHERE scene = ?"),
      pages: db.prepare(
        "SELECT page_count * page_size AS file, freelist_count * page_size AS free " +
          "FROM pragma_page_count, pragma_freelist_count, pragma_page_size",
      ),
    };
  }

  /** Runs passes every `passMs` (and slices back to back, a few ms apart, while there is work). */
  start(passMs: number): void {
    const run = () => {
      if (this.#stopped) return;
      let more = false;
      try {
        more = this.slice();
      } catch (e) {
        this.#o.log?.(`retention: ${(e as Error).message}`);
      }
      this.#timer = setTimeout(run, more ? 5 : passMs);
    };
    this.#timer = setTimeout(run, 0);
  }

  /** Stops the passes and closes the connection. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    if (this.#db.isOpen) this.#db.close();
  }

  /** Storage figures as of the last slice that found nothing to do. */
  stats(): StorageStats {
    return { ...this.#stats };
  }

  /**
   * One slice: finds the first scene with work and does at most `sliceRows` of it. Returns true
   * when work may remain (call again soon), false when every scene is within the policy (the
   * figures are refreshed then).
   */
  slice(): boolean {
    const nowMs = this.#o.now();
    const rows = this.#s.scenes.all() as Record<string, unknown>[];
    let events = 0;
    for (const row of rows) {
      const scene = row.id as string;
      const worked = this.#sceneSlice(
        scene,
        Math.floor((nowMs - Number(row.epoch)) / TICK_MS),
        (JSON.parse(row.snapshot as string) as WorldSnapshot).tick,
        Number(row.last_tick),
      );
      if (worked) return true;
      const first = this.#s.first.get(scene) as Record<string, unknown> | undefined;
      const last = this.#s.last.get(scene) as Record<string, unknown> | undefined;
      if (first && last) events += Number(last.seq) - Number(first.seq) + 1;
    }
    const pages = this.#s.pages.get() as { file: number; free: number };
    this.#stats = {
      ...this.#stats,
      events,
      fileBytes: Number(pages.file),
      bytes: Number(pages.file) - Number(pages.free),
    };
    return false;
  }

  /** At most one slice of work on `scene`; true when something was done. */
  #sceneSlice(scene: string, nowTick: number, storedSnapshotTick: number, lastTick: number) {
    const s = this.#s;
    const policy = this.#o.policy;
    const ageCut = ageCutTick(policy, nowTick);
    const last = s.last.get(scene) as Record<string, unknown> | undefined;
    if (!last) {
      if (idlePastRetention(policy, nowTick, lastTick) && !this.#o.loaded(scene)) {
        return this.#remove(scene);
      }
      return false;
    }
    const lastSeq = Number(last.seq);
    const lastEventTick = Number(last.tick);
    // Idle past the age limit and nobody here: the whole scene goes, a slice at a time.
    const removing = idlePastRetention(policy, nowTick, Math.max(lastEventTick, lastTick)) &&
      !this.#o.loaded(scene);
    const first = s.first.get(scene) as Record<string, unknown>;
    const firstSeq = Number(first.seq);
    const firstTick = Number(first.tick);
    let cut = ageCut;
    const keepFrom = countKeepFromSeq(policy, lastSeq);
    if (keepFrom > firstSeq) {
      const at = s.atSeq.get(scene, keepFrom) as Record<string, unknown>;
      cut = Math.max(cut, Number(at.tick));
    }
    // Never past the stored snapshot (a restart reloads from it) or the last event (the next
    // seq follows it), unless the scene goes.
    cut = removing ? lastEventTick + 1 : Math.min(cut, storedSnapshotTick, lastEventTick);
    if (firstTick >= cut) return false;
    const startRow = s.start.get(scene) as Record<string, unknown> | undefined;
    const start = startRow
      ? { tick: Number(startRow.tick), snapshot: JSON.parse(startRow.snapshot as string) }
      : { tick: 0, snapshot: initialSnapshot() as WorldSnapshot };
    // One slice: the start moves forward by at most sliceRows events (always past the first).
    const stepAt = s.atSeq.get(scene, firstSeq + this.#slice) as
      | Record<string, unknown>
      | undefined;
    const stepCut = stepAt ? Math.min(cut, Number(stepAt.tick)) : cut;
    const to = stepCut > firstTick ? stepCut : cut;
    let snapshot: WorldSnapshot = start.snapshot;
    for (const r of s.settings.all(scene, start.tick, to) as Record<string, unknown>[]) {
      const body = JSON.parse(r.body as string) as EventBody;
      if (body.type === "settings") {
        snapshot = applySettings(snapshot, Number(r.tick), body.settings);
      }
    }
    snapshot = { ...snapshot, tick: Math.max(snapshot.tick, to) };
    const freed = inTransaction(this.#db, () => {
      s.upsertStart.run(scene, to, JSON.stringify(snapshot));
      const bytes = this.#o.freed
        ? Number((s.bytesBefore.get(scene, to) as { bytes: number }).bytes)
        : 0;
      this.#stats.pruned += Number(s.deleteBefore.run(scene, to).changes);
      // The row goes with the last events: while any remain the id stays taken, so a scene
      // opened again meanwhile continues its seqs, and a new one under the id starts clean.
      if (removing && !s.last.get(scene)) this.#dropRow(scene);
      return bytes;
    }, "BEGIN IMMEDIATE");
    this.#o.freed?.(scene, freed);
    return true;
  }

  /** Removes a scene without events. */
  #remove(scene: string): boolean {
    inTransaction(this.#db, () => this.#dropRow(scene), "BEGIN IMMEDIATE");
    return true;
  }

  #dropRow(scene: string): void {
    this.#s.deleteStart.run(scene);
    this.#s.deleteScene.run(scene);
    this.#o.freed?.(scene, Infinity);
    this.#stats.scenesRemoved++;
    this.#o.log?.(`retention: scene ${scene} was idle past the retention and is removed`);
  }
}
