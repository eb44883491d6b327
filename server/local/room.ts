/**
 * The reflector for one scene, assembled from three parts that can each be read alone: the
 * {@link SceneSequencer} stamps and orders events (clock, seq, show, sky admission, memory of
 * recent events), the {@link SceneLog} makes them durable, and the {@link Audience} fans them
 * out. The room itself admits and welcomes connections, answers pings and settles desync votes.
 * It never simulates particles: admission control uses the world's budgets from shared/budget.ts.
 */
import {
  CHECKPOINT_TICKS,
  PROTOCOL_VERSION,
  TICK_RATE,
  WINDOW_TICKS,
} from "../../shared/constants.ts";
import type { ErrorMessage, WelcomeMessage } from "../../shared/protocol.ts";
import type { EventBody, Settings } from "../../shared/types.ts";
import { Audience } from "../scene/audience.ts";
import type { SceneClock, ServerClock } from "../scene/clock.ts";
import {
  DEFAULT_DESYNC_LIMITS,
  type DesyncAction,
  DesyncJudge,
  type DesyncLimits,
} from "../scene/desync.ts";
import type { HashArbiter } from "../scene/hash_arbiter.ts";
import { errorMessage } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import type { Peer } from "../scene/peer.ts";
import { type SceneLog, StoreSceneLog } from "../scene/scene_log.ts";
import { SceneSequencer } from "../scene/sequencer.ts";
import type { SceneRow, SceneStore } from "./store.ts";

export { MAX_RECENT_EVENTS, RESUME_MARGIN_TICKS } from "../scene/sequencer.ts";

/** Progress (last promised tick, show cursor) is written at least this often (by `Rooms`). */
export const PERSIST_EVERY_MS = 250;

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
  /** Computes true hashes when reports disagree; without one, disputes resync nobody. */
  arbiter?: HashArbiter;
  /** Overrides of the arbitration limits (DEFAULT_DESYNC_LIMITS). */
  desyncLimits?: Partial<DesyncLimits>;
}

/** Close code for a peer whose hashes keep disagreeing with the server's (policy violation). */
export const CLOSE_WRONG_HASHES = 1008;

/** A scene's live state. */
export class Room {
  readonly id: string;
  readonly peers = new Map<string, Peer>();
  /** Monotonic ms since the room has had no peers (for unloading), or null. */
  emptySinceMs: number | null;
  /**
   * Set while the scene exists only in memory: stores it, called at the first hello (a scene is
   * created when someone joins, not when a socket merely opens).
   */
  storeOnHello: (() => void) | undefined;

  readonly #deps: RoomDeps;
  readonly #sequencer: SceneSequencer;
  readonly #audience: Audience<Peer>;
  readonly #judge: DesyncJudge;
  /** A listener the heartbeat dropped for backpressure leaves at once (made once, not per pass). */
  readonly #dropped = (peer: Peer) => this.leave(peer);

