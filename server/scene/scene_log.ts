/**
 * Persistence of one scene, as the sequencer sees it: an append-only event log plus the two
 * progress records a restart needs (the last promised tick with the show cursor, and the snapshot
 * kept at or before T − W). Two backends implement it: `StoreSceneLog`
 * (`server/local/store_log.ts`: the single node's SQLite store, where every write is done when
 * the call returns) and `JetStreamSceneLog` (`server/cluster/jetstream_log.ts`: a write completes
 * later, and writes complete in the order they were made).
 */
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";

/**
 * A write's completion: nothing when it is durable already (it threw if it failed), or a promise
 * settled once it is (rejected when it failed).
 */
export type Written = void | Promise<void>;

/** One scene's durable state. */
export interface SceneLog {
  /**
   * Appends a stamped event; it must be durable before anyone hears of it. Appends complete in
   * the order they were made; once one fails, every later one fails too. `spender`: whose share
   * of the storage it spends (the sender's network key; none for the show's events), for a log
   * that keeps shares (the single node's store).
   */
  append(event: SceneEvent, spender?: string): Written;
  /** Records the highest tick promised to clients and the first tick whose show is not out. */
  saveProgress(promised: number, showCursor: number): Written;
  /** Replaces the stored snapshot (kept at or before T − W); it covers events up to `coveredSeq`. */
  saveSnapshot(snapshot: WorldSnapshot, coveredSeq: number): Written;
}

/** A scene as its log holds it: what a sequencer starts from. */
export interface LoadedScene {
  seed: number;
  /** Wall ms of tick 0. */
  epoch: number;
  /** Stored snapshot, at or before T − W. */
  snapshot: WorldSnapshot;
  /** Every stored event with tick ≥ snapshot.tick, in seq order. */
  events: SceneEvent[];
  /** Seq and tick of the last stored event (0 when none). */
  lastSeq: number;
  lastTick: number;
  /** Highest tick known to have been promised to clients. */
  promised: number;
  /**
   * Smallest tick the scene's clock may report: above every tick anyone could have been promised
   * before this load (the log says how sure it can be of that).
   */
  floor: number;
  /** First tick whose show launches had not been emitted. */
  showCursor: number;
}
