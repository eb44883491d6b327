/**
 * Stamping and ordering for one scene: the scene's clock, the next seq, the show's cursor, sky
 * admission and the events kept in memory for welcomes and resumes. Every event, a client's or
 * the show's, is stamped here, appended to the {@link SceneLog} (durable first: it must survive
 * a crash) and then handed to `onEvent` for fan-out. It knows nothing about sockets.
 */
import { TICK_MS, TICK_RATE, WINDOW_TICKS } from "../../shared/constants.ts";
import { eventCost } from "../../shared/budget.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import { advanceSnapshot } from "../../shared/settings.ts";
import { showLaunchBody, showLaunches } from "../../shared/show.ts";
import type { EventBody, SceneEvent, Settings, WorldSnapshot } from "../../shared/types.ts";
import { SceneClock, type ServerClock } from "./clock.ts";
import { errorMessage } from "../errors.ts";
import { SkyLedger } from "./ledger.ts";
import { RecentEvents } from "./recent_events.ts";
import type { SceneLog } from "./scene_log.ts";

/** Events stay in memory this many ticks beyond the window W, so reconnects can resume. */
export const RESUME_MARGIN_TICKS = 60 * TICK_RATE;

/** Past this many events in memory, the resume margin shrinks (the window W never does). */
export const MAX_RECENT_EVENTS = 100_000;

/** The stored snapshot moves forward once it lags T − W − margin by this many ticks. */
const SNAPSHOT_STEP_TICKS = 10 * TICK_RATE;

/**
 * On load the clock floor sits this far above the last stored tick: heartbeats sent after the
 * last progress write (at most PERSIST_EVERY_MS ago) can then never be undercut, even when the
 * wall clock stepped back across the restart.
 */
const FLOOR_MARGIN_TICKS = 30;

/** A heartbeat is skipped when the last promise (event or heartbeat) is at most this stale. */
const COVERED_TICKS = 1;

/** Show launches scheduled more than this many ticks before a (re)load are skipped, not flooded. */
const SHOW_CATCH_UP_TICKS = TICK_RATE;

/** Where a scene stood when it was last saved. */
export interface SceneState {
  seed: number;
  /** Wall ms of tick 0. */
  epoch: number;
  /** Stored snapshot, at or before T − W. */
  snapshot: WorldSnapshot;
  /** Highest tick known to have been promised to clients. */
  lastTick: number;
  /** First tick whose show launches have not been emitted yet. */
  showCursor: number;
}

/** Counters the sequencer updates. */
export interface SequencerStats {
  eventsClient: number;
  eventsShow: number;
  showSkippedSkyFull: number;
}

/** What a sequencer needs. */
export interface SequencerDeps {
  log: SceneLog;
  clock: ServerClock;
  stats: SequencerStats;
  skyCap: number;
  /** Events kept in memory before the resume margin shrinks; default MAX_RECENT_EVENTS. */
  maxRecentEvents?: number;
  /** Receives every stamped event, after it is durable, in seq order. */
  onEvent: (event: SceneEvent) => void;
}

/** What a welcome carries about the scene's state. */
export interface WelcomeWindow {
  /** Every event with tick < horizon is in `events` or was sent before. */
  horizon: number;
  snapshot: WorldSnapshot;
  events: SceneEvent[];
  lastSeq: number;
  /** True when `events` are just the ones after the requested seq. */
  resumed: boolean;
}

/** Stamps and orders one scene's events. */
export class SceneSequencer {
  readonly seed: number;
  readonly clock: SceneClock;
  readonly #deps: SequencerDeps;
  readonly #recent = new RecentEvents();
  readonly #ledger: SkyLedger;
  /** Stored snapshot: at or before T − W, covering every event not in #recent. */
  #snapshot: WorldSnapshot;
  /** Settings after every event stamped so far. */
  #settings: Settings;
  #lastSeq: number;
  /** Highest tick broadcast as a promise (heartbeat n, or an event's tick). */
  #promised: number;
  /** First tick whose show launches are not emitted yet. */
  #showCursor: number;
  #persistedPromise = -1;
  #persistedCursor = -1;

  /** Restores the scene from `state` and the events its log holds from the snapshot on. */
  constructor(state: SceneState, deps: SequencerDeps) {
    this.seed = state.seed;
    this.#deps = deps;
    this.#snapshot = state.snapshot;
    this.#ledger = new SkyLedger(deps.skyCap);

    const last = deps.log.last();
    this.#lastSeq = last?.seq ?? 0;
    const lastEventTick = last?.tick ?? 0;
    const floor = Math.max(
      state.lastTick > 0 ? state.lastTick + FLOOR_MARGIN_TICKS : 0,
      lastEventTick,
    );
    this.clock = new SceneClock(deps.clock, state.epoch, floor);
    const now = this.clock.tick();

    this.#settings = { ...state.snapshot.settings };
    for (const event of deps.log.fromTick(state.snapshot.tick)) {
      this.#recent.push(event);
      this.#track(event);
      if (event.body.type !== "settings") {
        const cost = eventCost(this.seed, event);
        this.#ledger.restore(cost.particles, cost.endTick, now);
      }
    }
    this.#promised = Math.max(state.lastTick, lastEventTick);
    const resumeFrom = last ? lastEventTick + 1 : 0;
    this.#showCursor = Math.max(state.showCursor, resumeFrom, now - SHOW_CATCH_UP_TICKS);
  }

  /** Highest seq stamped so far (0 when none). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Highest tick promised so far (by an event or a heartbeat). */
  get promised(): number {
    return this.#promised;
  }

  /** Settings after every event so far. */
  get settings(): Readonly<Settings> {
    return this.#settings;
  }

