/**
 * Marks the first `length` elements of a buffer attribute for upload without allocating: three.js
 * keeps update ranges as `{start, count}` objects and clears the list after each upload, so one
 * range object per attribute is reused frame after frame instead of `addUpdateRange` making a new one.
 */
import type * as THREE from "three";

/** What has update ranges: a buffer attribute, or an interleaved buffer (several attributes'). */
type Uploadable = THREE.BufferAttribute | THREE.InterleavedBuffer;

const ranges = new WeakMap<Uploadable, { start: number; count: number }>();

/** Schedules an upload of elements `[0, length)` of `attribute` (nothing when `length` is 0). */
export function uploadPrefix(attribute: Uploadable, length: number): void {
  if (length <= 0) return;
  let range = ranges.get(attribute);
  if (!range) {
    range = { start: 0, count: 0 };
    ranges.set(attribute, range);
  }
  range.count = length;
  attribute.updateRanges.length = 0;
  attribute.updateRanges.push(range);
  attribute.needsUpdate = true;
}
