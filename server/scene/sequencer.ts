/**
 * Stamping and ordering for one scene, in both modes: the scene's clock, the next seq, sky
 * admission (with the derived launches priced ahead), heartbeats and the events kept in memory
 * for welcomes and resumes. Every event is stamped here and appended to the {@link SceneLog};
 * only once it is durable is it handed to `onEvent` (the single node's fan-out). It knows nothing
 * about sockets or NATS.
 *
 * The seeded show, the countdown's finale and cue lists store nothing per launch: every page
 * derives their launches (shared/derived.ts). The sequencer only prices them: it keeps them
 * reserved in the sky ledger PLAN_LEAD_TICKS ahead, so a click is admitted only if it fits beside
 * them for its whole life, and a change of their sources (a settings or rules event) is refused
 * when launches it would add do not fit beside the clicks already flying. So every derived
 * launch fits when its tick comes, on every page (docs/operations.md, "Sky budget").
 *
 * The log may finish a write before `append` returns (the single node's SQLite store: the hot
 * path stays synchronous) or later (the cluster's JetStream log, which completes appends in
 * order). Either way sky room is reserved before the append and given back at once when the
 * write fails. After an asynchronous write failed the sequencer stamps nothing more: its owner
 * has lost the scene (`onFailure`).
 */
import { TICK_MS, WINDOW_TICKS } from "../../shared/constants.ts";
import { eventCost } from "../../shared/budget.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import {
  DERIVED_BY,
  type DerivedLaunch,
  derivedLaunches,
  derivedLaunchesOver,
  type DerivedSources,
  sameSources,
  sourcesOf,
} from "../../shared/derived.ts";
import { foundedSnapshot } from "../../shared/rules.ts";
import { advanceSnapshot } from "../../shared/settings.ts";
import type {
  ClientBody,
  EventBody,
  HostAction,
  Rules,
  SceneEvent,
  Settings,
  ShowBody,
  ShowCancelBody,
  ShowRequestBody,
  WorldSnapshot,
} from "../../shared/types.ts";
import { decideHost, refuseSubmit } from "./host_rules.ts";
import { hashHostKey, mintHostKey } from "./host_keys.ts";
import { SceneClock, type ServerClock } from "./clock.ts";
import { errorMessage } from "./errors.ts";
import { EventWindow, type WelcomeWindow } from "./event_window.ts";
import { SkyLedger } from "./ledger.ts";
import { decideAndPriceShow } from "./show_submit.ts";
import { refuseCancel } from "./show_stamp.ts";
import { FairShare } from "./fair_share.ts";
import { networkKey } from "./ratelimit.ts";
import type { LoadedScene, SceneLog, Written } from "./scene_log.ts";

export { MAX_RECENT_EVENTS, RESUME_MARGIN_TICKS, type WelcomeWindow } from "./event_window.ts";

/**
 * A heartbeat is skipped when the last promise (event or heartbeat) is at most this stale: the
 * event told everyone nearly as much, and in a busy scene that saves a frame per peer most passes.
 */
const COVERED_TICKS = 1;

/**
 * How far ahead derived launches are reserved in the sky ledger: at least the longest life of
 * anything admitted (W), so every click's whole life lies within what is planned when it is
 * admitted, and a derived launch is planned before any click alive at its tick was admitted.
 */
export const PLAN_LEAD_TICKS = WINDOW_TICKS;

/** Counters the sequencer updates (the node's metrics). */
export interface SequencerStats {
  eventsClient: number;
  /** Show launches stored as events: none since they are derived (kept for the metric's name). */
  eventsShow: number;
  /**
   * Derived launches the ledger could not place when planned (only when the derived sources
   * alone exceed the sky cap; every page skips them too).
   */
  showSkippedSkyFull: number;
}

/** A derived launch reserved in the ledger. */
interface Planned {
  tick: number;
  particles: number;
  endTick: number;
}

function derivedEvent(launch: DerivedLaunch): SceneEvent {
  return { seq: launch.seq, tick: launch.tick, by: DERIVED_BY, body: launch.body };
}

/** What a sequencer needs. */
export interface SequencerDeps {
  log: SceneLog;
  clock: ServerClock;
  stats: SequencerStats;
  skyCap: number;
  /** Events kept in memory before the resume margin shrinks; default MAX_RECENT_EVENTS. */
  maxRecentEvents?: number;
  /**
   * The highest tick it may stamp or promise now (the cluster owner's reserved horizon); no cap
   * without it.
   */
  horizonCap?: () => number;
  /** Receives every stamped event, once it is durable, in seq order. */
  onEvent?: (event: SceneEvent) => void;
  /** Sends a heartbeat: every event with tick < `n` has seq ≤ `seq` (and is durable). */
  onHeartbeat: (n: number, seq: number) => void;
  /** An asynchronous write failed: the sequencer has stopped stamping. */
  onFailure?: (error: unknown) => void;
}

