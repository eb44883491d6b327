/**
 * What the HTTP routes and the server need from wherever scenes live: the single node's `Rooms`
 * (scenes in the local SQLite store) or a cluster node's `ClusterScenes` (scenes in NATS). The
 * routes and the server call only this, so neither knows which mode it runs in.
 */
import { TICK_MS } from "../../shared/constants.ts";
import type { SceneEvent, Settings } from "../../shared/types.ts";
import type { LogPageResult, PageRequest } from "./log_page.ts";
import type { PeerSocket } from "./peer.ts";
import type { SceneEndpoint } from "./scene_endpoint.ts";
import type { SceneRefusal } from "./scene_limits.ts";
import type { TrackStore } from "./track_store.ts";

/** Stored events and bytes, what `/healthz` and `/metrics` show. */
export interface StorageStats {
  /** Events stored, all scenes. */
  events: number;
  /** Bytes of the database in use (its pages minus the free list). */
  bytes: number;
  /** Size of the database file. */
  fileBytes: number;
  /** Events pruned since the start. */
  pruned: number;
  /** Scenes removed since the start. */
  scenesRemoved: number;
}

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

/**
 * A stored scene's facts when no room or edge here holds it: its tick by the wall clock since its
 * epoch, but never before `storedTick` (the furthest its store has it at), and nobody present.
 *
 * @example
 * ```ts
 * import { storedSceneInfo } from "./scene_host.ts";
 * import { DEFAULT_SETTINGS } from "../../shared/settings.ts";
 * storedSceneInfo("quiet-pine", { seed: 7, epoch: 0 }, 40, 3, DEFAULT_SETTINGS, 1_000).tick; // 40
 * ```
 */
export function storedSceneInfo(
  id: string,
  scene: { seed: number; epoch: number },
  storedTick: number,
  lastSeq: number,
  settings: Settings,
  wallMs: number,
): SceneInfo {
  const tick = Math.floor((wallMs - scene.epoch) / TICK_MS);
  const { seed, epoch } = scene;
  return { id, seed, epoch, tick: Math.max(tick, storedTick), lastSeq, settings, people: [] };
}

/** What `/healthz` reports about the scenes' home. */
export interface HostHealth {
  /** False when this node cannot serve scenes (storage damaged or failing, NATS unreachable). */
  ok: boolean;
  /** Why not, when not ok: a code (`storage_unavailable`, `storage_damaged`, ...) ... */
  code?: string;
  /** ... and the human reason. */
  reason?: string;
  /** Scenes open here and connections across them. */
  scenes: number;
  connections: number;
  /** Mode-specific facts (a cluster node's id, NATS state, scenes owned and relayed). */
  cluster?: { node: string; nats: string; owned: number; relayed: number };
}

/** Where scenes live: loaded, opened, described, driven by the scheduler and closed. */
export interface SceneHost {
  /** Scenes open on this node. */
  readonly size: number;
  /** Connections across scenes. */
  connections(): number;
  /** A friendly id no scene has (nothing is stored: a scene exists once someone joins). */
  freshId(): string | Promise<string>;
  /**
   * Whether `address` may open scene `id` now: null when it may, else why not (too many scenes
   * open here, or the address's budget for new scenes spent; the token is taken when `take`).
   */
  admission(
    id: string,
    address: string,
    take: boolean,
  ): SceneRefusal | null | Promise<SceneRefusal | null>;
  /** The scene a new connection joins (a new scene is stored by its first hello). */
  open(id: string): SceneEndpoint;
  /** The scenes' music tracks, stored with them (files under DATA_DIR, or the object store). */
  readonly tracks: TrackStore;
  /**
   * Whether `key` is one of scene `id`'s host keys (compared in constant time, as a `claim` is);
   * undefined when no such scene is stored. It loads the scene when it is not loaded.
   */
  isHostKey(id: string, key: string): Promise<boolean | undefined>;
  /** Scene facts for the API; undefined when no such scene is stored. */
  describe(id: string): SceneInfo | undefined | Promise<SceneInfo | undefined>;
  /** Up to `limit` stored events with seq ≥ `from`. */
  readLog(id: string, from: number, limit: number): SceneEvent[] | Promise<SceneEvent[]>;
  /**
   * One page of the log API (seq or tick start, where the kept log starts, the snapshot at a
   * tick): on the single node read on a worker, in cluster mode by one ordered read of the stream.
   */
  readLogPage(request: PageRequest): Promise<LogPageResult>;
  /**
   * True when `readLogPage` reads the scene's seed and epoch with the page (`scene` in the
   * result): the log API then asks `describe` nothing (the single node's worker does).
   */
  readonly logPagesCarryScene?: boolean;
  /** Stored events and bytes under the retention policy (`/healthz`, `/metrics`), if known. */
  storage?(): StorageStats | undefined;
  /** One scheduler pass over every scene. */
  pass(nowMs: number): void;
  /** Whether this node can serve scenes now. */
  health(): HostHealth;
  /**
   * What `/metrics` adds about the scenes' home: the number of scenes stored (when it is cheap to
   * know) and the mode's own metric families.
   */
  metrics(): { scenesStored?: number; text: string };
  /** Closes every connection with `code`, saves what must be saved; returns the sockets. */
  closeAll(code: number, reason: string): PeerSocket[];
  /** Releases the storage (the database, the NATS connection); after `closeAll`. */
  close(): Promise<void>;
}
