/**
 * The replay's own deterministic world, rebuilt from the stored log: a seek fetches the snapshot
 * at T − W and the events from there (one request), builds the world at T with `worldFromWindow`
 * (at most W ticks of work, the same as a late join), then plays on, fetching the next pages
 * ahead of the displayed tick. It never steps a tick whose events it may not have all of.
 */
import { CHECKPOINT_TICKS, WINDOW_TICKS } from "../../shared/constants.ts";
import type { SceneEvent } from "../../shared/types.ts";
import { type World, worldFromWindow } from "../../shared/world.ts";
import type { LogClient, LogPage } from "./log_client.ts";

/** The moment asked for is older than the kept log. */
export class MomentGoneError extends Error {
  readonly exactFromTick: number;
  constructor(tick: number, exactFromTick: number) {
    super(`tick ${tick} is no longer kept (the log rebuilds from tick ${exactFromTick})`);
    this.exactFromTick = exactFromTick;
  }
}

/** Checkpoint hashes remembered (ten minutes of them). */
const REMEMBERED_CHECKPOINTS = 600;
/** Fetch the next page when fewer than this many ticks of events are buffered ahead. */
const PREFETCH_TICKS = 600;
/** Further ahead than this, a jump rebuilds instead of stepping. */
const REBUILD_AHEAD_TICKS = WINDOW_TICKS + CHECKPOINT_TICKS;

/** What the driver needs from the page. */
export interface ReplayDriverOptions {
  log: LogClient;
  /** The live heartbeat horizon: every event with a lower tick is stored. */
  liveHorizon: () => number;
  /** A new replay world was built (bind it for drawing). */
  rebuilt: (world: World) => void;
  /** An event came due in the replay (for its sounds). */
  due?: (seed: number, event: SceneEvent) => void;
}

/**
 * Drives the replay world.
 *
 * @example
 * ```ts
 * const driver = new ReplayDriver({ log, liveHorizon: () => sim.horizon, rebuilt: bind });
 * await driver.seek(36000);
 * driver.advance(36060, 8, () => performance.now());
 * console.log(driver.hashAt(36060));
 * ```
 */
export class ReplayDriver {
  readonly #o: ReplayDriverOptions;
  #world: World | null = null;
  #seed = 0;
  #epoch = 0;
  #exactFrom = 0;
  /** Every tick below this has all its events applied or queued. */
  #safeTick = 0;
  /** Next seq to fetch. */
  #cursor = 1;
  /** The last page reached the end of the stored log (refetch from the cursor later). */
  #atEnd = false;
  #fetching = false;
  /** Bumped by every seek and stop: answers for an older one are dropped. */
  #generation = 0;
  /** Fetched events not yet due (seq order), for `due`. */
  #ahead: SceneEvent[] = [];
  readonly #checkpoints = new Map<number, string>();

  constructor(options: ReplayDriverOptions) {
    this.#o = options;
  }

  /** The replay world (null before the first seek completes). */
  get world(): World | null {
    return this.#world;
  }
  get seed(): number {
    return this.#seed;
  }
  /** The scene's epoch (wall ms of tick 0), known after the first page. */
  get epoch(): number {
    return this.#epoch;
  }
  /** The first tick the kept log rebuilds exactly. */
  get exactFromTick(): number {
    return this.#exactFrom;
  }

  /** The replay world's hash at a checkpoint tick it passed, if remembered. */
  hashAt(tick: number): string | undefined {
    return this.#checkpoints.get(tick);
  }

