/**
 * What one scene does for the connections one server holds, in both modes: admitting them,
 * welcoming them (resumed when their last seq is still in memory; told when the scene's history
 * lost what they saw), announcing them, fanning events and heartbeats out, answering pings,
 * checking hash reports and carrying out desync verdicts. The single node's `Room` puts a
 * sequencer behind it; a cluster edge puts the scene's log read from NATS behind it, and adds
 * only what is its own (holding heartbeats until their events arrived, clients ahead of it,
 * people on other nodes).
 */
import {
  CHECKPOINT_TICKS,
  PROTOCOL_VERSION,
  TICK_RATE,
  WINDOW_TICKS,
} from "../../shared/constants.ts";
import type {
  DraftEdit,
  ErrorMessage,
  PeerInfo,
  Reaction,
  WelcomeMessage,
} from "../../shared/protocol.ts";
import {
  isComposerPerson,
  isRemovedPerson,
  mayCompose,
  publicEvent,
  publicSnapshot,
} from "../../shared/rules.ts";
import type { Rules, RulesBody, SceneEvent } from "../../shared/types.ts";
import { errorMessage } from "./errors.ts";
import { Audience } from "./audience.ts";
import { DraftRelay } from "./draft_relay.ts";
import { ReactionTally } from "./reaction_tally.ts";
import { TokenBucket } from "./ratelimit.ts";
import { refuseReaction, removedRefusal } from "./host_rules.ts";
import type { ServerClock } from "./clock.ts";
import type { DesyncAction } from "./desync.ts";
import type { WelcomeWindow } from "./event_window.ts";
import type { Peer } from "./peer.ts";
import { CLOSE_POLICY } from "./close_codes.ts";

/**
 * Hash reports for ticks this far behind the horizon are ignored: the window a true hash is
 * computed from may be gone, a verdict on them would come too late to matter (the client has
 * moved on, and will report again at the next checkpoint, every CHECKPOINT_TICKS), and ignoring
 * them spares the judge (and, in a cluster, NATS) replayed or hoarded reports.
 */
export const HASH_MAX_AGE_TICKS = 30 * TICK_RATE;

/** A scene logs `history_lost` at most this often (clients can claim any `lastSeq`). */
const HISTORY_LOST_LOG_MS = 60_000;

/**
 * A scene's presence frames to everyone (joins and renames, each a frame to every person here):
 * 8 a second, bursts of 32. Past it a newcomer is welcomed at once but announced in turn, and a
 * new name reaches the others in turn (its owner hears it at once).
 */
export const PRESENCE_PACE = Object.freeze({ perSecond: 8, burst: 32 });

/** Close code for a peer whose hashes keep disagreeing with the scene's (policy violation). */
export const CLOSE_WRONG_HASHES = CLOSE_POLICY;
/** Close code for a person a host removed from the scene (policy violation). */
export const CLOSE_REMOVED = CLOSE_POLICY;

/** Where a relay's welcomes come from: the sequencer, or an edge's copy of the log. */
export interface RelaySource {
  readonly seed: number;
  /** Highest seq the relay's clients can have been sent. */
  readonly lastSeq: number;
  /**
   * Highest tick a client here may have been promised (by an event, a heartbeat or a welcome):
   * the clock where events are stamped, the last relayed promise on a cluster edge.
   */
  readonly horizon: number;
  /** What a welcome now carries (see `EventWindow.welcome`). */
  welcomeWindow(afterSeq: number | undefined): WelcomeWindow;
  /** The scene's fractional tick now, as a pong reports it. */
  exactTick(): number;
  /** The host rules after every event this relay's clients can have been sent. */
  readonly rules: Readonly<Rules>;
}

/** Counters a relay updates (the node's metrics). */
export interface RelayStats {
  historyLost: number;
  desyncs: number;
  desyncDisconnects: number;
}