  /**
   * Stamps `body` from `by` with the next seq and the current tick and emits it; or refuses it
   * when the sky is full. The body is forwarded as it is.
   */
  submit(by: string, body: EventBody): ErrorMessage | null {
    const now = this.clock.tick();
    this.catchUpShow(now);
    const event: SceneEvent = { seq: this.#lastSeq + 1, tick: now, by, body };
    if (body.type !== "settings") {
      const cost = eventCost(this.seed, event);
      const admission = this.#ledger.admit(cost.particles, cost.endTick, now);
      if (!admission.ok) {
        if (admission.retryAfterTicks === null) {
          return errorMessage(
            "sky_full",
            `this ${body.type} needs ${cost.particles} particles, more than the sky holds`,
          );
        }
        return errorMessage(
          "sky_full",
          `the sky is full (${this.#ledger.cap} particles); try again shortly`,
          Math.ceil(admission.retryAfterTicks * TICK_MS),
        );
      }
    }
    this.#emit(event);
    this.#deps.stats.eventsClient++;
    return null;
  }

  /** Emits the show's launches scheduled in [cursor, now] while the show is on. */
  catchUpShow(now: number): void {
    if (now < this.#showCursor) return;
    const from = this.#showCursor;
    this.#showCursor = now + 1;
    if (!this.#settings.show) return;
    for (const launch of showLaunches(this.seed, from, now + 1)) {
      // Settings can only have changed at ticks before the cursor, so the current settings are
      // the ones in force at the launch tick.
      const body: EventBody = showLaunchBody(launch, this.#settings.theme);
      const event: SceneEvent = { seq: this.#lastSeq + 1, tick: launch.tick, by: "show", body };
      const cost = eventCost(this.seed, event);
      if (!this.#ledger.admit(cost.particles, cost.endTick, launch.tick).ok) {
        this.#deps.stats.showSkippedSkyFull++;
        continue;
      }
      this.#emit(event);
      this.#deps.stats.eventsShow++;
    }
  }

  /**
   * Nobody is watching: the show's launches up to `now` are skipped, not emitted or stored (an
   * empty scene stops its show; the next visitor starts from the present).
   */
  skipShow(now: number): void {
    if (now >= this.#showCursor) this.#showCursor = now + 1;
  }

  /**
   * Promises tick `now` by heartbeat unless an event at this tick or the one before already did
   * (it told everyone nearly as much; in a busy scene that saves a frame per peer most passes).
   * True when the caller should send the heartbeat.
   */
  heartbeatDue(now: number): boolean {
    if (now - this.#promised <= COVERED_TICKS) return false;
    this.#promised = now;
    return true;
  }

  /**
   * What a welcome at the current tick carries: the snapshot at horizon − W (or the stored one
   * for a young scene) and the events since; or, when `afterSeq` is still in memory, only the
   * events after it.
   */
  welcomeWindow(afterSeq: number | undefined): WelcomeWindow {
    const horizon = this.clock.tick();
    this.catchUpShow(horizon);
    const from = Math.max(this.#snapshot.tick, horizon - WINDOW_TICKS);
    const snapshot = advanceSnapshot(this.#snapshot, this.#recent.all(), from);
    const first = this.#recent.firstSeq ?? this.#lastSeq + 1;
    const resumed = afterSeq !== undefined && afterSeq <= this.#lastSeq &&
      afterSeq + 1 >= first;
    // Events at the horizon tick itself may already be out; they are included too, so the
    // welcome covers every seq up to lastSeq.
    const events = resumed ? this.#recent.fromSeq(afterSeq + 1) : this.#recent.fromTick(from);
    return { horizon, snapshot, events, lastSeq: this.#lastSeq, resumed };
  }

  /**
   * The window that decides the state at `tick`: the snapshot at tick − W and the events in
   * [tick − W, tick); undefined when memory no longer reaches back that far (desync arbitration
   * then has nothing to compute from).
   */
  windowAt(tick: number): { snapshot: WorldSnapshot; events: SceneEvent[] } | undefined {
    const from = Math.max(0, tick - WINDOW_TICKS);
    if (from < this.#snapshot.tick) return undefined;
    const snapshot = advanceSnapshot(this.#snapshot, this.#recent.all(), from);
    const events = this.#recent.fromTick(from).filter((event) => event.tick < tick);
    return { snapshot, events };
  }

  /**
   * Writes progress and moves the stored snapshot forward when it lags far enough. An `idle`
   * scene (nobody watching) writes only a promise not yet stored: an empty scene stores nothing.
   */
  persist(now = this.clock.tick(), idle = false): void {
    const log = this.#deps.log;
    if (idle) {
      if (this.#promised !== this.#persistedPromise) {
        log.saveProgress(this.#promised, this.#showCursor);
        this.#persistedPromise = this.#promised;
        this.#persistedCursor = this.#showCursor;
      }
      return;
    }
    if (this.#promised !== this.#persistedPromise || this.#showCursor !== this.#persistedCursor) {
      log.saveProgress(this.#promised, this.#showCursor);
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
      log.saveSnapshot(this.#snapshot);
      this.#recent.dropBeforeTick(target);
    }
  }

  /** Logs, remembers and hands on a stamped event (logged first: it must survive a crash). */
  #emit(event: SceneEvent): void {
    this.#deps.log.append(event);
    this.#recent.push(event);
    this.#track(event);
    if (event.tick > this.#promised) this.#promised = event.tick;
    this.#deps.onEvent(event);
  }

  #track(event: SceneEvent): void {
    this.#lastSeq = event.seq;
    if (event.body.type === "settings") Object.assign(this.#settings, event.body.settings);
  }
}
