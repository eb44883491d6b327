/**
 * A scene's music tracks over HTTP. `POST /s/:id/tracks` (a host: `Authorization: Bearer <host
 * key>`) stores the body, at most 20 MB, when its bytes are an MP3, Ogg (Opus or Vorbis), M4A or
 * WAV, and answers `201 {id, url, mime, bytes}`, `id` being the SHA-256 (hex) of the bytes. `GET
 * /s/:id/tracks/:track` serves it from any node, immutable (the URL names the bytes), with one
 * `Range` (206, or 416 past the end) and an `ETag`. Refusals are `HttpError`s with a code.
 *
 * @example
 * ```ts
 * registerTracks(app, { store, isHostKey, uploads, sceneId, refuse });
 * // POST /s/quiet-pine/tracks  (Authorization: Bearer <key>, body: the file's bytes)
 * // GET  /s/quiet-pine/tracks/<sha256>  (Range: bytes=0-1023)
 * ```
 */
import type { Context, Hono } from "hono";
import { HttpError } from "../scene/errors.ts";
import type { AddressBudgets } from "../scene/ratelimit.ts";
import type { ServerEnv } from "../ws/ws_types.ts";
import { trackHost } from "./track_host.ts";
import { byteRange } from "./track_range.ts";
import {
  isTrackId,
  MAX_TRACK_BYTES,
  type StoredTrack,
  TrackStorageError,
  type TrackStore,
} from "../scene/track_store.ts";
import { SNIFF_BYTES, trackType } from "./track_type.ts";
import { readTrackBody } from "./track_upload.ts";

/** What the routes need. */
export interface TrackRouteDeps {
  store: TrackStore;
  /** Whether `key` is one of scene `id`'s host keys; undefined when there is no such scene. */
  isHostKey(id: string, key: string): Promise<boolean | undefined>;
  /** Uploads per client address (and network). */
  uploads: AddressBudgets;
  /** Validates a scene id (404 for a malformed one). */
  sceneId(raw: string): string;
  /** Counts a refusal by code (`/metrics`). */
  refuse?(code: string): void;
  /** Monotonic ms. */
  monotonic?: () => number;
  /** Largest track, bytes (default 20 MiB). */
  maxBytes?: number;
  /** Uploads being read at once, at most (default 4): past it, 503. */
  maxConcurrent?: number;
}

/** A year: served tracks never change (their URL is their hash). */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** Adds the track routes to `app`. */
export function registerTracks(app: Hono<{ Bindings: ServerEnv }>, deps: TrackRouteDeps): void {
  const maxBytes = deps.maxBytes ?? MAX_TRACK_BYTES;
  const maxConcurrent = deps.maxConcurrent ?? 4;
  const monotonic = deps.monotonic ?? (() => performance.now());
  let reading = 0;

  app.post(
    "/s/:id/tracks",
    (c, next) => {
      const wait = deps.uploads.take(c.env?.remoteAddress ?? "", monotonic());
      if (wait === 0) return next();
      deps.refuse?.("rate_limited");
      throw new HttpError(429, "rate_limited", "too many uploads from your address: wait a bit", {
        "retry-after": String(Math.ceil(wait / 1000)),
      });
    },
    trackHost((raw) => deps.sceneId(raw), deps.isHostKey),
    async (c) => {
      const scene = deps.sceneId(c.req.param("id"));
      if (reading >= maxConcurrent) {
        deps.refuse?.("server_busy");
        throw new HttpError(503, "server_busy", "the server is storing other tracks: try again", {
          "retry-after": "2",
        });
      }
      reading++;
      let stored: StoredTrack;
      try {
        const { data, sha256 } = await readTrackBody(c.req.raw, maxBytes);
        const type = trackType(data.subarray(0, SNIFF_BYTES));
        if (!type) {
          deps.refuse?.("track_type");
          throw new HttpError(
            415,
            "track_type",
            "that file is not a track we can play: upload an MP3, Ogg (Opus or Vorbis), M4A or WAV",
          );
        }
        const spender = c.env?.remoteAddress ?? "";
        try {
          stored = await deps.store.put({
            scene,
            id: sha256,
            type,
            data,
            spender: spenderOf(spender),
          });
        } catch (e) {
          if (!(e instanceof TrackStorageError)) throw e;
          deps.refuse?.(e.code);
          throw new HttpError(507, e.code, e.message);
        }
      } finally {
        reading--;
      }
      return c.json({ ...stored, url: `/s/${scene}/tracks/${stored.id}` }, 201);
    },
  );

  app.get("/s/:id/tracks/:track", async (c) => {
    const scene = deps.sceneId(c.req.param("id"));
    const id = c.req.param("track");
    const track = isTrackId(id) ? await deps.store.stat(scene, id) : undefined;
    if (!track) throw new HttpError(404, "not_found", `scene ${scene} holds no track ${id}`);
    return await serveTrack(c, deps.store, scene, track);
  });

  app.all("/s/:id/tracks", (c) => {
    throw new HttpError(405, "method_not_allowed", `${c.req.method} is not allowed; use POST`, {
      allow: "POST",
    });
  });
  app.all("/s/:id/tracks/:track", (c) => {
    throw new HttpError(405, "method_not_allowed", `${c.req.method} is not allowed; use GET`, {
      allow: "GET, HEAD",
    });
  });
}

/** The spender an upload is charged to: its network (IPv4 /24, IPv6 /64). */
function spenderOf(address: string): string {
  if (address.includes(":")) return address.split(":").slice(0, 4).join(":");
  return address.split(".").slice(0, 3).join(".");
}

/** The whole track, or the one range asked for; HEAD opens nothing. */
async function serveTrack(
  c: Context,
  store: TrackStore,
  scene: string,
  track: StoredTrack,
): Promise<Response> {
  const etag = `"${track.id}"`;
  const headers: Record<string, string> = {
    "content-type": track.mime,
    "accept-ranges": "bytes",
    "cache-control": IMMUTABLE,
    etag,
  };
  const match = c.req.header("if-none-match");
  if (match !== undefined && match.split(",").some((tag) => tag.trim() === etag)) {
    return new Response(null, { status: 304, headers });
  }
  const ifRange = c.req.header("if-range");
  const range = ifRange === undefined || ifRange === etag
    ? byteRange(c.req.header("range"), track.bytes)
    : undefined;
  if (range === "unsatisfiable") {
    throw new HttpError(416, "range_not_satisfiable", `the track holds ${track.bytes} bytes`, {
      "content-range": `bytes */${track.bytes}`,
    });
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? track.bytes - 1;
  headers["content-length"] = String(end - start + 1);
  if (range) headers["content-range"] = `bytes ${start}-${end}/${track.bytes}`;
  const status = range ? 206 : 200;
  if (c.req.method === "HEAD") return new Response(null, { status, headers });
  return new Response(await store.read({ scene, id: track.id, start, end }), { status, headers });
}
