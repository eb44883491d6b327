/**
 * The owner of one scene in cluster mode: the only node that stamps seq and tick, runs the show,
 * admits launches against the sky ledger, arbitrates desync disputes (computing the true hash from
 * the window it holds, as the single-node room does) and sends heartbeats.
 *
 * Fencing: every append names the stream sequence it expects to follow, and a node taking over
 * first appends an ownership marker, so a deposed owner's next append is refused and it steps
 * down. Horizon: the owner never promises (by heartbeat or event tick) beyond the horizon it has
 * reserved in the scene record; a new owner's clock starts above that reservation, so it never
 * stamps below anything its predecessor could have promised, whatever the clocks say.
 */
import { TICK_MS, TICK_RATE, WINDOW_TICKS } from "../../shared/constants.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import { advanceSnapshot } from "../../shared/settings.ts";
import { eventCost } from "../../shared/budget.ts";
import { showLaunchBody, showLaunches } from "../../shared/show.ts";
import type { EventBody, SceneEvent, Settings, WorldSnapshot } from "../../shared/types.ts";
import { SceneClock, type ServerClock } from "../scene/clock.ts";
import {
  DEFAULT_DESYNC_LIMITS,
  type DesyncAction,
  DesyncJudge,
  type DesyncLimits,
  type DesyncStats,
} from "../scene/desync.ts";
import type { HashArbiter } from "../scene/hash_arbiter.ts";
import { SkyLedger } from "../scene/ledger.ts";
import { errorMessage as refusal } from "../errors.ts";
import type { ClusterMetrics } from "./cluster_metrics.ts";
import { acquireLease, type Lease, releaseLease, renewLease } from "./lease.ts";
import type { NatsLink } from "./nats_link.ts";
import { getRecord, type SceneRecord, StaleRecordError, updateRecord } from "./scene_records.ts";
import { appendEntry, FencedError, isEvent, lastEntry, readRange } from "./stream_log.ts";
import {
  beatSubject,
  hashSubject,
  presenceSubject,
  resyncSubject,
  submitSubject,
} from "./subjects.ts";
import type { Subscription } from "@nats-io/transport-node";

/** The owner reserves this many ticks ahead of its clock (1 s)… */
export const RESERVE_AHEAD_TICKS = TICK_RATE;
/** …and tops the reservation up when less than this is left. */
const RESERVE_LOW_TICKS = TICK_RATE / 2;
/** A heartbeat is skipped when the last promise is at most this stale (as in the single node). */
const COVERED_TICKS = 1;
/** Show launches scheduled before this many ticks ago at takeover are skipped, not flooded. */
const SHOW_CATCH_UP_TICKS = TICK_RATE;
/**
 * Waits before publishing a failed append again (a timeout, no responders, a stream leader
 * election after a lost NATS server); the last delay repeats. Retries stop once the next one
 * would start past the lease TTL (the owner then steps down, as it would without a renewal).
 * A fenced append ("wrong last sequence") is never retried.
 */
export const APPEND_RETRY_DELAYS_MS: readonly number[] = [100, 250, 500, 1000];
/** The stored snapshot trails T − W by this margin (resumes served from the window beyond it). */
const SNAPSHOT_MARGIN_TICKS = 20 * TICK_RATE;
/** …and moves forward in steps of this many ticks. */
const SNAPSHOT_STEP_TICKS = 10 * TICK_RATE;

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
  /** Computes true hashes for disputed checkpoints; without it a dispute resyncs nobody. */
  arbiter?: HashArbiter;
  /** Overrides of DEFAULT_DESYNC_LIMITS (tests). */
  desyncLimits?: Partial<DesyncLimits>;
  /** Where arbitration counters go (the node's metrics). */
  desyncStats?: DesyncStats;
}

/**
 * A desync verdict on `snowfire.resync.<scene>`: the edges holding `peers` resync them, or close
 * them with 1008 (`disconnect`: wrong again and again).
 */
export interface DesyncVerdict {
  kind: "resync" | "disconnect";
  tick: number;
  peers: string[];
}

/** A submit request from an edge. */
export interface SubmitRequest {
  by: string;
  body: EventBody;
}

