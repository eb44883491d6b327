/**
 * Several Float32Arrays carved out of ONE ArrayBuffer, each starting `staggerBytes` after the end
 * of the one before. The gap keeps a hot loop's parallel streams from sitting a multiple of 4 KiB
 * apart (4K aliasing stalls loads behind stores on x86). Used by the particle pool and the
 * fountain.
 *
 * @example
 * ```ts
 * import { staggeredArrays } from "./staggered_buffer.ts";
 * const [position, color] = staggeredArrays([3 * 100, 4 * 100], 64);
 * position.buffer === color.buffer; // true
 * ```
 */
export function staggeredArrays(lengths: readonly number[], staggerBytes: number): Float32Array[] {
  let bytes = 0;
  for (const n of lengths) bytes += n * 4 + staggerBytes;
  const buffer = new ArrayBuffer(bytes);
  const arrays: Float32Array[] = [];
  let offset = 0;
  for (const n of lengths) {
    arrays.push(new Float32Array(buffer, offset, n));
    offset += n * 4 + staggerBytes;
  }
  return arrays;
}
