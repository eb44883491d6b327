/**
 * The retention of scenes nobody owns, in cluster mode. An owner keeps its own scene's log within
 * the policy (`stream_retention.ts`); a scene without an owner would otherwise keep its log, and
 * its record, until someone opened it again. So every retention pass (`RETENTION_PASS_MS`), one
 * node — whichever holds the sweep lease (`_retention` in the leases bucket, which no scene id can
 * be) — sweeps a bounded batch of scenes (`scenesPerSweep`, 32), going round the scenes bucket:
 *
 * - a scene some edge reads (a consumer on its log subject: the cluster's "loaded") or with a
 *   lease holder is skipped: its owner prunes it, or the edge takes it or closes it soon; so is a
 *   scene younger than the retention (nothing in it is old enough);
 * - otherwise the sweep takes the scene's own lease (as `sweep.<node>`, so not even this node's
 *   edge can take the scene meanwhile), then applies the same rule as the single node
 *   ({@link idlePastRetention}): a scene idle past the retention (its last entry and its
 *   reserved horizon older than `RETAIN_HOURS`) is removed entirely — its log, its keyframes,
 *   then its record; any other scene is pruned like an owned one
 *   ({@link pruneSceneLog});
 * - the scene's lease is released.
 *
 * A sweep looks at up to {@link SWEEP_CONCURRENCY} scenes at once (each a few NATS round trips),
 * and remembers, per scene, until when the scene as last seen (its record revision) needs no
 * look: a scene nobody owns changes only with time, so once pruned it waits for its idle
 * minute (or for the policy's cut to reach its next keyframe) at the cost of one record read a
 * sweep, instead of a whole prune pass (about fifteen round trips) each time. At load 23–30
 * on a 10× clock the sweep had fallen behind twelve scenes at a time this way.
 *
 * The sweep lease only keeps the nodes from doing the same work twice; safety comes from the
 * scene's lease: while the sweep holds it no node can own the scene (so nothing is stamped and the
 * record does not move), and a prune is safe beside any reader anyway (`stream_retention.ts`). A
 * sweeper that dies midway leaves a lease that expires within the TTL and work the next sweep
 * finishes (a removal purges the log before the record, so a half-removed scene is a record with
 * an empty log, which the next sweep removes).
 */
import { TICK_MS } from "../../shared/constants.ts";
import type { ServerClock } from "../scene/clock.ts";
import { ageCutTick, idlePastRetention, type RetentionPolicy } from "../scene/retention_policy.ts";
import type { ClusterMetrics } from "./cluster_metrics.ts";
import { acquireLease, releaseLease } from "./lease.ts";
import type { NatsLink } from "./nats_link.ts";
import { getRecord } from "./scene_records.ts";
import { lastEntry } from "./stream_log.ts";
import { pruneSceneLog } from "./stream_retention.ts";
import { keysSubject, LOG_STREAM, logSubject, SCENE_BUCKET } from "./subjects.ts";

/** The key of the sweep's lease in the leases bucket (scene ids are `[a-z0-9-]`: never this). */
export const SWEEP_LEASE = "_retention";

/** Default number of scenes one sweep looks at. */
export const SCENES_PER_SWEEP = 32;

/** Scenes one sweep looks at at once. */
export const SWEEP_CONCURRENCY = 4;

/** What the sweep needs. */
export interface SweepDeps {
  link: NatsLink;
  nodeId: string;
  /** Wall clock for scene ticks (from each record's epoch). */
  clock: ServerClock;
  policy: RetentionPolicy;
  /** Monotonic ms between sweeps. */
  passMs: number;
  /** The lease TTL: a removal not started within half of it after taking the lease waits. */
  leaseTtlMs: number;
  /** Scenes looked at per sweep (bounded work). Default {@link SCENES_PER_SWEEP}. */
  scenesPerSweep?: number;
  metrics: ClusterMetrics;
  log: (msg: string) => void;
}

/** What one sweep did. */
export interface SweepResult {
  /** False when another node held the sweep lease (nothing was done). */
  swept: boolean;
  /** Scenes looked at. */
  scenes: number;
  /** Scenes skipped: an owner or an edge has them, or they are younger than the retention. */
  owned: number;
  /** Log entries purged from scenes without an owner. */
  purged: number;
  /** Scenes removed entirely. */
  removed: number;
  /** Scenes left alone: unchanged since a sweep found nothing to do in them before a later tick. */
  waiting: number;
}