  /** Checkpoint ticks with a hash, oldest first. */
  checkpointTicks(): number[] {
    return [...this.#checkpoints.keys()];
  }

  /** Notes where the log starts (from any page). */
  learn(page: LogPage): void {
    this.#epoch = page.epoch;
    this.#seed = page.seed;
    this.#exactFrom = page.exactFromTick;
  }

  /**
   * Rebuilds the world at `tick` (clamped to what is stored). Resolves with the tick reached, or
   * null when a later seek superseded this one. Throws MomentGoneError for a pruned moment.
   */
  async seek(tick: number): Promise<number | null> {
    const generation = ++this.#generation;
    const horizon = this.#o.liveHorizon();
    const target = Math.max(0, Math.min(Math.floor(tick), horizon));
    let page: LogPage;
    try {
      page = await this.#o.log.window(target - WINDOW_TICKS);
    } catch (e) {
      if ((e as { code?: string }).code === "pruned") {
        const head = await this.#o.log.head();
        this.learn(head);
        throw new MomentGoneError(target, head.exactFromTick);
      }
      throw e;
    }
    if (generation !== this.#generation) return null;
    this.learn(page);
    if (target < page.exactFromTick) throw new MomentGoneError(target, page.exactFromTick);
    const events = [...page.events];
    let next = page.next;
    // A busy window may span several pages: the world at T needs every event before T.
    while (next !== null && events.at(-1)!.tick < target) {
      const more = await this.#o.log.page(next);
      if (generation !== this.#generation) return null;
      events.push(...more.events);
      next = more.next;
    }
    const safe = next === null ? Math.max(horizon, events.at(-1)?.tick ?? 0) : events.at(-1)!.tick;
    const at = Math.min(target, safe);
    const world = worldFromWindow({ seed: page.seed, snapshot: page.snapshot!, events, tick: at });
    this.#world = world;
    this.#safeTick = safe;
    this.#atEnd = next === null;
    this.#cursor = next ?? (events.at(-1)?.seq ?? page.lastSeq) + 1;
    this.#ahead = events.filter((event) => event.tick >= at);
    if (world.tick % CHECKPOINT_TICKS === 0) this.#record(world);
    this.#o.rebuilt(world);
    return at;
  }

  /**
   * Steps towards `targetTick` (never past what is fetched) for at most `budgetMs` of `clock`.
   * Far ahead, it rebuilds instead (asynchronously). Returns the world's tick.
   */
  advance(targetTick: number, budgetMs: number, clock: () => number): number {
    const world = this.#world;
    if (!world) return -1;
    const goal = Math.min(targetTick, this.#safeTick);
    if (goal - world.tick > REBUILD_AHEAD_TICKS) {
      void this.seek(goal).catch(() => {});
      return world.tick;
    }
    const started = clock();
    while (world.tick < goal) {
      this.#announce(world.tick);
      world.step();
      if (world.tick % CHECKPOINT_TICKS === 0) this.#record(world);
      if (clock() - started > budgetMs) break;
    }
    if (this.#safeTick - world.tick < PREFETCH_TICKS) void this.#fetchMore();
    return world.tick;
  }

  /** Forgets the world (back to live). */
  stop(): void {
    this.#generation++;
    this.#world = null;
    this.#ahead = [];
  }

  #announce(tick: number): void {
    const due = this.#o.due;
    let i = 0;
    while (i < this.#ahead.length && this.#ahead[i].tick <= tick) {
      if (due && this.#ahead[i].tick === tick) due(this.#seed, this.#ahead[i]);
      i++;
    }
    if (i > 0) this.#ahead.splice(0, i);
  }

  async #fetchMore(): Promise<void> {
    if (this.#fetching || !this.#world) return;
    const generation = this.#generation;
    const horizon = this.#o.liveHorizon();
    // At the end of the stored log nothing new can be there until the live horizon moves on.
    if (this.#atEnd && horizon <= this.#safeTick) return;
    this.#fetching = true;
    try {
      const page = await this.#o.log.page(this.#cursor);
      const world = this.#world;
      if (generation !== this.#generation || !world) return;
      for (const event of page.events) {
        if (event.tick < world.tick) {
          // Cannot happen with a server that keeps its horizon promise; rebuild to be safe.
          void this.seek(world.tick).catch(() => {});
          return;
        }
        world.apply(event);
        this.#ahead.push(event);
      }
      const last = page.events.at(-1);
      this.#atEnd = page.next === null;
      this.#cursor = page.next ?? (last ? last.seq + 1 : this.#cursor);
      this.#safeTick = page.next === null
        ? Math.max(this.#safeTick, horizon)
        : Math.max(this.#safeTick, last!.tick);
    } catch {
      // The next frame asks again.
    } finally {
      this.#fetching = false;
    }
  }

  #record(world: World): void {
    this.#checkpoints.set(world.tick, world.hash());
    if (this.#checkpoints.size > REMEMBERED_CHECKPOINTS) {
      this.#checkpoints.delete(this.#checkpoints.keys().next().value!);
    }
  }
}