/** The owner's answer to a submit: accepted (the event follows on the log) or a refusal. */
export type SubmitReply = { ok: true; seq: number } | ErrorMessage;

interface WindowEntry {
  event: SceneEvent;
  streamSeq: number;
}

const encoder = new TextEncoder();

/** One scene owned by this node. */
export class SceneOwner {
  readonly scene: string;
  readonly #deps: OwnerDeps;
  readonly #lease: Lease;
  readonly #seed: number;
  readonly #clock: SceneClock;
  readonly #ledger: SkyLedger;
  readonly #judge: DesyncJudge;
  readonly #subs: Subscription[] = [];
  /**
   * This ownership's id: an append's msgId is `<token>-<expected last seq>`, the same for every
   * retry of one entry (deduplicated if an earlier try landed) and unlike any other writer's.
   */
  readonly #token = crypto.randomUUID();
  #record: SceneRecord;
  #revision: number;
  #reserved: number;
  #reserving = false;
  #renewing = false;
  #lastRenewMs: number;
  #lastSeq: number;
  #lastStreamSeq: number;
  #promised: number;
  #showCursor: number;
  #settings: Settings;
  #snapshot: WorldSnapshot;
  #window: WindowEntry[];
  /** Appends and heartbeats run one after another through this chain. */
  #chain: Promise<unknown> = Promise.resolve();
  #passQueued = false;
  #stopped = false;
  /** Called once when the owner stops (stepped down or released). */
  onStop: (reason: string) => void = () => {};

