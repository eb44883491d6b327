/**
 * What a scene keeps in memory to welcome people: a snapshot at or before T − W and every event
 * since, in seq order, with the settings they lead to. The sequencer (which stamps the events)
 * and a cluster edge (which reads them from the log) hold one each, so welcomes, resumes and the
 * window a desync computation needs are built by the same code in both modes.
 */
import { TICK_RATE, WINDOW_TICKS } from "../../shared/constants.ts";
import { applyRules, rulesOf } from "../../shared/rules.ts";
import { advanceSnapshot } from "../../shared/settings.ts";
import { foldShowEvent } from "../../shared/show_cues.ts";
import type { LiveShow, Rules, SceneEvent, Settings, WorldSnapshot } from "../../shared/types.ts";
import { RecentEvents } from "./recent_events.ts";

/**
 * Events stay in memory this many ticks beyond the window W, and the stored snapshot trails
 * T − W by as much, so a client that lost its connection for up to a minute (a phone changing
 * networks, a laptop lid) resumes instead of rebuilding, from a node that kept running or from
 * one that just loaded the scene (a restart, a cluster takeover, another edge). One minute of
 * events is small: the rate limits bound it, and MAX_RECENT_EVENTS caps it under a flood.
 */
export const RESUME_MARGIN_TICKS = 60 * TICK_RATE;

/**
 * Most events a resume sends. A client further behind gets a fresh welcome (snapshot + the
 * window W) instead: a `hello` with `lastSeq` 1 used to get every event in memory (24k events,
 * 2.4 MB, up to 100k), and 300 sockets that never read held 743 MiB of kernel buffers.
 */
export const MAX_RESUME_EVENTS = 2000;

/**
 * Past this many events in memory, the resume margin shrinks (the window W never does): a flood
 * of settings changes (which cost no sky room) could otherwise hold unbounded memory for a minute;
 * 100 000 small events are some tens of MB, far above any rate-limited scene's minute.
 */
export const MAX_RECENT_EVENTS = 100_000;

/**
 * The snapshot moves forward once it lags T − W − margin by this many ticks: advancing it costs
 * a pass over the events it covers (and, where stored, a write), so it goes in 10 s steps.
 */
export const SNAPSHOT_STEP_TICKS = 10 * TICK_RATE;

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

/** A snapshot and the events after it. */
export class EventWindow {
  readonly #recent = new RecentEvents();
  #snapshot: WorldSnapshot;
  #settings: Settings;
  #rules: Rules;
  #shows: readonly LiveShow[];
  #lastSeq: number;

  /**
   * @param snapshot covers every event with a lower tick than its own.
   * @param lastSeq the scene's last seq before the first event pushed (0 when unknown).
   */
  constructor(snapshot: WorldSnapshot, lastSeq = 0) {
    this.#snapshot = snapshot;
    this.#settings = { ...snapshot.settings };
    this.#rules = rulesOf(snapshot);
    this.#shows = snapshot.shows ?? [];
    this.#lastSeq = lastSeq;
  }

  /** Seq of the last event pushed (or the one given at construction). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Settings after every event pushed. */
  get settings(): Readonly<Settings> {
    return this.#settings;
  }

  /** Host rules after every event pushed (key hashes included: server only). */
  get rules(): Readonly<Rules> {
    return this.#rules;
  }

  /**
   * Shows after every event pushed (those over may linger until the next show event prunes
   * them; see `liveShowsAt`).
   */
  get shows(): readonly LiveShow[] {
    return this.#shows;
  }

  /** The snapshot events are kept from. */
  get snapshot(): WorldSnapshot {
    return this.#snapshot;
  }

  /** Events held. */
  get length(): number {
    return this.#recent.length;
  }

  /**
   * Replaces the snapshot of a scene nothing was stamped in yet (its creator's founding
   * snapshot); throws once anything was.
   */
  found(snapshot: WorldSnapshot): void {
    if (this.#lastSeq !== 0 || this.#recent.length > 0) {
      throw new Error("a scene is founded before anything is stamped in it");
    }
    this.#snapshot = snapshot;
    this.#settings = { ...snapshot.settings };
    this.#rules = rulesOf(snapshot);
    this.#shows = snapshot.shows ?? [];
  }

