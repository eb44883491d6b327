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
  type ErrorMessage,
  type PeerInfo,
  type Reaction,
  ReactionsMessageSchema,
} from "../../shared/protocol.ts";
import { initialSnapshot } from "../../shared/settings.ts";
import type { ClientBody, HostAction, Rules, Settings } from "../../shared/types.ts";
import { SceneClock, type ServerClock } from "../scene/clock.ts";
import type { DesyncAction } from "../scene/desync.ts";
import { EventWindow, type WelcomeWindow } from "../scene/event_window.ts";
import type { Metrics } from "../scene/metrics.ts";
import type { Peer } from "../scene/peer.ts";
import { type RelaySource, SceneRelay } from "../scene/relay.ts";
import { randomSeed } from "../scene/names.ts";
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
  type SubmitReply,
  type SubmitRequest,
} from "./scene_owner.ts";
import { createRecord, getRecord, type SceneRecord } from "./scene_records.ts";
import { isEvent, lastEntry, LogReader, type StoredEntry } from "./stream_log.ts";
import { coveredSeq, followsOn } from "./snapshot_start.ts";
import {
  beatSubject,
  hashSubject,
  keySubject,
  presenceSubject,
  reactionSubject,
  resyncSubject,
  submitSubject,
} from "./subjects.ts";
import { errorMessage as refusal } from "../scene/errors.ts";
import { foundedSnapshot } from "../../shared/rules.ts";
import { hashHostKey, mintHostKey } from "../scene/host_keys.ts";
import { CLOSE_TRY_LATER } from "../ws/ws_socket.ts";
import { isNoResponders } from "./nats_errors.ts";
import { SubmitOrder } from "./submit_order.ts";
import type { Subscription } from "@nats-io/transport-node";

/**
 * A heartbeat may run at most this far ahead of this node's clock: the owner's reservation
 * (RESERVE_AHEAD_TICKS) and 5 s of clock skew between machines.
 */
export const BEAT_AHEAD_MAX_TICKS = RESERVE_AHEAD_TICKS + 5 * TICK_RATE;

/** Without a heartbeat for this long the sky counts as paused (the owner beats every ~50 ms). */
export const PAUSE_AFTER_MS = 600;
/** Each edge publishes its announced people this often, so other nodes converge… */
const ROSTER_EVERY_MS = 2000;
/** …and forgets another node's people when its roster stops for this long (the node died). */
const ROSTER_EXPIRY_MS = 3 * ROSTER_EVERY_MS;
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
/**
 * A submit that found no owner is asked again this many times… (2 s in all: a new scene's first
 * owner is chosen on the first pass after a client came, and 1 s was not always enough for it
 * on a loaded CI machine, where a launch made at once came back `paused`.)
 */
const SUBMIT_RETRIES = 8;
/** …this far apart. */
const SUBMIT_RETRY_MS = 250;
/** A submit waits this long for the owner's answer. */
const SUBMIT_TIMEOUT_MS = 2500;
/** A person's submits that may wait behind one being asked again; more are refused `paused`. */
const SUBMITS_HELD_MAX = 16;
/** What `#request` answers for a submit it will ask again later. */
const RETRYING = Symbol("retrying");

/** What an edge needs. */
export interface EdgeDeps {
  link: NatsLink;
  /** This node's id (presence messages name their node). */
  nodeId: string;
  clock: ServerClock;
  skyCap: number;
  maxPeers: number;
  presenceLimit: number;
  /** Names held scene-wide (this node's part). */
  names: NameClaims;
  metrics: Metrics;
  cluster: ClusterMetrics;
  log: (msg: string) => void;
}

const encoder = new TextEncoder();

