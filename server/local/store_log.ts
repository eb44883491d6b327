/** A scene's log in the single node's SQLite store (see `SceneLog`). */
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";
import type { LoadedScene, SceneLog } from "../scene/scene_log.ts";
import type { SceneRow, SceneStore } from "./store.ts";

/**
 * On load from the store the clock floor sits this far above the last stored promise: heartbeats
 * sent after the last progress write (at most PERSIST_EVERY_MS = 250 ms, 15 ticks, ago) can then
 * never be undercut, even when the wall clock stepped back across the restart.
 */
const FLOOR_MARGIN_TICKS = 30;

/** A scene's log in the local SQLite {@link SceneStore}: every write is done when it returns. */
export class StoreSceneLog implements SceneLog {
  readonly #store: SceneStore;
  readonly #scene: string;

  constructor(store: SceneStore, scene: string) {
    this.#store = store;
    this.#scene = scene;
  }

  /** The scene `row` with its events from the snapshot on. */
  load(row: SceneRow): LoadedScene {
    const last = this.#store.lastEvent(this.#scene);
    const lastTick = last?.tick ?? 0;
    return {
      seed: row.seed,
      epoch: row.epoch,
      snapshot: row.snapshot,
      events: this.#store.eventsFromTick(this.#scene, row.snapshot.tick),
      lastSeq: last?.seq ?? 0,
      lastTick,
      promised: Math.max(row.lastTick, lastTick),
      floor: row.lastTick > 0 ? row.lastTick + FLOOR_MARGIN_TICKS : 0,
      showCursor: row.showCursor,
    };
  }

  append(event: SceneEvent, spender?: string): void {
    this.#store.appendEvent(this.#scene, event, spender);
  }

  saveProgress(promised: number, showCursor: number): void {
    this.#store.saveProgress(this.#scene, promised, showCursor);
  }

  saveSnapshot(snapshot: WorldSnapshot): void {
    this.#store.saveSnapshot(this.#scene, snapshot);
  }
}
