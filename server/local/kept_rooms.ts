/**
 * The single node's scenes with their logs kept by the retention policy and served to the log
 * API off the server's thread: `Rooms` plus a {@link Retention} (pruning in small slices) and
 * {@link LogPages} (a worker with a read-only connection). It is the {@link SceneHost} the server
 * uses without NATS.
 */
import { join } from "node:path";
import type { SceneEvent } from "../../shared/types.ts";
import type { LogPageResult } from "../http/log_api.ts";
import type { PeerSocket } from "../scene/peer.ts";
import type { HostHealth, SceneHost, SceneInfo } from "../scene/scene_host.ts";
import type { SceneRefusal } from "../scene/scene_limits.ts";
import type { SceneEndpoint } from "../ws/connection.ts";
import { LogPages, type PageRequest } from "./log_pages.ts";
import { Retention, type StorageStats } from "./retention.ts";
import type { RetentionPolicy } from "../scene/retention_policy.ts";
import type { Rooms } from "./rooms.ts";
import type { TrackStore } from "../scene/track_store.ts";

/** Options of {@link KeptRooms}. */
export interface KeptRoomsOptions {
  dataDir: string;
  policy: RetentionPolicy;
  /** How often the retention looks for work, ms. */
  passMs: number;
  /** Wall clock, ms. */
  now: () => number;
  log: (msg: string) => void;
  /** Told what the retention pruned (see `RetentionOptions.freed`). */
  freed?: (scene: string, bytes: number) => void;
  /** The scenes' music tracks (files under `dataDir/tracks`). */
  tracks: TrackStore;
}

/**
 * `Rooms` with retention and off-thread log pages.
 *
 * @example
 * ```ts
 * const host = new KeptRooms(rooms, { dataDir, policy, passMs: 10_000, now: Date.now, log, tracks });
 * const page = await host.readLogPage({ scene: "quiet-pine", start: { tick: 0 }, limit: 100 });
 * ```
 */
export class KeptRooms implements SceneHost {
  readonly #rooms: Rooms;
  readonly #pages: LogPages;
  /** The worker reads each page's scene facts with it (see `SceneHost`). */
  readonly logPagesCarryScene = true;
  readonly #retention: Retention;
  readonly tracks: TrackStore;

  constructor(rooms: Rooms, options: KeptRoomsOptions) {
    this.#rooms = rooms;
    this.tracks = options.tracks;
    const path = join(options.dataDir, "scenes.db");
    this.#retention = new Retention({
      path,
      policy: options.policy,
      now: options.now,
      loaded: (id) => rooms.isLoaded(id),
      log: options.log,
      freed: options.freed,
    });
    this.#retention.start(options.passMs);
    this.#pages = new LogPages(path);
  }

  get size(): number {
    return this.#rooms.size;
  }
  connections(): number {
    return this.#rooms.connections();
  }
  freshId(): string {
    return this.#rooms.freshId();
  }
  admission(id: string, address: string, take: boolean): SceneRefusal | null {
    return this.#rooms.admission(id, address, take);
  }
  open(id: string): SceneEndpoint {
    return this.#rooms.open(id);
  }
  isHostKey(id: string, key: string): Promise<boolean | undefined> {
    return this.#rooms.isHostKey(id, key);
  }
  describe(id: string): SceneInfo | undefined {
    return this.#rooms.describe(id);
  }
  readLog(id: string, from: number, limit: number): SceneEvent[] {
    return this.#rooms.readLog(id, from, limit);
  }
  readLogPage(request: PageRequest): Promise<LogPageResult> {
    return this.#pages.readEncoded(request).catch((e) => {
      this.#rooms.noteReadFailure(e);
      throw e;
    });
  }
  storage(): StorageStats {
    return this.#retention.stats();
  }
  pass(nowMs: number): void {
    this.#rooms.pass(nowMs);
  }
  health(): HostHealth {
    return this.#rooms.health();
  }
  metrics(): { scenesStored?: number; text: string } {
    return this.#rooms.metrics();
  }
  closeAll(code: number, reason: string): PeerSocket[] {
    return this.#rooms.closeAll(code, reason);
  }
  async close(): Promise<void> {
    this.#retention.stop();
    await this.#pages.close();
    await this.#rooms.close();
  }
}
