/**
 * The single node's {@link SceneHost}: the rooms in memory, loaded from the store on first use,
 * created when someone joins, unloaded after being empty for a while, and driven by one shared
 * scheduler pass. Scene limits live here: at most `maxScenes` loaded (an empty one is unloaded
 * early to make room), and per client address a token bucket for creating new scenes.
 */
import type { SceneEvent } from "../../shared/types.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import { keyMatches } from "../scene/host_keys.ts";
import { StorageUnavailableError } from "../scene/errors.ts";
import type { PeerSocket } from "../scene/peer.ts";
import { randomSceneId, randomSeed } from "../scene/names.ts";
import type { SceneLimits, SceneRefusal } from "../scene/scene_limits.ts";
import { connectionsIn, SceneGate, UNLIMITED_SCENES } from "../scene/scene_limits.ts";
import { PERSIST_EVERY_MS, Room, type RoomDeps } from "./room.ts";
import type { SceneRow } from "./store.ts";
import {
  type HostHealth,
  type SceneHost,
  type SceneInfo,
  storedSceneInfo,
} from "../scene/scene_host.ts";

export type { SceneInfo } from "../scene/scene_host.ts";

/**
 * All loaded rooms of this server. The log API's pages and the retention are added around it by
 * `KeptRooms`, the single node's {@link SceneHost}.
 */
export class Rooms implements Omit<SceneHost, "readLogPage" | "tracks"> {
  readonly #rooms = new Map<string, Room>();
  readonly #deps: RoomDeps;
  readonly #idleMs: number;
  /** The loaded-scene cap and the new-scene budgets by client address (IPv6 by /64). */
  readonly #gate: SceneGate;
  #lastPersistMs = -Infinity;

  constructor(
    deps: RoomDeps,
    idleMs: number,
    limits: SceneLimits = UNLIMITED_SCENES,
  ) {
    this.#deps = deps;
    this.#idleMs = idleMs;
    this.#gate = new SceneGate(limits);
  }

  /** Number of rooms in memory. */
  get size(): number {
    return this.#rooms.size;
  }

