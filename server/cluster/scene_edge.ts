/**
 * One scene as an edge node serves it: the local clients, served by the same `SceneRelay` as the
 * single node's room (welcomes, resumes, presence, fan-out, hash checks, verdicts), over the
 * scene's log read from the stream (events reach clients only once stored). What is the edge's
 * own: heartbeats from the owner relayed only after every event they cover, clients that saw more
 * than this node relayed, people on other nodes, the paused state, and submits forwarded to the
 * owner by request/reply.
 *
 * Horizon rule: a heartbeat `{n, seq}` says every event with tick < n has seq ≤ seq. The edge
 * relays it only once it has relayed every event up to seq, so no client here ever gets an event
 * below a heartbeat it got, however the two kinds of message race through NATS.
 */
import { TICK_RATE } from "../../shared/constants.ts";
import {
  DraftRelayMessageSchema,
  type ErrorMessage,
  ReactionsMessageSchema,
} from "../../shared/protocol.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { ClientBody, HostAction, Rules, SceneEvent, Settings } from "../../shared/types.ts";
import { SceneClock } from "../scene/clock.ts";
import type { DesyncAction } from "../scene/desync.ts";
import { EventWindow, type WelcomeWindow } from "../scene/event_window.ts";
import type { Metrics } from "../scene/metrics.ts";
import type { Peer } from "../scene/peer.ts";
import { type RelayBasics, relayBasics, type RelaySource, SceneRelay } from "../scene/relay.ts";
import { randomSeed } from "../scene/names.ts";
import { RelayFront } from "../scene/relay_front.ts";
import type { ClusterMetrics } from "./cluster_metrics.ts";
import type { NatsLink } from "./nats_link.ts";
import type { NameClaims } from "./name_claims.ts";
import {
  type Beat,
  type FromOwner,
  type HashReports,
  paused,
  RESERVE_AHEAD_TICKS,
  type SceneOwner,
} from "./scene_owner.ts";
import { createRecord, getRecord, type SceneRecord } from "./scene_records.ts";
import { isEvent, lastEntry, LogReader, type StoredEntry } from "./stream_log.ts";
import { coveredSeq, followsOn } from "./snapshot_start.ts";
import {
  draftSubject,
  hashSubject,
  keySubject,
  presenceSubject,
  reactionSubject,
  resyncSubject,
} from "./subjects.ts";
import { foundedSnapshot } from "../../shared/rules.ts";
import { hashHostKey, mintHostKey } from "../scene/host_keys.ts";
import { CLOSE_TRY_LATER } from "../ws/ws_socket.ts";
import { EdgePresence, type PresenceNote } from "./edge_presence.ts";
import { EdgeSubmits } from "./edge_submits.ts";
import { OwnerFeed } from "./owner_feed.ts";
import type { Subscription } from "@nats-io/transport-node";

/** What an edge needs. */
export interface EdgeDeps extends RelayBasics {
  link: NatsLink;
  /** This node's id (presence messages name their node). */
  nodeId: string;
  /** Names held scene-wide (this node's part). */
  names: NameClaims;
  metrics: Metrics;
  cluster: ClusterMetrics;
}

/**
 * A heartbeat may run at most this far ahead of this node's clock: the owner's reservation
 * (RESERVE_AHEAD_TICKS) and 5 s of clock skew between machines.
 */
export const BEAT_AHEAD_MAX_TICKS = RESERVE_AHEAD_TICKS + 5 * TICK_RATE;

/** Without a heartbeat for this long the sky counts as paused (the owner beats every ~50 ms). */
export const PAUSE_AFTER_MS = 600;
/** A resuming client that saw events this node has not relayed waits at most this long for them. */
const AHEAD_WAIT_MS = 2000;
/** A heartbeat held this long for events the log reader has not delivered means it is stuck. */
const READER_STALL_MS = 1500;
/**
 * Hash reports bound for a remote owner go in one message per scheduler pass (at most this many
 * a message): every client reports each checkpoint, so one message per report was one NATS
 * message a second per client (500 a second for 500 people), and each costs a wake-up on both
 * nodes; the owner's judge reads them the same either way (`HashReports`).
 */
const HASH_BATCH_MAX = 1000;
/** An edge opening reads the record again at most this many times when a purge overtook it. */
const OPEN_ATTEMPTS = 6;