  private constructor(
    deps: OwnerDeps,
    lease: Lease,
    init: {
      record: SceneRecord;
      revision: number;
      floor: number;
      lastSeq: number;
      lastTick: number;
      lastStreamSeq: number;
      window: WindowEntry[];
    },
  ) {
    this.scene = lease.scene;
    this.#deps = deps;
    this.#lease = lease;
    this.#record = init.record;
    this.#revision = init.revision;
    this.#seed = init.record.seed;
    this.#clock = new SceneClock(deps.clock, init.record.epoch, init.floor);
    this.#reserved = init.record.reserved;
    this.#lastRenewMs = deps.clock.monotonicMs();
    this.#lastSeq = init.lastSeq;
    this.#lastStreamSeq = init.lastStreamSeq;
    this.#promised = init.lastTick;
    this.#snapshot = init.record.snapshot;
    this.#settings = { ...init.record.snapshot.settings };
    this.#window = init.window;
    this.#ledger = new SkyLedger(deps.skyCap);
    this.#judge = new DesyncJudge(
      { ...DEFAULT_DESYNC_LIMITS, timeoutMs: deps.desyncTimeoutMs, ...deps.desyncLimits },
      (tick) => {
        const window = this.#windowAt(tick);
        if (!window || !deps.arbiter) return undefined;
        return deps.arbiter.hash({ seed: this.#seed, tick, capacity: deps.skyCap, ...window });
      },
      deps.desyncStats,
    );
    const now = this.#clock.tick();
    for (const { event } of init.window) {
      if (event.body.type === "settings") Object.assign(this.#settings, event.body.settings);
      else {
        const cost = eventCost(this.#seed, event);
        this.#ledger.restore(cost.particles, cost.endTick, now);
      }
    }
    // Never below the floor: launches between the old owner's last event and the floor could
    // fall under a horizon the old owner promised.
    this.#showCursor = Math.max(init.record.showCursor, init.floor, now - SHOW_CATCH_UP_TICKS);
  }

  /**
   * Tries to take the scene over: lease, record, last stored entry, the window's events, an
   * ownership marker (fencing the previous owner), a first horizon reservation. Null when
   * another node holds the scene or the log moved under us.
   */
  static async take(deps: OwnerDeps, scene: string): Promise<SceneOwner | null> {
    const lease = await acquireLease(deps.link, scene, deps.nodeId);
    if (!lease) return null;
    try {
      const versioned = await getRecord(deps.link, scene);
      if (!versioned) throw new Error(`scene ${scene} has no record`);
      const { record } = versioned;
      const last = await lastEntry(deps.link, scene);
      const stored = last
        ? await readRange(deps.link, scene, record.snapshotStreamSeq + 1, last)
        : [];
      const window: WindowEntry[] = [];
      for (const { entry, streamSeq } of stored) {
        if (isEvent(entry)) window.push({ event: entry, streamSeq });
      }
      const lastSeq = last ? (isEvent(last.entry) ? last.entry.seq : last.entry.seq) : 0;
      const lastTick = last ? last.entry.tick : 0;
      // Above every horizon the previous owner could have promised, and never below its events.
      const floor = Math.max(record.reserved + 1, lastTick);
      const markerSeq = await appendEntry(
        deps.link,
        scene,
        { owner: deps.nodeId, seq: lastSeq, tick: lastTick },
        last?.streamSeq ?? 0,
      );
      const reserved = floor + RESERVE_AHEAD_TICKS;
      const next = { ...record, reserved };
      const revision = await updateRecord(deps.link, scene, next, versioned.revision);
      const owner = new SceneOwner(deps, lease, {
        record: next,
        revision,
        floor,
        lastSeq,
        lastTick,
        lastStreamSeq: markerSeq,
        window,
      });
      owner.#subscribe();
      deps.metrics.leaseChanges++;
      deps.log(
        `cluster: ${deps.nodeId} owns ${scene} from seq ${lastSeq}, tick floor ${floor}`,
      );
      return owner;
    } catch (e) {
      if (!(e instanceof FencedError || e instanceof StaleRecordError)) {
        deps.log(`cluster: takeover of ${scene} failed: ${(e as Error).message}`);
      }
      await releaseLease(deps.link, lease);
      return null;
    }
  }

  /** False once stepped down. */
  get active(): boolean {
    return !this.#stopped;
  }

  /** Highest seq stamped. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** One scheduler pass: lease renewal, horizon reservation, show, heartbeat, votes. */
  pass(nowMs: number): void {
    if (this.#stopped) return;
    const { leaseTtlMs } = this.#deps;
    if (nowMs - this.#lastRenewMs >= leaseTtlMs / 3 && !this.#renewing) this.#renew(nowMs);
    if (nowMs - this.#lastRenewMs >= leaseTtlMs) {
      this.stepDown("lease not renewed within its TTL");
      return;
    }
    if (this.#clock.tick() + RESERVE_LOW_TICKS > this.#reserved && !this.#reserving) {
      this.#reserve();
    }
    if (!this.#passQueued) {
      this.#passQueued = true;
      this.#enqueue(async () => {
        this.#passQueued = false;
        const now = this.#now();
        await this.#catchUpShow(now);
        if (now - this.#promised > COVERED_TICKS) {
          this.#promised = now;
          const beat = JSON.stringify({ n: now, seq: this.#lastSeq, w: this.#deps.clock.wallMs() });
          this.#deps.link.publish(beatSubject(this.scene), beat);
        }
        this.#maybeSnapshot(now);
      });
    }
    // Peers sit on many nodes: the owner cannot count who could report, so every checkpoint is
    // settled at the timeout (agreement, or the computed truth).
    if (this.#judge.pending) {
      this.#judge.decide(nowMs, () => Infinity, (actions) => this.#act(actions));
    }
  }

  /** Publishes a settled dispute's verdicts for the edges holding the peers. */
  #act(actions: DesyncAction[]): void {
    if (this.#stopped) return;
    const verdicts = new Map<string, DesyncVerdict>();
    for (const action of actions) {
      if (action.kind === "resync") this.#judge.resynced(action.peer);
      else {
        this.#deps.log(
          `scene ${this.scene}: peer ${action.peer} disconnected: ${action.strikes} wrong state ` +
            `hashes (last at tick ${action.tick})`,
        );
      }
      const key = `${action.kind}/${action.tick}`;
      let verdict = verdicts.get(key);
      if (!verdict) {
        verdict = { kind: action.kind, tick: action.tick, peers: [] };
        verdicts.set(key, verdict);
      }
      verdict.peers.push(action.peer);
    }
    for (const verdict of verdicts.values()) {
      this.#deps.link.publish(resyncSubject(this.scene), JSON.stringify(verdict));
    }
  }

  /**
   * What the true hash at `tick` is computed from: the snapshot at T − W and the events in
   * [T − W, T), or undefined when the stored snapshot is already past T − W.
   */
  #windowAt(tick: number): { snapshot: WorldSnapshot; events: SceneEvent[] } | undefined {
    const from = Math.max(0, tick - WINDOW_TICKS);
    if (from < this.#snapshot.tick) return undefined;
    const all = this.#window.map((w) => w.event);
    const snapshot = advanceSnapshot(this.#snapshot, all, from);
    const events = all.filter((event) => event.tick >= from && event.tick < tick);
    return { snapshot, events };
  }

  /** Stops owning: no more stamps or heartbeats; the lease is released for another node. */
  stepDown(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const sub of this.#subs) unsubscribe(sub);
    this.#deps.metrics.leaseChanges++;
    this.#deps.log(`cluster: ${this.#deps.nodeId} steps down from ${this.scene}: ${reason}`);
    releaseLease(this.#deps.link, this.#lease).catch(() => {});
    this.onStop(reason);
  }

  /** Stamps a client's event (after the show launches due) and appends it; or refuses it. */
  submit(request: SubmitRequest): Promise<SubmitReply> {
    return this.#enqueue(async (): Promise<SubmitReply> => {
      const now = this.#now();
      await this.#catchUpShow(now);
      const event: SceneEvent = {
        seq: this.#lastSeq + 1,
        tick: now,
        by: request.by,
        body: request.body,
      };
      if (request.body.type !== "settings") {
        const cost = eventCost(this.#seed, event);
        const admission = this.#ledger.admit(cost.particles, cost.endTick, now);
        if (!admission.ok) {
          if (admission.retryAfterTicks === null) {
            return refusal(
              "sky_full",
              `this ${request.body.type} needs ${cost.particles} particles, more than the sky holds`,
            );
          }
          return {
            ...refusal(
              "sky_full",
              `the sky is full (${this.#ledger.cap} particles); try again shortly`,
            ),
            retryAfterMs: Math.ceil(admission.retryAfterTicks * TICK_MS),
          };
        }
      }
      await this.#append(event);
      this.#deps.metrics.eventsClient++;
      return { ok: true, seq: event.seq };
    }).then(
      (reply) => reply ?? paused(),
      () => paused(),
    );
  }

  /** The tick to stamp: the clock, but never beyond the reserved horizon. */
  #now(): number {
    return Math.min(this.#clock.tick(), this.#reserved);
  }

  /** Runs `step` after every earlier step; a failing step makes the owner step down. */
  #enqueue<T>(step: () => Promise<T>): Promise<T | undefined> {
    const run = this.#chain.then(async () => {
      if (this.#stopped) return undefined;
      try {
        return await step();
      } catch (e) {
        this.stepDown(
          e instanceof FencedError
            ? "fenced: another node wrote the log"
            : `append failed: ${(e as Error).message}`,
        );
        return undefined;
      }
    });
    this.#chain = run;
    return run;
  }

  async #append(event: SceneEvent): Promise<void> {
    const streamSeq = await this.#publish(event, this.#lastStreamSeq);
    this.#lastStreamSeq = streamSeq;
    this.#lastSeq = event.seq;
    if (event.tick > this.#promised) this.#promised = event.tick;
    if (event.body.type === "settings") Object.assign(this.#settings, event.body.settings);
    this.#window.push({ event, streamSeq });
  }

  /**
   * Appends with the same expected sequence and msgId until the stream acknowledges, with short
   * backoff, for at most the lease TTL: a lost NATS server or a stream leader election then costs
   * a pause instead of a step-down plus a takeover. Fencing, a closed connection or a
   * stepped-down owner end it at once.
   */
  async #publish(event: SceneEvent, expectLast: number): Promise<number> {
    const { link, clock, leaseTtlMs, metrics } = this.#deps;
    const msgId = `${this.#token}-${expectLast}`;
    const startMs = clock.monotonicMs();
    for (let attempt = 0;; attempt++) {
      try {
        return await appendEntry(link, this.scene, event, expectLast, msgId);
      } catch (e) {
        const delayMs =
          APPEND_RETRY_DELAYS_MS[Math.min(attempt, APPEND_RETRY_DELAYS_MS.length - 1)];
        const late = clock.monotonicMs() - startMs + delayMs >= leaseTtlMs;
        if (e instanceof FencedError || this.#stopped || link.nc.isClosed() || late) throw e;
        metrics.appendRetries++;
        if (attempt === 0) {
          this.#deps.log(
            `cluster: ${this.scene}: append of seq ${event.seq} failed (${
              (e as Error).message
            }); ` +
              "retrying",
          );
        }
        await new Promise((r) => setTimeout(r, delayMs));
        if (this.#stopped) throw e;
      }
    }
  }

  async #catchUpShow(now: number): Promise<void> {
    if (now < this.#showCursor) return;
    const from = this.#showCursor;
    this.#showCursor = now + 1;
    if (!this.#settings.show) return;
    for (const launch of showLaunches(this.#seed, from, now + 1)) {
      const body: EventBody = showLaunchBody(launch, this.#settings.theme);
      const event: SceneEvent = { seq: this.#lastSeq + 1, tick: launch.tick, by: "show", body };
      const cost = eventCost(this.#seed, event);
      if (!this.#ledger.admit(cost.particles, cost.endTick, launch.tick).ok) continue;
      await this.#append(event);
      this.#deps.metrics.eventsShow++;
    }
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
            msg.respond(encoder.encode(JSON.stringify(reply)));
          } catch {
            // The connection closed; the edge times out and tells its client.
          }
        });
      },
    }));
    this.#subs.push(nc.subscribe(hashSubject(this.scene), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { peer, tick, h } = msg.json<{ peer: string; tick: number; h: string }>();
          if (tick <= this.#promised) {
            this.#judge.report(tick, peer, h, this.#deps.clock.monotonicMs());
          }
        } catch {
          // A malformed report from an edge: ignore it.
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

  #renew(nowMs: number): void {
    this.#renewing = true;
    renewLease(this.#deps.link, this.#lease, this.#deps.nodeId).then(
      () => {
        this.#lastRenewMs = nowMs;
      },
      (e) => {
        // Wrong revision: someone else holds the scene. A network error: keep trying until TTL.
        if (/wrong last sequence|not found/i.test((e as Error).message)) {
          this.stepDown("lease lost");
        }
      },
    ).finally(() => this.#renewing = false);
  }

  #reserve(): void {
    this.#reserving = true;
    const reserved = this.#clock.tick() + RESERVE_AHEAD_TICKS;
    this.#writeRecord({ ...this.#record, reserved, showCursor: this.#showCursor }).then((ok) => {
      if (ok && reserved > this.#reserved) this.#reserved = reserved;
    }).finally(() => this.#reserving = false);
  }

  /** Moves the stored snapshot forward when it lags T − W − margin by a step. */
  #maybeSnapshot(now: number): void {
    const target = now - WINDOW_TICKS - SNAPSHOT_MARGIN_TICKS;
    if (target - this.#snapshot.tick < SNAPSHOT_STEP_TICKS || this.#reserving) return;
    let cut = 0;
    while (cut < this.#window.length && this.#window[cut].event.tick < target) cut++;
    const snapshotStreamSeq = cut > 0
      ? this.#window[cut - 1].streamSeq
      : this.#record.snapshotStreamSeq;
    const snapshot = advanceSnapshot(this.#snapshot, this.#window.map((w) => w.event), target);
    this.#reserving = true;
    this.#writeRecord({
      ...this.#record,
      snapshot,
      snapshotStreamSeq,
      showCursor: this.#showCursor,
    }).then((ok) => {
      if (!ok) return;
      this.#snapshot = snapshot;
      const drop = this.#window.findIndex((w) => w.event.tick >= target);
      this.#window.splice(0, drop < 0 ? this.#window.length : drop);
    }).finally(() => this.#reserving = false);
  }

  /** Writes the record by revision; a stale revision means another owner: step down. */
  async #writeRecord(record: SceneRecord): Promise<boolean> {
    if (this.#stopped) return false;
    try {
      this.#revision = await updateRecord(this.#deps.link, this.scene, record, this.#revision);
      this.#record = record;
      return true;
    } catch (e) {
      if (e instanceof StaleRecordError) this.stepDown("scene record changed under us");
      return false;
    }
  }
}

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