  /** Loads the scene `row`; its events come from `log` (by default the store's). */
  constructor(
    row: SceneRow,
    deps: RoomDeps,
    log: SceneLog = new StoreSceneLog(deps.store, row.id),
  ) {
    this.id = row.id;
    this.#deps = deps;
    const arbiter = deps.arbiter;
    this.#judge = new DesyncJudge(
      { ...DEFAULT_DESYNC_LIMITS, timeoutMs: deps.desyncTimeoutMs, ...deps.desyncLimits },
      (tick) => {
        const window = this.#sequencer.windowAt(tick);
        if (!window || !arbiter) return undefined;
        return arbiter.hash({ seed: this.seed, tick, capacity: deps.skyCap, ...window });
      },
      deps.metrics,
    );
    this.#audience = new Audience(deps.presenceLimit);
    this.emptySinceMs = deps.clock.monotonicMs();
    const audience = this.#audience;
    this.#sequencer = new SceneSequencer(row, {
      log,
      clock: deps.clock,
      stats: deps.metrics,
      skyCap: deps.skyCap,
      maxRecentEvents: deps.maxRecentEvents,
      onEvent: (event) => audience.broadcast(JSON.stringify({ t: "event", ...event })),
    });
  }

  /** The scene's seed. */
  get seed(): number {
    return this.#sequencer.seed;
  }

  /** The scene's clock. */
  get clock(): SceneClock {
    return this.#sequencer.clock;
  }

  /** Highest seq stamped so far (0 when none). */
  get lastSeq(): number {
    return this.#sequencer.lastSeq;
  }

  /** Settings after every event so far. */
  get settings(): Readonly<Settings> {
    return this.#sequencer.settings;
  }

  /** Peers that got their welcome. */
  welcomedPeers(): Peer[] {
    return this.#audience.members();
  }

  /** Adds a fresh connection, or refuses it when the room is full. */
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
    this.#judge.forget(peer.id);
    if (this.peers.size === 0) this.emptySinceMs = this.#deps.clock.monotonicMs();
    this.#audience.remove(peer);
  }

  /** Answers `hello`: a welcome (resumed when `lastSeq` is still in memory), then a presence join. */
  hello(peer: Peer, name: string | undefined, lastSeq: number | undefined): ErrorMessage | null {
    if (peer.welcomed) {
      return errorMessage("bad_message", "hello: already received on this connection");
    }
    if (this.storeOnHello) {
      this.storeOnHello();
      this.storeOnHello = undefined;
    }
    if (name !== undefined) peer.name = name;
    if (lastSeq !== undefined && lastSeq > this.lastSeq) this.#historyLost(peer, lastSeq);
    const announced = this.#audience.announce(peer);
    peer.send(JSON.stringify(this.#welcome(peer, lastSeq)));
    if (announced) this.#audience.presenceJoin(peer);
    return null;
  }

  /**
   * Stamps a client's event body with the next seq and the current tick, stores it and
   * broadcasts it untouched; or refuses it when the sky is full.
   */
  submit(peer: Peer, body: EventBody): ErrorMessage | null {
    return this.#sequencer.submit(peer.id, body);
  }

  /** Answers `ping` with the server's fractional tick. */
  pong(peer: Peer, id: number, ct: number): void {
    peer.send(JSON.stringify({ t: "pong", id, ct, n: this.clock.exactTick() }));
  }

  /** Records a checkpoint hash; refuses ticks that are not checkpoints or not yet promised. */
  reportHash(peer: Peer, tick: number, hash: string): ErrorMessage | null {
    if (tick % CHECKPOINT_TICKS !== 0) {
      return errorMessage(
        "bad_message",
        `hash.tick: ${tick} is not a multiple of ${CHECKPOINT_TICKS}`,
      );
    }
    if (tick > this.clock.tick()) {
      return errorMessage("bad_message", `hash.tick: ${tick} is in the future`);
    }
    // A peer welcomed at horizon H started from T − W: it cannot know earlier ticks' particles.
    if (tick < peer.joinHorizon || tick < this.#sequencer.promised - HASH_MAX_AGE_TICKS) {
      return null;
    }
    this.#judge.report(tick, peer.id, hash, this.#deps.clock.monotonicMs());
    return null;
  }

  /**
   * One scheduler pass: emit due show launches, send the heartbeat unless an event already
   * covered this tick, and settle hash votes. (`Rooms` persists progress, batched.)
   */
  pass(nowMs: number): void {
    const sequencer = this.#sequencer;
    const now = sequencer.clock.tick();
    if (this.#audience.size === 0) {
      // Nobody watching: the show pauses (nothing is stamped or stored) and nothing is promised.
      sequencer.skipShow(now);
      return;
    }
    sequencer.catchUpShow(now);
    if (sequencer.heartbeatDue(now)) {
      this.#audience.heartbeat(`{"t":"tick","n":${now}}`, this.#dropped);
    }
    if (this.#judge.pending) this.#settleHashes(nowMs);
  }

  /** Writes progress and moves the stored snapshot forward when it lags far enough. */
  persist(now?: number): void {
    if (this.storeOnHello) return;
    this.#sequencer.persist(now, this.#audience.size === 0);
  }

  /** Closes every connection (server shutdown) and persists. */
  close(code: number, reason: string): void {
    for (const peer of this.peers.values()) peer.drop(code, reason);
    this.peers.clear();
    this.#audience.clear();
    this.persist();
  }

  /** A fresh welcome after a hash disagreement. */
  resync(peer: Peer, tick: number): void {
    peer.send(JSON.stringify({
      t: "resync",
      tick,
      message: `your state hash at tick ${tick} differed from the scene's; rebuilding`,
    }));
    peer.send(JSON.stringify(this.#welcome(peer, undefined)));
  }

  #welcome(peer: Peer, lastSeq: number | undefined): WelcomeMessage {
    const window = this.#sequencer.welcomeWindow(lastSeq);
    if (!peer.welcomed) {
      peer.welcomed = true;
      this.#audience.add(peer);
    }
    peer.joinHorizon = window.horizon;
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
      horizon: window.horizon,
      snapshot: window.snapshot,
      events: window.events,
      lastSeq: window.lastSeq,
      peers: this.#audience.announced(),
      resumed: window.resumed,
    };
  }

  /**
   * A client remembers events the store does not have: the database was emptied, replaced or
   * restored from an older copy. Never passed over in silence: logged, counted, and the client is
   * told before the fresh welcome that follows.
   */
  #historyLost(peer: Peer, lastSeq: number): void {
    this.#deps.metrics.historyLost++;
    const stored = this.lastSeq === 0 ? "no events" : `events up to seq ${this.lastSeq}`;
    this.#deps.log(
      `error: scene ${this.id}: a client remembers seq ${lastSeq} but storage has ${stored} ` +
        `(database emptied, replaced or restored from an older copy?)`,
    );
    peer.send(JSON.stringify(errorMessage(
      "history_lost",
      `the server lost this scene's history after seq ${this.lastSeq} (you saw up to ${lastSeq}); ` +
        "starting from what it still has",
    )));
  }

  #settleHashes(nowMs: number): void {
    const eligible = (tick: number) => {
      let n = 0;
      for (const peer of this.peers.values()) {
        if (peer.welcomed && peer.joinHorizon <= tick) n++;
      }
      return n;
    };
    this.#judge.decide(nowMs, eligible, (actions) => this.#act(actions));
  }

  /** Carries out the verdict on a disputed checkpoint (possibly after the pass: it is computed). */
  #act(actions: DesyncAction[]): void {
    const metrics = this.#deps.metrics;
    for (const action of actions) {
      const peer = this.peers.get(action.peer);
      if (!peer || peer.gone) continue;
      if (action.kind === "resync") {
        metrics.desyncs++;
        this.#judge.resynced(peer.id);
        this.resync(peer, action.tick);
      } else {
        metrics.desyncDisconnects++;
        this.#deps.log(
          `scene ${this.id}: peer ${peer.id} disconnected: ${action.strikes} wrong state hashes ` +
            `(last at tick ${action.tick})`,
        );
        peer.drop(CLOSE_WRONG_HASHES, "your state hashes keep disagreeing with the scene's");
        this.leave(peer);
      }
    }
  }
}
