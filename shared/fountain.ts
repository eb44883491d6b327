/**
 * The fountain: a tall central jet and a ring of jets arcing inward, in a round basin at the
 * origin. Every jet's water (white, as in the source: docs/sources.md, fountain) falls on the
 * upper of two domed dishes, bounces off onto the lower one, then off its rim into the pool (the
 * source's two reflections), and splashes at the pool surface: a drop that reaches the pool jumps
 * back up once as a smaller splash droplet, scattered at random, and dies when it falls back.
 *
 * Each drop's path is closed form (shared/fountain_path.ts): its state at a tick is a pure
 * function of its birth draws and its age, so a late joiner spawns the last FOUNTAIN_MAX_LIFE
 * ticks' drops and places each once (`step(…, "spawn")`), without moving them tick by tick.
 * Storage is a ring of rows, one row per spawn tick, so the layout (and the hash) depends only on
 * the last FOUNTAIN_MAX_LIFE ticks of on/off and motion input.
 */
import { DT } from "./constants.ts";
import { cos, sin, TAU } from "./dmath.ts";
import type { Hasher } from "./hash.ts";
import { wordsOf } from "./hash.ts";
import { Rng, STREAM, streamKey } from "./prng.ts";
import { staggeredArrays } from "./staggered_buffer.ts";
import type { StreakView } from "./views.ts";
import {
  FOUNTAIN_COUNT_LOW,
  FOUNTAIN_FADE_TICKS,
  FOUNTAIN_JETS,
  FOUNTAIN_LIFE,
  FOUNTAIN_MAX_LIFE,
  FOUNTAIN_PER_TICK,
  WATER_ALPHA,
} from "./fountain_layout.ts";
import {
  DropPaths,
  END_UNPLANNED,
  FLIGHT_FIELDS,
  FROM_NOZZLE,
  TOUCHED_SPAWNED,
} from "./fountain_path.ts";

export * from "./fountain_layout.ts";
export {
  bounceVelocity,
  firstDown,
  MIN_REBOUND,
  SPLASH_MIN_SPEED,
  TOUCHED_POOL,
  TOUCHED_SPAWNED,
} from "./fountain_path.ts";

/** Water colour: white (docs/sources.md, fountain), shaded per drop. */
const WATER_RGB = [1, 1, 1] as const;
/** Drop diameters (metres): a fresh drop's range, and a splash droplet's. */
const DROP_SIZE = [0.05, 0.09] as const;
export const SPLASH_SIZE = 0.035;
const STAGGER_BYTES = 64;
/**
 * A drop's direction round its jet's axis is one of DIRECTIONS (0.09° apart), looked up rather
 * than computed: a late joiner spawns ~12k drops, and two polynomial cos/sin a drop were a
 * quarter of its cost before the code is compiled.
 */
const DIRECTIONS = 4096;
/** DIRECTIONS = 2^(32 − DIRECTION_SHIFT): ⌊(w / 2^32) · DIRECTIONS⌋ is w >>> DIRECTION_SHIFT. */
const DIRECTION_SHIFT = 20;
const DIRECTION = (() => {
  const table = new Float64Array(2 * DIRECTIONS);
  for (let k = 0; k < DIRECTIONS; k++) {
    const angle = ((k + 0.5) / DIRECTIONS) * TAU;
    table[2 * k] = cos(angle);
    table[2 * k + 1] = sin(angle);
  }
  return table;
})();
/** Draws a drop takes from its tick's stream: direction, radius, speed, shade, size, life. */
const DRAWS_PER_DROP = 6;
/** A draw is its stream's 32-bit word over 2^32 (`Rng.next`). */
const U32 = 4294967296;
const DROP_SIZE_SPAN = DROP_SIZE[1] - DROP_SIZE[0];
/** A drop's life is FOUNTAIN_MAX_LIFE − `short`: `short` is LIFE_SHORT_MAX − one of LIFE_CHOICES. */
const LIFE_SHORT_MAX = FOUNTAIN_MAX_LIFE - FOUNTAIN_LIFE[0];
const LIFE_CHOICES = FOUNTAIN_LIFE[1] - FOUNTAIN_LIFE[0] + 1;

