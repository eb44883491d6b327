/**
 * The reflector for one scene. It owns the scene's clock and event order: it stamps every input
 * with the next seq and the current tick, stores it, then broadcasts it; it sends heartbeats,
 * emits the seeded show, welcomes and resumes peers, and detects desyncs. It never simulates
 * particles: admission control uses the world's budgets from shared/budget.ts.
 */
import {
  CHECKPOINT_TICKS,
  PROTOCOL_VERSION,
  TICK_MS,
  TICK_RATE,
  WINDOW_TICKS,
} from "../shared/constants.ts";
import type { ErrorMessage, WelcomeMessage } from "../shared/protocol.ts";
import { advanceSnapshot } from "../shared/settings.ts";
import { eventCost } from "../shared/budget.ts";
import { showLaunches } from "../shared/show.ts";
import type { EventBody, SceneEvent, Settings, WorldSnapshot } from "../shared/types.ts";
import { SceneClock, type ServerClock } from "./clock.ts";
import { HashVotes } from "./desync.ts";
import { SkyLedger } from "./ledger.ts";
import type { Metrics } from "./metrics.ts";
import type { Peer } from "./peer.ts";
import { RecentEvents } from "./recent_events.ts";
import type { SceneRow, SceneStore } from "./store.ts";

/** Events stay in memory this many ticks beyond the window W, so reconnects can resume. */
export const RESUME_MARGIN_TICKS = 60 * TICK_RATE;

/** Past this many events in memory, the resume margin shrinks (the window W never does). */
export const MAX_RECENT_EVENTS = 100_000;

/** The stored snapshot moves forward once it lags T − W − margin by this many ticks. */
const SNAPSHOT_STEP_TICKS = 10 * TICK_RATE;

/** Progress (last promised tick, show cursor) is written at least this often (by `Rooms`). */
export const PERSIST_EVERY_MS = 250;

/**
 * On load the clock floor sits this far above the last stored tick: heartbeats sent after the
 * last progress write (at most PERSIST_EVERY_MS ago) can then never be undercut, even when the
 * wall clock stepped back across the restart.
 */
const FLOOR_MARGIN_TICKS = 30;

/** A heartbeat is skipped when the last promise (event or heartbeat) is at most this stale. */
const COVERED_TICKS = 1;

/** Every this many heartbeats, each socket's unsent backlog is checked against the cap. */
const BACKPRESSURE_EVERY = 4;

/** Show launches scheduled more than this many ticks before a (re)load are skipped, not flooded. */
const SHOW_CATCH_UP_TICKS = TICK_RATE;

/** Hash reports for ticks older than this (behind the horizon) are ignored. */
const HASH_MAX_AGE_TICKS = 30 * TICK_RATE;

/** What a room needs from the server. */
export interface RoomDeps {
  store: SceneStore;
  metrics: Metrics;
  clock: ServerClock;
  skyCap: number;
  maxPeers: number;
  desyncTimeoutMs: number;
  /** At most this many people per scene are announced (welcome list, join/leave presence). */
  presenceLimit: number;
  log: (msg: string) => void;
  /** Events kept in memory before the resume margin shrinks; default MAX_RECENT_EVENTS. */
  maxRecentEvents?: number;
}

/** A refusal to send back to one peer. */
export type Refusal = ErrorMessage;

/** A scene's live state. */
export class Room {
  readonly id: string;
  readonly seed: number;
  readonly clock: SceneClock;
  readonly peers = new Map<string, Peer>();
  /** Welcomed peers, the ones broadcasts go to (a dense array: the fan-out loop is hot). */
  readonly #audience: Peer[] = [];
  /**
   * The people announced to everyone. Announcing every join and leave to everyone costs
   * O(people²) frames and welcomes grow O(people); past `presenceLimit` newcomers are present
   * (and counted by the API) but not announced.
   */
  readonly #announced = new Set<Peer>();
  /** Monotonic ms since the room has had no peers (for unloading), or null. */
  emptySinceMs: number | null;

  readonly #deps: RoomDeps;
  readonly #recent = new RecentEvents();
  readonly #ledger: SkyLedger;
  readonly #votes: HashVotes;
  /** Stored snapshot: at or before T − W, covering every event not in #recent. */
  #snapshot: WorldSnapshot;
  /** Settings after every event sent so far. */
  #settings: Settings;
  #lastSeq: number;
  /** Highest tick broadcast as a promise (heartbeat n, or an event's tick). */
  #promised: number;
  /** First tick whose show launches are not emitted yet. */
  #showCursor: number;
  /** Heartbeats sent; every BACKPRESSURE_EVERY-th one checks the sockets' backlog. */
  #beats = 0;
  #persistedPromise = -1;
  #persistedCursor = -1;

