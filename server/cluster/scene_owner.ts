/**
 * The owner of one scene in cluster mode: the node whose {@link SceneSequencer} stamps seq and
 * tick, runs the show, admits launches against the sky ledger and sends heartbeats, writing
 * through the scene's {@link JetStreamSceneLog} (which fences a deposed owner and retries
 * through a lost NATS server); it also arbitrates desync disputes, computing the true hash from
 * the window the sequencer holds, as the single node's room does. What is the owner's own: the
 * lease, the horizon reservation, and the NATS subscriptions that bring it submits, hash reports
 * and departures.
 *
 * Horizon: the owner never promises (by heartbeat or event tick) beyond the horizon it has
 * reserved in the scene record (the sequencer's clock is capped there); a new owner's clock
 * starts above that reservation, so it never stamps below anything its predecessor could have
 * promised, whatever the clocks say.
 */
import { TICK_RATE } from "../../shared/constants.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import type { ClientBody, HostAction, SceneEvent } from "../../shared/types.ts";
import type { ServerClock } from "../scene/clock.ts";
import {
  DEFAULT_DESYNC_LIMITS,
  type DesyncAction,
  DesyncJudge,
  type DesyncLimits,
  type DesyncStats,
} from "../scene/desync.ts";
import type { HashArbiter } from "../scene/hash_arbiter.ts";
import { SceneSequencer, type SequencerStats } from "../scene/sequencer.ts";
import type { RetentionPolicy } from "../scene/retention_policy.ts";
import { pruneSceneLog } from "./stream_retention.ts";
import { errorMessage as refusal } from "../scene/errors.ts";
import type { ClusterMetrics } from "./cluster_metrics.ts";
import { JetStreamSceneLog, SceneGoneError, type SceneIdentity } from "./jetstream_log.ts";
import { acquireLease, isLeaseLost, type Lease, releaseLease, renewLease } from "./lease.ts";
import type { NatsLink } from "./nats_link.ts";
import { StaleRecordError } from "./scene_records.ts";
import { FencedError } from "./stream_log.ts";
import {
  beatSubject,
  eventSubject,
  hashSubject,
  keySubject,
  presenceSubject,
  resyncSubject,
  submitSubject,
} from "./subjects.ts";
import type { Subscription } from "@nats-io/transport-node";

export { APPEND_RETRY_DELAYS_MS } from "./jetstream_log.ts";

/**
 * The owner reserves this many ticks ahead of its clock (1 s): a successor starts at most this
 * far ahead of the scene's clock (a jump clients see once), while the record is written only
 * about twice a second…
 */
export const RESERVE_AHEAD_TICKS = TICK_RATE;
/** …topping the reservation up when less than this is left (a write's round trip fits in it). */
const RESERVE_LOW_TICKS = TICK_RATE / 2;

/** What an owner needs. */
export interface OwnerDeps {
  link: NatsLink;
  nodeId: string;
  clock: ServerClock;
  skyCap: number;
  leaseTtlMs: number;
  desyncTimeoutMs: number;
  metrics: ClusterMetrics;
  log: (msg: string) => void;
  /** Where stamping counters go (the node's metrics); a private tally without. */
  stats?: SequencerStats;
  /** Computes true hashes for disputed checkpoints; without it a dispute resyncs nobody. */
  arbiter?: HashArbiter;
  /** Overrides of DEFAULT_DESYNC_LIMITS (tests). */
  desyncLimits?: Partial<DesyncLimits>;
  /** Where arbitration counters go (the node's metrics). */
  desyncStats?: DesyncStats;
  /** The retention policy and how often (owner clock ms) a pass looks for work; none: kept. */
  retention?: { policy: RetentionPolicy; passMs: number };
}

/** A submit request from an edge: a client's body to stamp, or a host action to check. */
export interface SubmitRequest {
  by: string;
  body?: ClientBody;
  /** The client's address (its fair share of the sky). */
  addr?: string;
  host?: HostAction;
  /**
   * For a `remove` or `mute`: the hash of the target's browser token, as the forwarding edge knew
   * it; for a submit, the sender's (a muted person stays muted on a new connection).
   */
  person?: string;
  /** For a `grant`: whether the forwarding edge knew the target to be in the scene. */
  present?: boolean;
}

/** The owner's answer to a submit: accepted (the event follows on the log) or a refusal. */
export type SubmitReply = { ok: true; seq: number } | ErrorMessage;

/** A heartbeat: every event with tick < n has seq ≤ seq; `w` is the owner's wall clock, ms. */
export interface Beat {
  n: number;
  seq: number;
  w: number;
}

