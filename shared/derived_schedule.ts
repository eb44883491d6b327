/**
 * A cursor over the derived launches (shared/derived.ts) for something that walks ticks in
 * order, as the world steps: it expands the sources a chunk of ticks at a time and is reset from
 * a tick on whenever the sources change (a settings or rules event).
 *
 * @example
 * ```ts
 * import { DerivedSchedule } from "./derived_schedule.ts";
 * import { sourcesOf } from "./derived.ts";
 * import { initialSnapshot } from "./settings.ts";
 *
 * const schedule = new DerivedSchedule(7);
 * schedule.reset(sourcesOf(initialSnapshot()), 0);
 * let n = 0;
 * for (let tick = 0; tick < 600; tick++) schedule.each(tick, () => n++);
 * console.log(n > 0); // true: the seeded show launched
 * ```
 */
import { type DerivedLaunch, derivedLaunches, type DerivedSources } from "./derived.ts";

/** Ticks expanded at once. */
const CHUNK_TICKS = 120;

/** Derived launches of one scene, tick by tick. */
export class DerivedSchedule {
  readonly seed: number;
  #sources: DerivedSources | null = null;
  #launches: DerivedLaunch[] = [];
  #next = 0;
  /** The expanded launches cover ticks below this. */
  #to = 0;

  constructor(seed: number) {
    this.seed = seed;
  }

  /** The sources in force. */
  get sources(): DerivedSources | null {
    return this.#sources;
  }

  /** From `tick` on, `sources` are in force. */
  reset(sources: DerivedSources, tick: number): void {
    this.#sources = sources;
    this.#launches = [];
    this.#next = 0;
    this.#to = tick;
  }

  /**
   * Calls `visit` for each derived launch at `tick`, in seq order. Ticks must not decrease
   * between resets; a tick skipped is never visited.
   */
  each(tick: number, visit: (launch: DerivedLaunch) => void): void {
    if (this.#sources === null) return;
    if (tick >= this.#to) {
      this.#launches = derivedLaunches(this.seed, this.#sources, tick, tick + CHUNK_TICKS);
      this.#next = 0;
      this.#to = tick + CHUNK_TICKS;
    }
    const launches = this.#launches;
    while (this.#next < launches.length && launches[this.#next].tick < tick) this.#next++;
    while (this.#next < launches.length && launches[this.#next].tick === tick) {
      visit(launches[this.#next++]);
    }
  }
}