/**
 * What `submit` returns: a refusal; null once the event is durable (a synchronous log); or a
 * promise that settles once it is (rejected when the write failed).
 */
export type Submitted = ErrorMessage | null | Promise<void>;

/**
 * What `host` returns: the outcome as for `submit` (null too when there was nothing to stamp),
 * and a key minted for `keyFor` (a grant, or the scene's creator), to be sent to that peer alone.
 */
export interface HostOutcome {
  outcome: Submitted;
  key?: string;
  keyFor?: string;
}

/** Stamps and orders one scene's events. */
export class SceneSequencer {
  readonly seed: number;
  readonly clock: SceneClock;
  readonly #deps: SequencerDeps;
  readonly #window: EventWindow;
  readonly #ledger: SkyLedger;
  readonly #fair: FairShare;
  readonly #cap: () => number;
  /** Highest tick broadcast as a promise (heartbeat n, or an event's tick). */
  #promised: number;
  /** Derived launches with a tick below this are reserved in the ledger (or were). */
  #planTo: number;
  /** Reserved derived launches, by tick, none long dead. */
  #planned: Planned[] = [];
  /** The derived sources the plan follows (those after every event stamped). */
  #sources: DerivedSources;
  /** The show cursor the scene was loaded with (no longer moved: nothing is stamped by it). */
  readonly #showCursor: number;
  /** Appends not yet durable (asynchronous logs): no heartbeat may pass them. */
  #inflight = 0;
  /** A heartbeat due while appends were in flight: sent once they are durable. */
  #beatAfter = -1;
  #failure: { error: unknown } | undefined;
  #persistedPromise = -1;
  #persistedCursor = -1;

  /** Restores the scene from what its log holds. */
  constructor(scene: LoadedScene, deps: SequencerDeps) {
    this.seed = scene.seed;
    this.#deps = deps;
    this.#cap = deps.horizonCap ?? (() => Infinity);
    this.#ledger = new SkyLedger(deps.skyCap);
    this.#fair = new FairShare(deps.skyCap);
    const floor = Math.max(scene.floor, scene.lastTick);
    this.clock = new SceneClock(deps.clock, scene.epoch, floor);
    const now = this.now();
    this.#window = new EventWindow(scene.snapshot, scene.lastSeq);
    for (const event of scene.events) {
      this.#window.push(event);
      if (event.body.type === "launch" || event.body.type === "gun") {
        const cost = eventCost(this.seed, event);
        this.#ledger.restore(cost.particles, cost.endTick, now);
        if (event.by !== "show") this.#fair.restore(event.by, cost.particles, cost.endTick, now);
      }
    }
    this.#promised = Math.max(scene.promised, scene.lastTick);
    this.#showCursor = scene.showCursor;
    this.#sources = sourcesOf(this.#head());
    // The derived launches still alive now, as the sources in force at their ticks made them,
    // and the plan from now on.
    const from = now - WINDOW_TICKS;
    for (const launch of derivedLaunchesOver(this.seed, scene.snapshot, scene.events, from, now)) {
      const cost = eventCost(this.seed, derivedEvent(launch));
      this.#ledger.restore(cost.particles, cost.endTick, now);
    }
    this.#planTo = now;
    this.#plan(now);
  }

  /** Highest seq stamped so far (0 when none). */
  get lastSeq(): number {
    return this.#window.lastSeq;
  }

  /** Highest tick promised so far (by an event or a heartbeat). */
  get promised(): number {
    return this.#promised;
  }

  /** Settings after every event so far. */
  get settings(): Readonly<Settings> {
    return this.#window.settings;
  }

  /** Host rules after every event so far (key hashes included: never send these as they are). */
  get rules(): Readonly<Rules> {
    return this.#window.rules;
  }

  /** Sky particle slots reserved now (stored events, and ones being written). */
  skyUsed(): number {
    return this.#ledger.used(this.now());
  }

  /**
   * Sky particle slots reserved at `tick` (now or later): stored events, and the derived launches
   * planned (PLAN_LEAD_TICKS ahead).
   */
  skyAt(tick: number): number {
    const now = this.now();
    this.#plan(now);
    this.#ledger.used(now);
    return this.#ledger.peak(Math.max(tick, now), Math.max(tick, now) + 1);
  }