/** What a relay needs. */
export interface RelayDeps {
  scene: string;
  skyCap: number;
  /** At most this many connections (on this server). */
  maxPeers: number;
  /** At most this many people per scene are announced (welcome list, join/leave presence). */
  presenceLimit: number;
  /**
   * Presence frames (joins and renames) sent to everyone here: at most this rate, the rest wait
   * their turn (default PRESENCE_PACE). Leaves follow joins, so they are bounded too.
   */
  presencePace?: { perSecond: number; burst: number };
  clock: ServerClock;
  stats: RelayStats;
  log: (msg: string) => void;
  /** Takes a hash report that passed the checks (the room's judge, or the cluster's owner). */
  onHash: (peer: Peer, tick: number, hash: string) => void;
  /** A peer left; `announced` when the others had been told it was here. */
  onLeave?: (peer: Peer, announced: boolean) => void;
  /** A newcomer was announced to the others here. */
  onAnnounce?: (peer: Peer) => void;
  /** An announced peer, once called `was`, took another name (told to the others here). */
  onRename?: (peer: Peer, was: string) => void;
  /** People announced by other servers (a cluster's other edges): they count against the limit. */
  others?: { readonly size: number; list(): PeerInfo[] };
  /**
   * A frame of reactions from peers here was sent to everyone here (`frame`, the `reactions`
   * message): a cluster edge passes it on to the scene's other nodes.
   */
  onReactions?: (frame: string) => void;
  /** Show draft edits taken here: a cluster edge passes them on to the scene's other nodes. */
  onDraft?: (by: string, edits: readonly DraftEdit[]) => void;
  /**
   * A person a host let compose was welcomed on a connection the rules do not list as a
   * composer yet: the room (or edge) asks for the right to follow them (a `compose` action from
   * the connection itself, see `decideHost`), so their page sees it in the rules.
   */
  onComposerBack?: (peer: Peer) => void;
}

/** What a scene's front (a room, or a cluster edge) passes on from its own deps to its relay. */
export interface RelayBasics {
  skyCap: number;
  /** At most this many connections (on this server). */
  maxPeers: number;
  /** At most this many people per scene are announced (welcome list, join/leave presence). */
  presenceLimit: number;
  clock: ServerClock;
  metrics: RelayStats;
  log: (msg: string) => void;
}

/**
 * The relay deps of scene `scene` a front passes on as they are (`metrics` as `stats`); the
 * front adds its own callbacks.
 *
 * @example
 * ```ts ignore
 * const relay = new SceneRelay({ ...relayBasics(id, deps), onHash: (peer, tick, hash) => {} }, source);
 * ```
 */
export function relayBasics(
  scene: string,
  deps: RelayBasics,
): Pick<RelayDeps, "scene" | "skyCap" | "maxPeers" | "presenceLimit" | "clock" | "stats" | "log"> {
  const { skyCap, maxPeers, presenceLimit, clock, metrics: stats, log } = deps;
  return { scene, skyCap, maxPeers, presenceLimit, clock, stats, log };
}

/** One scene's connections on this server. */
export class SceneRelay {
  readonly peers = new Map<string, Peer>();
  /** Monotonic ms since the relay has had no peers (for unloading), or null. */
  emptySinceMs: number | null;
  readonly #deps: RelayDeps;
  readonly #source: RelaySource;
  /** When `history_lost` was last logged, and how many went unlogged since. */
  #historyLostLoggedMs = -Infinity;
  #historyLostQuiet = 0;
  readonly #audience: Audience<Peer>;
  /** Sent after every welcome, and to everyone when it changes (a cluster's paused sky). */
  #status: string | null = null;
  /** Reactions from peers here waiting for the scene's next reaction frame. */
  readonly #reactions = new ReactionTally();
  /** The scene's presence frames to everyone (see PRESENCE_PACE). */
  readonly #presence: TokenBucket;
  /** Newcomers to announce when the presence budget allows, in arrival order. */
  readonly #joining = new Set<Peer>();
  /** Announced peers whose new name the others have not heard yet, with the name they knew. */
  readonly #renaming = new Map<Peer, string>();
  /** The scene's shared show draft and its fan-out here. */
  readonly #drafts: DraftRelay;
  /** A listener the heartbeat dropped for backpressure leaves at once (made once, not per beat). */
  readonly #dropped = (peer: Peer) => this.leave(peer);