/** Options for benchmarks and tests; the world uses the defaults. */
export interface FountainOptions {
  /** Particles spawned per tick while on, split across the jets by share. */
  perTick?: number;
}

/** The fountain particles' render view: a ring of `FOUNTAIN_MAX_LIFE` rows of `perTick` slots. */
class FountainView implements StreakView {
  count = 0;
  constructor(
    readonly position: Float32Array,
    readonly previous: Float32Array,
    readonly velocity: Float32Array,
    readonly color: Float32Array,
    readonly size: Float32Array,
  ) {}
}

/** Splits `total` slots per tick across jets by share; the first jet takes the remainder. */
function spawnCounts(total: number): Int32Array {
  const counts = new Int32Array(FOUNTAIN_JETS.length);
  let assigned = 0;
  for (let j = 1; j < FOUNTAIN_JETS.length; j++) {
    counts[j] = Math.floor(total * FOUNTAIN_JETS[j].share);
    assigned += counts[j];
  }
  counts[0] = total - assigned;
  return counts;
}

/**
 * Fountain rotation (docs/sources.md, fountain): with the `fountainSpin` setting on, the central
 * nozzle is a turning head of FOUNTAIN_ARMS arms, each throwing its drops within ±ARM_SPREAD/2
 * radians of its direction, one turn every FOUNTAIN_SPIN_TICKS ticks.
 */
export const FOUNTAIN_ARMS = 6;
export const FOUNTAIN_SPIN_TICKS = 720;
const ARM_SPREAD = 0.35;
/**
 * Spiral motion (the source's spiral motion: a velocity turned about a given axis): with the
 * `fountainSpiral` setting on, every drop, with its velocity, turns about the fountain's axis by
 * FOUNTAIN_SPIRAL_RATE radians a second, so the water swirls round the fountain. The dishes and
 * the pool are round, so a turned path meets them where the unturned one does: a drop's place is
 * its unturned place turned by the rate times its ticks lived with the spiral on.
 */
export const FOUNTAIN_SPIRAL_RATE = 1.2;
/** Cosine and sine of the spiral's turn after k ticks, k = 0…FOUNTAIN_MAX_LIFE. */
const SPIRAL_TURN = (() => {
  const table = new Float64Array(2 * (FOUNTAIN_MAX_LIFE + 1));
  table[0] = 1;
  for (let k = 1; k <= FOUNTAIN_MAX_LIFE; k++) {
    table[2 * k] = cos(FOUNTAIN_SPIRAL_RATE * DT * k);
    table[2 * k + 1] = sin(FOUNTAIN_SPIRAL_RATE * DT * k);
  }
  return table;
})();

/**
 * How the fountain moves besides its jets: the scene settings of the same names (hosts set them;
 * off by default), so the world passes its settings as they are.
 */
export interface FountainMotion {
  /** The central nozzle turns. */
  readonly fountainSpin?: boolean;
  /** Drops spiral about the axis. */
  readonly fountainSpiral?: boolean;
}

/**
 * What a step does: "full" spawns and places every drop; "spawn" only spawns (and counts the
 * spiral), for a late joiner's ticks before the one it looks at (drops are placed when looked at).
 */
export type FountainStepMode = "full" | "spawn";

const STILL: FountainMotion = Object.freeze({});

/** The fountain system. `step` never allocates. */
export class Fountain {
  /** Scene seed. */
  readonly seed: number;
  /** Slots per row (particles spawned per tick while on). */
  readonly perTick: number;
  /** Total slots: `FOUNTAIN_MAX_LIFE × perTick`. */
  readonly capacity: number;
  /** Render view; its arrays are also the simulation state (with each row's live count). */
  readonly view: StreakView;
  /**
   * Per slot, the surfaces its drop touched since it was spawned (bit k: FOUNTAIN_SURFACES[k]),
   * TOUCHED_POOL once it reached the pool, TOUCHED_SPAWNED once spawned; kept after the drop dies
   * until its row is spawned again. Set as flights are solved, which may be ahead of the tick.
   * For probes and tests: not state (nothing reads it back).
   */
  readonly touched: Uint8Array;

