/**
 * A scene's {@link SceneLog} on JetStream, for the node that owns the scene: events go to the
 * scene's subject of the log stream, progress and snapshots to its record in the scenes bucket.
 *
 * It owns everything about writing there. Appends are chained (each names the stream sequence of
 * the one before, which only the previous ack tells), so they complete in order. Each carries a
 * message id (`<ownership token>-<seq>`: {@link appendMsgId}), the same for every retry of one
 * event, so a retry after a failure that hid a success is deduplicated by the stream. A failed
 * publish (a timeout, no responders, a stream leader election after a lost NATS server) is sent
 * again after a short wait, for at most `APPEND_RETRY_FOR_MS` (a leader election's length): a lost
 * server then costs a pause instead of a step-down plus a takeover; meanwhile the owner takes no
 * new submits (`retrying`). A refused one (another node appended since: fenced), a closed
 * connection or a stopped log fails at once, and so does every append after it. Record writes go
 * by revision, one at a time; a stale revision (another owner wrote the record) fails the log.
 *
 * Appends in doubt. An append sent to a stream leader that dies is in doubt until JetStream
 * elects another (4–9 s in nats-server 2.9): it may have been stored. The owner may promise no
 * tick past an event that is not stored, so the sky used to stand still for the election. Now,
 * once appends are in doubt (`journal`: the log's leader is known gone, an append is retried, or
 * one is unanswered for {@link JOURNAL_AFTER_MS}), the events not yet acknowledged are written into
 * the scene's record (`SceneRecord.pending`; the records bucket is led from another server), and
 * from that write on they count as stored: `append` settles, the owner publishes them and its
 * heartbeats go on. Their appends go on being retried under the same message ids; a node taking
 * the scene over appends the record's pending events missing from the log before its marker
 * (`open`), with the same ids, so a copy that did land is not stored twice. Either way every
 * event made durable so ends up in the log, once, at its seq.
 */
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";
import type { ServerClock } from "../scene/clock.ts";
import type { LoadedScene, SceneLog } from "../scene/scene_log.ts";
import type { ClusterMetrics } from "./cluster_metrics.ts";
import type { NatsLink } from "./nats_link.ts";
import { appendKeyframe, type Keyframe, lastKeyframe } from "./keyframes.ts";
import { coveredSeq, followsOn } from "./snapshot_start.ts";
import {
  getRecord,
  revisionOf,
  type SceneRecord,
  StaleRecordError,
  updateRecord,
} from "./scene_records.ts";
import {
  appendEntry,
  FencedError,
  isEvent,
  lastEntry,
  type LogEntry,
  readRange,
} from "./stream_log.ts";

/**
 * Waits before publishing a failed append again; the last delay repeats. Retries stop once the
 * next one would start {@link APPEND_RETRY_FOR_MS} after the first try, or the owner stepped down
 * (fenced, its lease lost).
 */
export const APPEND_RETRY_DELAYS_MS: readonly number[] = [100, 250, 500];

/**
 * How long a failed append is retried: through a stream leader election after a lost NATS server
 * (nats-server 2.9 waits 4-9 s before a follower campaigns; measured 4.7-5.4 s until a replicated
 * stream takes a publish again), so the owner keeps the scene instead of stepping down and
 * handing it over once NATS is back (which took 9-14 s more).
 */
export const APPEND_RETRY_FOR_MS = 20_000;

/**
 * An append the stream has not answered for this long is in doubt even when nothing else says so
 * (a leader that stopped answering without closing its sockets): its events go to the record.
 */
export const JOURNAL_AFTER_MS = 500;

/**
 * The message id (`Nats-Msg-Id`) of the append of event `seq` by the ownership `token`: one event
 * per seq per ownership, so every copy of it (a retry, a successor appending it from the record's
 * pending events) has the same id and the stream stores it once.
 *
 * @example
 * ```ts
 * appendMsgId("3f1c…", 42); // "3f1c…-42"
 * ```
 */
export function appendMsgId(token: string, seq: number): string {
  return `${token}-${seq}`;
}

