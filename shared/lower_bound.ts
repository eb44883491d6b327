/**
 * `lowerBound`: binary search for the first index from `from` up to `length` where `below` is
 * false, for a `below` that is true for a prefix of the indices and false after (a sorted array's
 * "value < target"). `length` when it is true everywhere.
 *
 * @example
 * ```ts
 * import { lowerBound } from "./lower_bound.ts";
 * const beats = [0, 30, 60, 90];
 * lowerBound(beats.length, (i) => beats[i] < 45); // 2
 * lowerBound(beats.length, (i) => beats[i] < 100); // 4
 * ```
 */
export function lowerBound(length: number, below: (index: number) => boolean, from = 0): number {
  let lo = from, hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