/** A scene's local audience and relay on this node. */
export class SceneEdge extends RelayFront implements RelaySource {
  readonly id: string;
  readonly #deps: EdgeDeps;
  /** Welcomes, fan-out, presence and verdicts for the local clients (as on a single node). */
  readonly #relay: SceneRelay;
  /** The scene's people on other nodes, as their edges announce them. */
  readonly #presence: EdgePresence;
  /** The stored snapshot and the events relayed since (welcomes and resumes come from here). */
  #window = new EventWindow(initialSnapshot());
  readonly #subs: Subscription[] = [];
  /** Heartbeats and stored events from a remote owner (left while the owner is on this node). */
  readonly #feed: OwnerFeed;
  /** The scene's owner when it is on this node (see `attachOwner`). */
  #localOwner: SceneOwner | undefined;
  /** Hash reports waiting for the next pass's message to a remote owner: [peer, tick, hash]. */
  #hashes: [string, number, string][] = [];
  /** Submits and host actions on their way to the owner. */
  readonly #submits: EdgeSubmits;
  #reader: LogReader | undefined;
  /** The scene's lease holder as last read from the leases bucket (checked answers name it). */
  #owner: string | undefined;
  #seed = 0;
  #clock: SceneClock | undefined;
  /** Highest tick promised to clients here (heartbeat n or event tick). */
  #promised = 0;
  /** The newest heartbeat not relayed yet because its events have not all arrived. */
  #pendingBeat: Beat | null = null;
  /**
   * Monotonic ms since a heartbeat has been waiting for events the reader has not delivered, with
   * the reader delivering nothing meanwhile.
   */
  #pendingSinceMs: number | null = null;
  #ready = false;
  #closed = false;
  /** The person whose hello created the scene here and their host key, until it is sent. */
  #creator: { peer: Peer; key: string } | undefined;
  /** Resolved by the first hello (or by closing): a scene not stored yet waits for it. */
  readonly #firstHello = Promise.withResolvers<void>();
  readonly #waiting: { peer: Peer; lastSeq?: number }[] = [];
  /** Clients that saw more than this node has relayed so far. */
  readonly #ahead: { peer: Peer; lastSeq: number; sinceMs: number }[] = [];
  /** Monotonic ms of the last heartbeat or event from the owner. */
  /** Heartbeats refused for running too far ahead of this node's clock. */
  beatsRefused = 0;
  lastBeatMs: number;
  #paused = false;
  /**
   * Whether an owner's heartbeat reached this edge since it opened. Before the first one (a new
   * scene's first owner still being chosen) a submit is asked for until an owner answers or the
   * retries run out, not refused at once as paused.
   */
  #heardOwner = false;
  /** True when opening failed (the node forgets the edge; a new connection opens it again). */
  failed = false;
  /** Resolves once the edge caught up with the stored log (or rejects). */
  readonly ready: Promise<void>;

