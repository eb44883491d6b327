/**
 * Owns the local copy of the deterministic World. It rebuilds the world from a `welcome`,
 * applies stamped events in order, and steps towards the render time without ever simulating a
 * tick the server has not released (the heartbeat horizon). It also reports state hashes at
 * checkpoint ticks and catches up deterministically after the tab was hidden.
 */
import { CHECKPOINT_TICKS, WINDOW_TICKS } from "../shared/constants.ts";
import type { WelcomeMessage } from "../shared/protocol.ts";
import { advanceSnapshot } from "../shared/settings.ts";
import type { SceneEvent, WorldSnapshot } from "../shared/types.ts";
import type { CheckpointHash } from "../shared/checkpoint_hash.ts";
import { workCheckpoint } from "./checkpoint_spread.ts";
import { type World, worldFromWindow } from "../shared/world.ts";

/** Why the local event stream can no longer be trusted. */
export type StreamFault = "gap" | "stale_event";

/** How many checkpoint hashes are remembered for `hashAt`. */
const REMEMBERED_CHECKPOINTS = 120;

/** Beyond this many ticks behind, rebuilding from the window beats stepping every tick. */
const FAST_FORWARD_TICKS = WINDOW_TICKS + CHECKPOINT_TICKS;

/** Callbacks of {@link Sim}. */
export interface SimHandlers {
  /** The world reached a checkpoint tick; report its hash. */
  checkpoint(tick: number, hash: string): void;
  /** A brand-new world replaced the old one (welcome, resync, fast-forward). */
  rebuilt(world: World): void;
}

/** The client's simulation driver. */
export class Sim {
  private current: World | null = null;
  private sceneSeed = 0;
  private skyCapacity: number | undefined;
  private releasedHorizon = 0;
  private lastSeenSeq = 0;
  /** Settings and accumulators at `base.tick`; with `log` it can rebuild any tick ≥ base.tick + W. */
  private base: WorldSnapshot | null = null;
  /** Received events with tick ≥ base.tick, in seq order. */
  private readonly log: SceneEvent[] = [];
  private readonly checkpoints = new Map<number, string>();
  private latest: SceneEvent | null = null;
  private checkpointEvery = CHECKPOINT_TICKS;
  /** The checkpoint hash under way (`World.beginCheckpoint`), finished over frames. */
  private pending: CheckpointHash | null = null;
  private readonly handlers: SimHandlers;

  constructor(handlers: SimHandlers) {
    this.handlers = handlers;
  }

  /** The world, or `null` before the first welcome. */
  get world(): World | null {
    return this.current;
  }

  /** Every event with tick below this has been received; never simulate at or after it. */
  get horizon(): number {
    return this.releasedHorizon;
  }

  /** Highest seq applied (0 before any). */
  get lastSeq(): number {
    return this.lastSeenSeq;
  }

  /** The latest event received (null before any). */
  get latestEvent(): SceneEvent | null {
    return this.latest;
  }

  /** Events received over roughly the last one or two windows, in seq order. */
  recentEvents(): readonly SceneEvent[] {
    return this.log;
  }

  /** The scene's seed (0 before the first welcome). */
  get seed(): number {
    return this.sceneSeed;
  }

  /** The world's hash at checkpoint tick `tick`, if this client passed it recently. */
  hashAt(tick: number): string | undefined {
    return this.checkpoints.get(tick);
  }

  /** Ticks reached that had a recorded checkpoint hash, oldest first. */
  checkpointTicks(): number[] {
    return [...this.checkpoints.keys()];
  }

  /**
   * Takes a welcome. A fresh one rebuilds the world at the horizon from the snapshot and the
   * window's events. A resumed one only carries the missed events; returns `"gap"` when they do not
   * continue the local stream, in which case the caller must ask for a fresh welcome.
   */
  welcome(message: WelcomeMessage): StreamFault | null {
    this.skyCapacity = message.skyCap;
    this.checkpointEvery = message.checkpointTicks;
    if (message.resumed) {
      // A resumed welcome only carries missed events: useless without the world they continue.
      if (!this.current || message.seed !== this.sceneSeed) return "gap";
      for (const event of message.events) {
        if (event.seq <= this.lastSeenSeq) continue;
        const fault = this.receiveEvent(event);
        if (fault) return fault;
      }
      if (message.lastSeq > this.lastSeenSeq) return "gap";
      this.heartbeat(message.horizon);
      return null;
    }
    this.sceneSeed = message.seed;
    this.base = message.snapshot;
    this.log.length = 0;
    for (const event of message.events) this.log.push(event);
    this.lastSeenSeq = message.lastSeq;
    this.releasedHorizon = message.horizon;
    this.checkpoints.clear();
    // A fresh welcome may be another scene's (or a resync's): nothing of the old world is sent.
    this.pending = null;
    this.rebuild(message.snapshot, message.events, message.horizon);
    return null;
  }