/**
 * The scene's edge on the owner's own node. It takes the owner's heartbeats in process instead
 * of over NATS (it leaves the beat subject meanwhile: every message the node sends itself costs
 * it a wake-up to read back, 22 a second), until the owner stops.
 */
export interface LocalEdge {
  /** A heartbeat the owner just published for the other nodes. */
  beat(beat: Beat): void;
  /** An event just stored (and published for the other nodes' edges: `OwnerFeed`). */
  event?(event: SceneEvent): void;
  /** The owner stepped down: heartbeats come over NATS again (whoever owns the scene next). */
  ownerStopped(): void;
}

/**
 * What goes on NATS for verdicts and submit answers: who sent them, the node holding the scene's
 * lease. An edge acts only on those naming the holder the leases bucket names (see
 * `SceneEdge`): a node that lost the scene, or a publisher that does not know who owns it, is
 * ignored.
 */
export interface FromOwner {
  owner: string;
}

/**
 * Checkpoint hashes an edge gathered in one scheduler pass for the owner's desync judge, as
 * `[peer id, tick, hash]` (see `SceneEdge`: one message per pass, not one per report).
 */
export interface HashReports {
  r: [string, number, string][];
}

const encoder = new TextEncoder();

/** One scene owned by this node. */
export class SceneOwner {
  readonly scene: string;
  readonly #deps: OwnerDeps;
  readonly #lease: Lease;
  readonly #log: JetStreamSceneLog;
  readonly #sequencer: SceneSequencer;
  readonly #judge: DesyncJudge;
  readonly #subs: Subscription[] = [];
  /** Highest tick reserved in the record: the sequencer's clock stops there. */
  #reserved: number;
  #reserving = false;
  #renewing = false;
  #lastRenewMs: number;
  /** When (monotonic ms) a renewal last failed because NATS could not answer. */
  #natsFailedMs = -Infinity;
  #lastPruneMs: number;
  /** When (owner clock ms) events in doubt were last published again. */
  #republishedMs = -Infinity;
  #pruning = false;
  #stopped = false;
  /** The scene's edge on this node, once attached. */
  #local: LocalEdge | undefined;

