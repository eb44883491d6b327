/**
 * The deterministic world: settings, fireworks, particle gun, fountain and snow, advanced tick by
 * tick by the same events on every client. Its state at tick T depends only on the seed, the
 * snapshot at T − WINDOW_TICKS and the events since, which is what lets a late joiner catch up.
 */
import { eventCost } from "./budget.ts";
import { DEFAULT_SKY_CAP } from "./constants.ts";
import { SkyFullError, TickInPastError } from "./errors.ts";
import { Fireworks } from "./fireworks/mod.ts";
import { Fountain, FOUNTAIN_MAX_LIFE, type FountainStepMode } from "./fountain.ts";
import { Gun } from "./gun.ts";
import { CheckpointHash } from "./checkpoint_hash.ts";
import { Hasher } from "./hash.ts";
import { WordRecorder } from "./word_recorder.ts";
import { applySettings, initialSnapshot } from "./settings.ts";
import { applyRules, rulesOf } from "./rules.ts";
import { DERIVED_BY, type DerivedLaunch, sourcesOf } from "./derived.ts";
import { DerivedSchedule } from "./derived_schedule.ts";
import { foldShowEvent, pruneShows } from "./show_cues.ts";
import { Snow } from "./snow.ts";
import { type SceneEvent, type Settings, THEMES, type WorldSnapshot } from "./types.ts";
import type { FireworkView, SnowView, StreakView } from "./views.ts";

/**
 * How far past the sky's capacity the firework pool's arena may reach (ParticlePool): a new
 * launch takes a gap an ended one left (next fit), so a busy sky moves nothing; only when no gap
 * holds it are the gaps compacted (44 bytes a slot moved in shared/, the records copied on the
 * GPU, see client/render/firework_sparks.ts), and 1.25 keeps the buffer within ~1.25–1.6 × the
 * slots in use.
 */
export const FIREWORK_ARENA_SLACK = 1.25;

/** How to build a world. */
export interface WorldOptions {
  /** The scene seed: every random stream is keyed by it. */
  seed: number;
  /** Where to start (settings and accumulators at `snapshot.tick`); default: a new scene. */
  snapshot?: WorldSnapshot;
  /**
   * Most firework + gun particle slots; default DEFAULT_SKY_CAP. A stored event exceeding it
   * throws; a derived launch that would is skipped (see `derivedSkipped`).
   */
  capacity?: number;
}

/**
 * The whole simulated scene. `step()` never allocates.
 *
 * @example
 * ```ts
 * import { World } from "./world.ts";
 *
 * const world = new World({ seed: 42 });
 * world.apply({ seq: 1, tick: 0, by: "ana", body: { type: "launch", x: 0, z: 0 } });
 * world.advanceTo(120);
 * console.log(world.tick, world.hash()); // 120, the same hash in every engine
 * ```
 */
export class World {
  /** The scene seed. */
  readonly seed: number;
  /**
   * Render view of shells, trails, bursts and secondary bursts. Its arrays are replaced by
   * larger ones when the pool grows (on a launch): read them from the view each frame.
   */
  readonly fireworks: FireworkView;
  /** Render view of the gun's shots (arrays replaced on growth, like `fireworks`). */
  readonly gun: FireworkView;
  /** Render view of the fountain's water, drawn as streaks. */
  readonly fountain: StreakView;
  /** Render view of the snow, evaluated in closed form. */
  readonly snow: SnowView;

