/**
 * The rooms in memory: loaded from the store on first use, created on demand, unloaded after
 * being empty for a while, and driven by one shared scheduler pass.
 */
import { TICK_MS } from "../shared/constants.ts";
import type { Settings } from "../shared/types.ts";
import { advanceSnapshot, initialSnapshot } from "../shared/settings.ts";
import type { ServerClock } from "./clock.ts";
import { StorageUnavailableError } from "./errors.ts";
import type { Metrics } from "./metrics.ts";
import type { PeerSocket } from "./peer.ts";
import { randomSceneId, randomSeed } from "./names.ts";
import { PERSIST_EVERY_MS, Room, type RoomDeps } from "./room.ts";
import type { SceneStore } from "./store.ts";

/** What `/api/scenes/:id` reports. */
export interface SceneInfo {
  id: string;
  seed: number;
  epoch: number;
  tick: number;
  lastSeq: number;
  settings: Settings;
  people: { id: string; name: string; color: string }[];
}

/** All loaded rooms of this server. */
export class Rooms {
  readonly #rooms = new Map<string, Room>();
  readonly #deps: RoomDeps;
  readonly #idleMs: number;
  #lastPersistMs = -Infinity;

  constructor(deps: RoomDeps, idleMs: number) {
    this.#deps = deps;
    this.#idleMs = idleMs;
  }

  get #store(): SceneStore {
    return this.#deps.store;
  }

  get #clock(): ServerClock {
    return this.#deps.clock;
  }

  get #metrics(): Metrics {
    return this.#deps.metrics;
  }

  /** Number of rooms in memory. */
  get size(): number {
    return this.#rooms.size;
  }

  /** Number of connections across rooms. */
  connections(): number {
    let n = 0;
    for (const room of this.#rooms.values()) n += room.peers.size;
    return n;
  }

  /** Creates a scene with a fresh friendly id and random seed; returns its id. */
  create(): string {
    for (let attempt = 0; attempt < 20; attempt++) {
      const id = randomSceneId();
      if (this.#createStored(id)) return id;
    }
    throw new Error("could not find a free scene id after 20 attempts");
  }

  /** The room for `id`, loading it, or creating the scene when it does not exist yet. */
  open(id: string): Room {
    const loaded = this.#rooms.get(id);
    if (loaded) return loaded;
    let row = this.#store.getScene(id);
    if (!row) {
      this.#createStored(id);
      row = this.#store.getScene(id)!;
    }
    const room = new Room(row, this.#deps);
    this.#rooms.set(id, room);
    return room;
  }

  /** Scene facts for the API, from memory when loaded, else from the store (not loading it). */
  describe(id: string): SceneInfo | undefined {
    const room = this.#rooms.get(id);
    if (room) {
      return {
        id,
        seed: room.seed,
        epoch: room.clock.epoch,
        tick: room.clock.tick(),
        lastSeq: room.lastSeq,
        settings: { ...room.settings },
        people: room.welcomedPeers().map((p) => p.info()),
      };
    }
    const row = this.#store.getScene(id);
    if (!row) return undefined;
    const events = this.#store.eventsFromTick(id, row.snapshot.tick);
    const settings = advanceSnapshot(row.snapshot, events, Infinity).settings;
    const tick = Math.floor((this.#clock.wallMs() - row.epoch) / TICK_MS);
    return {
      id,
      seed: row.seed,
      epoch: row.epoch,
      tick: Math.max(tick, row.lastTick),
      lastSeq: this.#store.lastEvent(id)?.seq ?? 0,
      settings,
      people: [],
    };
  }

  /**
   * One scheduler pass over every room; every PERSIST_EVERY_MS it writes all rooms' progress in
   * one transaction, and it unloads rooms empty for longer than the idle time.
   */
  pass(nowMs: number): void {
    if (nowMs - this.#lastPersistMs >= PERSIST_EVERY_MS) {
      this.#lastPersistMs = nowMs;
      try {
        this.#store.transaction(() => {
          for (const room of this.#rooms.values()) room.persist();
        });
      } catch (e) {
        // Storage faults are logged by the store when they start; others get a stack here.
        if (!(e instanceof StorageUnavailableError)) {
          this.#deps.log(`error: persisting progress failed: ${(e as Error).stack ?? e}`);
        }
      }
    }
    for (const [id, room] of this.#rooms) {
      try {
        room.pass(nowMs);
      } catch (e) {
        // One scene's failure (say a full disk) must not stop the others' heartbeats.
        if (!(e instanceof StorageUnavailableError)) {
          this.#deps.log(`error: scene ${id} pass failed: ${(e as Error).stack ?? e}`);
        }
      }
      if (room.emptySinceMs !== null && nowMs - room.emptySinceMs >= this.#idleMs) {
        room.persist();
        this.#rooms.delete(id);
      }
    }
  }

  /**
   * Closes every connection with `code` and persists every room; returns the closed sockets. A
   * room whose persisting fails (say the disk is full) is logged and the others still close.
   */
  closeAll(code: number, reason: string): PeerSocket[] {
    const sockets: PeerSocket[] = [];
    for (const [id, room] of this.#rooms) {
      // Sockets first, so a storage error below cannot keep anyone from their close frame.
      for (const peer of room.peers.values()) sockets.push(peer.socket);
      try {
        room.close(code, reason);
      } catch (e) {
        this.#deps.log(`error: scene ${id}: saving at shutdown failed: ${(e as Error).message}`);
      }
    }
    this.#rooms.clear();
    return sockets;
  }

  #createStored(id: string): boolean {
    const created = this.#store.createScene(
      id,
      randomSeed(),
      this.#clock.wallMs(),
      initialSnapshot(),
    );
    if (created) this.#metrics.scenesCreated++;
    return created;
  }
}