  readonly #view: FountainView;
  readonly #paths: DropPaths;
  readonly #counts: Int32Array;
  /** Per slot, how many ticks short of FOUNTAIN_MAX_LIFE its drop's own life is (FOUNTAIN_LIFE). */
  readonly #short: Uint8Array;
  /** Per slot, the spiral count when it was born (its turn is the count since). */
  readonly #spiralBorn: Float64Array;
  /**
   * Per row, its live drops after the last step (0: nothing to visit). A fountain that is off,
   * or one a late joiner starts empty FOUNTAIN_MAX_LIFE ticks back, skips its empty rows.
   */
  readonly #rowLive = new Uint16Array(FOUNTAIN_MAX_LIFE);
  readonly #rng = new Rng();
  /** A tick's stream words: one per jet and DRAWS_PER_DROP per slot at most. */
  readonly #words: Uint32Array;
  readonly #positionWords: Uint32Array;
  readonly #velocityWords: Uint32Array;
  readonly #colorWords: Uint32Array;
  #nextTick = 0;
  #live = 0;
  /** Ticks stepped with the spiral on (only differences between two counts matter). */
  #spiral = 0;
  /** The last tick whose step placed every drop ("full"); -2: none. */
  #placedTick = -2;

  constructor(seed: number, options: FountainOptions = {}) {
    const perTick = options.perTick ?? FOUNTAIN_PER_TICK;
    if (!Number.isInteger(perTick) || perTick < 1) {
      throw new RangeError(`fountain_rate: perTick must be a positive integer, got ${perTick}`);
    }
    this.seed = seed;
    this.perTick = perTick;
    this.capacity = FOUNTAIN_MAX_LIFE * perTick;
    this.#counts = spawnCounts(perTick);
    this.#words = new Uint32Array(FOUNTAIN_JETS.length + DRAWS_PER_DROP * perTick);
    const cap = this.capacity;
    const [position, previous, velocity, color, size] = staggeredArrays(
      [3 * cap, 3 * cap, 3 * cap, 4 * cap, cap],
      STAGGER_BYTES,
    );
    this.#view = new FountainView(position, previous, velocity, color, size);
    this.#paths = new DropPaths(seed, cap);
    this.touched = this.#paths.touched;
    this.#short = new Uint8Array(cap);
    this.#spiralBorn = new Float64Array(cap);
    this.view = this.#view;
    this.#positionWords = wordsOf(this.#view.position);
    this.#velocityWords = wordsOf(this.#view.velocity);
    this.#colorWords = wordsOf(this.#view.color);
  }

  /**
   * Puts a live drop into `slot` at the fountain's tick (for probes and tests: the next step
   * moves it like any other), with the most life a drop has.
   *
   * @example
   * ```ts
   * const fountain = new Fountain(7);
   * fountain.inject(0, [0, 3, 0], [0, -1, 0]);
   * fountain.step(0, false); // the drop falls towards the upper dish
   * ```
   */
  inject(slot: number, [px, py, pz]: readonly number[], [vx, vy, vz]: readonly number[]): void {
    const { position, previous, velocity, color, size } = this.#view;
    position.set([px, py, pz], slot * 3);
    previous.set([px, py, pz], slot * 3);
    velocity.set([vx, vy, vz], slot * 3);
    color.set([1, 1, 1, WATER_ALPHA], slot * 4);
    if (size[slot] === 0) size[slot] = DROP_SIZE[1];
    this.#paths.start(slot, this.#nextTick, [px, py, pz], [vx, vy, vz]);
    this.#short[slot] = 0;
    this.#spiralBorn[slot] = this.#spiral;
    this.#rowLive[Math.floor(slot / this.perTick)]++;
  }