  readonly #capacity: number;
  readonly #fireworks: Fireworks;
  readonly #gun: Gun;
  readonly #fountain: Fountain;
  readonly #snow: Snow;
  readonly #hasher = new Hasher();
  /** The checkpoint hash under way (`beginHash`), if any. */
  #checkpoint: CheckpointHash | null = null;
  /** What a checkpoint hash mixes into and records its tail in (reused once it is done). */
  readonly #checkpointHasher = new Hasher();
  readonly #checkpointTail = new WordRecorder();
  /** Queued events sorted by (tick, seq); entries before #head are applied. */
  readonly #queue: SceneEvent[] = [];
  #head = 0;
  #snap: WorldSnapshot;
  #tick: number;
  /** The derived launches (seeded show, finale, cue lists) of the sources in force. */
  readonly #derived: DerivedSchedule;
  /**
   * Derived launches skipped because the sky could not hold them at their tick (the server's
   * ledger prices them ahead so that this stays 0; see docs/operations.md).
   */
  derivedSkipped = 0;
  /**
   * Called with each derived launch as it is applied (as a stamped event: negative seq,
   * `by: "show"`), e.g. for sound; not while catching up (`fastForwardTo`).
   */
  onDerived: ((event: SceneEvent) => void) | null = null;
  #announce = true;

