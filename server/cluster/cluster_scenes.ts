/**
 * A cluster node's {@link SceneHost}: an edge for each scene with local clients, and an owner for
 * each scene whose lease this node holds. Every scene with viewers gets an owner: an edge whose
 * scene has gone quiet (no heartbeat) tries, with jitter, to take the lease; a scene nobody here
 * watches any more is released.
 */
import type { SceneEvent } from "../../shared/types.ts";
import type { ServerClock } from "../scene/clock.ts";
import { keyMatches } from "../scene/host_keys.ts";
import type { TrackStore } from "../scene/track_store.ts";
import type { DesyncLimits } from "../scene/desync.ts";
import type { HashArbiter } from "../scene/hash_arbiter.ts";
import { StorageUnavailableError } from "../scene/errors.ts";
import type { Metrics } from "../scene/metrics.ts";
import type { PeerSocket } from "../scene/peer.ts";
import { randomSceneId, setPeerIdSuffix } from "../scene/names.ts";
import {
  type HostHealth,
  type SceneHost,
  type SceneInfo,
  storedSceneInfo,
} from "../scene/scene_host.ts";
import type { SceneLimits, SceneRefusal } from "../scene/scene_limits.ts";
import { connectionsIn, SceneGate, UNLIMITED_SCENES } from "../scene/scene_limits.ts";
import { advanceSnapshot } from "../../shared/settings.ts";
import type { ClusterOptions } from "./cluster_config.ts";
import { ClusterMetrics } from "./cluster_metrics.ts";
import type { NatsLink } from "./nats_link.ts";
import { NameClaims } from "./name_claims.ts";
import { NodeLiveness } from "./node_liveness.ts";
import { PAUSE_AFTER_MS, SceneEdge } from "./scene_edge.ts";
import { SceneOwner } from "./scene_owner.ts";
import { RetentionSweep } from "./retention_sweep.ts";
import { SceneGoneError } from "./jetstream_log.ts";
import { CLOSE_TRY_LATER } from "../ws/ws_socket.ts";
import { clusterLogPage } from "./cluster_log_pages.ts";
import type { PageRequest } from "../local/log_pages.ts";
import type { RetentionPolicy } from "../scene/retention_policy.ts";
import type { StorageStats } from "../local/retention.ts";
import { LOG_STREAM } from "./subjects.ts";
import type { LogPageResult } from "../http/log_api.ts";
import { getRecord } from "./scene_records.ts";
import { isEvent, lastEntry, LogRangeGoneError, readEvents, readRange } from "./stream_log.ts";

/** What the node needs. */
export interface ClusterScenesDeps {
  link: NatsLink;
  options: ClusterOptions;
  clock: ServerClock;
  metrics: Metrics;
  skyCap: number;
  maxPeers: number;
  presenceLimit: number;
  desyncTimeoutMs: number;
  /** Computes true hashes for owned scenes' desync disputes. */
  arbiter?: HashArbiter;
  /** Overrides of the desync arbitration limits (tests). */
  desyncLimits?: Partial<DesyncLimits>;
  /** A scene with no local clients for this long is closed here (and released if owned). */
  idleMs: number;
  /** Scenes relayed on this node at most, and each address's budget for new scenes. */
  limits?: SceneLimits;
  /**
   * The retention policy owners apply to their scenes' logs, and their pass period (ms); the
   * node also sweeps scenes nobody owns at that period (`retention_sweep.ts`), at most
   * `scenesPerSweep` of them a sweep.
   */
  retention?: { policy: RetentionPolicy; passMs: number; scenesPerSweep?: number };
  log: (msg: string) => void;
  /** The scenes' music tracks (the object store). */
  tracks: TrackStore;
}

/** How often the stream's figures are read for `/healthz` and `/metrics`, ms. */
const STORAGE_READ_MS = 5000;

/** Reads of a stored scene's description when its log is purged under the read. */
const DESCRIBE_ATTEMPTS = 3;

