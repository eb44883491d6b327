import { SceneId } from "../../shared/protocol.ts";
import { HttpError } from "../scene/errors.ts";

/**
 * A typed scene name made into a scene id: `/s/My Party!!` becomes `/s/my-party`. Lowercase,
 * accents dropped, every run of other characters one dash, no dash at either end, at most 64
 * characters. Undefined when nothing usable is left (`/s/!!!`): the page then says so.
 *
 * @example
 * ```ts
 * sceneSlug("My Party!!"); // "my-party"
 * sceneSlug("Café  Noël"); // "cafe-noel"
 * ```
 */
export function sceneSlug(raw: string): string | undefined {
  const slug = raw.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").slice(0, 64).replace(/^-+|-+$/g, "");
  return slug.length > 0 ? slug : undefined;
}

/**
 * A scene id from a path, as it is: a malformed one is a 404 (`bad_scene`).
 *
 * @example
 * ```ts ignore
 * const id = sceneId(c.req.param("id")); // throws HttpError 404 for "My Party"
 * ```
 */
export function sceneId(raw: string): string {
  const parsed = SceneId.safeParse(raw);
  if (!parsed.success) {
    throw new HttpError(
      404,
      "bad_scene",
      "There is no scene here: a scene name uses letters a–z, digits and dashes (at most 64).",
    );
  }
  return parsed.data;
}
