/**
 * `LaunchEndQueue`: the launches a renderer holds rows for, by the tick they end (a binary
 * min-heap), so that a frame finds the launches that ended since the last in time proportional to
 * them, not to every live launch (a million-spark sky holds ~1,700).
 *
 * @example
 * ```ts
 * import { LaunchEndQueue } from "./launch_end_queue.ts";
 * const queue = new LaunchEndQueue<{ endTick: number }>();
 * queue.push({ endTick: 90 }, 3);
 * queue.push({ endTick: 40 }, 7);
 * queue.popEnded(50); // 7: the launch ending at 40, its group
 * queue.popEnded(50); // -1: none other ended by 50
 * ```
 */

/** Launches (anything with an end tick), each with a number the caller keeps with it. */
export class LaunchEndQueue<T extends { readonly endTick: number }> {
  readonly #items: T[] = [];
  readonly #values: number[] = [];

  /** Launches held. */
  get size(): number {
    return this.#items.length;
  }

  /** The launch at place `i` (heap order: any order for a caller that visits all). */
  itemAt(i: number): T {
    return this.#items[i];
  }

  /** The number kept with the launch at place `i`. */
  valueAt(i: number): number {
    return this.#values[i];
  }

  /** Holds `item` with `value` until it ends. */
  push(item: T, value: number): void {
    const items = this.#items, values = this.#values;
    let i = items.length;
    items.push(item);
    values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent].endTick <= item.endTick) break;
      items[i] = items[parent];
      values[i] = values[parent];
      i = parent;
    }
    items[i] = item;
    values[i] = value;
  }

  /**
   * Removes a launch that ended by `tick` (`endTick <= tick`) and returns its value, or −1 when
   * none did (values are expected non-negative).
   */
  popEnded(tick: number): number {
    const items = this.#items, values = this.#values;
    if (items.length === 0 || items[0].endTick > tick) return -1;
    const ended = values[0];
    const lastItem = items.pop()!, lastValue = values.pop()!;
    const n = items.length;
    if (n === 0) return ended;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && items[right].endTick < items[left].endTick ? right : left;
      if (items[child].endTick >= lastItem.endTick) break;
      items[i] = items[child];
      values[i] = values[child];
      i = child;
    }
    items[i] = lastItem;
    values[i] = lastValue;
    return ended;
  }

  /** Empties it. */
  clear(): void {
    this.#items.length = 0;
    this.#values.length = 0;
  }
}