  constructor(row: SceneRow, deps: RoomDeps) {
    this.id = row.id;
    this.seed = row.seed;
    this.#deps = deps;
    this.#snapshot = row.snapshot;
    this.#ledger = new SkyLedger(deps.skyCap);
    this.#votes = new HashVotes(deps.desyncTimeoutMs);
    this.emptySinceMs = deps.clock.monotonicMs();

    const last = deps.store.lastEvent(row.id);
    this.#lastSeq = last?.seq ?? 0;
    const lastEventTick = last?.tick ?? 0;
    const floor = Math.max(row.lastTick > 0 ? row.lastTick + FLOOR_MARGIN_TICKS : 0, lastEventTick);
    this.clock = new SceneClock(deps.clock, row.epoch, floor);
    const now = this.clock.tick();

    this.#settings = { ...row.snapshot.settings };
    for (const event of deps.store.eventsFromTick(row.id, row.snapshot.tick)) {
      this.#recent.push(event);
      this.#track(event);
      if (event.body.type !== "settings") {
        const cost = eventCost(this.seed, event);
        this.#ledger.restore(cost.particles, cost.endTick, now);
      }
    }
    this.#promised = Math.max(row.lastTick, lastEventTick);
    const resumeFrom = last ? lastEventTick + 1 : 0;
    this.#showCursor = Math.max(row.showCursor, resumeFrom, now - SHOW_CATCH_UP_TICKS);
  }

  /** Highest seq stamped so far (0 when none). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Settings after every event so far. */
  get settings(): Readonly<Settings> {
    return this.#settings;
  }

