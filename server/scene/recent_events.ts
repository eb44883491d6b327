/**
 * The events a room keeps in memory: every event from the stored snapshot's tick on, in seq order
 * (ticks never decrease along seq). Welcomes and resumes are served from here, not the database.
 */
import type { SceneEvent } from "../../shared/types.ts";
import { lowerBound } from "../../shared/lower_bound.ts";

/** A seq-ordered window of recent events with cheap trimming from the front. */
export class RecentEvents {
  #events: SceneEvent[] = [];
  #start = 0;

  /** Number of events held. */
  get length(): number {
    return this.#events.length - this.#start;
  }

  /** Seq of the oldest held event, or undefined when empty. */
  get firstSeq(): number | undefined {
    return this.#events[this.#start]?.seq;
  }

  /** Tick of the `n`-th event counted back from the newest (1 = newest); requires n ≤ length. */
  tickFromEnd(n: number): number {
    return this.#events[this.#events.length - n].tick;
  }

  /** Appends an event; its seq must follow the last one and its tick must not go back. */
  push(event: SceneEvent): void {
    const last = this.#events[this.#events.length - 1];
    if (last && this.length > 0) {
      if (event.seq !== last.seq + 1) {
        throw new RangeError(`event seq ${event.seq} does not follow ${last.seq}`);
      }
      if (event.tick < last.tick) {
        throw new RangeError(`event tick ${event.tick} is before the previous ${last.tick}`);
      }
    }
    this.#events.push(event);
  }

  /** Events with tick ≥ `tick`, in seq order (a new array). */
  fromTick(tick: number): SceneEvent[] {
    return this.#events.slice(this.#lowerBound(tick, (e) => e.tick));
  }

  /** Events with seq ≥ `seq`, in order (a new array); empty when `seq` is past the last one. */
  fromSeq(seq: number): SceneEvent[] {
    return this.#events.slice(this.#lowerBound(seq, (e) => e.seq));
  }

  /** All held events, oldest first (a view: do not modify). */
  all(): readonly SceneEvent[] {
    if (this.#start > 0) this.#compact();
    return this.#events;
  }

  /** Forgets events with tick < `tick`. */
  dropBeforeTick(tick: number): void {
    this.#start = this.#lowerBound(tick, (e) => e.tick);
    if (this.#start > 1024 && this.#start * 2 > this.#events.length) this.#compact();
  }

  #compact(): void {
    this.#events = this.#events.slice(this.#start);
    this.#start = 0;
  }

  /** First index ≥ start whose key is ≥ value (keys are non-decreasing). */
  #lowerBound(value: number, key: (e: SceneEvent) => number): number {
    const events = this.#events;
    return lowerBound(events.length, (i) => key(events[i]) < value, this.#start);
  }
}
