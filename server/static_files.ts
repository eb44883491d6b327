/** Serving files from the static directory, refusing any path that would escape it. */
import { extname, join, normalize, sep } from "node:path";
import { HttpError } from "./errors.ts";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

/** A file under `root` as a Response; 404 `not_found` when missing or outside `root`. */
export async function serveFile(root: string, relative: string): Promise<Response> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    throw new HttpError(400, "bad_path", `the path ${relative} is not valid URL encoding`);
  }
  const base = normalize(root);
  const path = normalize(join(base, decoded));
  if (decoded.includes("\0") || !(path + sep).startsWith(base + sep) || path === base) {
    throw new HttpError(404, "not_found", `no file ${relative}`);
  }
  let body: Uint8Array;
  try {
    body = await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.IsADirectory) {
      throw new HttpError(404, "not_found", `no file ${relative}`);
    }
    throw e;
  }
  return new Response(body as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": CONTENT_TYPES[extname(path)] ?? "application/octet-stream",
      "cache-control": "no-cache",
    },
  });
}