  /** Peers that got their welcome. */
  welcomedPeers(): Peer[] {
    return [...this.#audience];
  }

  /** Adds a fresh connection, or refuses it when the room is full. */
  admit(peer: Peer): Refusal | null {
    if (this.peers.size >= this.#deps.maxPeers) {
      return error("room_full", `this scene already has ${this.#deps.maxPeers} people in it`);
    }
    this.peers.set(peer.id, peer);
    this.emptySinceMs = null;
    return null;
  }

  /** Removes a peer (its socket closed or it was dropped) and tells the others. */
  leave(peer: Peer): void {
    if (this.peers.get(peer.id) !== peer) return;
    this.peers.delete(peer.id);
    this.#unwelcome(peer);
    this.#votes.forget(peer.id);
    if (this.peers.size === 0) this.emptySinceMs = this.#deps.clock.monotonicMs();
    if (this.#announced.delete(peer)) {
      this.#broadcast(JSON.stringify({ t: "presence", kind: "leave", peer: peer.info() }));
    }
  }

  /** Answers `hello`: a welcome (resumed when `lastSeq` is still in memory), then a presence join. */
  hello(peer: Peer, name: string | undefined, lastSeq: number | undefined): Refusal | null {
    if (peer.welcomed) return error("bad_message", "hello: already received on this connection");
    if (name !== undefined) peer.name = name;
    if (lastSeq !== undefined && lastSeq > this.#lastSeq) this.#historyLost(peer, lastSeq);
    const announce = this.#announced.size < this.#deps.presenceLimit;
    if (announce) this.#announced.add(peer);
    peer.send(JSON.stringify(this.#welcome(peer, lastSeq)));
    if (announce) {
      this.#broadcast(JSON.stringify({ t: "presence", kind: "join", peer: peer.info() }), peer);
    }
    return null;
  }

  /**
   * Stamps a client's launch, gun shot or settings change with the next seq and the current
   * tick, stores it and broadcasts it; or refuses it when the sky is full.
   */
  submit(peer: Peer, body: EventBody): Refusal | null {
    const now = this.clock.tick();
    this.#catchUpShow(now);
    const event: SceneEvent = { seq: this.#lastSeq + 1, tick: now, by: peer.id, body };
    if (body.type !== "settings") {
      const cost = eventCost(this.seed, event);
      const admission = this.#ledger.admit(cost.particles, cost.endTick, now);
      if (!admission.ok) {
        if (admission.retryAfterTicks === null) {
          return error(
            "sky_full",
            `this ${body.type} needs ${cost.particles} particles, more than the sky holds`,
          );
        }
        return {
          ...error(
            "sky_full",
            `the sky is full (${this.#ledger.cap} particles); try again shortly`,
          ),
          retryAfterMs: Math.ceil(admission.retryAfterTicks * TICK_MS),
        };
      }
    }
    this.#emit(event);
    this.#deps.metrics.eventsClient++;
    return null;
  }

  /** Answers `ping` with the server's fractional tick. */
  pong(peer: Peer, id: number, ct: number): void {
    peer.send(JSON.stringify({ t: "pong", id, ct, n: this.clock.exactTick() }));
  }

  /** Records a checkpoint hash; refuses ticks that are not checkpoints or not yet promised. */
  reportHash(peer: Peer, tick: number, hash: string): Refusal | null {
    if (tick % CHECKPOINT_TICKS !== 0) {
      return error("bad_message", `hash.tick: ${tick} is not a multiple of ${CHECKPOINT_TICKS}`);
    }
    if (tick > this.clock.tick()) {
      return error("bad_message", `hash.tick: ${tick} is in the future`);
    }
    // A peer welcomed at horizon H started from T − W: it cannot know earlier ticks' particles.
    if (tick < peer.joinHorizon || tick < this.#promised - HASH_MAX_AGE_TICKS) return null;
    this.#votes.report(tick, peer.id, hash, this.#deps.clock.monotonicMs());
    return null;
  }

  /**
   * One scheduler pass: emit due show launches, send the heartbeat unless an event already
   * covered this tick, and settle hash votes. (`Rooms` persists progress, batched.)
   */
  pass(nowMs: number): void {
    const now = this.clock.tick();
    this.#catchUpShow(now);
    // An event that went out at this tick or the one before already told everyone nearly as
    // much as a heartbeat would; in a busy scene that saves a frame per peer most passes.
    if (now - this.#promised > COVERED_TICKS) {
      this.#promised = now;
      const beat = `{"t":"tick","n":${now}}`;
      const audience = this.#audience;
      // Asking the runtime for each socket's backlog costs a call per peer; every few beats is
      // enough to keep the backlog bounded (between checks only a few periods' frames add up).
      if (this.#beats++ % BACKPRESSURE_EVERY === 0) {
        // Backwards, so that a dropped peer's swap-remove only moves an already visited one.
        for (let i = audience.length - 1; i >= 0; i--) {
          const peer = audience[i];
          peer.sendChecked(beat);
          // A dropped reader may never finish the close handshake: it leaves the room now.
          if (peer.gone) this.leave(peer);
        }
      } else {
        for (let i = 0; i < audience.length; i++) audience[i].send(beat);
      }
    }
    if (this.#votes.pending) this.#settleVotes(nowMs);
  }

  /** Writes progress and moves the stored snapshot forward when it lags far enough. */
  persist(now = this.clock.tick()): void {
    const store = this.#deps.store;
    if (this.#promised !== this.#persistedPromise || this.#showCursor !== this.#persistedCursor) {
      store.saveProgress(this.id, this.#promised, this.#showCursor);
      this.#persistedPromise = this.#promised;
      this.#persistedCursor = this.#showCursor;
    }
    let target = now - WINDOW_TICKS - RESUME_MARGIN_TICKS;
    let due = target - this.#snapshot.tick >= SNAPSHOT_STEP_TICKS;
    const maxRecent = this.#deps.maxRecentEvents ?? MAX_RECENT_EVENTS;
    if (this.#recent.length > maxRecent) {
      // A flood: give up part of the resume margin (never the window W) to bound memory.
      const overflowTick = this.#recent.tickFromEnd(maxRecent);
      target = Math.max(target, Math.min(now - WINDOW_TICKS, overflowTick));
      due = target > this.#snapshot.tick;
    }
    if (due) {
      this.#snapshot = advanceSnapshot(this.#snapshot, this.#recent.all(), target);
      store.saveSnapshot(this.id, this.#snapshot);
      this.#recent.dropBeforeTick(target);
    }
  }

  /** Closes every connection (server shutdown) and persists. */
  close(code: number, reason: string): void {
    for (const peer of this.peers.values()) peer.drop(code, reason);
    this.peers.clear();
    this.#audience.length = 0;
    this.#announced.clear();
    this.persist();
  }

  /** A fresh welcome after a hash disagreement. */
  resync(peer: Peer, tick: number): void {
    peer.send(JSON.stringify({
      t: "resync",
      tick,
      message: `your state hash at tick ${tick} differed from the majority; rebuilding`,
    }));
    peer.send(JSON.stringify(this.#welcome(peer, undefined)));
  }

  #welcome(peer: Peer, lastSeq: number | undefined): WelcomeMessage {
    const horizon = this.clock.tick();
    this.#catchUpShow(horizon);
    const from = Math.max(this.#snapshot.tick, horizon - WINDOW_TICKS);
    const snapshot = advanceSnapshot(this.#snapshot, this.#recent.all(), from);
    const first = this.#recent.firstSeq ?? this.#lastSeq + 1;
    const resumable = lastSeq !== undefined && lastSeq <= this.#lastSeq && lastSeq + 1 >= first;
    // Events at the horizon tick itself may already be out; they are included too, so the
    // welcome covers every seq up to lastSeq.
    const events = resumable ? this.#recent.fromSeq(lastSeq + 1) : this.#recent.fromTick(from);
    if (!peer.welcomed) {
      peer.welcomed = true;
      peer.audienceIndex = this.#audience.length;
      this.#audience.push(peer);
    }
    peer.joinHorizon = horizon;
    return {
      t: "welcome",
      v: PROTOCOL_VERSION,
      scene: this.id,
      seed: this.seed,
      tickRate: TICK_RATE,
      windowTicks: WINDOW_TICKS,
      checkpointTicks: CHECKPOINT_TICKS,
      skyCap: this.#deps.skyCap,
      you: peer.info(),
      horizon,
      snapshot,
      events,
      lastSeq: this.#lastSeq,
      peers: [...this.#announced].map((p) => p.info()),
      resumed: resumable,
    };
  }

  /**
   * A client remembers events the store does not have: the database was emptied, replaced or
   * restored from an older copy. Never passed over in silence: logged, counted, and the client is
   * told before the fresh welcome that follows.
   */
  #historyLost(peer: Peer, lastSeq: number): void {
    this.#deps.metrics.historyLost++;
    const stored = this.#lastSeq === 0 ? "no events" : `events up to seq ${this.#lastSeq}`;
    this.#deps.log(
      `error: scene ${this.id}: a client remembers seq ${lastSeq} but storage has ${stored} ` +
        `(database emptied, replaced or restored from an older copy?)`,
    );
    peer.send(JSON.stringify(error(
      "history_lost",
      `the server lost this scene's history after seq ${this.#lastSeq} (you saw up to ${lastSeq}); ` +
        "starting from what it still has",
    )));
  }

  /** Emits the show's launches scheduled in [cursor, now] while the show is on. */
  #catchUpShow(now: number): void {
    if (now < this.#showCursor) return;
    const from = this.#showCursor;
    this.#showCursor = now + 1;
    if (!this.#settings.show) return;
    for (const launch of showLaunches(this.seed, from, now + 1)) {
      // Settings can only have changed at ticks before the cursor, so the current settings are
      // the ones in force at the launch tick.
      const body: EventBody = this.#settings.theme === "auto"
        ? { type: "launch", x: launch.x, z: launch.z, theme: launch.theme }
        : { type: "launch", x: launch.x, z: launch.z };
      const event: SceneEvent = { seq: this.#lastSeq + 1, tick: launch.tick, by: "show", body };
      const cost = eventCost(this.seed, event);
      if (!this.#ledger.admit(cost.particles, cost.endTick, launch.tick).ok) {
        this.#deps.metrics.showSkippedSkyFull++;
        continue;
      }
      this.#emit(event);
      this.#deps.metrics.eventsShow++;
    }
  }

  /** Stores, remembers and broadcasts a stamped event (stored first: it must survive a crash). */
  #emit(event: SceneEvent): void {
    this.#deps.store.appendEvent(this.id, event);
    this.#recent.push(event);
    this.#track(event);
    if (event.tick > this.#promised) this.#promised = event.tick;
    this.#broadcast(JSON.stringify({ t: "event", ...event }));
  }

  #track(event: SceneEvent): void {
    this.#lastSeq = event.seq;
    if (event.body.type === "settings") Object.assign(this.#settings, event.body.settings);
  }

  #settleVotes(nowMs: number): void {
    const verdicts = this.#votes.decide(nowMs, (tick) => {
      let eligible = 0;
      for (const peer of this.peers.values()) {
        if (peer.welcomed && peer.joinHorizon <= tick) eligible++;
      }
      return eligible;
    });
    for (const verdict of verdicts) {
      if (verdict.tie) this.#deps.metrics.desyncTies++;
      for (const id of verdict.minority) {
        const peer = this.peers.get(id);
        if (!peer) continue;
        this.#deps.metrics.desyncs++;
        this.resync(peer, verdict.tick);
      }
    }
  }

  #broadcast(text: string, except?: Peer): void {
    const audience = this.#audience;
    for (let i = 0; i < audience.length; i++) {
      if (audience[i] !== except) audience[i].send(text);
    }
  }

  /** Takes a peer out of the audience (swap-remove: broadcast order carries no meaning). */
  #unwelcome(peer: Peer): void {
    const i = peer.audienceIndex;
    if (i < 0 || this.#audience[i] !== peer) return;
    const last = this.#audience.pop()!;
    if (last !== peer) {
      this.#audience[i] = last;
      last.audienceIndex = i;
    }
    peer.audienceIndex = -1;
  }
}

function error(code: ErrorMessage["code"], message: string): ErrorMessage {
  return { t: "error", code, message };
}
