/**
 * A `Range` request header against a resource of `size` bytes (RFC 9110 §14): one range
 * `bytes=a-b`, `bytes=a-` or a suffix `bytes=-n`. A header that is not one byte range (several
 * ranges, another unit) is ignored, as the RFC allows: the whole is served.
 *
 * @example
 * ```ts
 * import { byteRange } from "./track_range.ts";
 * console.log(byteRange("bytes=0-99", 1000)); // { start: 0, end: 99 }
 * console.log(byteRange("bytes=-100", 1000)); // { start: 900, end: 999 }
 * console.log(byteRange("bytes=2000-", 1000)); // "unsatisfiable"
 * ```
 */

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The range `header` asks of `size` bytes: undefined for the whole (no header, or one to
 * ignore), `"unsatisfiable"` when it starts past the end (a 416).
 */
export function byteRange(
  header: string | undefined,
  size: number,
): ByteRange | "unsatisfiable" | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Number(match[2]);
  if (start >= size) return "unsatisfiable";
  if (end < start) return undefined;
  return { start, end: Math.min(end, size - 1) };
}