  /** Appends the next event (seq order, ticks never going back). */
  push(event: SceneEvent): void {
    this.#recent.push(event);
    this.#lastSeq = event.seq;
    if (event.body.type === "settings") Object.assign(this.#settings, event.body.settings);
    else if (event.body.type === "rules") this.#rules = applyRules(this.#rules, event.body);
    else if (event.body.type === "show" || event.body.type === "show-cancel") {
      this.#shows = foldShowEvent({ ...this.#snapshot, shows: [...this.#shows] }, event).shows ??
        [];
    }
  }

  /**
   * Says every event up to `seq` was pushed or is covered by the snapshot: a reader of the log that
   * meets an ownership marker (it names the last seq stamped before it) or that starts at a
   * snapshot with no event after it learns the scene's last seq without an event to push.
   */
  coverTo(seq: number): void {
    if (seq > this.#lastSeq) this.#lastSeq = seq;
  }

  /**
   * A welcome at `horizon`: the snapshot at horizon − W (or the held one, for a young scene) and
   * the events since; or, when `afterSeq` is still held, only the events after it. Events at the
   * horizon tick itself may already be out; they are included, so a welcome covers every seq up
   * to lastSeq.
   */
  welcome(horizon: number, afterSeq: number | undefined): WelcomeWindow {
    const from = Math.max(this.#snapshot.tick, horizon - WINDOW_TICKS);
    const snapshot = advanceSnapshot(this.#snapshot, this.#recent.all(), from);
    const first = this.#recent.firstSeq ?? this.#lastSeq + 1;
    const resumed = afterSeq !== undefined && afterSeq <= this.#lastSeq && afterSeq + 1 >= first &&
      this.#lastSeq - afterSeq <= MAX_RESUME_EVENTS;
    const events = resumed ? this.#recent.fromSeq(afterSeq + 1) : this.#recent.fromTick(from);
    return { horizon, snapshot, events, lastSeq: this.#lastSeq, resumed };
  }

  /**
   * The window that decides the state at `tick`: the snapshot at tick − W and the events in
   * [tick − W, tick); undefined when memory no longer reaches back that far (desync arbitration
   * then has nothing to compute from).
   */
  at(tick: number): { snapshot: WorldSnapshot; events: SceneEvent[] } | undefined {
    const from = Math.max(0, tick - WINDOW_TICKS);
    if (from < this.#snapshot.tick) return undefined;
    const snapshot = advanceSnapshot(this.#snapshot, this.#recent.all(), from);
    const events = this.#recent.fromTick(from).filter((event) => event.tick < tick);
    return { snapshot, events };
  }

  /**
   * Where the snapshot should move at `now`, or undefined when it need not move yet: T − W − the
   * resume margin, once that is a step ahead; under a flood (more than `maxRecent` events held)
   * as far as needed to hold about `maxRecent`, but never past T − W.
   */
  trimTarget(now: number, maxRecent = MAX_RECENT_EVENTS): number | undefined {
    let target = now - WINDOW_TICKS - RESUME_MARGIN_TICKS;
    let due = target - this.#snapshot.tick >= SNAPSHOT_STEP_TICKS;
    if (this.#recent.length > maxRecent) {
      const overflowTick = this.#recent.tickFromEnd(maxRecent);
      target = Math.max(target, Math.min(now - WINDOW_TICKS, overflowTick));
      due = target > this.#snapshot.tick;
    }
    return due ? target : undefined;
  }

  /**
   * Moves the snapshot to `target` and forgets the events before it; returns the new snapshot
   * and the seq of the last event it covers (the seq before the first event kept).
   */
  advance(target: number): { snapshot: WorldSnapshot; coveredSeq: number } {
    this.#snapshot = advanceSnapshot(this.#snapshot, this.#recent.all(), target);
    this.#recent.dropBeforeTick(target);
    const first = this.#recent.firstSeq;
    return {
      snapshot: this.#snapshot,
      coveredSeq: first === undefined ? this.#lastSeq : first - 1,
    };
  }
}