/** An event appended that the stream has not acknowledged yet. */
interface Unconfirmed {
  event: SceneEvent;
  /** When it was appended (monotonic ms). */
  atMs: number;
  /** Stored in the stream, or in the record's pending events. */
  durable: boolean;
  /** What `append` returned: settles once durable (or failed before). */
  settled: PromiseWithResolvers<void>;
}

/**
 * How long each try of a record write waits for its answer (see `#update`): about the 5 s the
 * bucket's own timeout gave one try, in four.
 */
export const RECORD_TRY_MS: readonly number[] = [750, 750, 1000, 2000];

/** Which incarnation of a scene id: a removed scene created again has a new seed and epoch. */
export interface SceneIdentity {
  seed: number;
  epoch: number;
}

/**
 * The scene's record is gone, or is another scene's under the same id (the retention removed the
 * scene, and a hello created it anew): whoever expected the old one must open the scene again.
 */
export class SceneGoneError extends Error {
  readonly code = "scene_gone";
}

/** What the log needs. */
export interface JetStreamLogDeps {
  link: NatsLink;
  /** Written into the ownership marker. */
  nodeId: string;
  clock: ServerClock;
  leaseTtlMs: number;
  metrics: ClusterMetrics;
  log: (msg: string) => void;
}

/** One owned scene's log and record. */
export class JetStreamSceneLog implements SceneLog {
  readonly scene: string;
  readonly #deps: JetStreamLogDeps;
  /** This ownership's id, in every append's message id. */
  readonly #token = crypto.randomUUID();
  /** Appends run one after another through this chain. */
  #appends: Promise<unknown> = Promise.resolve();
  #retrying = false;
  /** Appended events the stream has not acknowledged, in seq order. */
  #unconfirmed: Unconfirmed[] = [];
  /** Set once appends are in doubt; record writes carry the unconfirmed events until none is. */
  #inDoubt = false;
  /** A record write started by `journal` is under way. */
  #journaling = false;
  /**
   * Called when an append that already counted as stored (written in the record's pending
   * events) fails in the stream after all (fenced, or retried too long): the owner must step
   * down; whoever takes the scene over appends it from the record.
   */
  onDurableFailure: ((error: unknown) => void) | undefined;
  /** Record writes, likewise. */
  #writes: Promise<unknown> = Promise.resolve();
  #lastStreamSeq: number;
  /** Stream sequences of the events not yet covered by the stored snapshot, by seq. */
  readonly #streamSeqs = new Map<number, number>();
  #record: SceneRecord;
  #revision: number;
  #showCursor: number;
  /** Keyframe appends, one after another; the stream sequence of the last one stored. */
  #keys: Promise<unknown> = Promise.resolve();
  #lastKeySeq: number;
  #failure: Error | undefined;
  #stopped = false;

  private constructor(
    scene: string,
    deps: JetStreamLogDeps,
    record: SceneRecord,
    revision: number,
    lastStreamSeq: number,
    lastKeySeq: number,
  ) {
    this.scene = scene;
    this.#lastKeySeq = lastKeySeq;
    this.#deps = deps;
    this.#record = record;
    this.#revision = revision;
    this.#showCursor = record.showCursor;
    this.#lastStreamSeq = lastStreamSeq;
  }

