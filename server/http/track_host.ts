/**
 * Middleware for a scene's host-only HTTP routes: the request carries a host key of the scene
 * (`Authorization: Bearer <key>`, the key of the host link), checked against the hashes the scene
 * keeps in constant time (as a WebSocket `claim` is). No key: 401 `host_key_required`; a key that
 * is not the scene's: 403 `forbidden`; no such scene: 404.
 *
 * @example
 * ```ts
 * app.post("/s/:id/tracks", trackHost(sceneId, isHostKey), upload);
 * ```
 */
import type { MiddlewareHandler } from "hono";
import { HttpError } from "../scene/errors.ts";

/** Lets through requests whose bearer key is a host key of the `:id` scene. */
export function trackHost(
  sceneId: (raw: string) => string,
  isHostKey: (id: string, key: string) => Promise<boolean | undefined>,
): MiddlewareHandler {
  return async (c, next) => {
    const scene = sceneId(c.req.param("id") ?? "");
    const match = /^Bearer\s+([A-Za-z0-9_-]{1,128})\s*$/.exec(c.req.header("authorization") ?? "");
    if (!match) {
      throw new HttpError(
        401,
        "host_key_required",
        "only a host may do this: send the scene's host key as Authorization: Bearer <key>",
        { "www-authenticate": 'Bearer realm="snowfire"' },
      );
    }
    const allowed = await isHostKey(scene, match[1]);
    if (allowed === undefined) throw new HttpError(404, "not_found", `no scene ${scene}`);
    if (!allowed) throw new HttpError(403, "forbidden", "that key is not a host key of this scene");
    await next();
  };
}