  /** True once an asynchronous write failed (nothing more is stamped). */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** The tick to stamp: the clock, but never beyond the horizon cap. */
  now(): number {
    return Math.min(this.clock.tick(), this.#cap());
  }

  /**
   * Stamps `body` from `by` with the next seq and the current tick (after the derived launches
   * due) and appends it; or refuses it when the sky is full. The body is forwarded as it is.
   * `person`: the hash of the sender's browser token, when known (a muted person stays muted).
   */
  submit(by: string, body: ClientBody, address?: string, person?: string): Submitted {
    if (this.#failure) return Promise.reject(this.#failure.error);
    const now = this.now();
    this.#plan(now);
    const refused = refuseSubmit(this.#window.rules, by, body, person);
    if (refused) return refused;
    let stamped: EventBody;
    if (body.type === "show" || body.type === "show-cancel") {
      // A host's show: decided and priced whole before it is stamped (show_submit.ts).
      const decided = this.#decideShow(by, body, now);
      if ("t" in decided) return decided;
      stamped = decided;
    } else stamped = body;
    const event: SceneEvent = { seq: this.#window.lastSeq + 1, tick: now, by, body: stamped };
    let particles = 0;
    let endTick = 0;
    let undo = () => {};
    if (stamped.type === "settings" || stamped.type === "show" || stamped.type === "show-cancel") {
      // A settings change may move the derived launches (the show on or off, its theme); a
      // show or its cancel adds or ends a cue list.
      const replanned = this.#replan(event);
      if ("t" in replanned) return replanned;
      undo = replanned.undo;
    } else {
      const cost = eventCost(this.seed, event);
      const wait = this.#fair.admit(by, address, cost.particles, cost.endTick, now, person);
      if (wait !== null) {
        return errorMessage(
          "sky_full",
          `your share of the sky is full (launches from ${
            this.#fair.holders(now)
          } networks share ` +
            "it equally); try again shortly",
          Math.ceil(wait * TICK_MS),
        );
      }
      // Derived launches are reserved ahead: a click must fit beside them for its whole life.
      const admission = this.#ledger.admit(cost.particles, cost.endTick, now);
      if (!admission.ok) {
        this.#fair.release(by, address, cost.particles, cost.endTick, person);
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
      particles = cost.particles;
      endTick = cost.endTick;
    }
    let written: Written;
    try {
      // The sender's network spends its share of the storage (as the address budgets count it).
      const spender = address === undefined ? undefined : networkKey(address);
      written = this.#append(event, particles, endTick, spender);
    } catch (e) {
      if (particles > 0) this.#fair.release(by, address, particles, endTick, person);
      undo();
      throw e;
    }
    return written === undefined ? null : written;
  }

  /**
   * Checks a host action from `by` against the rules in force (see `decideHost`) and stamps what
   * it decides as a `rules` event, like a submit. `target`: what the receiving server knows of
   * the action's target (see `HostContext.person` and `HostContext.present`).
   */
  host(
    by: string,
    action: HostAction,
    target: { person?: string; present?: boolean } = {},
  ): HostOutcome {
    if (this.#failure) return { outcome: Promise.reject(this.#failure.error) };
    const now = this.now();
    this.#plan(now);
    const decision = decideHost(this.#window.rules, by, action, {
      now,
      wallMs: this.#deps.clock.wallMs(),
      person: target.person,
      present: target.present,
    });
    if ("refusal" in decision) return { outcome: decision.refusal };
    if (decision.body === null) return { outcome: null };
    const event: SceneEvent = { seq: this.#window.lastSeq + 1, tick: now, by, body: decision.body };
    const replanned = this.#replan(event);
    if ("t" in replanned) return { outcome: replanned };
    let written: Written;
    try {
      written = this.#append(event, 0, 0);
    } catch (e) {
      replanned.undo();
      throw e;
    }
    return { outcome: written ?? null, key: decision.key, keyFor: decision.keyFor };
  }

  /**
   * Makes `by` the host of a new scene nothing was stamped in yet (its creator): mints the key
   * and returns it with the founding snapshot the scene must be stored with (see
   * `foundedSnapshot`). Throws once anything was stamped.
   */
  found(by: string): { key: string; snapshot: WorldSnapshot } {
    const key = mintHostKey();
    const snapshot = foundedSnapshot(this.#window.snapshot, by, hashHostKey(key));
    this.#window.found(snapshot);
    return { key, snapshot };
  }

  /**
   * Reserves the derived launches up to `now` + PLAN_LEAD_TICKS in the ledger (they are not
   * stamped: every page derives them). After a gap (nobody watching, or a load) the launches of
   * the last window still alive are reserved as they are now.
   */
  #plan(now: number): void {
    const to = now + PLAN_LEAD_TICKS + 1;
    if (this.#planTo >= to || this.#failure) return;
    const from = Math.max(this.#planTo, now - WINDOW_TICKS);
    this.#planTo = to;
    const planned = this.#planned;
    let dead = 0;
    while (dead < planned.length && planned[dead].endTick <= now) dead++;
    if (dead > 64 || dead * 2 > planned.length) planned.splice(0, dead);
    for (const launch of derivedLaunches(this.seed, this.#sources, from, to)) {
      const cost = eventCost(this.seed, derivedEvent(launch));
      if (launch.tick < now) {
        this.#ledger.restore(cost.particles, cost.endTick, now);
        continue;
      }
      if (!this.#ledger.admit(cost.particles, cost.endTick, now, launch.tick).ok) {
        this.#deps.stats.showSkippedSkyFull++;
        continue;
      }
      planned.push({ tick: launch.tick, particles: cost.particles, endTick: cost.endTick });
    }
  }

  /**
   * Re-plans the derived launches after `event` (stamped at `now`, not yet appended) from
   * `now` + 1 on, when it changes their sources. Refuses it (sky_full) when a launch it adds
   * would not fit beside the clicks already admitted: derived launches are never skipped on
   * the pages, so their sources only change when they fit. Returns how to undo the re-plan
   * (when the append throws).
   */
  #replan(event: SceneEvent): { undo: () => void } | ErrorMessage {
    const now = event.tick;
    const next = sourcesOf(advanceSnapshot({ ...this.#head(), tick: now }, [event], now + 1));
    if (sameSources(this.#sources, next)) return { undo: () => {} };
    const ledger = this.#ledger;
    const kept: Planned[] = [], dropped: Planned[] = [], added: Planned[] = [];
    for (const p of this.#planned) (p.tick > now ? dropped : kept).push(p);
    for (const p of dropped) ledger.release(p.particles, p.endTick, now, p.tick);
    const restore = () => {
      for (const p of added) ledger.release(p.particles, p.endTick, now, p.tick);
      for (const p of dropped) ledger.restore(p.particles, p.endTick, now, p.tick);
    };
    for (const launch of derivedLaunches(this.seed, next, now + 1, this.#planTo)) {
      const cost = eventCost(this.seed, derivedEvent(launch));
      const admission = ledger.admit(cost.particles, cost.endTick, now, launch.tick);
      if (!admission.ok) {
        restore();
        return errorMessage(
          "sky_full",
          "the sky is too full of launches to start this show now; try again shortly",
          admission.retryAfterTicks === null
            ? undefined
            : Math.ceil(admission.retryAfterTicks * TICK_MS),
        );
      }
      added.push({ tick: launch.tick, particles: cost.particles, endTick: cost.endTick });
    }
    const before = { sources: this.#sources, planned: this.#planned };
    this.#sources = next;
    this.#planned = [...kept, ...added];
    return {
      undo: () => {
        restore();
        this.#sources = before.sources;
        this.#planned = before.planned;
      },
    };
  }

  /**
   * A show to stamp at `now` (start filled in, cues sorted, every cue priced at its tick beside
   * the sky's reservations and the other derived launches), a cancel of a show playing or to
   * come, or why not.
   */
  #decideShow(
    by: string,
    body: ShowRequestBody | ShowCancelBody,
    now: number,
  ): ShowBody | ShowCancelBody | ErrorMessage {
    const shows = this.#window.shows;
    if (body.type === "show-cancel") return refuseCancel(body, now, shows) ?? body;
    // Reserved at each tick from now + 1: the ledger without the derived launches planned after
    // now (decideAndPriceShow counts those as the sources will make them with the show).
    const until = this.#planTo + WINDOW_TICKS;
    const reserved = this.#ledger.profile(now + 1, until);
    for (const p of this.#planned) {
      if (p.tick <= now) continue;
      for (let t = Math.max(p.tick, now + 1); t < p.endTick && t < until; t++) {
        reserved[t - now - 1] -= p.particles;
      }
    }
    const decided = decideAndPriceShow({
      seed: this.seed,
      cap: this.#ledger.cap,
      now,
      seq: this.#window.lastSeq + 1,
      by,
      request: body,
      head: this.#head(),
      reservedAt: (tick) => tick < until ? reserved[tick - now - 1] : 0,
      reservedUntil: this.#planTo,
    });
    return "t" in decided ? decided : decided.body;
  }

  /** The settings and rules after every event stamped, as a snapshot (for `sourcesOf`). */
  #head(): WorldSnapshot {
    const window = this.#window;
    return {
      ...window.snapshot,
      settings: window.settings,
      rules: window.rules,
      shows: [...window.shows],
    };
  }

  /**
   * One scheduler pass: plans the derived launches ahead, then promises tick `now` by heartbeat
   * unless an event at this tick or the one before already did. While appends are not durable
   * yet the heartbeat waits for them (it would promise past them).
   */
  pass(now = this.now()): void {
    this.#plan(now);
    if (this.#failure) return;
    if (this.#inflight > 0) {
      this.#beatAfter = now;
      return;
    }
    this.#heartbeat(now);
  }

  #heartbeat(now: number): void {
    if (now - this.#promised <= COVERED_TICKS) return;
    this.#promised = now;
    this.#deps.onHeartbeat(now, this.#window.lastSeq);
  }

  /**
   * What a welcome at the current tick carries: the snapshot at horizon − W (or the stored one
   * for a young scene) and the events since; or, when `afterSeq` is still in memory, only the
   * events after it.
   */
  welcomeWindow(afterSeq: number | undefined): WelcomeWindow {
    const horizon = this.now();
    this.#plan(horizon);
    return this.#window.welcome(horizon, afterSeq);
  }

  /**
   * The window that decides the state at `tick` (snapshot at tick − W, events in [tick − W,
   * tick)); undefined when memory no longer reaches back that far.
   */
  windowAt(tick: number): { snapshot: WorldSnapshot; events: SceneEvent[] } | undefined {
    return this.#window.at(tick);
  }

  /**
   * Writes progress and moves the stored snapshot forward when it lags far enough. An `idle`
   * scene (nobody watching) writes only a promise not yet stored: an empty scene stores nothing.
   */
  persist(now = this.now(), idle = false): void {
    if (this.#failure) return;
    const log = this.#deps.log;
    const cursorMoved = this.#showCursor !== this.#persistedCursor;
    if (this.#promised !== this.#persistedPromise || (!idle && cursorMoved)) {
      this.#written(log.saveProgress(this.#promised, this.#showCursor));
      this.#persistedPromise = this.#promised;
      this.#persistedCursor = this.#showCursor;
    }
    if (idle) return;
    const target = this.#window.trimTarget(now, this.#deps.maxRecentEvents);
    if (target === undefined) return;
    const { snapshot, coveredSeq } = this.#window.advance(target);
    this.#written(log.saveSnapshot(snapshot, coveredSeq));
  }

  /**
   * Appends a stamped event whose sky room (`particles` until `endTick`) is reserved, and takes
   * it in; the reservation is given back at once when the write fails. Returns the write's
   * completion (see `Written`).
   */
  #append(
    event: SceneEvent,
    particles: number,
    endTick: number,
    spender?: string,
  ): Written {
    let written: Written;
    try {
      written = this.#deps.log.append(event, spender);
    } catch (e) {
      this.#ledger.release(particles, endTick, event.tick);
      throw e;
    }
    this.#window.push(event);
    if (event.tick > this.#promised) this.#promised = event.tick;
    if (written === undefined) {
      this.#stored(event);
      return;
    }
    this.#inflight++;
    return written.then(
      () => {
        this.#inflight--;
        this.#stored(event);
        if (this.#inflight === 0 && this.#beatAfter >= 0 && !this.#failure) {
          const beat = this.#beatAfter;
          this.#beatAfter = -1;
          this.#heartbeat(beat);
        }
      },
      (e) => {
        this.#inflight--;
        this.#ledger.release(particles, endTick, this.now());
        this.#fail(e);
        throw e;
      },
    );
  }

  #stored(event: SceneEvent): void {
    this.#deps.stats.eventsClient++;
    this.#deps.onEvent?.(event);
  }

  /** Watches an asynchronous progress or snapshot write. */
  #written(written: Written): void {
    written?.catch((e) => this.#fail(e));
  }

  #fail(error: unknown): void {
    if (this.#failure) return;
    this.#failure = { error };
    this.#deps.onFailure?.(error);
  }
}