  constructor(opts: WorldOptions) {
    this.seed = opts.seed >>> 0;
    this.#capacity = opts.capacity ?? DEFAULT_SKY_CAP;
    const snapshot = opts.snapshot ?? initialSnapshot();
    this.#snap = { ...snapshot, settings: { ...snapshot.settings } };
    this.#tick = snapshot.tick;
    // Closed form: a step spawns and ends launches but moves no spark; the sparks are evaluated
    // from their births when hashed or read (and by the GPU when drawn).
    this.#fireworks = new Fireworks(this.seed, this.#capacity, {
      closedForm: true,
      slack: FIREWORK_ARENA_SLACK,
    });
    this.#gun = new Gun(this.seed, this.#capacity);
    this.#fountain = new Fountain(this.seed);
    this.#snow = new Snow(this.seed);
    this.#snow.setClimate(this.#snap);
    this.#derived = new DerivedSchedule(this.seed);
    this.#derived.reset(sourcesOf(this.#snap), this.#tick);
    this.fireworks = this.#fireworks.settledView;
    this.gun = this.#gun.view;
    this.fountain = this.#fountain.view;
    this.snow = this.#snow;
  }

  /** The next tick to simulate; the state is "at tick". */
  get tick(): number {
    return this.#tick;
  }

  /** The settings in force. */
  get settings(): Readonly<Settings> {
    return this.#snap.settings;
  }

  /**
   * Queues an event; it applies at the start of `event.tick`, after events of that tick with a
   * lower seq. Throws TickInPastError (a RangeError) when `event.tick` is already simulated.
   */
  apply(event: SceneEvent): void {
    if (event.tick < this.#tick) throw new TickInPastError(event.tick, this.#tick);
    const queue = this.#queue;
    let i = queue.length;
    while (
      i > this.#head &&
      (queue[i - 1].tick > event.tick ||
        (queue[i - 1].tick === event.tick && queue[i - 1].seq > event.seq))
    ) i--;
    queue.splice(i, 0, event);
  }

  /** Applies this tick's events, simulates one tick and advances `tick`. */
  step(): void {
    this.#step(true, "full");
  }

  /**
   * One tick; catching up, fireworks are only expired (and set later by `jumpTo`). The tick's
   * derived launches apply first (with the sources in force before this tick's events), then
   * its stored events in seq order. `placedAt`: the tick a catch-up places the fountain at (it
   * need not spawn drops dead by then).
   */
  #step(withFireworks: boolean, fountain: FountainStepMode | null, placedAt = this.#tick): void {
    const tick = this.#tick;
    const queue = this.#queue;
    this.#announce = withFireworks;
    this.#derived.each(tick, this.#launchDerived);
    let sourcesMoved = false;
    while (this.#head < queue.length && queue[this.#head].tick === tick) {
      const event = queue[this.#head++];
      this.#applyNow(event);
      if (event.body.type !== "launch" && event.body.type !== "gun") sourcesMoved = true;
    }
    if (sourcesMoved) this.#derived.reset(sourcesOf(this.#snap), tick + 1);
    this.#trimQueue();
    if (withFireworks) this.#fireworks.step(tick);
    else this.#fireworks.skip(tick);
    this.#gun.step(tick);
    const settings = this.#snap.settings;
    if (fountain !== null) {
      this.#fountain.step(tick, settings.fountain, settings, fountain, placedAt);
    }
    this.#tick = tick + 1;
  }

  /** Steps until `this.tick === tick`. */
  advanceTo(tick: number): void {
    if (tick < this.#tick) {
      throw new TickInPastError(tick, this.#tick);
    }
    while (this.#tick < tick) this.step();
  }

  /**
   * Reaches the same state at `tick` as `advanceTo(tick)`, faster: fireworks are set once at
   * `tick` from their closed forms instead of being stepped, and the fountain is not simulated
   * before `tick − FOUNTAIN_MAX_LIFE` (all water spawned then is dead by `tick`); after that its
   * drops are spawned each tick and placed once, at `tick` (closed form too). States in
   * between are incomplete, so only call this when nobody looks before `tick` (late join).
   */
  fastForwardTo(tick: number): void {
    if (tick < this.#tick) throw new TickInPastError(tick, this.#tick);
    if (tick === this.#tick) return;
    const fountainFrom = tick - FOUNTAIN_MAX_LIFE;
    while (this.#tick < tick) {
      const at = this.#tick;
      this.#step(false, at < fountainFrom ? null : at === tick - 1 ? "full" : "spawn", tick - 1);
    }
    this.#fireworks.jumpTo(tick);
  }

  /**
   * The state hash at `tick`: 16 lowercase hex chars, identical in every JS engine. It covers
   * the seed, the tick, settings and wind accumulators, each live launch and volley in
   * application order, the fountain's live window and a sample of the snow.
   */
  hash(): string {
    // A checkpoint under way is finished first (the launches hash one at a time).
    this.#checkpoint?.finish();
    this.#checkpoint = null;
    const h = this.#hasher.reset();
    this.#hashHead(h);
    this.#fireworks.hashInto(h);
    this.#hashTail(h);
    return h.digest();
  }

  /**
   * Begins the hash at `tick` as a {@link CheckpointHash}, whose launches are evaluated a part
   * at a time by its `work` while the world steps on: the digest is the one `hash()` gives now.
   * One at a time: beginning another (or calling `hash()`) finishes this one first.
   */
  beginHash(): CheckpointHash {
    return this.#begin(false);
  }

  /** `beginHash` (every launch evaluated) or, `sampled`, `beginCheckpoint`. */
  #begin(sampled: boolean): CheckpointHash {
    this.#checkpoint?.finish();
    // The last checkpoint's hasher and recorder, once it is done (its digest is kept): a new
    // pair each second grew the tail's words again (the fountain's ~50k) and fed the collector.
    const h = this.#checkpointHasher.reset();
    this.#hashHead(h);
    const slots = sampled ? this.#fireworks.beginCheckpoint(h) : this.#fireworks.beginHash(h);
    const tail = this.#checkpointTail.reset();
    this.#hashTail(tail);
    this.#checkpoint = new CheckpointHash(this.#tick, slots, h, this.#fireworks, tail);
    return this.#checkpoint;
  }

  /**
   * The checkpoint hash at `tick`: what clients report and the server's desync judge computes
   * (docs/checkpoint.md). Up to CHECKPOINT_SAMPLE_SLOTS reserved firework slots it is `hash()`;
   * above, every launch's row (what its sparks are derived from) and a rotating sample of launches
   * evaluated in full, so that at a million sparks it costs a fraction of `hash()`.
   */
  checkpointHash(): string {
    return this.beginCheckpoint().finish();
  }

  /**
   * Begins `checkpointHash` at `tick` as a {@link CheckpointHash} (see `beginHash`): its digest
   * is the one `checkpointHash()` gives now.
   */
  beginCheckpoint(): CheckpointHash {
    return this.#begin(true);
  }

  /** The seed, the tick, the settings and the wind accumulators. */
  #hashHead(h: Hasher): void {
    const snap = this.#snap;
    const s = snap.settings;
    h.u32(this.seed).int(this.#tick);
    h.f64(s.snow).f64(s.windSpeed).f64(s.windDirection);
    h.u32(s.theme === "auto" ? THEMES.length : THEMES.indexOf(s.theme));
    h.u32(s.show ? 1 : 0).u32(s.fountain ? 1 : 0);
    h.f64(snap.windX).f64(snap.windZ).int(snap.windSince);
  }

  /** The gun, the fountain and the snow, after the launches. */
  #hashTail(h: Hasher): void {
    this.#gun.hashInto(h);
    this.#fountain.hashInto(h);
    this.#snow.hashInto(h, this.#tick);
  }

  /** Settings and accumulators at `this.tick`. */
  snapshot(): WorldSnapshot {
    const snap = pruneShows(this.#snap, this.#tick);
    return { ...snap, settings: { ...snap.settings }, tick: this.#tick };
  }

  /**
   * The fireworks as a closed-form system, for a renderer that evaluates sparks on the GPU: the
   * launches in the order they were applied (the pool's blocks; new ones come last), the shell's
   * birth state in the pool (origin, velocity, born, maxLife, style, flicker, size), each
   * break's frame (`burstFrame`), each block's slot ranges spawned since last taken (`births`,
   * for a consumer that reads births from the pool and empties them) and the version counters
   * that say when to copy everything again. Read only, apart from those lists.
   */
  get fireworkSystem(): Fireworks {
    return this.#fireworks;
  }

  /**
   * Live firework, gun and fountain particles, exactly: the fireworks are evaluated at the
   * current tick (O(their slots), like a hash), for tests and tools.
   */
  liveParticles(): number {
    return this.#fireworks.live() + this.#gun.live() + this.#fountain.live();
  }

  /**
   * Live particles as a display counts them, in work proportional to the launches: the gun's
   * and fountain's exactly, the fireworks' expected number (Fireworks.expectedLive).
   */
  expectedParticles(): number {
    return this.#fireworks.expectedLive() + this.#gun.live() + this.#fountain.live();
  }

  /**
   * Sizes particle storage up front for at least this many firework and gun slots, so a
   * rebuild does not grow it step by step. Purely an optimisation; the state is unaffected.
   */
  reserveSlots(fireworks: number, gun: number): void {
    this.#fireworks.pool.reserve(fireworks);
    this.#gun.pool.reserve(gun);
  }

  /** Firework + gun slots reserved by live events (what admission control counts). */
  usedSlots(): number {
    return this.#fireworks.used() + this.#gun.used();
  }

  #applyNow(event: SceneEvent): void {
    const body = event.body;
    switch (body.type) {
      case "settings":
        this.#snap = applySettings(this.#snap, event.tick, body.settings);
        this.#snow.setClimate(this.#snap);
        return;
      case "launch": {
        this.#admit(eventCost(this.seed, event).particles);
        this.#fireworks.launch(event.seq, event.tick, body, this.#snap.settings.theme);
        return;
      }
      case "gun":
        this.#admit(eventCost(this.seed, event).particles);
        this.#gun.fire(event.seq, event.tick, body.origin, body.direction);
        return;
      case "rules":
        // Host rules steer the server's admission and the page; of the particles, only the
        // countdown's finale (a derived source).
        this.#snap = { ...this.#snap, rules: applyRules(rulesOf(this.#snap), body) };
        return;
      case "show":
      case "show-cancel":
        // A show is a derived source: its cues launch by themselves (shared/show_cues.ts).
        this.#snap = foldShowEvent(this.#snap, event);
        return;
    }
  }

  /**
   * Applies a derived launch as a stamped event, or skips it when the sky cannot hold it (never
   * evicting: every page skips the same, see `derivedSkipped`).
   */
  #launchDerived = (launch: DerivedLaunch): void => {
    const event: SceneEvent = {
      seq: launch.seq,
      tick: launch.tick,
      by: DERIVED_BY,
      body: launch.body,
    };
    if (this.usedSlots() + eventCost(this.seed, event).particles > this.#capacity) {
      this.derivedSkipped++;
      return;
    }
    this.#fireworks.launch(event.seq, event.tick, launch.body, this.#snap.settings.theme);
    if (this.#announce) this.onDerived?.(event);
  };

  /** Never evicts: over capacity is a bug in admission control, so it fails loudly. */
  #admit(slots: number): void {
    const used = this.usedSlots();
    if (used + slots > this.#capacity) throw new SkyFullError(slots, used, this.#capacity);
  }

  /** Drops applied events once they are a large share of the queue (shifting, not allocating). */
  #trimQueue(): void {
    const head = this.#head;
    if (head < 256 || head * 2 < this.#queue.length) return;
    const queue = this.#queue;
    const rest = queue.length - head;
    for (let i = 0; i < rest; i++) queue[i] = queue[head + i];
    queue.length = rest;
    this.#head = 0;
  }
}

/** What a late joiner needs: the snapshot at the window's start and the events since. */
export interface WindowOptions {
  seed: number;
  /** The true snapshot at its tick (e.g. `advanceSnapshot(initialSnapshot(), events, T − W)`). */
  snapshot: WorldSnapshot;
  /** Events from the window; those before `snapshot.tick` are already in the snapshot. */
  events: readonly SceneEvent[];
  /** The tick to catch up to. */
  tick: number;
  capacity?: number;
}

/**
 * Rebuilds the present for a late joiner: starts at `snapshot.tick`, queues the window's events
 * and steps to `tick`. Equal (hash for hash) to a world stepped from tick 0 whenever the snapshot
 * is at least WINDOW_TICKS old or at tick 0.
 *
 * @example
 * ```ts
 * import { worldFromWindow } from "./world.ts";
 * import { advanceSnapshot, initialSnapshot } from "./settings.ts";
 * import type { SceneEvent } from "./types.ts";
 *
 * const events: SceneEvent[] = [
 *   { seq: 1, tick: 100, by: "ana", body: { type: "launch", x: 3, z: -4 } },
 *   { seq: 2, tick: 700, by: "bo", body: { type: "settings", settings: { snow: 1 } } },
 * ];
 * const tick = 900; // a late joiner's horizon; the window is [tick − WINDOW_TICKS, tick)
 * const snapshot = advanceSnapshot(initialSnapshot(), events, tick - 480);
 * const world = worldFromWindow({ seed: 42, snapshot, events, tick });
 * console.log(world.tick); // 900, in the same state as a world stepped from tick 0
 * ```
 */
export function worldFromWindow(o: WindowOptions): World {
  const world = new World({ seed: o.seed, snapshot: o.snapshot, capacity: o.capacity });
  const kept: SceneEvent[] = [];
  for (const event of o.events) {
    if (event.tick < o.snapshot.tick) continue;
    // A launch or volley whose particles are all dead by `tick` leaves no trace in the state
    // at `tick` (its block is gone, its random streams are its own): skip simulating it. Rules
    // stay (the countdown's finale is derived from them).
    const type = event.body.type;
    if ((type === "launch" || type === "gun") && eventCost(o.seed, event).endTick <= o.tick) {
      continue;
    }
    kept.push(event);
  }
  world.reserveSlots(peakSlots(o.seed, kept, "launch"), peakSlots(o.seed, kept, "gun"));
  for (const event of kept) world.apply(event);
  world.fastForwardTo(o.tick);
  return world;
}

/** Most slots events of one kind hold at once, each over the ticks [event.tick, endTick). */
function peakSlots(seed: number, events: readonly SceneEvent[], kind: "launch" | "gun"): number {
  const changes: [number, number][] = [];
  for (const event of events) {
    if (event.body.type !== kind) continue;
    const { particles, endTick } = eventCost(seed, event);
    changes.push([event.tick, particles], [endTick, -particles]);
  }
  // At equal ticks frees come first: a block ends before the step that adds the next one.
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let slots = 0, peak = 0;
  for (const [, delta] of changes) {
    slots += delta;
    if (slots > peak) peak = slots;
  }
  return peak;
}
