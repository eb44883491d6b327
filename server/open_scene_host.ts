/**
 * Where scenes live, chosen once at start: with cluster options (NATS_URL set) in NATS JetStream,
 * this node one of many edges and owners (`server/cluster/`); without, in the local SQLite store
 * under DATA_DIR (`server/local/`). Everything else talks to the {@link SceneHost} it returns.
 */
import type { ServerConfig } from "./config.ts";
import type { ClusterOptions } from "./cluster/cluster_config.ts";
import { ClusterScenes } from "./cluster/cluster_scenes.ts";
import { NatsLink } from "./cluster/nats_link.ts";
import { Rooms } from "./local/rooms.ts";
import { KeptRooms } from "./local/kept_rooms.ts";
import { SceneStore } from "./local/store.ts";
import { TrackFiles } from "./local/track_files.ts";
import { TrackObjects } from "./cluster/track_objects.ts";
import type { Metrics } from "./scene/metrics.ts";
import type { ServerClock } from "./scene/clock.ts";
import type { HashArbiter } from "./scene/hash_arbiter.ts";
import type { SceneHost } from "./scene/scene_host.ts";

/** How often the database's write-ahead log is checkpointed (on a worker thread). */
const CHECKPOINT_EVERY_MS = 1000;

/** What both homes share with the rest of the server. */
export interface HostDeps {
  config: ServerConfig;
  metrics: Metrics;
  clock: ServerClock;
  /** Computes true state hashes (on a worker) when clients' checkpoint hashes disagree. */
  arbiter: HashArbiter;
}

/**
 * Opens the scenes' home: connects to NATS (creating the stream and buckets when missing), or
 * opens the store (refusing a damaged database) and starts its checkpointer.
 */
export async function openSceneHost(
  deps: HostDeps,
  cluster: ClusterOptions | undefined,
): Promise<SceneHost> {
  const { config, metrics, clock, arbiter } = deps;
  const common = {
    metrics,
    clock,
    skyCap: config.skyCap,
    maxPeers: config.maxPeers,
    desyncTimeoutMs: config.desyncTimeoutMs,
    presenceLimit: config.presenceLimit,
    log: config.log,
    arbiter,
    desyncLimits: config.desyncLimits,
  };
  const limits = { maxScenes: config.maxScenes, newScenes: config.newScenes };
  if (cluster) {
    const link = await NatsLink.open(cluster, config.log);
    return new ClusterScenes({
      ...common,
      link,
      tracks: await TrackObjects.open(link, {
        maxBytes: config.tracksMaxBytes,
        replicas: cluster.replicas,
      }, config.log),
      options: cluster,
      idleMs: config.roomIdleMs,
      limits,
      retention: { policy: config.retention, passMs: config.retentionPassMs },
    });
  }
  const store = new SceneStore(config.dataDir, {
    maxBytes: config.dbMaxBytes,
    log: config.log,
    retentionHours: config.retention.hours,
    now: config.now,
  });
  store.startCheckpointer(CHECKPOINT_EVERY_MS, config.log);
  const rooms = new Rooms({ ...common, store }, config.roomIdleMs, limits);
  // Logs kept by the retention policy; log API pages read on a worker.
  return new KeptRooms(rooms, {
    dataDir: config.dataDir,
    policy: config.retention,
    passMs: config.retentionPassMs,
    now: config.now,
    log: config.log,
    freed: (scene, bytes) => store.freed(scene, bytes),
    tracks: new TrackFiles(config.dataDir, { maxBytes: config.tracksMaxBytes }),
  });
}
