/**
 * Fireworks: a rising shell that drops a trail of warm sparks along its path every tick
 * (rise.ts), then one to three bursts of its kind (burst.ts): sparks in the kind's shape, some of
 * which split at a delay (split.ts) and some of which drop embers along their path (embers.ts).
 * Each launch owns one dense block of the pool, sized by its plan (block.ts).
 *
 * Motion is closed form (firework_motion.ts): a particle's position is a function of its spawn
 * point, spawn velocity and age. Stepping evaluates it tick by tick; `jumpTo` evaluates it at any
 * tick directly (jump.ts), bit for bit the same, which makes a late join cost O(particles), not
 * O(steps). In closed-form mode a step only marks births and ends launches (schedule.ts); the
 * state is evaluated when read (closed_form.ts, births.ts) or hashed (launch_hash.ts).
 *
 * @example
 * ```ts
 * import { Fireworks } from "./fireworks.ts";
 * const fw = new Fireworks(7, 50_000);
 * fw.launch(1, 0, { x: 0, z: 0, y: 35, kind: "willow" }, "auto");
 * for (let t = 0; t < 200; t++) fw.step(t);
 * fw.live(); // sparks and embers in the sky
 * ```
 */
import { BlockSystem } from "../block_system.ts";
import type { Hasher } from "../hash.ts";
import type { ThemeSetting } from "../types.ts";
import type { FireworkView } from "../views.ts";
import { type FireworkBlock, type LaunchSpec, newBlock, touch } from "./block.ts";
import { burstFrame, writeBursts } from "./burst.ts";
import { evaluate, evaluateInto, integrateRange, raiseLoIn } from "./closed_form.ts";
import { writeBirths } from "./births.ts";
import { expectedIn } from "./expected.ts";
import { jumpBlock } from "./jump.ts";
import { CHECKPOINT_SAMPLE_SLOTS, LaunchHash } from "./launch_hash.ts";
import { advanceBlock, catchUpAll, nextDue, schedule } from "./schedule.ts";
import { type FireworksOptions, paint, Sky, velocityAt } from "./sky.ts";
import { closeWindow, openWindow, placeShell } from "./window.ts";

/** All fireworks of a world. */
export class Fireworks extends BlockSystem<FireworkBlock> {
  /** Closed-form mode (see FireworksOptions). */
  readonly closedForm: boolean;
  readonly #sky: Sky;
  readonly #hash: LaunchHash;
  /** Past this many allocated slots the pool keeps its births in a window (FireworksOptions). */
  #windowAbove: number;
  /** Bumped when `jumpTo` rewrites every launch: a mirror of the slots must copy them again. */
  rebuilds = 0;
  /**
   * A view whose arrays are evaluated at the current tick when read (closed form: each read of
   * an array first brings the pool to the current tick, once per tick).
   */
  readonly settledView: FireworkView & {
    readonly origin: Float32Array;
    readonly style: Float32Array;
    readonly blocks: readonly FireworkBlock[];
  };

  constructor(seed: number, capacity: number, options: FireworksOptions = {}) {
    super(seed, capacity, options.slack ?? 1, options.closedForm ?? false);
    this.closedForm = options.closedForm ?? false;
    // Closed form keeps no births per slot in a big sky (window.ts): a launch's births are
    // written when read and forgotten.
    this.#windowAbove = this.closedForm
      ? options.windowBirthsAbove ?? CHECKPOINT_SAMPLE_SLOTS
      : Infinity;
    this.#sky = new Sky(seed, this.pool, this.closedForm);
    this.#hash = new LaunchHash(this.#sky);
    const pool = this.pool;
    const sync = () => this.sync();
    const kept = () => this.keepBirths();
    this.settledView = {
      get count() {
        return pool.count;
      },
      get position() {
        sync();
        return pool.position;
      },
      get previous() {
        sync();
        return pool.previous;
      },
      get color() {
        sync();
        return pool.color;
      },
      get size() {
        kept();
        return pool.size;
      },
      get flicker() {
        kept();
        return pool.flicker;
      },
      get origin() {
        kept();
        return pool.origin;
      },
      get style() {
        kept();
        return pool.style;
      },
      get blocks() {
        return pool.blocks;
      },
    };
  }

  /** The tick the state is at. */
  get now(): number {
    return this.#sky.now;
  }