  /** Number of connections across rooms. */
  connections(): number {
    return connectionsIn(this.#rooms);
  }

  /** A friendly id no stored or loaded scene has (nothing is stored). */
  freshId(): string {
    for (let attempt = 0; attempt < 20; attempt++) {
      const id = randomSceneId();
      if (!this.#rooms.has(id) && !this.#deps.store.getScene(id)) return id;
    }
    throw new Error("could not find a free scene id after 20 attempts");
  }

  /**
   * Whether `address` may open scene `id` now: null when it may, else why not. A scene that is
   * not loaded needs room under `maxScenes` (an empty room is unloaded to make it, else, when
   * `take`, a scene of the network holding the most when it holds two more than the newcomer's);
   * one that does not exist yet also needs a token from the address's (and its network's)
   * new-scene budget, taken when `take`.
   */
  admission(id: string, address: string, take: boolean): SceneRefusal | null {
    if (this.#rooms.has(id)) return null;
    const stored = this.#deps.store.getScene(id) !== undefined;
    // Over its new-scene budget nobody makes room for it.
    const nowMs = this.#deps.clock.monotonicMs();
    const over = stored ? null : this.#gate.newScene(address, nowMs, false, id);
    if (over) return over;
    const full = this.#gate.makeRoom(this.#rooms, address, take, (id, room, busy) => {
      if (!busy) return this.#unload(id, room);
      this.#deps.metrics.scenesUnloadedForNetwork++;
      this.#deps.log(`scene ${id} unloaded: the server is full and its network holds the most`);
      room.close(busy.closeCode, "the server is full: a scene of your network closed");
      this.#rooms.delete(id);
    });
    if (full) return full;
    if (stored) return null;
    return this.#gate.newScene(address, nowMs, take, id);
  }

  /**
   * The room for `id`: loaded, loaded from the store, or a new scene held in memory until its
   * first hello stores it.
   */
  open(id: string): Room {
    const loaded = this.#rooms.get(id);
    if (loaded) return loaded;
    const stored = this.#deps.store.getScene(id);
    if (stored) {
      const room = new Room(stored, this.#deps);
      this.#rooms.set(id, room);
      return room;
    }
    // A new scene lives in memory until someone says hello in it; then it is stored.
    const row: SceneRow = {
      id,
      seed: randomSeed(),
      epoch: this.#deps.clock.wallMs(),
      snapshot: initialSnapshot(),
      lastTick: 0,
      showCursor: 0,
    };
    const room = new Room(row, this.#deps);
    room.storeOnHello = (snapshot) => {
      if (this.#deps.store.createScene(id, row.seed, row.epoch, snapshot)) {
        this.#deps.metrics.scenesCreated++;
      }
    };
    this.#rooms.set(id, room);
    return room;
  }

  /**
   * Whether `key` is a host key of stored scene `id` (loading it: an empty room unloads again
   * after the idle time); undefined when no such scene is stored.
   */
  isHostKey(id: string, key: string): Promise<boolean | undefined> {
    const loaded = this.#rooms.get(id);
    if (loaded?.storeOnHello || (!loaded && !this.#deps.store.getScene(id))) {
      return Promise.resolve(undefined);
    }
    return Promise.resolve(keyMatches(this.open(id).rules.keys ?? [], key));
  }

  /** Up to `limit` stored events with seq ≥ `from`, from the store. */
  readLog(id: string, from: number, limit: number): SceneEvent[] {
    return this.#deps.store.eventsFromSeq(id, from, limit);
  }

  /** Records damage a read elsewhere (the log pages' worker) ran into; see SceneStore. */
  noteReadFailure(e: unknown): void {
    this.#deps.store.noteReadFailure(e);
  }

  /** The store's health (it reads the database: a damaged file or failing writes show). */
  health(): HostHealth {
    const storage = this.#deps.store.health();
    return {
      ok: storage.ok,
      ...(storage.ok ? {} : { code: storage.code, reason: storage.reason }),
      scenes: this.size,
      connections: this.connections(),
    };
  }

  /** The scenes in the database; no families of its own. */
  metrics(): { scenesStored: number; text: string } {
    return { scenesStored: this.#deps.store.countScenes(), text: "" };
  }

  /** Closes the database (after `closeAll`). */
  async close(): Promise<void> {
    try {
      await this.#deps.store.close();
    } catch (e) {
      this.#deps.log(`error: closing the database failed: ${(e as Error).message}`);
    }
  }

  /** True while scene `id` is loaded (someone is in it or it is about to unload). */
  isLoaded(id: string): boolean {
    return this.#rooms.has(id);
  }

  /**
   * Scene facts for the API, from memory when loaded, else from the store (not loading it): a
   * few row reads either way, never a scan of the log.
   */
  describe(id: string): SceneInfo | undefined {
    const room = this.#rooms.get(id);
    if (room?.storeOnHello) return undefined;
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
    const row = this.#deps.store.getScene(id);
    if (!row) return undefined;
    // Kept by the store as events are written: describing never reads the log (it read and
    // folded every event since the stored snapshot: 750–835 ms for a 30k-event scene).
    const settings = this.#deps.store.settingsInForce(id) ?? row.snapshot.settings;
    const lastSeq = this.#deps.store.lastEvent(id)?.seq ?? 0;
    return storedSceneInfo(id, row, row.lastTick, lastSeq, settings, this.#deps.clock.wallMs());
  }

  /**
   * One scheduler pass over every room; every PERSIST_EVERY_MS it writes all rooms' progress in
   * one transaction, and it unloads rooms empty for longer than the idle time.
   */
  pass(nowMs: number): void {
    if (nowMs - this.#lastPersistMs >= PERSIST_EVERY_MS) {
      this.#lastPersistMs = nowMs;
      try {
        this.#deps.store.transaction(() => {
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
      // A scene nobody said hello in was never stored: it goes as soon as it is empty.
      const idleMs = room.storeOnHello ? 0 : this.#idleMs;
      if (room.emptySinceMs !== null && nowMs - room.emptySinceMs >= idleMs) {
        this.#unload(id, room);
      }
    }
    this.#gate.sweep(nowMs);
  }

  #unload(id: string, room: Room): void {
    try {
      room.persist();
    } catch (e) {
      // Storage faults are logged by the store when they start (not once per scene).
      if (!(e instanceof StorageUnavailableError)) {
        this.#deps.log(
          `error: scene ${id} could not be persisted at unload: ${(e as Error).stack ?? e}`,
        );
      }
    }
    this.#rooms.delete(id);
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
}