  constructor(deps: RelayDeps, source: RelaySource) {
    this.#deps = deps;
    this.#source = source;
    this.#audience = new Audience(deps.presenceLimit);
    this.emptySinceMs = deps.clock.monotonicMs();
    this.#presence = new TokenBucket(deps.presencePace ?? PRESENCE_PACE, this.emptySinceMs);
    this.#drafts = new DraftRelay({
      nowMs: () => deps.clock.monotonicMs(),
      rules: () => source.rules,
      peers: () => this.peers.values(),
      onDraft: deps.onDraft,
    });
  }

  /** Welcomed connections. */
  get audience(): number {
    return this.#audience.size;
  }

  /** Connections that got their welcome. */
  welcomedPeers(): Peer[] {
    return this.#audience.members();
  }

  /** People announced here (this server's). */
  announced(): PeerInfo[] {
    return this.#audience.announced();
  }

  /** Adds a fresh connection, or refuses it when the scene is full here. */
  admit(peer: Peer): ErrorMessage | null {
    if (this.peers.size >= this.#deps.maxPeers) {
      return errorMessage(
        "room_full",
        `this scene already has ${this.#deps.maxPeers} people in it`,
      );
    }
    this.peers.set(peer.id, peer);
    this.emptySinceMs = null;
    return null;
  }

  /** Removes a peer (its socket closed or it was dropped) and tells the others. */
  leave(peer: Peer): void {
    if (this.peers.get(peer.id) !== peer) return;
    this.peers.delete(peer.id);
    if (this.peers.size === 0) this.emptySinceMs = this.#deps.clock.monotonicMs();
    this.#joining.delete(peer);
    this.#renaming.delete(peer);
    this.#drafts.leave(peer.id);
    const announced = this.#audience.remove(peer);
    this.#deps.onLeave?.(peer, announced);
  }

  /**
   * Answers `hello`: a welcome (resumed when `lastSeq` is still in memory; after a
   * `history_lost` error when the scene never had it), then a presence join.
   */
  hello(peer: Peer, name: string | undefined, lastSeq: number | undefined): ErrorMessage | null {
    if (peer.welcomed) {
      return errorMessage("bad_message", "hello: already received on this connection");
    }
    if (isRemovedPerson(this.#source.rules, peer.person)) {
      // The same browser as a person a host removed: a new connection changes nothing.
      this.#remove(peer);
      return null;
    }
    if (name !== undefined) peer.name = name;
    if (lastSeq !== undefined && lastSeq > this.#source.lastSeq) this.#historyLost(peer, lastSeq);
    // Announced at once (so its own welcome lists it) while the scene's presence budget allows
    // and nobody waits; else in turn (see `flush`).
    let announce = false;
    if (this.#roomToAnnounce()) {
      const nowMs = this.#deps.clock.monotonicMs();
      if (this.#joining.size === 0 && this.#presence.take(nowMs) === 0) {
        announce = this.#audience.announce(peer);
      } else this.#joining.add(peer);
    }
    // Checked like any reply: the welcome counts against the slow-reader budget.
    peer.sendChecked(JSON.stringify(this.#welcome(peer, lastSeq)));
    if (this.#status !== null) peer.send(this.#status);
    this.#drafts.greet(peer);
    const rules = this.#source.rules;
    if (!mayCompose(rules, peer.id) && isComposerPerson(rules, peer.person)) {
      this.#deps.onComposerBack?.(peer);
    }
    if (announce) {
      this.#audience.presenceJoin(peer);
      this.#deps.onAnnounce?.(peer);
    }
    return null;
  }

  /** Whether fewer people than the presence limit are announced (here and on other servers). */
  #roomToAnnounce(): boolean {
    const others = this.#deps.others?.size ?? 0;
    return this.#audience.announced().length + others < this.#deps.presenceLimit;
  }

  /** Announces a welcomed newcomer who waited for the presence budget, when there is room. */
  #announce(peer: Peer): void {
    if (peer.gone || !peer.welcomed || !this.#roomToAnnounce()) return;
    if (this.#audience.announce(peer)) {
      this.#audience.presenceJoin(peer);
      this.#deps.onAnnounce?.(peer);
    }
  }

  /**
   * A welcomed peer goes by `name` now (`generated`: the server made it up): one presence
   * `rename` with its id, new and old name, to everyone here when it had been announced, else to
   * it alone. Nothing happens when neither changed.
   */
  rename(peer: Peer, name: string, generated: boolean): void {
    const was = peer.name;
    if (!peer.welcomed || (name === was && generated === peer.generated)) return;
    peer.name = name;
    peer.generated = generated;
    const nowMs = this.#deps.clock.monotonicMs();
    if (!this.#renaming.has(peer) && this.#presence.peek(nowMs) === 0) {
      if (this.#audience.presenceRename(peer, was)) {
        this.#presence.take(nowMs);
        this.#deps.onRename?.(peer, was);
      }
      return;
    }
    // Over the scene's presence budget: its owner hears it now, the others in turn.
    if (this.#audience.presenceRename(peer, was, true) && !this.#renaming.has(peer)) {
      this.#renaming.set(peer, was);
    }
  }

  /** Answers `ping` with the scene's fractional tick. */
  pong(peer: Peer, id: number, ct: number): void {
    peer.send(JSON.stringify({ t: "pong", id, ct, n: this.#source.exactTick() }));
  }

  /**
   * Checks a checkpoint hash: refuses ticks that are not checkpoints or not promised yet, ignores
   * ticks the peer cannot judge (before its welcome) or too old, and hands the rest on.
   */
  reportHash(peer: Peer, tick: number, hash: string): ErrorMessage | null {
    if (tick % CHECKPOINT_TICKS !== 0) {
      return errorMessage(
        "bad_message",
        `hash.tick: ${tick} is not a multiple of ${CHECKPOINT_TICKS}`,
      );
    }
    const horizon = this.#source.horizon;
    if (tick > horizon) return errorMessage("bad_message", `hash.tick: ${tick} is in the future`);
    // A peer welcomed at horizon H started from H − W: it cannot know earlier ticks' particles.
    if (tick < peer.joinHorizon || tick < horizon - HASH_MAX_AGE_TICKS) return null;
    this.#deps.onHash(peer, tick, hash);
    return null;
  }

  /**
   * Sends a stored event to everyone welcomed (a host grant without its key hash); a person a
   * host removed, when connected here, is closed right after.
   */
  event(event: SceneEvent): void {
    this.#audience.broadcast(JSON.stringify({ t: "event", ...publicEvent(event) }));
    const body = event.body;
    if (body.type === "rules") this.#composeRightsMoved(body);
    if (body.type === "rules" && body.do === "remove") {
      const peer = this.peers.get(body.peer);
      if (peer) this.#remove(peer);
      // The same person's other connections (another tab of the same browser) go too.
      if (body.person !== undefined) {
        for (const other of [...this.peers.values()]) {
          if (other.person === body.person) this.#remove(other);
        }
      }
    }
  }

  /**
   * After a rules event that may give or take the right to compose (host rights, the compose
   * grant, a new host link dropping others): those people here hear the draft as they now may.
   */
  #composeRightsMoved(body: RulesBody): void {
    const moved = body.do === "host"
      ? [body.peer]
      : body.do === "compose"
      ? [body.peer, ...body.drop ?? []]
      : body.do === "rekey"
      ? body.drop
      : [];
    for (const id of moved) {
      const peer = this.peers.get(id);
      if (peer) this.#drafts.greet(peer);
    }
  }

  /** Whether `peer` (a connection, or the same person on another) may compose shows now. */
  mayCompose(peer: Peer): boolean {
    return mayCompose(this.#source.rules, peer.id, peer.person);
  }

  /** A welcomed peer's edits to the show draft (see `DraftRelay.edit`). */
  draft(peer: Peer, edits: readonly DraftEdit[]): ErrorMessage | null {
    return this.#drafts.edit(peer, edits);
  }

  /** Draft edits another node of the scene took (a cluster), for the composers here. */
  draftFromElsewhere(by: string, edits: readonly DraftEdit[]): void {
    this.#drafts.fromElsewhere(by, edits);
  }

  /** Tells `peer` a host removed them, closes the connection (1008) and lets it leave. */
  #remove(peer: Peer): void {
    const refusal = removedRefusal();
    peer.send(JSON.stringify(refusal));
    peer.drop(CLOSE_REMOVED, refusal.message);
    this.leave(peer);
  }

  /** The hash of a connection's browser token here (see `Peer.person`), if it sent one. */
  personOf(peerId: string): string | undefined {
    return this.peers.get(peerId)?.person;
  }

  /** Whether `peerId` is a welcomed connection here. */
  present(peerId: string): boolean {
    return this.peers.get(peerId)?.welcomed === true;
  }

  /**
   * A welcomed peer's quick reaction: refused for people a host muted or removed (as their
   * launches are), else gathered into the scene's next `reactions` frame (see `ReactionTally`),
   * which goes to everyone welcomed here, the sender included, and to `onReactions` (the other
   * nodes of a cluster). Nothing is stamped or stored.
   */
  react(peer: Peer, emoji: Reaction): ErrorMessage | null {
    const refusal = refuseReaction(this.#source.rules, peer.id, peer.person);
    if (refusal) return refusal;
    this.#sendReactions(this.#reactions.add(peer.id, emoji, this.#deps.clock.monotonicMs()));
    return null;
  }

  /**
   * Sends what waited for the scene's budgets (the scheduler's pass calls it): the reactions
   * gathered when their frame is due, newcomers' joins and new names as presence tokens allow.
   */
  flush(): void {
    const nowMs = this.#deps.clock.monotonicMs();
    if (this.#reactions.pending) this.#sendReactions(this.#reactions.flush(nowMs));
    for (const peer of this.#joining) {
      if (this.#presence.take(nowMs) > 0) return;
      this.#joining.delete(peer);
      this.#announce(peer);
    }
    for (const [peer, was] of this.#renaming) {
      if (this.#presence.take(nowMs) > 0) return;
      this.#renaming.delete(peer);
      if (this.#audience.presenceRenameToOthers(peer, was)) this.#deps.onRename?.(peer, was);
    }
  }

  #sendReactions(frame: string | null): void {
    if (frame === null) return;
    this.#audience.broadcast(frame);
    this.#deps.onReactions?.(frame);
  }

  /**
   * Sends a newly minted host key to the one person it was made for, when connected here: the
   * only message that ever carries a key.
   */
  sendKey(peerId: string, key: string): void {
    const peer = this.peers.get(peerId);
    if (!peer || !peer.welcomed) return;
    peer.send(JSON.stringify({
      t: "host",
      key,
      message: "you are a host of this scene: keep this host key to steer it from any device",
    }));
  }

  /** Promises tick `n` to everyone welcomed (slow readers are dropped, see `Audience`). */
  heartbeat(n: number): void {
    this.#audience.heartbeat(`{"t":"tick","n":${n}}`, this.#dropped);
  }

  /** Sends `text` to everyone welcomed. */
  broadcast(text: string): void {
    this.#audience.broadcast(text);
  }

  /** Sets the status frame sent after every welcome (null: none) and tells everyone. */
  status(frame: string | null): void {
    this.#status = frame;
    if (frame !== null) this.#audience.broadcast(frame);
  }

  /** How many welcomed peers could report a hash for `tick` (welcomed at or before it). */
  eligible(tick: number): number {
    let n = 0;
    for (const peer of this.peers.values()) {
      if (peer.welcomed && peer.joinHorizon <= tick) n++;
    }
    return n;
  }

  /** Carries out desync verdicts on peers held here (others are ignored). */
  act(actions: readonly DesyncAction[]): void {
    const stats = this.#deps.stats;
    for (const action of actions) {
      const peer = this.peers.get(action.peer);
      if (!peer || peer.gone || !peer.welcomed) continue;
      if (action.kind === "resync") {
        stats.desyncs++;
        this.resync(peer, action.tick);
      } else {
        stats.desyncDisconnects++;
        this.#deps.log(
          `scene ${this.#deps.scene}: peer ${peer.id} disconnected: ${action.strikes} wrong ` +
            `state hashes (last at tick ${action.tick})`,
        );
        peer.drop(CLOSE_WRONG_HASHES, "your state hashes keep disagreeing with the scene's");
        this.leave(peer);
      }
    }
  }

  /** A fresh welcome after a hash disagreement. */
  resync(peer: Peer, tick: number): void {
    peer.send(JSON.stringify({
      t: "resync",
      tick,
      message: `your state hash at tick ${tick} differed from the scene's; rebuilding`,
    }));
    peer.sendChecked(JSON.stringify(this.#welcome(peer, undefined)));
  }

  /** Closes every connection (shutdown, or the scene closing here) without telling anyone. */
  close(code: number, reason: string): void {
    for (const peer of this.peers.values()) peer.drop(code, reason);
    this.peers.clear();
    this.#joining.clear();
    this.#renaming.clear();
    this.#audience.clear();
  }

  #welcome(peer: Peer, lastSeq: number | undefined): WelcomeMessage {
    const window = this.#source.welcomeWindow(lastSeq);
    if (!peer.welcomed) {
      peer.welcomed = true;
      this.#audience.add(peer);
    }
    peer.joinHorizon = window.horizon;
    const others = this.#deps.others;
    const announced = this.#audience.announced();
    return {
      t: "welcome",
      v: PROTOCOL_VERSION,
      scene: this.#deps.scene,
      seed: this.#source.seed,
      tickRate: TICK_RATE,
      windowTicks: WINDOW_TICKS,
      checkpointTicks: CHECKPOINT_TICKS,
      skyCap: this.#deps.skyCap,
      you: peer.info(),
      horizon: window.horizon,
      snapshot: publicSnapshot(window.snapshot),
      events: window.events.map(publicEvent),
      lastSeq: window.lastSeq,
      peers: others && others.size > 0 ? [...announced, ...others.list()] : announced,
      resumed: window.resumed,
    };
  }

  /**
   * A client remembers events the scene's log does not have: the database was emptied, replaced
   * or restored from an older copy (or a cluster lost its stream). Never passed over in silence:
   * logged, counted, and the client is told before the fresh welcome that follows.
   */
  #historyLost(peer: Peer, lastSeq: number): void {
    const have = this.#source.lastSeq;
    this.#deps.stats.historyLost++;
    const stored = have === 0 ? "no events" : `events up to seq ${have}`;
    // Logged once a minute at most: anyone can claim a seq far ahead in every hello.
    const nowMs = performance.now();
    if (nowMs - this.#historyLostLoggedMs >= HISTORY_LOST_LOG_MS) {
      const more = this.#historyLostQuiet > 0 ? ` (${this.#historyLostQuiet} more not logged)` : "";
      this.#historyLostLoggedMs = nowMs;
      this.#historyLostQuiet = 0;
      this.#deps.log(
        `error: scene ${this.#deps.scene}: a client remembers seq ${lastSeq} but storage has ` +
          `${stored} (database emptied, replaced or restored from an older copy?)${more}`,
      );
    } else this.#historyLostQuiet++;
    peer.send(JSON.stringify(errorMessage(
      "history_lost",
      `the server lost this scene's history after seq ${have} (you saw up to ${lastSeq}); ` +
        "starting from what it still has",
    )));
  }
}