  private constructor(
    deps: OwnerDeps,
    lease: Lease,
    log: JetStreamSceneLog,
    loaded: ConstructorParameters<typeof SceneSequencer>[0],
  ) {
    this.scene = lease.scene;
    this.#deps = deps;
    this.#lease = lease;
    this.#log = log;
    this.#reserved = log.reserved;
    this.#lastRenewMs = deps.clock.monotonicMs();
    this.#lastPruneMs = this.#lastRenewMs;
    const { link } = deps;
    const beats = beatSubject(this.scene);
    const events = eventSubject(this.scene);
    this.#sequencer = new SceneSequencer(loaded, {
      log,
      clock: deps.clock,
      stats: deps.stats ?? { eventsClient: 0, eventsShow: 0, showSkippedSkyFull: 0 },
      skyCap: deps.skyCap,
      horizonCap: () => this.#reserved,
      onHeartbeat: (n, seq) => {
        const beat: Beat = { n, seq, w: deps.clock.wallMs() };
        link.publish(beats, JSON.stringify(beat));
        this.#local?.beat(beat);
      },
      // Stored: to the edges at once, not only through their log readers (see `OwnerFeed`).
      onEvent: (event) => {
        link.publish(events, JSON.stringify(event));
        this.#local?.event?.(event);
      },
      onFailure: (e) => this.stepDown(failureReason(e)),
    });
    // An event that counted as stored (in the record) failed in the stream after all: the next
    // owner appends it from the record; this one must stop.
    log.onDurableFailure = (e) => this.stepDown(failureReason(e));
    const sequencer = this.#sequencer;
    this.#judge = new DesyncJudge(
      { ...DEFAULT_DESYNC_LIMITS, timeoutMs: deps.desyncTimeoutMs, ...deps.desyncLimits },
      (tick) => {
        const window = sequencer.windowAt(tick);
        if (!window || !deps.arbiter) return undefined;
        return deps.arbiter.hash({ seed: sequencer.seed, tick, capacity: deps.skyCap, ...window });
      },
      deps.desyncStats,
    );
  }

  /**
   * Tries to take the scene over: the lease, then the log (which reads the scene and fences the
   * previous owner), then a first horizon reservation. Null when another node holds the scene or
   * the log moved under us; throws `SceneGoneError` when the scene's record is not the one
   * `expect` names (the retention removed the scene, maybe created anew since).
   */
  static async take(
    deps: OwnerDeps,
    scene: string,
    expect?: SceneIdentity,
  ): Promise<SceneOwner | null> {
    const lease = await acquireLease(deps.link, scene, deps.nodeId);
    if (!lease) return null;
    let log: JetStreamSceneLog | undefined;
    try {
      const opened = await JetStreamSceneLog.open(deps, scene, expect);
      log = opened.log;
      const floor = Math.max(opened.loaded.floor, opened.loaded.lastTick);
      if (!await log.reserve(floor + RESERVE_AHEAD_TICKS)) {
        throw new Error("the first horizon reservation failed");
      }
      const owner = new SceneOwner(deps, lease, log, opened.loaded);
      owner.#subscribe();
      deps.metrics.leaseChanges++;
      deps.log(
        `cluster: ${deps.nodeId} owns ${scene} from seq ${opened.loaded.lastSeq}, ` +
          `tick floor ${floor}`,
      );
      return owner;
    } catch (e) {
      log?.stop();
      if (!(e instanceof FencedError || e instanceof StaleRecordError)) {
        deps.log(`cluster: takeover of ${scene} failed: ${(e as Error).message}`);
      }
      await releaseLease(deps.link, lease);
      // The caller's view of the scene is gone: it must reopen, not try again.
      if (e instanceof SceneGoneError) throw e;
      return null;
    }
  }

  /** False once stepped down. */
  get active(): boolean {
    return !this.#stopped;
  }

  /** Highest seq stamped. */
  get lastSeq(): number {
    return this.#sequencer.lastSeq;
  }

  /**
   * One scheduler pass: lease renewal, horizon reservation, then the sequencer's (show,
   * heartbeat), progress and snapshot, and settling hash disputes.
   */
  pass(nowMs: number): void {
    if (this.#stopped) return;
    const { leaseTtlMs } = this.#deps;
    if (nowMs - this.#lastRenewMs >= leaseTtlMs / 3 && !this.#renewing) this.#renew(nowMs);
    if (nowMs - this.#lastRenewMs >= leaseTtlMs && !this.#throughOutage(nowMs)) {
      this.stepDown("lease not renewed within its TTL");
      return;
    }
    const sequencer = this.#sequencer;
    if (sequencer.clock.tick() + RESERVE_LOW_TICKS > this.#reserved && !this.#reserving) {
      this.#reserve(sequencer.clock.tick() + RESERVE_AHEAD_TICKS);
    }
    // Appends in doubt go to the record first, so the heartbeats below may pass them.
    this.#log.journal(this.#deps.link.logWritable);
    if (nowMs - this.#republishedMs >= REPUBLISH_MS) this.#republish(nowMs);
    sequencer.pass();
    sequencer.persist();
    const retention = this.#deps.retention;
    if (retention && !this.#pruning && nowMs - this.#lastPruneMs >= retention.passMs) {
      this.#prune(nowMs, retention.policy);
    }
    // Peers sit on many nodes: the owner cannot count who could report, so every checkpoint is
    // settled at the timeout (agreement, or the computed truth).
    if (this.#judge.pending) {
      this.#judge.decide(nowMs, () => Infinity, (actions) => this.#publishVerdicts(actions));
    }
  }

  /**
   * Hands heartbeats to the scene's edge on this node in process from now on (see `LocalEdge`);
   * it hears `ownerStopped` when this owner steps down (at once when it already has).
   */
  attach(edge: LocalEdge): void {
    if (this.#stopped) {
      edge.ownerStopped();
      return;
    }
    this.#local = edge;
  }

  /** Stops owning: no more stamps or heartbeats; the lease is released for another node. */
  stepDown(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#log.stop();
    for (const sub of this.#subs) unsubscribe(sub);
    // The local edge listens to NATS again before the lease is released (the next owner's
    // heartbeats come from there).
    const local = this.#local;
    this.#local = undefined;
    local?.ownerStopped();
    this.#deps.metrics.leaseChanges++;
    this.#deps.log(`cluster: ${this.#deps.nodeId} steps down from ${this.scene}: ${reason}`);
    releaseLease(this.#deps.link, this.#lease).catch(() => {});
  }

  /**
   * Stamps a client's event (after the show launches due) and answers once it is stored; or
   * refuses it (sky full; `paused` when the owner lost the scene meanwhile).
   */
  submit(request: SubmitRequest): Promise<SubmitReply> {
    // While the log takes no writes (an append is being retried, or the stream's leader is known
    // to be gone), nothing new is stamped: it would wait for the election, in doubt, and hold
    // every heartbeat behind it; refused at once, the sky goes on and only launches wait.
    if (this.#stopped || this.#log.retrying || !this.#deps.link.logWritable) {
      return Promise.resolve(paused());
    }
    let outcome;
    try {
      if (request.body !== undefined) {
        outcome = this.#sequencer.submit(request.by, request.body, request.addr, personOf(request));
      } else {
        const hosted = request.host !== undefined
          ? this.#sequencer.host(request.by, request.host, {
            person: personOf(request),
            present: request.present === true,
          })
          : null;
        outcome = hosted?.outcome ?? null;
        if (hosted?.key !== undefined) this.#sendKey(hosted, outcome);
      }
    } catch {
      return Promise.resolve(paused());
    }
    if (outcome === null) return Promise.resolve({ ok: true, seq: this.#sequencer.lastSeq });
    if (!(outcome instanceof Promise)) return Promise.resolve(outcome);
    const seq = this.#sequencer.lastSeq;
    return outcome.then((): SubmitReply => ({ ok: true, seq }), () => paused());
  }

  /**
   * A peer's checkpoint hash, as an edge relayed it (over NATS, or in process from this node's
   * edge), for the desync judge.
   */
  reportHash(peer: string, tick: number, h: string): void {
    // (The edge checked it against what it relayed; the owner knows what it promised.)
    if (!this.#stopped && tick <= this.#sequencer.promised) {
      this.#judge.report(tick, peer, h, this.#deps.clock.monotonicMs());
    }
  }

  /** Publishes a minted key for its peer's edge once the grant is stored. */
  #sendKey(hosted: { key?: string; keyFor?: string }, outcome: unknown): void {
    const note = JSON.stringify({ peer: hosted.keyFor, key: hosted.key });
    const publish = () => {
      if (!this.#stopped) this.#deps.link.publish(keySubject(this.scene), note);
    };
    if (outcome instanceof Promise) outcome.then(publish, () => {});
    else if (outcome === null) publish();
  }

  /** Publishes settled disputes' verdicts; the edges holding the peers carry them out. */
  #publishVerdicts(actions: DesyncAction[]): void {
    if (this.#stopped || actions.length === 0) return;
    const verdict: FromOwner & { actions: DesyncAction[] } = { owner: this.#deps.nodeId, actions };
    this.#deps.link.publish(resyncSubject(this.scene), JSON.stringify(verdict));
  }

  #subscribe(): void {
    const { nc } = this.#deps.link;
    this.#subs.push(nc.subscribe(submitSubject(this.scene), {
      callback: (err, msg) => {
        if (err) return;
        let request: SubmitRequest;
        try {
          request = msg.json<SubmitRequest>();
        } catch {
          return;
        }
        this.submit(request).then((reply) => {
          try {
            const signed: SubmitReply & FromOwner = { ...reply, owner: this.#deps.nodeId };
            msg.respond(encoder.encode(JSON.stringify(signed)));
          } catch {
            // The connection closed; the edge times out and tells its client.
          }
        });
      },
    }));
    this.#subs.push(nc.subscribe(hashSubject(this.scene), {
      callback: (err, msg) => {
        if (err) return;
        let reports: unknown;
        try {
          reports = msg.json<HashReports>().r;
        } catch {
          return; // Not JSON: ignore it.
        }
        if (!Array.isArray(reports)) return;
        for (const report of reports) {
          // A malformed report from an edge is skipped, not the others.
          if (!Array.isArray(report)) continue;
          const [peer, tick, h] = report;
          if (typeof peer === "string" && Number.isInteger(tick) && typeof h === "string") {
            this.reportHash(peer, tick, h);
          }
        }
      },
    }));
    // A peer that left (on any node) is forgotten by the judge, as in the single-node room.
    this.#subs.push(nc.subscribe(presenceSubject(this.scene), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const note = msg.json<{ kind: string; peer?: { id: string } }>();
          if (note.kind === "leave" && typeof note.peer?.id === "string") {
            this.#judge.forget(note.peer.id);
          }
        } catch {
          // Malformed: ignore.
        }
      },
    }));
  }

  /** One retention pass in the background (see `stream_retention.ts`); stamping never waits. */
  #prune(nowMs: number, policy: RetentionPolicy): void {
    this.#pruning = true;
    this.#lastPruneMs = nowMs;
    const { link, metrics, log } = this.#deps;
    pruneSceneLog(link, this.scene, policy, this.#sequencer.clock.tick()).then(
      ({ purged, startTick }) => {
        metrics.pruned += purged;
        if (purged > 0) {
          log(
            `cluster: ${this.scene}: retention purged ${purged} entries, log starts at tick ` +
              `${startTick}`,
          );
        }
      },
      (e) => log(`cluster: ${this.scene}: retention pass failed: ${(e as Error).message}`),
    ).finally(() => this.#pruning = false);
  }

  #renew(nowMs: number): void {
    this.#renewing = true;
    renewLease(this.#deps.link, this.#lease, this.#deps.nodeId).then(
      () => {
        this.#lastRenewMs = nowMs;
      },
      (e) => {
        // Refused: someone else holds the scene. NATS could not answer (a stream leader election
        // after a lost server, a timeout): keep trying, and keep the scene through it (see
        // `#throughOutage`), unless this process stalled meanwhile (its request outlived the
        // timeout by far: SIGSTOP, a long pause), which proves nothing about NATS.
        if (isLeaseLost(e)) this.stepDown(`lease lost (${(e as Error).message})`);
        else if (this.#deps.clock.monotonicMs() - nowMs < RENEW_ANSWER_MS) {
          this.#natsFailedMs = this.#deps.clock.monotonicMs();
        }
      },
    ).finally(() => this.#renewing = false);
  }

  /**
   * True while NATS itself cannot answer renewals (the last one failed for that within a TTL and
   * a request's time, and it is not yet {@link KEEP_THROUGH_OUTAGE_MS} since the last renewal):
   * nobody can take the lease meanwhile either, and stepping down would only add a takeover
   * (9-14 s instead of the election's 5) once NATS is back. Should another node take it after
   * all, this owner's next append is fenced and its next renewal refused: it steps down then.
   */
  #throughOutage(nowMs: number): boolean {
    // A renewal still unanswered while the log's leader is known gone (its server died) waits for
    // NATS too: one sent through the dead server is answered only at its timeout, past the TTL.
    const natsFailing = nowMs - this.#natsFailedMs < this.#deps.leaseTtlMs + RENEW_ANSWER_MS ||
      !this.#deps.link.logWritable;
    return natsFailing && nowMs - this.#lastRenewMs < KEEP_THROUGH_OUTAGE_MS;
  }

  /**
   * Publishes again the events that count as stored but the stream has not acknowledged (see
   * `JetStreamSceneLog.journal`): an edge whose connection was on the lost server missed them on
   * the event subject, and its log reader cannot deliver them before the election ends.
   */
  #republish(nowMs: number): void {
    const events = this.#log.inDoubt();
    if (events.length === 0) return;
    this.#republishedMs = nowMs;
    const subject = eventSubject(this.scene);
    for (const event of events) this.#deps.link.publish(subject, JSON.stringify(event));
  }

  #reserve(tick: number): void {
    this.#reserving = true;
    this.#log.reserve(tick).then(
      (ok) => {
        if (ok && tick > this.#reserved) this.#reserved = tick;
      },
      (e) => this.stepDown(failureReason(e)),
    ).finally(() => this.#reserving = false);
  }
}

