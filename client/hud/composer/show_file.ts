/**
 * A show saved as a file: `{ snowfire: "show", version: 1, title, cues, track? }`, where
 * `track` names the music (`name`, `id` = SHA-256 hex of its bytes, `mime`, `bytes`) and may
 * hold the bytes themselves (`data`, base64), so a show imported into another scene brings its
 * music. Parsing checks everything with zod and says what is wrong in words.
 */
import { z } from "zod";
import {
  SHOW_MAX_CUES,
  SHOW_TITLE_MAX,
  type ShowCue,
  ShowCueSchema,
  TRACK_MAX_BYTES,
  TrackRefSchema,
} from "../../../shared/protocol.ts";

/** A track as a show file names it: the show's track reference, maybe with its bytes. */
export const FileTrackSchema = TrackRefSchema.extend({
  /** The track's bytes, base64. */
  data: z.string().max(Math.ceil(TRACK_MAX_BYTES / 3) * 4 + 4).optional(),
}).strict();
/** A track as a show file names it. */
export type FileTrack = z.infer<typeof FileTrackSchema>;

/** A show file (see the module's comment). */
export const ShowFileSchema = z.object({
  snowfire: z.literal("show"),
  version: z.literal(1),
  title: z.string().max(SHOW_TITLE_MAX),
  cues: z.array(ShowCueSchema).max(SHOW_MAX_CUES),
  track: FileTrackSchema.optional(),
}).strict();
/** A parsed show file. */
export type ShowFile = z.infer<typeof ShowFileSchema>;

/** A file that is not a show, with why. */
export interface ShowFileError {
  code: "not_json" | "not_a_show" | "bad_show" | "bad_track";
  message: string;
}

/**
 * The text of a show file.
 *
 * @example
 * ```ts
 * import { showFileText } from "./show_file.ts";
 *
 * JSON.parse(showFileText("Finale", [{ at: 0, x: 0, z: 0 }])).snowfire; // "show"
 * ```
 */
export function showFileText(title: string, cues: readonly ShowCue[], track?: FileTrack): string {
  const file: ShowFile = { snowfire: "show", version: 1, title, cues: [...cues] };
  if (track) file.track = track;
  return JSON.stringify(file, null, 1);
}

/**
 * Reads a show file's text: the show, or what is wrong with it.
 *
 * @example
 * ```ts
 * import { parseShowFile } from "./show_file.ts";
 *
 * const read = parseShowFile('{"snowfire":"show","version":1,"title":"A","cues":[]}');
 * "show" in read; // true
 * ```
 */
export function parseShowFile(text: string): { show: ShowFile } | { error: ShowFileError } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: { code: "not_json", message: "This file is not a Snowfire show (not JSON)." } };
  }
  if ((raw as { snowfire?: unknown })?.snowfire !== "show") {
    return { error: { code: "not_a_show", message: "This file is not a Snowfire show." } };
  }
  const parsed = ShowFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    return {
      error: { code: "bad_show", message: `This show file is damaged${where}: ${issue.message}.` },
    };
  }
  return { show: parsed.data };
}

/** SHA-256 of `bytes` as lowercase hex. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `bytes` as base64. */
export function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/**
 * The bytes a file's track carries, checked against its size and hash; null when it carries
 * none; a `bad_track` error when they do not match what the file says they are.
 */
export async function trackBytes(
  track: FileTrack,
): Promise<Uint8Array<ArrayBuffer> | null | { error: ShowFileError }> {
  if (track.data === undefined) return null;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = Uint8Array.from(atob(track.data), (c) => c.charCodeAt(0));
  } catch {
    return { error: { code: "bad_track", message: "The show's music is damaged (not base64)." } };
  }
  if (bytes.length !== track.bytes || await sha256Hex(bytes) !== track.id) {
    return {
      error: {
        code: "bad_track",
        message: "The show's music does not match its name in the file (size or hash).",
      },
    };
  }
  return bytes;
}
