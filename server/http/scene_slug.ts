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
