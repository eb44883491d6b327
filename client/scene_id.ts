/** Reads the scene id from a `/s/:id` path. */

const SCENE_PATH = /^\/s\/([a-z0-9-]{1,64})\/?$/;

/**
 * The scene id in `pathname` (`/s/:id`), or `null` when the path is not a scene page.
 * Ids are 1–64 characters of `[a-z0-9-]`, the same rule the server enforces.
 */
export function sceneIdFromPath(pathname: string): string | null {
  const match = SCENE_PATH.exec(pathname);
  return match ? match[1] : null;
}

/** The WebSocket URL of a scene for a page served from `location` (ws on http, wss on https). */
export function sceneSocketUrl(
  location: { protocol: string; host: string },
  sceneId: string,
): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/s/${sceneId}/ws`;
}