/** A scene's local audience and relay on this node. */
export class SceneEdge implements RelaySource {
  readonly id: string;
  readonly #deps: EdgeDeps;
  /** Welcomes, fan-out, presence and verdicts for the local clients (as on a single node). */
  readonly #relay: SceneRelay;
  /** People announced by other nodes' edges of this scene, by node. */
  readonly #remote = new Map<string, { peers: Map<string, PeerInfo>; seenMs: number }>();
  #remoteCount = 0;
  /**
   * Hashes of browser tokens of people on other nodes, by peer id, as their edges told them (never
   * sent to clients): a host here removing one of them keeps that person out for good.
   */
  readonly #remotePersons = new Map<string, string>();
  #lastRosterMs = -Infinity;
  /** The stored snapshot and the events relayed since (welcomes and resumes come from here). */
  #window = new EventWindow(initialSnapshot());
  readonly #subs: Subscription[] = [];
  /** The heartbeat subscription, while no owner on this node hands them over in process. */
  #beatSub: Subscription | undefined;
  /** The scene's owner when it is on this node (see `attachOwner`). */
  #localOwner: SceneOwner | undefined;
  /** Hash reports waiting for the next pass's message to a remote owner: [peer, tick, hash]. */
  #hashes: [string, number, string][] = [];
  /** Pending submit retries (cleared on close). */
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();
  /** Each person's submits in their order while one of them is asked again. */
  readonly #order = new SubmitOrder<Peer, SubmitRequest>();
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
    this.id = id;
    this.#deps = deps;
    const remote = this.#remote;
    this.#relay = new SceneRelay({
      scene: id,
      skyCap: deps.skyCap,
      maxPeers: deps.maxPeers,
      presenceLimit: deps.presenceLimit,
      clock: deps.clock,
      stats: deps.metrics,
      log: deps.log,
      onHash: (peer, tick, h) => {
        if (this.#localOwner?.active) this.#localOwner.reportHash(peer.id, tick, h);
        else if (deps.link.state === "connected") {
          this.#hashes.push([peer.id, tick, h]);
          if (this.#hashes.length >= HASH_BATCH_MAX) this.#sendHashes();
        }
      },
      onLeave: (peer, announced) => {
        if (announced) this.#publishPresence({ kind: "leave", peer: peer.info() });
      },
      onAnnounce: (peer) =>
        this.#publishPresence({
          kind: "join",
          peer: peer.info(),
          persons: peer.person ? { [peer.id]: peer.person } : undefined,
        }),
      onRename: (peer) => this.#publishPresence({ kind: "rename", peer: peer.info() }),
      onReactions: (frame) => {
        if (deps.link.state !== "connected") return;
        deps.link.publish(
          reactionSubject(id),
          `{"node":${JSON.stringify(deps.nodeId)},${frame.slice(1)}`,
        );
      },
      others: {
        get size() {
          let n = 0;
          for (const r of remote.values()) n += r.peers.size;
          return n;
        },
        list: () => [...remote.values()].flatMap((r) => [...r.peers.values()]),
      },
    }, this);
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

  /** Connections here, welcomed or not. */
  get peers(): ReadonlyMap<string, Peer> {
    return this.#relay.peers;
  }

  /** Monotonic ms since the edge has had no local peers, or null. */
  get emptySinceMs(): number | null {
    return this.#relay.emptySinceMs;
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

  /** Welcomed local peers. */
  welcomedPeers(): Peer[] {
    return this.#relay.welcomedPeers();
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

  /** Adds a fresh connection, or refuses it when the scene is full on this node. */
  admit(peer: Peer): ErrorMessage | null {
    return this.#relay.admit(peer);
  }

  /** Removes a peer (and tells the other nodes when it had been announced); its name is free. */
  leave(peer: Peer): void {
    this.#deps.names.release(peer);
    this.#relay.leave(peer);
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
      (this.#order.retried(peer) && this.#order.waiting(peer) >= SUBMITS_HELD_MAX)
    ) {
      this.#deps.cluster.submitsPaused++;
      return paused();
    }
    this.#forward(peer, { by: peer.id, body, addr: peer.address, person: peer.person }, 0);
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
      this.#forward(peer, { by: peer.id, host: action }, 0);
      return null;
    }
    const person = this.#relay.personOf(action.peer) ?? this.#remotePersons.get(action.peer);
    let present = this.#relay.present(action.peer);
    for (const remote of this.#remote.values()) present ||= remote.peers.has(action.peer);
    this.#forward(peer, { by: peer.id, host: action, person, present }, 0);
    return null;
  }

  /** Relays a quick reaction here and to the scene's other nodes (see `SceneRelay.react`). */
  react(peer: Peer, emoji: Reaction): ErrorMessage | null {
    return this.#relay.react(peer, emoji);
  }

  /**
   * Requests the owner's stamp: in process when this node owns the scene, else over NATS. With no
   * owner subscribed yet (a new scene's first moments, a hand-over) it asks again a few times,
   * 250 ms apart, before refusing with `paused`.
   */
  #forward(peer: Peer, request: SubmitRequest, attempt: number, next = false): void {
    // Behind the person's submit in flight (which may yet be asked again): it waits its turn
    // (`SubmitOrder`), unless it is the one whose turn it is or is being asked again.
    if (attempt === 0 && !next && this.#order.hold(peer, request)) return;
    const owner = this.#localOwner?.active ? this.#localOwner : null;
    const answer = owner ? owner.submit(request) : this.#request(peer, request, attempt);
    // In process the owner stamped it (or refused it) already, before any later submit can reach
    // it: the next may go now rather than after the event is stored.
    if (owner) this.#settled(peer, request);
    answer.then((reply) => {
      if (reply === RETRYING) return;
      if (!owner) this.#settled(peer, request);
      if (reply === null) return;
      if ("ok" in reply) return;
      this.#deps.metrics.refuse(reply.code);
      peer.send(JSON.stringify(reply));
    }).catch((e) => {
      if (!owner) this.#settled(peer, request);
      this.#deps.log(`error: scene ${this.id}: submit reply: ${(e as Error).message}`);
    });
  }

  /** `request` has its answer: the person's next submit waiting behind it goes now. */
  #settled(peer: Peer, request: SubmitRequest): void {
    if (peer.gone || this.#closed) {
      this.#order.drop(peer);
      return;
    }
    const next = this.#order.settled(peer, request);
    if (next) this.#forward(peer, next, 0, true);
  }

  /**
   * Asks the owner on another node (see `#forward`); null: no answer to pass on; RETRYING: it
   * is asked again later.
   */
  #request(
    peer: Peer,
    request: SubmitRequest,
    attempt: number,
  ): Promise<SubmitReply | null | typeof RETRYING> {
    const data = encoder.encode(JSON.stringify(request));
    return this.#deps.link.nc.request(submitSubject(this.id), data, {
      timeout: SUBMIT_TIMEOUT_MS,
    }).then(
      // An answer counts only when it names the lease holder: a forged refusal goes nowhere.
      async (msg): Promise<SubmitReply | null> => {
        const { owner, ...reply } = msg.json<SubmitReply & Partial<FromOwner>>();
        return await this.#fromOwner(owner, false) ? reply as SubmitReply : null;
      },
      (e): SubmitReply | null | typeof RETRYING => {
        // No responders: no owner right now, nothing was stamped. A timeout: the owner may have
        // stamped it and only the answer was lost; then the event arrives like any other.
        if (isNoResponders(e)) {
          if (attempt < SUBMIT_RETRIES && !peer.gone && !this.#closed) {
            // The person's later submits keep waiting for this one (their order is kept).
            this.#order.retrying(peer, request);
            this.#deps.cluster.submitRetries++;
            const timer = setTimeout(() => {
              this.#retries.delete(timer);
              this.#forward(peer, request, attempt + 1);
            }, SUBMIT_RETRY_MS);
            this.#retries.add(timer);
            return RETRYING;
          }
          this.#deps.cluster.submitsPaused++;
          return paused();
        }
        this.#deps.cluster.submitsPaused++;
        return refusal(
          "paused",
          "the sky did not answer in time; if your launch went through you will see it, " +
            "otherwise try again in a moment",
        );
      },
    );
  }

  /** A welcomed local peer takes another name; the other nodes hear of it (`onRename`). */
  rename(peer: Peer, name: string, generated: boolean): void {
    this.#relay.rename(peer, name, generated);
  }

  /**
   * Names of this scene's people on other nodes, as their edges announced them (joins at once,
   * rosters every 2 s; at most the presence limit): candidates known taken are skipped without
   * asking the names bucket (`claimName` decides the rest; see docs/cluster.md, "Names").
   */
  *namesElsewhere(): Iterable<string> {
    for (const remote of this.#remote.values()) {
      for (const person of remote.peers.values()) yield person.name;
    }
  }

  /** Answers `ping` with the scene's fractional tick as this node's clock sees it. */
  pong(peer: Peer, id: number, ct: number): void {
    this.#relay.pong(peer, id, ct);
  }

  /** Forwards a checkpoint hash to the owner's desync judge (see `SceneRelay.reportHash`). */
  reportHash(peer: Peer, tick: number, hash: string): ErrorMessage | null {
    return this.#relay.reportHash(peer, tick, hash);
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
    if (nowMs - this.#lastRosterMs >= ROSTER_EVERY_MS) {
      this.#lastRosterMs = nowMs;
      const announced = this.#relay.announced();
      if (announced.length > 0) {
        const persons: Record<string, string> = {};
        for (const info of announced) {
          const person = this.#relay.personOf(info.id);
          if (person) persons[info.id] = person;
        }
        this.#publishPresence({ kind: "roster", peers: announced, persons });
      }
      for (const [node, remote] of this.#remote) {
        if (nowMs - remote.seenMs > ROSTER_EXPIRY_MS) this.#reconcile(node, []);
      }
    }
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
    for (const timer of this.#retries) clearTimeout(timer);
    this.#retries.clear();
    this.#order.clear();
    for (const sub of this.#subs) unsubscribe(sub);
    this.#unsubscribeBeats();
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
    this.#unsubscribeBeats();
    owner.attach({
      beat: (beat) => this.#onBeat(beat),
      ownerStopped: () => {
        if (this.#localOwner !== owner) return;
        this.#localOwner = undefined;
        if (!this.#closed) this.#subscribeBeats();
      },
    });
  }

  #subscribeBeats(): void {
    if (this.#beatSub) return;
    try {
      this.#beatSub = this.#deps.link.nc.subscribe(beatSubject(this.id), {
        callback: (err, msg) => {
          if (err) return;
          try {
            this.#onBeat(msg.json<Beat>());
          } catch {
            // Malformed: ignore.
          }
        },
      });
    } catch (e) {
      // Only a closed connection (the node is stopping) refuses a subscription.
      if (!this.#deps.link.nc.isClosed()) throw e;
    }
  }

  #unsubscribeBeats(): void {
    if (this.#beatSub) unsubscribe(this.#beatSub);
    this.#beatSub = undefined;
  }

  #subscribe(): void {
    const { nc } = this.#deps.link;
    this.#subscribeBeats();
    this.#subs.push(nc.subscribe(presenceSubject(this.id), {
      callback: (err, msg) => {
        if (err) return;
        try {
          this.#onPresence(msg.json<PresenceNote>());
        } catch {
          // Malformed: ignore.
        }
      },
    }));
    this.#subs.push(nc.subscribe(reactionSubject(this.id), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { node, ...frame } = msg.json<{ node: string }>();
          if (node === this.#deps.nodeId || !this.#ready) return;
          // Another edge's frame of its reactions (at most one a quarter second), passed on.
          const parsed = ReactionsMessageSchema.safeParse(frame);
          if (parsed.success) this.#relay.broadcast(JSON.stringify(parsed.data));
        } catch {
          // Malformed: ignore.
        }
      },
    }));
    this.#subs.push(nc.subscribe(keySubject(this.id), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { peer, key } = msg.json<{ peer: string; key: string }>();
          if (typeof peer === "string" && typeof key === "string") this.#relay.sendKey(peer, key);
        } catch {
          // Malformed: ignore.
        }
      },
    }));
    this.#subs.push(nc.subscribe(resyncSubject(this.id), {
      callback: (err, msg) => {
        if (err) return;
        let verdict: Partial<FromOwner> & { actions?: DesyncAction[] };
        try {
          verdict = msg.json<typeof verdict>();
        } catch {
          return; // Malformed: ignore.
        }
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
    }));
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

  #publishPresence(note: Omit<PresenceNote, "node">): void {
    if (this.#deps.link.state !== "connected") return;
    this.#deps.link.publish(
      presenceSubject(this.id),
      JSON.stringify({ node: this.#deps.nodeId, ...note }),
    );
  }

  #onPresence(note: PresenceNote): void {
    if (note.node === this.#deps.nodeId) return;
    if (note.persons && typeof note.persons === "object") {
      for (const [id, person] of Object.entries(note.persons)) {
        // Bounded like the announced people (a roster lists at most the presence limit).
        if (this.#remotePersons.size >= 4 * this.#deps.presenceLimit) break;
        if (typeof person === "string" && /^[0-9a-f]{64}$/.test(person)) {
          this.#remotePersons.set(id, person);
        }
      }
    }
    if (note.kind === "leave" && note.peer) this.#remotePersons.delete(note.peer.id);
    const remote = this.#remote.get(note.node);
    const known = remote ? [...remote.peers.values()] : [];
    if (note.kind === "roster") this.#reconcile(note.node, note.peers ?? []);
    else if (note.kind === "join" && note.peer) this.#reconcile(note.node, [...known, note.peer]);
    else if (note.kind === "leave" && note.peer) {
      this.#reconcile(note.node, known.filter((p) => p.id !== note.peer!.id));
    } else if (note.kind === "rename" && note.peer) {
      // Someone not announced here (over the limit) stays unannounced under the new name.
      const renamed = note.peer;
      this.#reconcile(note.node, known.map((p) => p.id === renamed.id ? renamed : p));
    }
  }

  /**
   * Makes `node`'s announced people here equal `peers` (within the limit), telling clients: a
   * leave, a join, or a rename for a known id whose name changed (a missed rename note is caught
   * up by the next roster).
   */
  #reconcile(node: string, peers: PeerInfo[]): void {
    let remote = this.#remote.get(node);
    if (!remote) {
      remote = { peers: new Map(), seenMs: 0 };
      this.#remote.set(node, remote);
    }
    remote.seenMs = this.#deps.clock.monotonicMs();
    const wanted = new Map(peers.map((p) => [p.id, p]));
    for (const [id, info] of remote.peers) {
      if (wanted.has(id)) continue;
      remote.peers.delete(id);
      this.#remotePersons.delete(id);
      this.#remoteCount--;
      this.#relay.broadcast(JSON.stringify({ t: "presence", kind: "leave", peer: info }));
    }
    for (const [id, info] of wanted) {
      const known = remote.peers.get(id);
      if (known) {
        if (known.name !== info.name || known.gen !== info.gen) {
          remote.peers.set(id, info);
          this.#relay.broadcast(
            JSON.stringify({ t: "presence", kind: "rename", peer: info, was: known.name }),
          );
        }
        continue;
      }
      if (this.#relay.announced().length + this.#remoteCount >= this.#deps.presenceLimit) break;
      remote.peers.set(id, info);
      this.#remoteCount++;
      this.#relay.broadcast(JSON.stringify({ t: "presence", kind: "join", peer: info }));
    }
    if (remote.peers.size === 0) this.#remote.delete(node);
  }

  #onEntry({ entry }: StoredEntry): void {
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
interface PresenceNote {
  node: string;
  kind: "join" | "leave" | "rename" | "roster";
  peer?: PeerInfo;
  peers?: PeerInfo[];
  /**
   * The hashes of these people's browser tokens (see `Peer.person`), by peer id: between nodes
   * only, never to clients, so a host on any node can remove a person for good.
   */
  persons?: Record<string, string>;
}

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