  /** The life (ticks) drawn for the drop in `slot` (FOUNTAIN_LIFE; for probes and tests). */
  lifeOf(slot: number): number {
    return FOUNTAIN_MAX_LIFE - this.#short[slot];
  }

  /** Live particles after the last step. */
  live(): number {
    return this.#live;
  }

  /** The tick the fountain's state is at (one past the last stepped tick). */
  get tick(): number {
    return this.#nextTick;
  }

  /**
   * Simulates tick → tick + 1: retires the row spawned `FOUNTAIN_MAX_LIFE` ticks ago, and, when
   * `on`, spawns this tick's particles into that row from the stream keyed (seed, tick); then
   * ("full") places every live drop at its age (closed form). "spawn" leaves the placing to a
   * later "full" step: the same state at that step as stepping every tick. `placedAt`, for
   * "spawn": the tick of that "full" step, when known (by default none is skipped); a drop whose
   * life has ended by then is not spawned (its draws are skipped; that step would clear it).
   * Never allocates.
   */
  step(
    tick: number,
    on: boolean,
    motion: FountainMotion = STILL,
    mode: FountainStepMode = "full",
    placedAt = tick,
  ): void {
    if (!(tick >= 0 && Number.isSafeInteger(tick))) {
      throw new RangeError(`fountain_tick: ticks are non-negative integers, got ${tick}`);
    }
    const rowOfTick = tick % FOUNTAIN_MAX_LIFE;
    // The row spawned FOUNTAIN_MAX_LIFE ticks ago dies; this tick's spawns take its place.
    this.#clearRow(rowOfTick);
    if (on) {
      // A drop spawned at `tick` and placed at `placedAt` is that many ticks old when placed.
      const age = mode === "full" ? 0 : placedAt - tick;
      this.#spawn(tick, rowOfTick, motion.fountainSpin === true, age);
    }
    const spiralBefore = this.#spiral;
    if (motion.fountainSpiral === true) this.#spiral++;
    this.#nextTick = tick + 1;
    if (mode === "full") this.#place(tick, spiralBefore);
  }

