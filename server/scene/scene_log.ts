/**
 * Persistence of one scene, as the sequencer sees it: an append-only event log plus the two
 * progress records a restart needs (the last promised tick with the show cursor, and the snapshot
 * kept at or before T − W). `StoreSceneLog` keeps it in the local SQLite store; another backend
 * (a replicated stream, say) only has to implement this interface.
 */
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";
import type { SceneStore } from "../local/store.ts";

/** Where a log ends: the seq and tick of its last event. */
export interface LogPosition {
  seq: number;
  tick: number;
}

/** One scene's durable state. Every method returns once the write is durable. */
export interface SceneLog {
  /** Appends a stamped event; it must be durable before it is broadcast. Throws on a reused seq. */
  append(event: SceneEvent): void;
  /** Seq and tick of the last event appended, or undefined when the log is empty. */
  last(): LogPosition | undefined;
  /** Every event with tick ≥ `tick`, in seq order. */
  fromTick(tick: number): Iterable<SceneEvent>;
  /** Records the highest tick promised to clients and the first tick whose show is not out. */
  saveProgress(lastTick: number, showCursor: number): void;
  /** Replaces the stored snapshot (kept at or before T − W). */
  saveSnapshot(snapshot: WorldSnapshot): void;
}

/** A scene's log in the local SQLite {@link SceneStore}. */
export class StoreSceneLog implements SceneLog {
  readonly #store: SceneStore;
  readonly #scene: string;

  constructor(store: SceneStore, scene: string) {
    this.#store = store;
    this.#scene = scene;
  }

  append(event: SceneEvent): void {
    this.#store.appendEvent(this.#scene, event);
  }

  last(): LogPosition | undefined {
    return this.#store.lastEvent(this.#scene);
  }

  fromTick(tick: number): SceneEvent[] {
    return this.#store.eventsFromTick(this.#scene, tick);
  }

  saveProgress(lastTick: number, showCursor: number): void {
    this.#store.saveProgress(this.#scene, lastTick, showCursor);
  }

  saveSnapshot(snapshot: WorldSnapshot): void {
    this.#store.saveSnapshot(this.#scene, snapshot);
  }
}