  /**
   * Reads the scene for a new owner — record, last stored entry, the events after the stored
   * snapshot — and appends an ownership marker, which fences the previous owner: its next
   * append names an older last sequence and is refused. Throws `FencedError` when another node
   * appended meanwhile, `SceneGoneError` when the scene has no record or (with `expect`) not the
   * record of the scene the caller relays.
   */
  static async open(
    deps: JetStreamLogDeps,
    scene: string,
    expect?: SceneIdentity,
  ): Promise<{ log: JetStreamSceneLog; loaded: LoadedScene }> {
    const { link } = deps;
    const versioned = await getRecord(link, scene);
    if (!versioned) throw new SceneGoneError(`scene ${scene} has no record (removed)`);
    const { record, revision } = versioned;
    if (expect && (record.seed !== expect.seed || record.epoch !== expect.epoch)) {
      throw new SceneGoneError(`scene ${scene} was removed and created again`);
    }
    // (A purge that overtook the record read leaves a log not following on from its snapshot:
    // see `snapshot_start.ts`. The takeover is tried again later, from the newer record.)
    const pruned = () => new Error(`scene ${scene}: the log was pruned past the record read`);
    // (Null: a record from before `snapshotSeq` whose entry is gone; nothing to check against.)
    let covered = await coveredSeq(link, scene, record);
    const last = await lastEntry(link, scene);
    const stored = last ? await readRange(link, scene, record.snapshotStreamSeq + 1, last) : [];
    const events: SceneEvent[] = [];
    const streamSeqs: [number, number][] = [];
    for (const { entry, streamSeq } of stored) {
      if (covered !== null && !followsOn(covered, entry)) throw pruned();
      if (!isEvent(entry)) continue;
      covered = Math.max(covered ?? 0, entry.seq);
      events.push(entry);
      streamSeqs.push([entry.seq, streamSeq]);
    }
    let lastSeq = last ? last.entry.seq : 0;
    let lastTick = last ? last.entry.tick : 0;
    let lastStreamSeq = last?.streamSeq ?? 0;
    // Events the previous owner made durable in the record while their appends were in doubt
    // (see the module comment): those missing from the log go in first, under their ids.
    const pending = record.pending;
    for (const event of pending?.events ?? []) {
      if (event.seq <= lastSeq) continue;
      if (event.seq !== lastSeq + 1) {
        throw new Error(
          `scene ${scene}: pending seq ${event.seq} does not follow the log's ${lastSeq}`,
        );
      }
      const msgId = appendMsgId(pending!.token, event.seq);
      lastStreamSeq = await appendEntry(link, scene, event, lastStreamSeq, msgId);
      events.push(event);
      streamSeqs.push([event.seq, lastStreamSeq]);
      lastSeq = event.seq;
      lastTick = event.tick;
      deps.log(`cluster: ${scene}: appended pending seq ${event.seq} from the record`);
    }
    const marker: LogEntry = { owner: deps.nodeId, seq: lastSeq, tick: lastTick };
    const markerSeq = await appendEntry(link, scene, marker, lastStreamSeq);
    const keySeq = (await lastKeyframe(link, scene))?.keySeq ?? 0;
    const log = new JetStreamSceneLog(scene, deps, record, revision, markerSeq, keySeq);
    for (const [seq, streamSeq] of streamSeqs) log.#streamSeqs.set(seq, streamSeq);
    return {
      log,
      loaded: {
        seed: record.seed,
        epoch: record.epoch,
        snapshot: record.snapshot,
        events,
        lastSeq,
        lastTick,
        promised: lastTick,
        // Above every horizon a previous owner could have promised, whatever the clocks say
        // (nothing, when none ever reserved one).
        floor: record.reserved > 0 ? record.reserved + 1 : 0,
        showCursor: record.showCursor,
      },
    };
  }

  /** The horizon reserved in the record: no owner promises beyond it. */
  get reserved(): number {
    return this.#record.reserved;
  }

  /** Stops retrying and refuses further writes (the owner stepped down). */
  stop(): void {
    this.#stopped = true;
    this.#failure ??= new Error(`scene ${this.scene}: the log was closed`);
  }