/** All scenes this node serves or owns. */
export class ClusterScenes implements SceneHost {
  readonly clusterMetrics: ClusterMetrics;
  readonly #deps: ClusterScenesDeps;
  readonly #edges = new Map<string, SceneEdge>();
  readonly #owners = new Map<string, SceneOwner>();
  readonly #taking = new Set<string>();
  readonly #nextAttemptMs = new Map<string, number>();
  readonly #gate: SceneGate;
  readonly #sweep: RetentionSweep | undefined;
  /** Names this node's people hold scene-wide. */
  readonly #names: NameClaims;
  /** This process's liveness key, by which other nodes judge the names it holds. */
  readonly #liveness: NodeLiveness;
  #storage: StorageStats | undefined;
  #storageReadMs = -Infinity;
  #readingStorage = false;

  readonly tracks: TrackStore;

  constructor(deps: ClusterScenesDeps) {
    this.#deps = deps;
    this.tracks = deps.tracks;
    this.#gate = new SceneGate(deps.limits ?? UNLIMITED_SCENES);
    this.clusterMetrics = new ClusterMetrics(deps.options.nodeId);
    this.#liveness = new NodeLiveness(
      deps.link.leases,
      deps.options.nodeId,
      deps.options.leaseTtlMs,
      () => deps.clock.monotonicMs(),
    );
    // Alive before the first hello claims a name (else another node could take it over).
    this.#liveness.pass(0);
    this.#names = new NameClaims(deps.link.names, this.#liveness, deps.log);
    if (deps.retention) {
      this.#sweep = new RetentionSweep({
        link: deps.link,
        nodeId: deps.options.nodeId,
        clock: deps.clock,
        leaseTtlMs: deps.options.leaseTtlMs,
        ...deps.retention,
        metrics: this.clusterMetrics,
        log: deps.log,
      });
    }
    setPeerIdSuffix(`.${nodeTag(deps.options.nodeId)}`);
  }

  /** Scenes relayed here. */
  get size(): number {
    return this.#edges.size;
  }

  /** Scenes owned here. */
  get owned(): number {
    return this.#owners.size;
  }

  /** Connections across scenes. */
  connections(): number {
    return connectionsIn(this.#edges);
  }

  /**
   * Healthy while NATS is reachable: a node cut off from it serves its sockets a paused sky, so
   * it is taken out of rotation. With the node id, NATS state and scene counts.
   */
  health(): HostHealth {
    const nats = this.#deps.link.state;
    return {
      ok: nats === "connected",
      ...(nats === "connected" ? {} : { reason: "nats_unreachable" }),
      scenes: this.size,
      connections: this.connections(),
      cluster: { node: this.#deps.options.nodeId, nats, owned: this.owned, relayed: this.size },
    };
  }

  /** The cluster families of `/metrics` (the stored scenes are not counted: that is in NATS). */
  metrics(): { text: string } {
    return { text: this.#clusterMetrics() };
  }

  /**
   * The log stream's figures (`/healthz` `stored`, `/metrics`), read every few seconds: entries
   * (events, ownership markers, keyframes) and bytes of every scene, entries this node's owners
   * and sweeps purged, scenes its sweeps removed; undefined before the first read.
   */
  storage(): StorageStats | undefined {
    return this.#storage && {
      ...this.#storage,
      pruned: this.clusterMetrics.pruned,
      scenesRemoved: this.clusterMetrics.scenesRemoved,
    };
  }

  #readStorage(nowMs: number): void {
    if (this.#readingStorage || nowMs - this.#storageReadMs < STORAGE_READ_MS) return;
    if (this.#deps.link.state !== "connected") return;
    this.#readingStorage = true;
    this.#storageReadMs = nowMs;
    this.#deps.link.jsm.streams.info(LOG_STREAM).then((info) => {
      this.#storage = {
        events: info.state.messages,
        bytes: info.state.bytes,
        fileBytes: info.state.bytes,
        pruned: this.clusterMetrics.pruned,
        scenesRemoved: 0,
      };
    }, () => {}).finally(() => this.#readingStorage = false);
  }

  /** Gives this node's names back and closes the NATS connection (after `closeAll`). */
  async close(): Promise<void> {
    if (this.#deps.link.state === "connected") {
      await this.#names.close();
      await this.#liveness.close();
    }
    await this.#deps.link.close();
  }

  #clusterMetrics(): string {
    return this.clusterMetrics.render({
      owned: this.owned,
      relayed: this.size,
      nats: this.#deps.link.state,
      disconnects: this.#deps.link.disconnects,
      stamped: this.#deps.metrics.eventsClient + this.#deps.metrics.eventsShow,
    });
  }

  /** A friendly id no scene in the cluster has (read from NATS; nothing is stored). */
  freshId(): Promise<string> {
    return this.#fromNats("choosing a scene id", async () => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const id = randomSceneId();
        if (!this.#edges.has(id) && !await getRecord(this.#deps.link, id)) return id;
      }
      throw new Error("could not find a free scene id after 20 attempts");
    });
  }

  /**
   * Whether `address` may open scene `id` on this node now: null when it may, else why not. As
   * on a single node: a scene not relayed here needs room under `maxScenes` (an empty one is
   * closed to make it), and one that does not exist in the cluster yet also needs a token from
   * the address's new-scene budget, taken when `take`.
   */
  async admission(id: string, address: string, take: boolean): Promise<SceneRefusal | null> {
    if (this.#edges.has(id)) return null;
    const full = this.#gate.makeRoom(this.#edges, address, take, (id, edge, busy) => {
      if (!busy) return this.#closeEdge(id, edge, "no viewers on this node");
      this.#deps.metrics.scenesUnloadedForNetwork++;
      this.#deps.log(
        `cluster: scene ${id} closed here: the node is full and its network holds the most`,
      );
      this.#closeEdge(
        id,
        edge,
        "the node is full: its network holds the most scenes",
        busy.closeCode,
      );
    });
    if (full) return full;
    // Without NATS nothing can be stored: the socket opens, and its edge tells it the sky is
    // paused and to try again (what a client of a known scene hears too).
    if (this.#deps.link.state !== "connected") return null;
    let stored: unknown;
    try {
      stored = await getRecord(this.#deps.link, id);
    } catch {
      return null;
    }
    if (stored) return null;
    return this.#gate.newScene(address, this.#deps.clock.monotonicMs(), take, id);
  }

  #closeEdge(id: string, edge: SceneEdge, reason: string, code = 1001): void {
    this.#edges.delete(id);
    this.#owners.get(id)?.stepDown(reason);
    this.#owners.delete(id);
    edge.close(code, code === 1001 ? "idle" : reason).catch(() => {});
  }

  /** The edge for `id`, opened when needed (a new scene is stored by its first hello). */
  open(id: string): SceneEdge {
    let edge = this.#edges.get(id);
    if (edge?.failed) {
      this.#edges.delete(id);
      edge = undefined;
    }
    if (!edge) {
      edge = new SceneEdge(id, {
        link: this.#deps.link,
        nodeId: this.#deps.options.nodeId,
        clock: this.#deps.clock,
        skyCap: this.#deps.skyCap,
        maxPeers: this.#deps.maxPeers,
        presenceLimit: this.#deps.presenceLimit,
        names: this.#names,
        metrics: this.#deps.metrics,
        cluster: this.clusterMetrics,
        log: this.#deps.log,
      });
      this.#edges.set(id, edge);
    }
    return edge;
  }

  /**
   * Whether `key` is a host key of scene `id`, by the rules its edge here folds from the log (an
   * edge is opened when there is none: with nobody in it, it closes after the idle time);
   * undefined when the cluster stores no such scene.
   */
  isHostKey(id: string, key: string): Promise<boolean | undefined> {
    return this.#fromNats("checking a host key", async () => {
      if (!this.#edges.has(id) && !await getRecord(this.#deps.link, id)) return undefined;
      const edge = this.open(id);
      await edge.ready;
      return keyMatches(edge.rules.keys ?? [], key);
    });
  }

  /** Scene facts for the API, from the local edge or from NATS. */
  async describe(id: string): Promise<SceneInfo | undefined> {
    const edge = this.#edges.get(id);
    if (edge && edge.seed !== 0) {
      return {
        id,
        seed: edge.seed,
        epoch: edge.epoch,
        tick: edge.horizon,
        lastSeq: edge.lastSeq,
        settings: edge.settings(),
        people: edge.welcomedPeers().map((p) => p.info()),
      };
    }
    return await this.#fromNats(`reading scene ${id}`, () => this.#describeStored(id));
  }

  async #describeStored(id: string): Promise<SceneInfo | undefined> {
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#describeStoredOnce(id);
      } catch (e) {
        // Purged while read: the scene was removed (then its record is gone too), or a retention
        // prune moved its record on. Read the record again.
        if (!(e instanceof LogRangeGoneError) || attempt >= DESCRIBE_ATTEMPTS) throw e;
      }
    }
  }

  async #describeStoredOnce(id: string): Promise<SceneInfo | undefined> {
    const versioned = await getRecord(this.#deps.link, id);
    if (!versioned) return undefined;
    const { record } = versioned;
    const last = await lastEntry(this.#deps.link, id);
    // Settings: the stored snapshot plus the events after it (not the whole log).
    const since = last
      ? await readRange(this.#deps.link, id, record.snapshotStreamSeq + 1, last)
      : [];
    const settings = advanceSnapshot(
      record.snapshot,
      since.map((s) => s.entry).filter(isEvent),
      Infinity,
    ).settings;
    const lastSeq = last ? last.entry.seq : 0;
    const wallMs = this.#deps.clock.wallMs();
    return storedSceneInfo(id, record, record.reserved, lastSeq, settings, wallMs);
  }

  /** Up to `limit` stored events with seq ≥ `from`, read from the stream. */
  readLog(id: string, from: number, limit: number): Promise<SceneEvent[]> {
    return this.#fromNats(
      `reading scene ${id}'s log`,
      () => readEvents(this.#deps.link, id, from, limit),
    );
  }

  /** One page of the log API, by direct gets from the stream (`cluster_log_pages.ts`). */
  readLogPage(request: PageRequest): Promise<LogPageResult> {
    return this.#fromNats(
      `reading scene ${request.scene}'s log`,
      () => clusterLogPage(this.#deps.link, request),
    );
  }

  /**
   * Runs a NATS read or write for the HTTP API. NATS unreachable (or failing, as while it
   * recovers from an outage) is a `StorageUnavailableError`, answered 503 `storage_unavailable`,
   * not a 500: scenes and logs live in NATS, and the request can simply be tried again.
   */
  async #fromNats<T>(what: string, call: () => Promise<T>): Promise<T> {
    const state = this.#deps.link.state;
    if (state !== "connected") {
      throw new StorageUnavailableError(
        `scene storage (NATS) is unreachable (${state}) while ${what}; try again in a moment`,
      );
    }
    try {
      return await call();
    } catch (e) {
      throw new StorageUnavailableError(
        `scene storage (NATS) failed while ${what}: ${(e as Error).message}; ` +
          "try again in a moment",
        { cause: e },
      );
    }
  }

  /** One scheduler pass: owners first (they beat), then edges (pause state, takeovers, idling). */
  pass(nowMs: number): void {
    this.#gate.sweep(nowMs);
    this.#readStorage(nowMs);
    this.#sweep?.pass(nowMs);
    if (this.#deps.link.state === "connected") {
      this.#liveness.pass(nowMs);
      this.#names.pass(nowMs);
    }
    for (const [id, owner] of this.#owners) {
      if (!owner.active) {
        this.#owners.delete(id);
        continue;
      }
      try {
        owner.pass(nowMs);
      } catch (e) {
        // One scene's failure must not stop the others (nor escape the scheduler's timer).
        this.#deps.log(`error: scene ${id} owner pass: ${(e as Error).stack ?? e}`);
      }
    }
    for (const [id, edge] of this.#edges) {
      try {
        edge.pass(nowMs);
      } catch (e) {
        this.#deps.log(`error: scene ${id} edge pass: ${(e as Error).stack ?? e}`);
      }
      if (edge.emptySinceMs !== null && nowMs - edge.emptySinceMs >= this.#deps.idleMs) {
        this.#closeEdge(id, edge, "no viewers on this node");
        continue;
      }
      if (edge.peers.size > 0 && !this.#owners.has(id)) this.#maybeTake(id, edge, nowMs);
    }
  }

  /**
   * Steps down from every scene (releasing the leases, so other nodes take over at once), sends
   * every local connection `code`, and returns their sockets (shutdown waits for the handshakes).
   */
  closeAll(code: number, reason: string): PeerSocket[] {
    for (const owner of this.#owners.values()) owner.stepDown("node shutting down");
    this.#owners.clear();
    const sockets: PeerSocket[] = [];
    for (const edge of this.#edges.values()) {
      for (const peer of edge.peers.values()) sockets.push(peer.socket);
      edge.close(code, reason).catch(() => {});
    }
    this.#edges.clear();
    return sockets;
  }

  /** Tries to take a quiet scene's lease (jittered, one attempt in flight per scene). */
  #maybeTake(id: string, edge: SceneEdge, nowMs: number): void {
    if (this.#taking.has(id) || this.#deps.link.state !== "connected") return;
    // Heartbeats flowing: someone owns it.
    if (nowMs - edge.lastBeatMs < PAUSE_AFTER_MS / 2 && this.#nextAttemptMs.has(id)) return;
    if (nowMs < (this.#nextAttemptMs.get(id) ?? 0)) return;
    const period = this.#deps.options.leaseTtlMs / 6;
    this.#nextAttemptMs.set(id, nowMs + period * (0.75 + Math.random() * 0.5));
    this.#taking.add(id);
    // (An edge closed meanwhile, maybe before its scene was ever stored, takes nothing.)
    edge.ready.then(() =>
      this.#edges.get(id) !== edge ? null : SceneOwner.take(
        {
          link: this.#deps.link,
          nodeId: this.#deps.options.nodeId,
          clock: this.#deps.clock,
          skyCap: this.#deps.skyCap,
          leaseTtlMs: this.#deps.options.leaseTtlMs,
          desyncTimeoutMs: this.#deps.desyncTimeoutMs,
          metrics: this.clusterMetrics,
          stats: this.#deps.metrics,
          log: this.#deps.log,
          arbiter: this.#deps.arbiter,
          desyncLimits: this.#deps.desyncLimits,
          desyncStats: this.#deps.metrics,
          retention: this.#deps.retention,
        },
        id,
        { seed: edge.seed, epoch: edge.epoch },
      )
    ).then((owner) => {
      if (!owner) return;
      const current = this.#edges.get(id);
      if (!current) {
        owner.stepDown("no viewers on this node");
        return;
      }
      this.#owners.set(id, owner);
      // Heartbeats, submits and hash reports between the two go in process, not over NATS.
      current.attachOwner(owner);
    }).catch((e) => {
      this.#deps.log(`cluster: takeover attempt for ${id}: ${(e as Error).message}`);
      // The scene this edge relays was removed by the retention (and maybe created anew) while
      // it opened: its clients reconnect and join the scene the id names now.
      if (e instanceof SceneGoneError && this.#edges.get(id) === edge) {
        this.#edges.delete(id);
        edge.close(CLOSE_TRY_LATER, "scene removed, join again").catch(() => {});
      }
    }).finally(() => this.#taking.delete(id));
  }
}

/** A short tag for peer ids: 5 base-36 characters from the node id and this process. */
function nodeTag(nodeId: string): string {
  let h = 0x811c9dc5;
  for (const ch of `${nodeId}/${Deno.pid}/${Math.random()}`) {
    h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  }
  return (h % 36 ** 5).toString(36).padStart(5, "0");
}