  /** A heartbeat: every event with tick < `horizon` has been received. */
  heartbeat(horizon: number): void {
    if (horizon > this.releasedHorizon) this.releasedHorizon = horizon;
  }

  /**
   * Applies one stamped event. Returns a fault when it does not directly follow the last seq, or
   * when it is stamped before a tick already simulated; nothing is applied then.
   */
  receiveEvent(event: SceneEvent): StreamFault | null {
    if (!this.current) return null;
    if (event.seq !== this.lastSeenSeq + 1) return "gap";
    if (event.tick < this.current.tick) return "stale_event";
    this.current.apply(event);
    // Event ticks never decrease in seq order, so an event at tick t also promises that every
    // event before t has arrived; the server skips heartbeats that such an event covered.
    this.heartbeat(event.tick);
    this.log.push(event);
    this.latest = event;
    this.lastSeenSeq = event.seq;
    return null;
  }

  /**
   * Simulates towards `targetTick` (the first tick whose state covers the render time), never
   * beyond the horizon, for at most `budgetMs` of wall time as measured by `clock`. Returns the
   * number of ticks stepped. Far behind (a hidden tab came back), it rebuilds from the window,
   * which yields the same state in at most W ticks of work.
   */
  advance(targetTick: number, budgetMs: number, clock: () => number): number {
    const world = this.current;
    if (!world) return 0;
    const goal = Math.min(targetTick, this.releasedHorizon);
    if (goal - world.tick > FAST_FORWARD_TICKS) {
      this.fastForward(goal);
      return 0;
    }
    const started = clock();
    let stepped = 0;
    while (world.tick < goal) {
      world.step();
      stepped++;
      if (world.tick % this.checkpointEvery === 0) this.beginCheckpoint(world);
      if (clock() - started > budgetMs) break;
    }
    // The checkpoint under way gets what is left of the frame's time, at least one slice and at
    // most a few ms, however many ticks were stepped (checkpoint_spread.ts).
    const pending = this.pending;
    if (pending) {
      const hash = workCheckpoint(pending, started + budgetMs, clock);
      if (hash !== null) this.recordCheckpoint(pending.tick, hash);
    }
    if (stepped > 0) this.trimLog(world.tick);
    return stepped;
  }

  /**
   * The world reached a checkpoint tick: its checkpoint hash is begun, and worked on in the time
   * left of each frame by `advance` (`checkpoint_spread.ts`; a small sky's is done in the first
   * slice); one still under way is finished first.
   */
  private beginCheckpoint(world: World): void {
    this.finishCheckpoint();
    this.pending = world.beginCheckpoint();
  }

  /** Finishes and reports the checkpoint hash under way, if any. */
  private finishCheckpoint(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    this.recordCheckpoint(pending.tick, pending.finish());
  }

  private recordCheckpoint(tick: number, hash: string): void {
    if (this.pending?.tick === tick) this.pending = null;
    this.checkpoints.set(tick, hash);
    if (this.checkpoints.size > REMEMBERED_CHECKPOINTS) {
      const oldest = this.checkpoints.keys().next().value;
      if (oldest !== undefined) this.checkpoints.delete(oldest);
    }
    this.handlers.checkpoint(tick, hash);
  }

  /** Rebuilds the world at `tick` from the stored base snapshot and log. */
  private fastForward(tick: number): void {
    if (!this.base) return;
    const snapshotTick = Math.max(this.base.tick, tick - WINDOW_TICKS);
    const snapshot = advanceSnapshot(this.base, this.log, snapshotTick);
    const events = this.log.filter((event) => event.tick >= snapshotTick);
    // A checkpoint under way is the old world's at its tick: finished there, it is still right.
    this.finishCheckpoint();
    this.rebuild(snapshot, events, tick);
    this.trimLog(tick);
  }

  private rebuild(snapshot: WorldSnapshot, events: readonly SceneEvent[], tick: number): void {
    const world = worldFromWindow({
      seed: this.sceneSeed,
      snapshot,
      events,
      tick: Math.max(tick, snapshot.tick),
      capacity: this.skyCapacity,
    });
    this.current = world;
    this.handlers.rebuilt(world);
  }

  /**
   * Rolls the base snapshot forward so the log only spans about two windows: memory stays
   * bounded and a fast-forward still has every event it needs.
   */
  private trimLog(tick: number): void {
    const base = this.base;
    if (!base || tick - base.tick < 2 * WINDOW_TICKS) return;
    const newBaseTick = tick - WINDOW_TICKS;
    this.base = advanceSnapshot(base, this.log, newBaseTick);
    let drop = 0;
    while (drop < this.log.length && this.log[drop].tick < newBaseTick) drop++;
    this.log.splice(0, drop);
  }
}