  /**
   * Appends `event` after the ones before it; settles once it is durable: acknowledged by the
   * stream, or written in the record's pending events while in doubt (see the module comment).
   */
  append(event: SceneEvent): Promise<void> {
    const entry: Unconfirmed = {
      event,
      atMs: this.#deps.clock.monotonicMs(),
      durable: false,
      settled: Promise.withResolvers<void>(),
    };
    this.#unconfirmed.push(entry);
    const run = this.#appends.then(async () => {
      if (this.#failure) throw this.#failure;
      try {
        const streamSeq = await this.#publish(event, this.#lastStreamSeq);
        this.#lastStreamSeq = streamSeq;
        this.#streamSeqs.set(event.seq, streamSeq);
      } catch (e) {
        this.#failure ??= e as Error;
        throw e;
      }
    });
    this.#appends = run.catch(() => {});
    run.then(
      () => {
        this.#forget(entry);
        this.#durable(entry);
      },
      async (e) => {
        // A record write under way may carry it: then it is durable, and the log's successor
        // appends it. (Every failed append waits for the same writes: they settle in order.)
        await this.#writes;
        this.#forget(entry);
        if (!entry.durable) entry.settled.reject(e);
        else this.onDurableFailure?.(e);
      },
    );
    return entry.settled.promise;
  }

  /**
   * Called every scheduler pass. When appends are in doubt — the log stream's leader is known
   * gone (`logWritable` false), an append is being retried, or the oldest unacknowledged one was
   * made {@link JOURNAL_AFTER_MS} ago — writes the events not yet acknowledged into the record,
   * after which they count as stored (see the module comment).
   */
  journal(logWritable: boolean): void {
    if (this.#failure || this.#journaling) return;
    const first = this.#unconfirmed[0];
    if (!first || this.#unconfirmed.every((u) => u.durable)) return;
    const waited = this.#deps.clock.monotonicMs() - first.atMs;
    if (logWritable && !this.#retrying && waited < JOURNAL_AFTER_MS) return;
    if (!this.#inDoubt) {
      this.#deps.log(
        `cluster: ${this.scene}: appends from seq ${first.event.seq} in doubt; ` +
          "writing them to the record",
      );
    }
    this.#inDoubt = true;
    this.#journaling = true;
    this.#deps.metrics.appendsJournaled++;
    this.#write((record) => record).catch(() => {}).finally(() => this.#journaling = false);
  }

  /**
   * Events that count as stored (in the record) but the stream has not acknowledged yet: the
   * owner publishes them again now and then for edges that missed them (a reconnect).
   */
  inDoubt(): SceneEvent[] {
    return this.#unconfirmed.filter((u) => u.durable).map((u) => u.event);
  }

  #forget(entry: Unconfirmed): void {
    const i = this.#unconfirmed.indexOf(entry);
    if (i >= 0) this.#unconfirmed.splice(i, 1);
    if (this.#unconfirmed.length === 0) this.#inDoubt = false;
  }

  #durable(entry: Unconfirmed): void {
    if (entry.durable) return;
    entry.durable = true;
    entry.settled.resolve();
  }

  /** Remembered; written with the next record write (a reservation or a snapshot). */
  saveProgress(_promised: number, showCursor: number): void {
    this.#showCursor = showCursor;
  }

  /**
   * Stores `snapshot` in the record with the stream sequence of the last event it covers (read
   * from there on, the log has every event after it). A write NATS fails is skipped (the next
   * one moves further); a stale record fails the log.
   */
  async saveSnapshot(snapshot: WorldSnapshot, coveredSeq: number): Promise<void> {
    // The covered events' acks must be in (they are long stored: the snapshot trails T − W).
    await this.#appends;
    const at = this.#streamSeqs.get(coveredSeq);
    const snapshotStreamSeq = at ?? this.#record.snapshotStreamSeq;
    // (The seq of the event at snapshotStreamSeq: readers check that the log follows on from it.)
    const snapshotSeq = at === undefined ? this.#record.snapshotSeq : coveredSeq;
    const written = await this.#write((record) => ({
      ...record,
      snapshot,
      snapshotStreamSeq,
      snapshotSeq,
    }));
    if (!written) return;
    for (const seq of this.#streamSeqs.keys()) {
      if (seq <= coveredSeq) this.#streamSeqs.delete(seq);
    }
    this.#keyframe({ snapshot, streamSeq: snapshotStreamSeq });
  }

  /**
   * Appends a keyframe after the last one (see `keyframes.ts`). Another writer's keyframe in
   * between (a predecessor's late one): read the last again and append only when ours is newer.
   * A failure costs one index entry (the next snapshot writes another), never the log.
   */
  #keyframe(keyframe: Keyframe): void {
    const { link, log } = this.#deps;
    this.#keys = this.#keys.then(async () => {
      if (this.#stopped) return;
      try {
        let at = await appendKeyframe(link, this.scene, keyframe, this.#lastKeySeq);
        if (at === null) {
          const last = await lastKeyframe(link, this.scene);
          if (last && last.keyframe.snapshot.tick >= keyframe.snapshot.tick) {
            this.#lastKeySeq = last.keySeq;
            return;
          }
          at = await appendKeyframe(link, this.scene, keyframe, last?.keySeq ?? 0);
        }
        if (at !== null) this.#lastKeySeq = at;
      } catch (e) {
        log(
          `cluster: ${this.scene}: keyframe at tick ${keyframe.snapshot.tick} not stored: ${
            (e as Error).message
          }`,
        );
      }
    });
  }

  /**
   * Reserves the horizon up to `tick` in the record (with the show cursor); true once stored.
   * False when NATS failed (try again later); rejects when the record was stale.
   */
  reserve(tick: number): Promise<boolean> {
    return this.#write((record) => ({ ...record, reserved: Math.max(record.reserved, tick) }));
  }

  /** Writes `change(record)` with the show cursor by revision, after the writes before it. */
  #write(change: (record: SceneRecord) => SceneRecord): Promise<boolean> {
    const run = this.#writes.then(async () => {
      if (this.#failure) throw this.#failure;
      const next: SceneRecord = { ...change(this.#record), showCursor: this.#showCursor };
      // While appends are in doubt every write carries the events not yet acknowledged; once
      // none is, the next write drops them (a successor skips those already in the log anyway).
      const carried = this.#inDoubt ? [...this.#unconfirmed] : [];
      delete next.pending;
      if (carried.length > 0) {
        next.pending = { token: this.#token, events: carried.map((u) => u.event) };
      }
      const revision = await this.#update(next);
      if (revision === null) return false;
      this.#revision = revision;
      this.#record = next;
      for (const entry of carried) this.#durable(entry);
      return true;
    });
    this.#writes = run.catch(() => {});
    return run;
  }

  /**
   * Writes `next` at the current revision: its new revision, or null when NATS did not answer
   * (the next write moves further). Each try waits {@link RECORD_TRY_MS} at most, then sends it
   * again: a write sent into a server that dies is lost with its socket, and waiting out the
   * bucket's 5 s timeout held the horizon (and the events in doubt) that long. A try refused as
   * stale after one unanswered is ours when the stored record is `next` (it landed); otherwise
   * another owner wrote the record: the log fails.
   */
  async #update(next: SceneRecord): Promise<number | null> {
    const { link } = this.#deps;
    for (let attempt = 0;; attempt++) {
      try {
        return await updateRecord(link, this.scene, next, this.#revision, RECORD_TRY_MS[attempt]);
      } catch (e) {
        if (e instanceof StaleRecordError) {
          const landed = attempt > 0
            ? await revisionOf(link, this.scene, next).catch(() => null)
            : null;
          if (landed !== null) return landed;
          this.#failure ??= e;
          throw e;
        }
        if (attempt + 1 >= RECORD_TRY_MS.length || this.#stopped) return null;
      }
    }
  }

  /** Publishes one entry until the stream acknowledges it (see the module comment). */
  async #publish(event: SceneEvent, expectLast: number): Promise<number> {
    const { link, clock, metrics } = this.#deps;
    const msgId = appendMsgId(this.#token, event.seq);
    const startMs = clock.monotonicMs();
    for (let attempt = 0;; attempt++) {
      try {
        const seq = await appendEntry(link, this.scene, event, expectLast, msgId);
        this.#retrying = false;
        return seq;
      } catch (e) {
        const delayMs =
          APPEND_RETRY_DELAYS_MS[Math.min(attempt, APPEND_RETRY_DELAYS_MS.length - 1)];
        const late = clock.monotonicMs() - startMs + delayMs >= APPEND_RETRY_FOR_MS;
        if (e instanceof FencedError || this.#stopped || link.nc.isClosed() || late) {
          this.#retrying = false;
          throw e;
        }
        metrics.appendRetries++;
        this.#retrying = true;
        if (attempt === 0) {
          this.#deps.log(
            `cluster: ${this.scene}: append of seq ${event.seq} failed ` +
              `(${(e as Error).message}); retrying`,
          );
        }
        await new Promise((r) => setTimeout(r, delayMs));
        if (this.#stopped) {
          this.#retrying = false;
          throw e;
        }
      }
    }
  }

  /** True while an append is being published again (the log does not take writes right now). */
  get retrying(): boolean {
    return this.#retrying;
  }
}
