/**
 * Reads an uploaded track's body, at most `max` bytes: a `Content-Length` over it is refused before
 * anything is read, a body that runs past it (chunked, or lying about its length) as soon as it
 * does. The SHA-256 is computed as the bytes arrive.
 *
 * @example
 * ```ts
 * import { readTrackBody } from "./track_upload.ts";
 * const { data, sha256 } = await readTrackBody(new Request("http://x/", {
 *   method: "POST",
 *   body: "RIFF",
 * }), 1024);
 * console.log(data.length, sha256.length); // 4 64
 * ```
 */
import { createHash } from "node:crypto";
import { HttpError } from "../scene/errors.ts";

/** The refusal of a track over `max` bytes. */
export function tooLarge(max: number): HttpError {
  return new HttpError(
    413,
    "track_too_large",
    `a track may hold at most ${Math.round(max / (1024 * 1024))} MB`,
  );
}

/** The body's bytes and their SHA-256 (hex); throws 413 past `max`, 400 when empty. */
export async function readTrackBody(
  request: Request,
  max: number,
): Promise<{ data: Uint8Array; sha256: string }> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) throw tooLarge(max);
  if (!request.body) throw new HttpError(400, "track_empty", "the upload holds no track");
  const hash = createHash("sha256");
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.length;
      if (length > max) {
        await reader.cancel().catch(() => {});
        throw tooLarge(max);
      }
      hash.update(value);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (length === 0) throw new HttpError(400, "track_empty", "the upload holds no track");
  const data = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    data.set(chunk, at);
    at += chunk.length;
  }
  return { data, sha256: hash.digest("hex") };
}