/** Until when (scene tick) a scene, unchanged since (record revision), needs no look. */
interface Due {
  revision: number;
  tick: number;
}

/**
 * The sweep of scenes without an owner; one per node, driven by the node's scheduler passes.
 *
 * @example
 * ```ts
 * const sweep = new RetentionSweep({
 *   link, nodeId, clock, policy, passMs: 10_000, leaseTtlMs: 3000, metrics, log,
 * });
 * sweep.pass(clock.monotonicMs()); // from the scheduler: sweeps when due, in the background
 * const result = await sweep.sweep(); // or one sweep now (tests)
 * ```
 */
export class RetentionSweep {
  readonly #deps: SweepDeps;
  /** Scene ids still to look at in this round of the scenes bucket. */
  #round: string[] = [];
  #running = false;
  #lastMs = -Infinity;
  /** Per scene seen without an owner: when it next needs a look (forgotten once removed). */
  readonly #due = new Map<string, Due>();

  constructor(deps: SweepDeps) {
    this.#deps = deps;
  }

  /** Starts a sweep when one is due and none runs (errors are logged; the next one retries). */
  pass(nowMs: number): void {
    if (this.#running || nowMs - this.#lastMs < this.#deps.passMs) return;
    if (this.#deps.link.state !== "connected") return;
    this.#lastMs = nowMs;
    this.sweep().catch((e) => {
      this.#deps.log(`cluster: retention sweep failed: ${(e as Error).message}`);
    });
  }

  /** One sweep now, under the sweep lease; `{swept: false}` when another node holds it. */
  async sweep(): Promise<SweepResult> {
    const result: SweepResult = {
      swept: false,
      scenes: 0,
      owned: 0,
      purged: 0,
      removed: 0,
      waiting: 0,
    };
    if (this.#running) return result;
    this.#running = true;
    const { link, nodeId, metrics, clock } = this.#deps;
    const startedMs = clock.monotonicMs();
    try {
      const lease = await acquireLease(link, SWEEP_LEASE, nodeId);
      if (!lease) return result;
      try {
        result.swept = true;
        if (this.#round.length === 0) {
          this.#round = await sceneIds(link);
          // (Scenes gone from the bucket are forgotten.)
          const ids = new Set(this.#round);
          for (const scene of this.#due.keys()) if (!ids.has(scene)) this.#due.delete(scene);
        }
        const batch = this.#round.splice(0, this.#deps.scenesPerSweep ?? SCENES_PER_SWEEP);
        const read = await scenesRead(link);
        const one = async (scene: string) => {
          result.scenes++;
          // Open on some edge: it takes the scene (it has viewers) or closes it soon (it has not).
          const outcome = read.has(scene) ? "open" : await this.#sweepScene(scene);
          if (outcome === "owned" || outcome === "open" || outcome === "young") result.owned++;
          else if (outcome === "waiting") result.waiting++;
          else if (outcome === "removed") result.removed++;
          else if (typeof outcome === "number") result.purged += outcome;
        };
        let next = 0;
        const worker = async () => {
          while (next < batch.length) await one(batch[next++]);
        };
        await Promise.all(Array.from({ length: SWEEP_CONCURRENCY }, worker));
      } finally {
        await releaseLease(link, lease);
      }
      metrics.sweeps++;
      metrics.sweep.record(clock.monotonicMs() - startedMs);
      return result;
    } finally {
      this.#running = false;
    }
  }

  /**
   * One scene: skipped when owned (or unchanged and not due), else removed when idle past the
   * retention, else pruned.
   */
  async #sweepScene(
    scene: string,
  ): Promise<"owned" | "young" | "gone" | "waiting" | "removed" | number> {
    const { link, nodeId, clock, policy, metrics, log } = this.#deps;
    const tickOf = (epoch: number) => Math.floor((clock.wallMs() - epoch) / TICK_MS);
    // A scene younger than the retention has nothing to prune and is not idle: its lease is left
    // alone (a new scene's edge is about to take it).
    const seen = await getRecord(link, scene);
    if (!seen) {
      this.#due.delete(scene);
      return "gone";
    }
    const seenTick = tickOf(seen.record.epoch);
    if (ageCutTick(policy, seenTick) <= 0) return "young";
    // Unchanged since a sweep found nothing to do in it before a later tick.
    const due = this.#due.get(scene);
    if (due && due.revision === seen.revision && seenTick < due.tick) return "waiting";
    const lease = await acquireLease(link, scene, `sweep.${nodeId}`);
    if (!lease) return "owned";
    const leasedMs = clock.monotonicMs();
    try {
      const versioned = await getRecord(link, scene);
      if (!versioned) return "gone";
      const { record, revision } = versioned;
      const nowTick = tickOf(record.epoch);
      const last = await lastEntry(link, scene);
      const activity = Math.max(last?.entry.tick ?? 0, record.reserved);
      if (idlePastRetention(policy, nowTick, activity)) {
        // (Its few purges must end well within the lease; a slow moment leaves it to next time.)
        if (clock.monotonicMs() - leasedMs > this.#deps.leaseTtlMs / 2) return "owned";
        // (A record read from a replica a moment behind may name a scene just removed.)
        if (!await removeScene(link, scene, revision)) return "gone";
        this.#due.delete(scene);
        metrics.scenesRemoved++;
        log(`cluster: scene ${scene} was idle past the retention and is removed`);
        return "removed";
      }
      const { purged, nextCutTick } = await pruneSceneLog(link, scene, policy, nowTick);
      metrics.pruned += purged;
      // Nothing changes in a scene nobody owns but the time: it is idle past the retention at
      // `activity + R + 1`, and the cut reaches its next keyframe at `nextCutTick + R`.
      const retained = nowTick - ageCutTick(policy, nowTick);
      this.#due.set(scene, {
        revision,
        tick: Math.min(activity + retained + 1, nextCutTick + retained),
      });
      return purged;
    } finally {
      await releaseLease(link, lease);
    }
  }
}

/**
 * Removes a scene entirely: its log, its keyframes, then its record up to `revision` (a purge of
 * the record's subject in the bucket's stream, which leaves no delete marker behind: the bucket
 * does not grow with removed scenes; a newer write, were there one, would stay). The caller
 * holds the scene's lease, so no owner writes meanwhile. The record goes last: until then the id
 * stays taken (a hello meanwhile joins the old scene, whose edge notices at its takeover that the
 * record went and sends its clients to join again), and once it is gone a hello creates a new
 * scene on an empty log. Returns false when the record was gone already.
 *
 * @example
 * ```ts
 * const { revision } = (await getRecord(link, "quiet-pine"))!;
 * await removeScene(link, "quiet-pine", revision);
 * ```
 */
export async function removeScene(
  link: NatsLink,
  scene: string,
  revision: number,
): Promise<boolean> {
  await link.jsm.streams.purge(LOG_STREAM, { filter: logSubject(scene) });
  await link.jsm.streams.purge(LOG_STREAM, { filter: keysSubject(scene) });
  const { purged } = await link.jsm.streams.purge(`KV_${SCENE_BUCKET}`, {
    filter: `$KV.${SCENE_BUCKET}.${scene}`,
    seq: revision + 1,
  });
  return purged > 0;
}

/**
 * Every scene id in the scenes bucket, sorted (one round of the sweep): the subjects of the
 * bucket's stream, read by one stream info request.
 */
async function sceneIds(link: NatsLink): Promise<string[]> {
  const prefix = `$KV.${SCENE_BUCKET}.`;
  const info = await link.jsm.streams.info(`KV_${SCENE_BUCKET}`, { subjects_filter: ">" });
  return Object.keys(info.state.subjects ?? {})
    .filter((s) => s.startsWith(prefix))
    .map((s) => s.slice(prefix.length))
    .sort();
}

/**
 * Scenes whose log some edge reads now: a consumer on the log stream filtered on the scene's
 * subject with a pull waiting (every edge reads its scene with one, deleted when the edge
 * closes). One listing per sweep: about one consumer per scene relayed per node.
 */
async function scenesRead(link: NatsLink): Promise<Set<string>> {
  const read = new Set<string>();
  const prefix = logSubject("");
  for await (const info of link.jsm.consumers.list(LOG_STREAM)) {
    // A reader pulls all the time; a consumer left behind (its reader gone before it could
    // delete it; the client library keeps them 5 minutes) has no pull waiting.
    if (info.num_waiting === 0) continue;
    const config = info.config as { filter_subject?: string; filter_subjects?: string[] };
    const subjects = [config.filter_subject, ...(config.filter_subjects ?? [])];
    for (const subject of subjects) {
      if (subject?.startsWith(prefix)) read.add(subject.slice(prefix.length));
    }
  }
  return read;
}
