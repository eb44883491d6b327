/**
 * The reflector for one scene on a single node, assembled from parts that can each be read alone:
 * the {@link SceneSequencer} stamps and orders events (clock, seq, show, sky admission, memory of
 * recent events) and writes them through the store's {@link StoreSceneLog}; the
 * {@link SceneRelay} admits, welcomes and fans out; the {@link DesyncJudge} settles hash reports.
 * It never simulates particles: admission control uses the world's budgets from shared/budget.ts.
 */
import type { ErrorMessage } from "../../shared/protocol.ts";
import type { ClientBody, HostAction, Rules, Settings, WorldSnapshot } from "../../shared/types.ts";
import type { SceneClock } from "../scene/clock.ts";
import { DEFAULT_DESYNC_LIMITS, DesyncJudge, type DesyncLimits } from "../scene/desync.ts";
import type { HashArbiter } from "../scene/hash_arbiter.ts";
import type { Metrics } from "../scene/metrics.ts";
import type { Peer } from "../scene/peer.ts";
import { type RelayBasics, relayBasics, SceneRelay } from "../scene/relay.ts";
import { RelayFront } from "../scene/relay_front.ts";
import { SceneSequencer } from "../scene/sequencer.ts";
import { StoreSceneLog } from "./store_log.ts";
import type { SceneRow, SceneStore } from "./store.ts";

export { MAX_RECENT_EVENTS, RESUME_MARGIN_TICKS } from "../scene/sequencer.ts";

/** Progress (last promised tick, show cursor) is written at least this often (by `Rooms`). */
export const PERSIST_EVERY_MS = 250;

/** What a room needs from the server: its relay's basics, and the store and judge's. */
export interface RoomDeps extends RelayBasics {
  store: SceneStore;
  metrics: Metrics;
  desyncTimeoutMs: number;
  /** Events kept in memory before the resume margin shrinks; default MAX_RECENT_EVENTS. */
  maxRecentEvents?: number;
  /** Computes true hashes when reports disagree; without one, disputes resync nobody. */
  arbiter?: HashArbiter;
  /** Overrides of the arbitration limits (DEFAULT_DESYNC_LIMITS). */
  desyncLimits?: Partial<DesyncLimits>;
}

/** A scene's live state. */
export class Room extends RelayFront {
  readonly id: string;
  /**
   * Set while the scene exists only in memory: stores it, called at the first hello (a scene is
   * created when someone joins, not when a socket merely opens).
   */
  storeOnHello: ((snapshot: WorldSnapshot) => void) | undefined;

  readonly #deps: RoomDeps;
  readonly #sequencer: SceneSequencer;
  readonly #relay: SceneRelay;
  readonly #judge: DesyncJudge;

  /** Loads the scene `row` and its events from the store. */
  constructor(row: SceneRow, deps: RoomDeps) {
    super();
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
    const log = new StoreSceneLog(deps.store, row.id);
    const sequencer = new SceneSequencer(log.load(row), {
      log,
      clock: deps.clock,
      stats: deps.metrics,
      skyCap: deps.skyCap,
      maxRecentEvents: deps.maxRecentEvents,
      onEvent: (event) => relay.event(event),
      onHeartbeat: (n) => relay.heartbeat(n),
    });
    const relay = new SceneRelay({
      ...relayBasics(row.id, deps),
      onHash: (peer, tick, hash) =>
        this.#judge.report(tick, peer.id, hash, deps.clock.monotonicMs()),
      onLeave: (peer) => this.#judge.forget(peer.id),
      // The right to compose follows the person to this connection (refused: nothing to do).
      onComposerBack: (peer) => void this.host(peer, { do: "compose", peer: peer.id, on: true }),
    }, {
      seed: sequencer.seed,
      get lastSeq() {
        return sequencer.lastSeq;
      },
      get horizon() {
        return sequencer.now();
      },
      welcomeWindow: (afterSeq) => sequencer.welcomeWindow(afterSeq),
      exactTick: () => sequencer.clock.exactTick(),
      get rules() {
        return sequencer.rules;
      },
    });
    this.#sequencer = sequencer;
    this.#relay = relay;
  }

  /** This front's relay (`RelayFront`'s calls go to it). */
  protected get relay(): SceneRelay {
    return this.#relay;
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

  /** Host rules after every event so far (key hashes included: never send these as they are). */
  get rules(): Readonly<Rules> {
    return this.#sequencer.rules;
  }

  /** Settings after every event so far. */
  get settings(): Readonly<Settings> {
    return this.#sequencer.settings;
  }

  /** Answers `hello` (storing a new scene first): a welcome, then a presence join. */
  hello(peer: Peer, name: string | undefined, lastSeq: number | undefined): ErrorMessage | null {
    let key: string | undefined;
    if (this.storeOnHello && !peer.welcomed) {
      // Whoever creates a scene is its host: it is stored with them as host, the key goes to
      // them alone.
      const founded = this.#sequencer.found(peer.id);
      key = founded.key;
      this.storeOnHello(founded.snapshot);
      this.storeOnHello = undefined;
    }
    const refusal = this.#relay.hello(peer, name, lastSeq);
    if (key !== undefined && refusal === null) this.#relay.sendKey(peer.id, key);
    return refusal;
  }

  /**
   * Stamps a client's event body with the next seq and the current tick, stores it and
   * broadcasts it untouched; or refuses it when the sky is full.
   */
  submit(peer: Peer, body: ClientBody): ErrorMessage | null {
    // The store's log writes before it returns: never a promise here.
    return this.#sequencer.submit(peer.id, body, peer.address, peer.person) as ErrorMessage | null;
  }

  /** Checks and stamps a host action (see `decideHost`); a minted key goes to its peer alone. */
  host(peer: Peer, action: HostAction): ErrorMessage | null {
    const target = "peer" in action
      ? { person: this.#relay.personOf(action.peer), present: this.#relay.present(action.peer) }
      : {};
    const { outcome, key, keyFor } = this.#sequencer.host(peer.id, action, target);
    if (key !== undefined && keyFor !== undefined) this.#relay.sendKey(keyFor, key);
    return outcome as ErrorMessage | null;
  }

  /**
   * One scheduler pass: plan the derived launches ahead, send the heartbeat unless an event already
   * covered this tick, and settle hash votes. (`Rooms` persists progress, batched.)
   */
  pass(nowMs: number): void {
    const sequencer = this.#sequencer;
    if (this.#relay.audience === 0) {
      // Nobody watching: nothing is promised (the show is derived by pages: nothing to store).
      return;
    }
    sequencer.pass();
    this.#relay.flush();
    if (this.#judge.pending) {
      const relay = this.#relay;
      this.#judge.decide(nowMs, (tick) => relay.eligible(tick), (actions) => relay.act(actions));
    }
  }

  /** Writes progress and moves the stored snapshot forward when it lags far enough. */
  persist(now?: number): void {
    if (this.storeOnHello) return;
    this.#sequencer.persist(now, this.#relay.audience === 0);
  }

  /** Closes every connection (server shutdown) and persists. */
  close(code: number, reason: string): void {
    this.#relay.close(code, reason);
    this.persist();
  }
}