  /**
   * Live particles. Stepping counts them as they spawn and die. Closed form counts no death
   * (that took one lifetime draw per spark born): this evaluates every launch at the current
   * tick, O(slots) like a hash, for tests, checks and tools; a display reads `expectedLive`.
   */
  override live(): number {
    const sky = this.#sky;
    if (!this.closedForm) return sky.liveCount;
    catchUpAll(sky);
    const now = sky.now, blocks = this.pool.blocks;
    let live = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      const life = evaluate(sky, block, now).life;
      for (let k = 0, n = block.hi - block.lo; k < n; k++) if (life[k] > 0) live++;
    }
    return live;
  }

  /**
   * The expected number of live particles, in work proportional to the launches (their rise
   * ticks, breaks, splits and ember waves), not to the sparks: what a display shows each frame
   * (expected.ts). Stepping: the exact count.
   */
  expectedLive(): number {
    const sky = this.#sky;
    if (!this.closedForm) return sky.liveCount;
    // (No catching up: expectedIn counts the trail ticks and ember waves from the age.)
    const now = sky.now, blocks = this.pool.blocks;
    let sum = 0;
    for (let b = 0; b < blocks.length; b++) sum += expectedIn(blocks[b], now);
    return Math.round(sum);
  }

  /**
   * Adds launch `seq` applied at `tick`: reserves its block and places the shell on the ground,
   * upwind of (x, z) by its drift so that it bursts above (x, z). The caller checks the sky's
   * capacity first.
   */
  launch(seq: number, tick: number, spec: LaunchSpec, setting: ThemeSetting): void {
    const sky = this.#sky;
    const block = newBlock(this.seed, seq, tick, spec, setting);
    const pool = this.pool;
    pool.add(block);
    if (pool.allocated > this.#windowAbove && !pool.windowed) pool.windowBirths();
    // Visited first at the step of its own tick (or the next, applied late).
    if (this.closedForm) schedule(sky, block, Math.max(tick, sky.now));
    // The shell's birth (a windowed pool writes it when the launch is read).
    if (!this.pool.windowed) placeShell(sky, block);
    if (!this.closedForm) {
      const i = block.start;
      const { life, maxLife, style, color } = this.pool;
      life[i] = maxLife[i];
      paint(color, i, style[i] | 0, 0, maxLife[i]);
    }
    touch(block, 0, 1);
    sky.liveCount++;
  }

  /** Simulates `tick` → `tick + 1`: moves every live particle, then spawns and bursts. */
  step(tick: number): void {
    const sky = this.#sky;
    const blocks = this.pool.blocks;
    sky.now = tick + 1;
    if (this.closedForm) {
      // No spark moves and no death is counted: bursts and splits are marked (their sparks
      // placed when read, trails and embers counted when read) and launches ended. Only the
      // launches with a burst or a split due are visited.
      const due = sky.due.get(tick);
      if (due) {
        sky.due.delete(tick);
        for (let d = 0; d < due.length; d++) {
          const block = due[d];
          if (block.endTick <= tick) continue;
          advanceBlock(sky, block, tick);
          schedule(sky, block, nextDue(block, tick));
        }
        due.length = 0;
        sky.spareDue.push(due);
      }
      this.#hash.endingBy(tick + 1);
      this.pool.expire(tick + 1);
      return;
    }
    let died = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      died += integrateRange(sky, block.start + block.lo, block.start + block.hi);
    }
    sky.liveCount -= died;
    for (let b = 0; b < blocks.length; b++) advanceBlock(sky, blocks[b], tick);
    for (let b = 0; b < blocks.length; b++) raiseLoIn(blocks[b], this.pool.life, 0);
    this.pool.expire(tick + 1);
  }

  /**
   * Drops launches that have ended by `tick` without simulating anything: for a caller that
   * will `jumpTo` a later tick and never looks at the states in between.
   */
  skip(tick: number): void {
    this.#sky.now = tick + 1;
    this.#hash.endingBy(tick + 1);
    this.pool.expire(tick + 1);
  }

  /**
   * Sets every launch to its state at `tick` (≥ each launch's tick) directly from the closed
   * forms: identical, bit for bit, to stepping there. Launches that ended by `tick` are dropped.
   */
  jumpTo(tick: number): void {
    const sky = this.#sky;
    // A hash under way is finished first: a jump rewrites every launch.
    this.hashSome(Infinity);
    this.pool.expire(tick);
    const blocks = this.pool.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      jumpBlock(sky, block, tick - block.tick);
      block.births.length = 0;
      block.births.push(0, block.size);
    }
    // Each launch visited at the next step, which finds what is due after it.
    sky.due.clear();
    if (this.closedForm) {
      for (let b = 0; b < blocks.length; b++) schedule(sky, blocks[b], tick);
    }
    // Stepping: each launch's first live slot raised and the living counted afresh (the spawns
    // above counted every birth). Closed form keeps no count (`live` evaluates it when asked) and
    // leaves each launch's range from its shell: the first read evaluates it and raises `lo` to
    // its first live slot, as a veteran's read does (a jump writes no burst, ember or trail birth,
    // so a late joiner pays for none of them until it reads them: at a million sparks, most of
    // the join).
    let live = 0;
    for (let b = 0; b < blocks.length && !this.closedForm; b++) {
      const block = blocks[b];
      const life = this.pool.life;
      raiseLoIn(block, life, 0);
      for (let i = block.start + block.lo; i < block.start + block.hi; i++) {
        if (life[i] > 0) live++;
      }
    }
    sky.liveCount = live;
    sky.now = tick;
    // Closed form: the pool's state (kept only once read) is evaluated again when read.
    sky.settledAt = this.closedForm ? -1 : tick;
    this.rebuilds++;
  }

  /**
   * Closed form: evaluates the views' arrays (position, previous, colour, life) at the current
   * tick from each slot's birth state, exactly what stepping would have left there, and raises
   * each launch's `lo`. The pool keeps these arrays only from the first read on (a client that
   * only draws and hashes never stores them). Once per tick; a no-op when stepping moves them.
   */
  sync(): void {
    const sky = this.#sky;
    if (!this.closedForm || sky.settledAt === sky.now) return;
    catchUpAll(sky);
    this.keepBirths();
    this.pool.ensureState();
    const now = sky.now;
    const blocks = this.pool.blocks;
    const state = sky.poolState;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      writeBirths(sky, block);
      evaluateInto(sky, block, now - block.tick, state, 0);
      raiseLoIn(block, state.life, 0);
    }
    sky.settledAt = now;
  }

  /** Hashes each live launch's block in application order (every live slot). */
  hashInto(h: Hasher): void {
    this.beginHash(h);
    this.hashSome(Infinity);
  }

  /**
   * Begins a hash of the launches at the current tick into `h`, to be finished by `hashSome`
   * over later calls while the world steps on (one hash at a time): a checkpoint in a big sky
   * evaluated a few launches per frame instead of all in one. Each launch is hashed as it was at
   * this tick, whatever happened since; a launch about to end is hashed before `step` drops it.
   * Stepping mode hashes its pool's state at once. Returns the slots left to evaluate.
   */
  beginHash(h: Hasher): number {
    return this.#hash.begin(h);
  }

  /**
   * `beginHash` for a checkpoint: in a big sky (more than CHECKPOINT_SAMPLE_SLOTS reserved)
   * every launch's row, then a rotating k-th of the launches evaluated in full
   * (`checkpointRotation`, launch_hash.ts); in a smaller one the same as `beginHash`.
   */
  beginCheckpoint(h: Hasher): number {
    return this.#hash.begin(h, true);
  }

  /**
   * Evaluates and hashes launches of the hash under way, in order, until `slotBudget` slots have
   * been evaluated (at least one launch); returns true once every launch is in (or none was
   * under way).
   */
  hashSome(slotBudget: number): boolean {
    return this.#hash.some(slotBudget);
  }

  /**
   * Closed form: writes the birth state of the breaks burst since the last write (their sparks
   * and every split child's) into the pool, for a consumer that reads the pool's births directly
   * (a renderer writing the births it draws). `sync`, the hash and a jump write them themselves.
   */
  placeBursts(block: FireworkBlock): void {
    this.keepBirths();
    if (block.burstsWritten !== block.bursts) writeBursts(this.#sky, block);
  }

  /**
   * Where break `b` of `block` bursts and the velocity its sparks inherit, into `out`: the burst
   * point at [0, 3) and the shell's velocity at its apex at [3, 6) (burst.ts).
   */
  burstFrame(block: FireworkBlock, b: number, out: Float64Array): Float64Array {
    const sky = this.#sky;
    if (!this.pool.windowed) return burstFrame(sky, block, b, out);
    const start = openWindow(sky, block, false);
    try {
      return burstFrame(sky, block, b, out);
    } finally {
      closeWindow(block, start);
    }
  }

  /**
   * The slot at which the pool's birth arrays hold `block`'s shell (origin, velocity, born, max
   * life, style, flicker, size): its first slot, or (a windowed pool, window.ts) slot 0 of the
   * window, written now and valid until the next read of any launch.
   */
  shellSlot(block: FireworkBlock): number {
    if (!this.pool.windowed) return block.start;
    const start = openWindow(this.#sky, block, false);
    closeWindow(block, start);
    return 0;
  }

  /**
   * Closed form with a windowed pool: keeps every slot's births in the pool from now on (for a
   * consumer that reads them by slot: the settled view, `placeBursts`, `velocityAt`), each
   * launch's written again when next read. A no-op otherwise.
   */
  keepBirths(): void {
    const pool = this.pool;
    this.#windowAbove = Infinity;
    if (!pool.windowed) return;
    pool.keepBirths();
    const sky = this.#sky, blocks = pool.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      placeShell(sky, block);
      block.burstsWritten = 0;
      block.trailWritten = 0;
      block.emberWritten.fill(0);
    }
  }

  /**
   * Slot `i`'s velocity in m/s at `age` ticks after its spawn, by the closed form (float64;
   * fireworks store only the spawn velocity). Writes into and returns `out`.
   */
  velocityAt(i: number, age: number, out: Float64Array): Float64Array {
    this.keepBirths();
    return velocityAt(this.#sky, i, age, out);
  }
}