/** Why a failed write ends an ownership, for the log. */
function failureReason(e: unknown): string {
  if (e instanceof FencedError) return "fenced: another node wrote the log";
  if (e instanceof StaleRecordError) return "scene record changed under us";
  return `append failed: ${(e as Error).message}`;
}

/** Events in doubt are published again at most this often (`#republish`). */
const REPUBLISH_MS = 250;

/** A renewal answered (or failed) within this long says something about NATS (its timeout + margin). */
const RENEW_ANSWER_MS = 3000;

/** An owner keeps its scene through a NATS outage at most this long past its last renewal. */
const KEEP_THROUGH_OUTAGE_MS = 20_000;

/** The refusal while the scene has no working owner (takeover or NATS outage). */
export function paused(): ErrorMessage {
  return refusal(
    "paused",
    "the sky is paused while the server reconnects; nothing was launched, try again in a moment",
  );
}

/** Unsubscribes, ignoring a connection that is already closed. */
function unsubscribe(sub: Subscription): void {
  try {
    sub.unsubscribe();
  } catch {
    // Closed connection: the subscription is gone anyway.
  }
}

/** A request's person token hash, when it is one. */
function personOf(request: SubmitRequest): string | undefined {
  return typeof request.person === "string" && /^[0-9a-f]{64}$/.test(request.person)
    ? request.person
    : undefined;
}