  constructor(id: string, deps: EdgeDeps) {
    super();
    this.id = id;
    this.#deps = deps;
    this.#presence = new EdgePresence({
      scene: id,
      nodeId: deps.nodeId,
      link: deps.link,
      clock: deps.clock,
      presenceLimit: deps.presenceLimit,
      relay: () => this.#relay,
    });
    const presence = this.#presence;
    this.#relay = new SceneRelay({
      ...relayBasics(id, deps),
      onHash: (peer, tick, h) => {
        if (this.#localOwner?.active) this.#localOwner.reportHash(peer.id, tick, h);
        else if (deps.link.state === "connected") {
          this.#hashes.push([peer.id, tick, h]);
          if (this.#hashes.length >= HASH_BATCH_MAX) this.#sendHashes();
        }
      },
      onLeave: (peer, announced) => {
        if (announced) presence.publish({ kind: "leave", peer: peer.info() });
      },
      onAnnounce: (peer) =>
        presence.publish({
          kind: "join",
          peer: peer.info(),
          persons: peer.person ? { [peer.id]: peer.person } : undefined,
        }),
      onRename: (peer) => presence.publish({ kind: "rename", peer: peer.info() }),
      onReactions: (frame) => {
        if (deps.link.state !== "connected") return;
        deps.link.publish(
          reactionSubject(id),
          `{"node":${JSON.stringify(deps.nodeId)},${frame.slice(1)}`,
        );
      },
      onDraft: (by, edits) => {
        if (deps.link.state !== "connected") return;
        deps.link.publish(
          draftSubject(id),
          JSON.stringify({ node: deps.nodeId, t: "draft", by, edits }),
        );
      },
      // The right to compose follows the person to this connection (the owner decides).
      onComposerBack: (peer) => void this.host(peer, { do: "compose", peer: peer.id, on: true }),
      others: presence.others,
    }, this);
    this.#submits = new EdgeSubmits({
      scene: id,
      link: deps.link,
      metrics: deps.metrics,
      cluster: deps.cluster,
      log: deps.log,
      localOwner: () => this.#localOwner?.active ? this.#localOwner : null,
      fromOwner: (owner) => this.#fromOwner(owner, false),
      closed: () => this.#closed,
    });
    this.#feed = new OwnerFeed(deps.link.nc, id, {
      beat: (beat) => this.#onBeat(beat),
      event: (event) => this.#onFastEvent(event),
    });
    this.lastBeatMs = deps.clock.monotonicMs();
    this.ready = this.#open();
    this.ready.catch((e) => {
      // NATS unreachable while opening: the waiting clients reconnect later (maybe elsewhere).
      deps.log(`cluster: opening ${id} failed: ${(e as Error).message}`);
      this.failed = true;
      for (const { peer } of this.#waiting.splice(0)) {
        peer.send(JSON.stringify(paused()));
        peer.drop(CLOSE_TRY_LATER, "scene unavailable, try again");
      }
    });
  }

  /** This front's relay (`RelayFront`'s calls go to it). */
  protected get relay(): SceneRelay {
    return this.#relay;
  }

  /** Highest seq relayed here. */
  get lastSeq(): number {
    return this.#window.lastSeq;
  }

  /** Scene seed (0 until ready). */
  get seed(): number {
    return this.#seed;
  }

  /** Scene epoch (wall ms of tick 0). */
  get epoch(): number {
    return this.#clock?.epoch ?? 0;
  }

  /** Highest tick promised to this edge's clients. */
  get horizon(): number {
    return this.#promised;
  }

  /** A welcome at the horizon relayed here (the relay's source). */
  welcomeWindow(afterSeq: number | undefined): WelcomeWindow {
    return this.#window.welcome(this.#promised, afterSeq);
  }

  /** The scene's fractional tick as this node's clock sees it, never below the horizon. */
  exactTick(): number {
    return Math.max(this.#clock?.exactTick() ?? 0, this.#promised);
  }

  /** Host rules after every relayed event (the relay's source). */
  get rules(): Readonly<Rules> {
    return this.#window.rules;
  }

  /** Settings after every relayed event. */
  settings(): Settings {
    return { ...this.#window.settings };
  }

  async #open(): Promise<void> {
    const { link } = this.#deps;
    let versioned = await getRecord(link, this.id);
    if (!versioned) {
      // A scene comes to exist when someone says hello in it, as on a single node: a socket
      // alone (or a thousand to random ids) stores nothing.
      await this.#firstHello.promise;
      if (this.#closed) return;
      // Whoever said hello first here creates the scene as its host (their key goes to them
      // alone once welcomed). Create is atomic: when another node's visitor said hello first,
      // theirs stands.
      const creator = this.#waiting.find((w) => !w.peer.gone)?.peer;
      const key = mintHostKey();
      const snapshot = creator
        ? foundedSnapshot(initialSnapshot(), creator.id, hashHostKey(key))
        : initialSnapshot();
      const created = await createRecord(link, this.id, {
        seed: randomSeed(),
        epoch: this.#deps.clock.wallMs(),
        reserved: 0,
        showCursor: 0,
        snapshot,
        snapshotStreamSeq: 0,
      });
      if (created) {
        this.#deps.metrics.scenesCreated++;
        if (creator) this.#creator = { peer: creator, key };
      }
      versioned = await getRecord(link, this.id);
    }
    if (!versioned) throw new Error(`scene ${this.id} record vanished`);
    let record = versioned.record;
    const { seed, epoch } = record;
    this.#seed = seed;
    this.#clock = new SceneClock(this.#deps.clock, epoch, 0);
    this.#subscribe();
    // A purge may have removed where the record read says the log goes on (see
    // `snapshot_start.ts`): then read the record again, which has moved on.
    for (let attempt = 1;; attempt++) {
      if (await this.#catchUp(record)) break;
      if (this.#closed) return;
      if (attempt >= OPEN_ATTEMPTS) {
        throw new Error(`the log was pruned past the scene record ${attempt} times`);
      }
      this.#deps.cluster.reopenedAfterPrune++;
      this.#deps.log(
        `cluster: ${this.id}: the log was pruned past the record's snapshot (stream seq ` +
          `${record.snapshotStreamSeq}) while opening; reading the record again`,
      );
      await new Promise((r) => setTimeout(r, 50 * attempt));
      const again = (await getRecord(link, this.id))?.record;
      if (!again || again.seed !== seed || again.epoch !== epoch) {
        throw new Error(`scene ${this.id} was removed while opening`);
      }
      record = again;
    }
    if (this.#closed) return;
    this.#ready = true;
    for (const { peer, lastSeq } of this.#waiting.splice(0)) {
      if (!peer.gone) this.hello(peer, undefined, lastSeq);
    }
    const creator = this.#creator;
    this.#creator = undefined;
    if (creator && !creator.peer.gone) this.#relay.sendKey(creator.peer.id, creator.key);
  }

  /**
   * Reads the log from `record`'s snapshot on until the edge has every entry stored when it
   * started; false (the reader closed, nothing relayed) when the log no longer follows on from
   * the snapshot: a purge removed entries the record says are there.
   */
  async #catchUp(record: SceneRecord): Promise<boolean> {
    const { link } = this.#deps;
    // (Null: a record from before `snapshotSeq` whose entry is gone: nothing to check against.)
    const covered = await coveredSeq(link, this.id, record);
    const last = await lastEntry(link, this.id);
    // With no entry after the snapshot, the seq it covers is where the scene's seqs are: a
    // welcome then carries that lastSeq, not 0 (the client would take the next event for a gap).
    const older = last && last.streamSeq <= record.snapshotStreamSeq ? last.entry.seq : 0;
    this.#window = new EventWindow(record.snapshot, covered ?? older);
    this.#promised = record.snapshot.tick;
    const caughtUp = Promise.withResolvers<boolean>();
    if (!last || last.streamSeq <= record.snapshotStreamSeq) caughtUp.resolve(true);
    let broken = false;
    const reader = await LogReader.open(link, this.id, record.snapshotStreamSeq + 1, (stored) => {
      if (broken) return;
      if (!this.#ready && covered !== null && !followsOn(this.#window.lastSeq, stored.entry)) {
        broken = true;
        caughtUp.resolve(false);
        return;
      }
      this.#onEntry(stored);
      if (last && stored.streamSeq >= last.streamSeq) caughtUp.resolve(true);
    });
    this.#reader = reader;
    const complete = await caughtUp.promise;
    if (!complete) await reader.close();
    return complete;
  }

  /** Removes a peer (and tells the other nodes when it had been announced); its name is free. */
  override leave(peer: Peer): void {
    this.#deps.names.release(peer);
    super.leave(peer);
  }

  /**
   * Reserves `name` for `peer` in this scene across the cluster (an atomic create in the names
   * bucket, see `name_claims.ts`); false when someone on any node holds it.
   */
  claimName(peer: Peer, name: string): Promise<boolean> {
    // Cut off from NATS: not held up (told apart from the names this node knows only).
    if (this.#deps.link.state !== "connected") return Promise.resolve(true);
    return this.#deps.names.claim(this.id, peer, name);
  }

  /** Whether someone on this node holds `name` in this scene or is asking for it now. */
  nameBusyHere(name: string): boolean {
    return this.#deps.names.busyHere(this.id, name);
  }

  /**
   * Answers `hello` with a welcome built from this edge's window, once the edge caught up with
   * the log, and once it relayed what the client saw (briefly waited for: it may come from a
   * node a little ahead).
   */
  hello(peer: Peer, name: string | undefined, lastSeq: number | undefined): ErrorMessage | null {
    if (peer.welcomed) return this.#relay.hello(peer, name, lastSeq);
    if (name !== undefined) peer.name = name;
    if (this.failed) {
      peer.send(JSON.stringify(paused()));
      peer.drop(CLOSE_TRY_LATER, "scene unavailable, try again");
      return null;
    }
    if (!this.#ready) {
      this.#waiting.push({ peer, lastSeq });
      this.#firstHello.resolve();
      return null;
    }
    if (lastSeq !== undefined && lastSeq > this.#window.lastSeq) {
      this.#ahead.push({ peer, lastSeq, sinceMs: this.#deps.clock.monotonicMs() });
      return null;
    }
    return this.#relay.hello(peer, undefined, lastSeq);
  }

  /** Greets clients waiting for events they had seen; past the wait, the history is lost. */
  #releaseAhead(nowMs: number): void {
    const waiting = this.#ahead.splice(0);
    for (const entry of waiting) {
      const { peer, lastSeq, sinceMs } = entry;
      if (peer.gone) continue;
      if (lastSeq <= this.#window.lastSeq || nowMs - sinceMs >= AHEAD_WAIT_MS) {
        this.#relay.hello(peer, undefined, lastSeq);
      } else this.#ahead.push(entry);
    }
  }

  /** Forwards a launch / gun / settings to the owner; a refusal goes back to the sender alone. */
  submit(peer: Peer, body: ClientBody): ErrorMessage | null {
    // (Submits held behind a retried one are bounded; behind one in flight, the person's rate
    // limits bound them.)
    if (
      (this.#paused && this.#heardOwner) || this.#deps.link.state !== "connected" ||
      this.#submits.full(peer)
    ) {
      this.#deps.cluster.submitsPaused++;
      return paused();
    }
    this.#submits.forward(peer, { by: peer.id, body, addr: peer.address, person: peer.person });
    return null;
  }

  /** Forwards a host action to the owner, which checks it; a refusal goes back to the sender. */
  host(peer: Peer, action: HostAction): ErrorMessage | null {
    if ((this.#paused && this.#heardOwner) || this.#deps.link.state !== "connected") {
      this.#deps.cluster.submitsPaused++;
      return paused();
    }
    // An action on a person carries their token hash when this node knows it (here, or
    // announced), and whether they are in the scene (only a present person can be made host).
    if (!("peer" in action)) {
      this.#submits.forward(peer, { by: peer.id, host: action });
      return null;
    }
    const person = this.#relay.personOf(action.peer) ?? this.#presence.personOf(action.peer);
    const present = this.#relay.present(action.peer) || this.#presence.present(action.peer);
    this.#submits.forward(peer, { by: peer.id, host: action, person, present });
    return null;
  }

  /**
   * Names of this scene's people on other nodes, as their edges announced them (joins at once,
   * rosters every 2 s; at most the presence limit): candidates known taken are skipped without
   * asking the names bucket (`claimName` decides the rest; see docs/cluster.md, "Names").
   */
  namesElsewhere(): Iterable<string> {
    return this.#presence.names();
  }

  /** One scheduler pass: the paused/live state, presence upkeep, and trimming the window. */
  pass(nowMs: number): void {
    if (!this.#ready) return;
    this.#relay.flush();
    if (this.#hashes.length > 0) this.#sendHashes();
    if (this.#ahead.length > 0) this.#releaseAhead(nowMs);
    if (this.#pendingSinceMs !== null && nowMs - this.#pendingSinceMs > READER_STALL_MS) {
      // The owner stored events our reader has not delivered: its consumer is stuck (a lost
      // NATS server or stream leader). Read again from the last delivered entry.
      this.#pendingSinceMs = nowMs;
      this.#deps.log(
        `cluster: ${this.id}: log reader stalled behind seq ${this.#pendingBeat?.seq}; reopening`,
      );
      this.#reader?.restart();
    }
    const paused = this.#deps.link.state !== "connected" ||
      nowMs - this.lastBeatMs > PAUSE_AFTER_MS;
    if (paused !== this.#paused) {
      this.#paused = paused;
      // A paused sky is also told to everyone welcomed while it lasts.
      this.#relay.status(paused ? statusFrame(true) : null);
      if (!paused) this.#relay.broadcast(statusFrame(false));
    }
    this.#presence.pass(nowMs);
    const target = this.#window.trimTarget(this.#promised);
    if (target !== undefined) this.#window.advance(target);
  }

  /** Sends the hash reports gathered since the last pass to the owner, in one message. */
  #sendHashes(): void {
    const reports: HashReports = { r: this.#hashes };
    this.#hashes = [];
    if (this.#deps.link.state !== "connected") return;
    this.#deps.link.publish(hashSubject(this.id), JSON.stringify(reports));
  }

  /** Stops reading the log and closes local connections. */
  async close(code: number, reason: string): Promise<void> {
    this.#closed = true;
    this.#firstHello.resolve();
    this.#submits.close();
    for (const sub of this.#subs) unsubscribe(sub);
    this.#feed.stop();
    this.#relay.close(code, reason);
    await this.ready.catch(() => {});
    await this.#reader?.close();
  }

  /**
   * This node owns the scene now: `owner` hands its heartbeats to this edge in process, and this
   * edge's submits and hash reports go to it in process, until it steps down (then heartbeats
   * come over NATS again). A node reading back its own messages pays a wake-up for each.
   */
  attachOwner(owner: SceneOwner): void {
    if (this.#closed) return;
    this.#localOwner = owner;
    this.#feed.stop();
    owner.attach({
      beat: (beat) => this.#onBeat(beat),
      event: (event) => this.#onFastEvent(event),
      ownerStopped: () => {
        if (this.#localOwner !== owner) return;
        this.#localOwner = undefined;
        if (!this.#closed) this.#feed.listen();
      },
    });
  }

  #subscribe(): void {
    this.#feed.listen();
    this.#listen<PresenceNote>(presenceSubject(this.id), (note) => this.#presence.receive(note));
    this.#listen<{ node: string }>(reactionSubject(this.id), (message) => {
      // Another edge's frame of its reactions (at most one a quarter second), passed on.
      const parsed = ReactionsMessageSchema.safeParse(this.#fromElsewhere(message));
      if (parsed.success) this.#relay.broadcast(JSON.stringify(parsed.data));
    });
    this.#listen<{ node: string }>(draftSubject(this.id), (message) => {
      // Another edge's composer's draft edits, for the composers here.
      const parsed = DraftRelayMessageSchema.safeParse(this.#fromElsewhere(message));
      if (parsed.success) this.#relay.draftFromElsewhere(parsed.data.by, parsed.data.edits);
    });
    this.#listen<{ peer: string; key: string }>(keySubject(this.id), ({ peer, key }) => {
      if (typeof peer === "string" && typeof key === "string") this.#relay.sendKey(peer, key);
    });
    this.#listen<Partial<FromOwner> & { actions?: DesyncAction[] }>(
      resyncSubject(this.id),
      (verdict) => {
        if (!Array.isArray(verdict.actions)) {
          this.#deps.cluster.notFromOwner++;
          return;
        }
        const actions = verdict.actions;
        // Verdicts close and rebuild people: the holder is read fresh for each.
        this.#fromOwner(verdict.owner, true).then((ok) => {
          if (ok && !this.#closed) this.#relay.act(actions);
        }, () => {});
      },
    );
  }

  /** Subscribes to `subject`: each message's JSON goes to `take`; a malformed one is ignored. */
  #listen<T>(subject: string, take: (message: T) => void): void {
    this.#subs.push(this.#deps.link.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          take(msg.json<T>());
        } catch {
          // Malformed: ignore.
        }
      },
    }));
  }

  /**
   * Another edge's frame (`message` less its `node`), or null when this edge sent it or is not
   * ready yet.
   */
  #fromElsewhere({ node, ...frame }: { node: string }): object | null {
    return node === this.#deps.nodeId || !this.#ready ? null : frame;
  }

  /**
   * Whether `owner` is the node holding the scene's lease (the leases bucket says; `fresh` reads
   * it again even when it matches the last read). An answer or verdict from anyone else (a node
   * that lost the scene, a publisher not knowing the holder) is counted and ignored. It binds what
   * edges act on to the lease; it is no signature: anyone holding the nodes' NATS credentials can
   * read the bucket too (see docs/cluster.md, "Trust").
   */
  async #fromOwner(owner: unknown, fresh: boolean): Promise<boolean> {
    if (typeof owner !== "string") {
      this.#deps.cluster.notFromOwner++;
      return false;
    }
    if (!fresh && owner === this.#owner) return true;
    try {
      const entry = await this.#deps.link.leases.get(this.id);
      this.#owner = entry && entry.operation === "PUT" ? entry.string() : undefined;
    } catch {
      // NATS failing: keep what was known.
    }
    if (owner === this.#owner) return true;
    // Logged the first time and every 100th after (a publisher could flood it).
    if (this.#deps.cluster.notFromOwner++ % 100 === 0) {
      this.#deps.log(
        `cluster: scene ${this.id}: ignored an answer naming ${
          JSON.stringify(owner).slice(0, 40)
        }, ` +
          `not the lease holder ${this.#owner ?? "(none)"}`,
      );
    }
    return false;
  }

  #onEntry({ entry }: Pick<StoredEntry, "entry">): void {
    const nowMs = this.#deps.clock.monotonicMs();
    this.lastBeatMs = nowMs;
    // The reader is moving: a heartbeat still waiting waits for later events, not a stuck
    // consumer. (The owner's own node gets each heartbeat in process as soon as its events are
    // stored, before the reader delivers them: at 10 launches/s with the reader 100 ms behind, a
    // heartbeat is always waiting: counted from the first one, the reader would be reopened for
    // nothing after 1.5 s, likely the reopen seen once in the load test.)
    if (this.#pendingSinceMs !== null) this.#pendingSinceMs = nowMs;
    if (!isEvent(entry)) {
      // An ownership marker: every event stamped before it was read before it.
      this.#window.coverTo(entry.seq);
      return;
    }
    const relayed = this.#window.lastSeq;
    if (entry.seq <= relayed) return;
    if (relayed > 0 && entry.seq !== relayed + 1) {
      this.#deps.log(`cluster: ${this.id}: log seq ${entry.seq} after ${relayed}`);
    }
    this.#window.push(entry);
    if (entry.tick > this.#promised) this.#promised = entry.tick;
    if (this.#ready) {
      this.#deps.cluster.eventsRelayed++;
      this.#relay.event(entry);
    }
    if (this.#ahead.length > 0) this.#releaseAhead(nowMs);
    this.#flushBeat();
  }

  /**
   * An event the owner stored, straight from it (`OwnerFeed`): taken when it is the next one
   * (the reader delivers it again, ignored then; anything else waits for the reader).
   */
  #onFastEvent(event: SceneEvent): void {
    if (this.#ready && event.seq === this.#window.lastSeq + 1) this.#onEntry({ entry: event });
  }

  #onBeat(beat: Beat): void {
    if (!Number.isSafeInteger(beat?.n) || !Number.isSafeInteger(beat.seq)) return;
    // An owner's clock stops at the horizon it reserved, at most RESERVE_AHEAD_TICKS past its
    // clock: a beat further ahead of ours (beyond clock skew) is forged or broken, and relayed it
    // would freeze every sky here until the clock caught up.
    const clockTick = this.#clock?.exactTick();
    if (clockTick !== undefined && beat.n > clockTick + BEAT_AHEAD_MAX_TICKS) {
      this.beatsRefused++;
      return;
    }
    this.lastBeatMs = this.#deps.clock.monotonicMs();
    this.#heardOwner = true;
    if (beat.n <= this.#promised) return;
    if (!this.#pendingBeat || beat.n > this.#pendingBeat.n) this.#pendingBeat = beat;
    this.#pendingSinceMs ??= this.#deps.clock.monotonicMs();
    this.#flushBeat();
  }

  /** Relays the pending heartbeat once every event it covers has been relayed. */
  #flushBeat(): void {
    const beat = this.#pendingBeat;
    if (!beat || beat.seq > this.#window.lastSeq) return;
    this.#pendingBeat = null;
    this.#pendingSinceMs = null;
    if (beat.n <= this.#promised) return;
    this.#promised = beat.n;
    if (!this.#ready) return;
    this.#deps.cluster.relayed(Math.max(0, this.#deps.clock.wallMs() - beat.w));
    this.#relay.heartbeat(beat.n);
  }
}

/** A presence note between edges of one scene. */
function statusFrame(paused: boolean): string {
  return JSON.stringify(
    paused
      ? { t: "status", sky: "paused", message: "the sky is paused while the server recovers" }
      : { t: "status", sky: "live", message: "the sky is live again" },
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