  /** Places every live drop at the end of `tick` (and where it was a tick before). */
  #place(tick: number, spiralBefore: number): void {
    const rowOfTick = tick % FOUNTAIN_MAX_LIFE;
    const rowLive = this.#rowLive;
    // Every drop born before this tick was placed by the last step (not a late joiner's spawns).
    const placedLast = this.#placedTick === tick - 1;
    this.#placedTick = tick;
    let live = 0;
    // Rows in spawn order, oldest first; age 0 is the row just spawned at the nozzles. A row at a
    // time: a late join's one call places ~12k drops, and a loop that long in one call is
    // compiled for that call alone (on-stack replacement), then again for the next call.
    for (let age = FOUNTAIN_MAX_LIFE - 1; age >= 0; age--) {
      const row = (rowOfTick + FOUNTAIN_MAX_LIFE - age) % FOUNTAIN_MAX_LIFE;
      if (rowLive[row] === 0) continue;
      const rowLiveNow = this.#placeRow(row, age, tick, spiralBefore, placedLast);
      rowLive[row] = rowLiveNow;
      live += rowLiveNow;
    }
    this.#live = live;
    this.#view.count = live > 0 ? this.capacity : 0;
  }

  /** Places the live drops of `row` (spawned `age` ticks ago); returns how many are left. */
  #placeRow(
    row: number,
    age: number,
    tick: number,
    spiralBefore: number,
    placedLast: boolean,
  ): number {
    const paths = this.#paths, short = this.#short;
    const born = paths.born, spiralBorn = this.#spiralBorn, flight = paths.flight, ends = paths.end;
    const spiral = this.#spiral;
    const { position, previous, velocity, color, size } = this.#view;
    let live = 0;
    const end = (row + 1) * this.perTick;
    for (let i = row * this.perTick; i < end; i++) {
      if (color[i * 4 + 3] === 0) continue;
      const left = FOUNTAIN_MAX_LIFE - short[i] - age;
      if (left <= 0) {
        this.#clearSlot(i);
        continue;
      }
      // Ticks lived: the drop is placed at its age after this tick, and a tick before. Small
      // integers (a drop lives ≤ FOUNTAIN_MAX_LIFE ticks), so passing them boxes nothing.
      const lived = (tick + 1 - born[i]) | 0;
      const p = i * 3, f = i * FLIGHT_FIELDS;
      if (placedLast && lived > 1) {
        // Placed by the last step at lived − 1, with the spiral count it had: the same bits.
        previous[p] = position[p];
        previous[p + 1] = position[p + 1];
        previous[p + 2] = position[p + 2];
      } else {
        if (ends[i] === END_UNPLANNED) paths.plan(i, FROM_NOZZLE);
        // Settled only when a flight ends by then (most drops have none): an early return
        // would still cost a call and count little towards the solver being compiled.
        if (flight[f + 7] <= (lived - 1) * DT && !paths.settle(i, lived - 1)) {
          this.#clearSlot(i);
          continue;
        }
        const turned = (spiralBefore - spiralBorn[i]) | 0;
        paths.place(i, lived - 1, SPIRAL_TURN, 2 * turned, previous, null, p);
      }
      if (flight[f + 7] <= lived * DT && !paths.settle(i, lived)) {
        this.#clearSlot(i);
        continue;
      }
      const turnedNow = (spiral - spiralBorn[i]) | 0;
      paths.place(i, lived, SPIRAL_TURN, 2 * turnedNow, position, velocity, p);
      color[i * 4 + 3] = WATER_ALPHA * Math.min(1, left / FOUNTAIN_FADE_TICKS);
      if (paths.splash[i] === 1) size[i] = SPLASH_SIZE;
      live++;
    }
    return live;
  }

  /**
   * Starts this tick's particles at the nozzles, in `row`, from the stream keyed (seed, tick):
   * each jet's count, then per drop its direction, speed, shade, size and life. With `spin` the
   * central jet throws its drops along the turning head's arms. A drop whose life is at most
   * `ageWhenPlaced` is skipped (its slot stays cleared, as placing would leave it).
   */
  #spawn(tick: number, row: number, spin: boolean, ageWhenPlaced: number): void {
    const { color, size } = this.#view;
    // The tick's words in one fill (the same numbers as one `next()` each, in order, once each is
    // divided by 2^32): per jet its count, then per drop its direction, radius, speed, shade,
    // size and life.
    const words = this.#words;
    this.#rng.reseed(
      streamKey(this.seed, STREAM.fountain, tick >>> 0, Math.floor(tick / 4294967296)),
    ).fillU32(words, 0, words.length);
    let d = 0;
    const paths = this.#paths, flight = paths.flight, born = paths.born, splash = paths.splash;
    const ends = paths.end, spiralBorn = this.#spiralBorn, spiral = this.#spiral;
    const counts = this.#counts, short = this.#short, touched = this.touched;
    const [red, green, blue] = WATER_RGB;
    // The head's turn: a whole number of ticks into its period, so any tick gives the same bits.
    const head = spin ? ((tick % FOUNTAIN_SPIN_TICKS) / FOUNTAIN_SPIN_TICKS) * TAU : 0;
    let first = row * this.perTick;
    for (let j = 0; j < FOUNTAIN_JETS.length; j++) {
      const jet = FOUNTAIN_JETS[j];
      const slots = counts[j];
      const least = Math.ceil(slots * FOUNTAIN_COUNT_LOW);
      const n = slots - Math.floor((words[d++] / U32) * (slots - least + 1));
      const arms = spin && j === 0;
      const x = jet.x, y = jet.y, z = jet.z, vx = jet.vx, vz = jet.vz;
      const ringRadius = jet.ringRadius, ringWidth = jet.ringWidth;
      const vyMin = jet.vyMin, vySpan = jet.vyMax - jet.vyMin;
      let i = first, spawned = 0;
      first += slots;
      for (let k = 0; k < n; k++, i++) {
        // The life is the drop's last draw: read first, to skip one dead by the time it is placed.
        const shortLife = LIFE_SHORT_MAX -
          Math.floor((words[d + DRAWS_PER_DROP - 1] / U32) * LIFE_CHOICES);
        if (FOUNTAIN_MAX_LIFE - shortLife <= ageWhenPlaced) {
          d += DRAWS_PER_DROP;
          continue;
        }
        spawned++;
        const direction = words[d++];
        const radius = ringRadius + ringWidth * (words[d++] / U32);
        born[i] = tick;
        splash[i] = 0;
        const f = i * FLIGHT_FIELDS;
        flight[f] = 0;
        flight[f + 1] = x;
        flight[f + 2] = y;
        flight[f + 3] = z;
        // Each way writes its own velocity: one cosine and sine merged from the two would be
        // boxed by optimised code that does not untag merged numbers.
        if (arms) {
          const theta = head + (k % FOUNTAIN_ARMS) * (TAU / FOUNTAIN_ARMS) +
            (direction / U32 - 0.5) * ARM_SPREAD;
          flight[f + 4] = vx + radius * cos(theta);
          flight[f + 6] = vz + radius * sin(theta);
        } else {
          const a = 2 * (direction >>> DIRECTION_SHIFT);
          flight[f + 4] = vx + radius * DIRECTION[a];
          flight[f + 6] = vz + radius * DIRECTION[a + 1];
        }
        flight[f + 5] = vyMin + vySpan * (words[d++] / U32);
        ends[i] = END_UNPLANNED; // solved when first placed: never, if it dies of age first
        spiralBorn[i] = spiral;
        const shade = 0.85 + 0.15 * (words[d++] / U32);
        const c = i * 4;
        color[c] = red * shade;
        color[c + 1] = green * shade;
        color[c + 2] = blue * shade;
        size[i] = DROP_SIZE[0] + DROP_SIZE_SPAN * (words[d++] / U32);
        d++; // the life, read above
        short[i] = shortLife;
        touched[i] = TOUCHED_SPAWNED;
        color[c + 3] = WATER_ALPHA; // alive: the step places it at its age like the rest
      }
      this.#rowLive[row] += spawned;
    }
  }

  #clearRow(row: number): void {
    const start = row * this.perTick;
    const end = start + this.perTick;
    const { position, previous, velocity, color, size } = this.#view;
    position.fill(0, start * 3, end * 3);
    previous.fill(0, start * 3, end * 3);
    velocity.fill(0, start * 3, end * 3);
    color.fill(0, start * 4, end * 4);
    size.fill(0, start, end);
    this.#short.fill(0, start, end);
    this.touched.fill(0, start, end);
    this.#rowLive[row] = 0;
  }

  #clearSlot(i: number): void {
    const { position, previous, velocity, color, size } = this.#view;
    const p = i * 3, c = i * 4;
    position[p] = position[p + 1] = position[p + 2] = 0;
    previous[p] = previous[p + 1] = previous[p + 2] = 0;
    velocity[p] = velocity[p + 1] = velocity[p + 2] = 0;
    color[c] =
      color[c + 1] =
      color[c + 2] =
      color[c + 3] =
        0;
    size[i] = 0;
  }

  /**
   * Hashes every slot, row by row from the oldest spawn tick to the newest. Dead slots are all
   * zero, so the hash depends only on the last FOUNTAIN_MAX_LIFE ticks, never on older history.
   */
  hashInto(h: Hasher): void {
    const perTick = this.perTick;
    h.u32(this.#live);
    for (let age = FOUNTAIN_MAX_LIFE; age >= 1; age--) {
      const row = (this.#nextTick + FOUNTAIN_MAX_LIFE * 2 - age) % FOUNTAIN_MAX_LIFE;
      const start = row * perTick, end = start + perTick;
      h.words(this.#positionWords, start * 3, end * 3);
      h.words(this.#velocityWords, start * 3, end * 3);
      h.words(this.#colorWords, start * 4, end * 4);
    }
  }
}
