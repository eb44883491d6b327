/**
 * Serving files from the static directory, refusing any path that would escape it. Every file
 * gets a strong ETag (a 304 when the browser has it), text is sent gzip- or brotli-compressed
 * when the browser accepts it (compressed once per file version, off the event loop, cached),
 * content-hashed bundles are `immutable`, and source maps are served only in development.
 */
import { createHash } from "node:crypto";
import { extname, join, normalize, sep } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants as zlib, gzip, gzipSync } from "node:zlib";
import { HttpError } from "../scene/errors.ts";

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

/** Extensions worth compressing (images here are already compressed formats or tiny). */
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".map", ".svg", ".txt"]);

/** Smaller bodies go out as they are: compression would save less than its headers cost. */
const MIN_COMPRESS_BYTES = 1024;

/** Files larger than this are served from disk each time, never held in memory. */
const MAX_CACHED_BYTES = 16 << 20;

/** A bundle name esbuild gave a content hash (`app-5XJ2Q7KD.js`): its bytes never change. */
const HASHED_NAME = /-[A-Z0-9]{8}\.(js|css)$/;

/** Cache for files whose name carries their content hash. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** Cache for everything else: keep, but revalidate (cheap: a 304 thanks to the ETag). */
export const REVALIDATE = "no-cache";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

type Encoding = "br" | "gzip";

/** One version of one file, with its compressed forms once they are made. */
interface Entry {
  mtimeMs: number;
  size: number;
  body: Uint8Array<ArrayBuffer>;
  /** Strong validator of the identity body; encoded forms append their encoding. */
  etag: string;
  encoded: Map<Encoding, Uint8Array<ArrayBuffer> | Promise<void>>;
}

/** Options of {@link StaticFiles}. */
export interface StaticFilesOptions {
  /** Serve source maps and point bundles at them (DEV=1). Default false. */
  dev?: boolean;
}

/**
 * The static directory as HTTP responses.
 *
 * @example
 * ```ts
 * const files = new StaticFiles("static");
 * const res = await files.serve("build/app-5XJ2Q7KD.js", request);
 * res.headers.get("cache-control"); // "public, max-age=31536000, immutable"
 * ```
 */
export class StaticFiles {
  readonly root: string;
  readonly #dev: boolean;
  readonly #cache = new Map<string, Entry>();

  constructor(root: string, options: StaticFilesOptions = {}) {
    this.root = normalize(root);
    this.#dev = options.dev ?? false;
  }

  /** A file under the root as a Response; 404 `not_found` when missing or outside the root. */
  async serve(relative: string, request: Request): Promise<Response> {
    const path = this.#resolve(relative);
    if (extname(path) === ".map" && !this.#dev) {
      throw new HttpError(
        404,
        "not_found",
        `no file ${relative} (source maps are served with DEV=1)`,
      );
    }
    const entry = await this.#load(path, relative);
    const immutable = HASHED_NAME.test(path);
    const headers: Record<string, string> = {
      "cache-control": immutable ? IMMUTABLE : REVALIDATE,
    };
    if (this.#dev && extname(path) === ".js") headers["sourcemap"] = `${basename(path)}.map`;
    return this.#respond(entry, CONTENT_TYPES[extname(path)] ?? "application/octet-stream", {
      request,
      headers,
      compressible: COMPRESSIBLE.has(extname(path)),
    });
  }

  /**
   * `index.html` with the bundle's content-hashed name (from `build/manifest.json`, written by
   * the build) in place of `/static/build/app.js`; revalidated each visit, 304 when unchanged.
   */
  async page(request: Request): Promise<Response> {
    const index = await this.#load(this.#resolve("index.html"), "index.html");
    const manifest = await this.#manifest();
    const key = `page:${index.etag}:${manifest?.etag ?? ""}`;
    let entry = this.#cache.get(key);
    if (!entry) {
      let html = new TextDecoder().decode(index.body);
      for (const [plain, hashed] of Object.entries(manifest?.names ?? {})) {
        html = html.replaceAll(`/static/build/${plain}`, `/static/build/${hashed}`);
      }
      entry = makeEntry(new TextEncoder().encode(html), 0);
      for (const old of this.#cache.keys()) if (old.startsWith("page:")) this.#cache.delete(old);
      this.#cache.set(key, entry);
    }
    return this.#respond(entry, CONTENT_TYPES[".html"], {
      request,
      headers: { "cache-control": REVALIDATE },
      compressible: true,
    });
  }

  async #manifest(): Promise<{ etag: string; names: Record<string, string> } | undefined> {
    let entry: Entry;
    try {
      entry = await this.#load(this.#resolve("build/manifest.json"), "build/manifest.json");
    } catch (e) {
      if (e instanceof HttpError && e.status === 404) return undefined;
      throw e;
    }
    const names = JSON.parse(new TextDecoder().decode(entry.body)) as Record<string, string>;
    return { etag: entry.etag, names };
  }

  #resolve(relative: string): string {
    let decoded: string;
    try {
      decoded = decodeURIComponent(relative);
    } catch {
      throw new HttpError(400, "bad_path", `the path ${relative} is not valid URL encoding`);
    }
    const base = this.root;
    const path = normalize(join(base, decoded));
    if (decoded.includes("\0") || !(path + sep).startsWith(base + sep) || path === base) {
      throw new HttpError(404, "not_found", `no file ${relative}`);
    }
    return path;
  }

  /** The file's current version: from the cache when its size and mtime are unchanged. */
  async #load(path: string, relative: string): Promise<Entry> {
    let stat: Deno.FileInfo;
    try {
      stat = await Deno.stat(path);
      if (!stat.isFile) throw new Deno.errors.NotFound();
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
        throw new HttpError(404, "not_found", `no file ${relative}`);
      }
      throw e;
    }
    const mtimeMs = stat.mtime?.getTime() ?? 0;
    const cached = this.#cache.get(path);
    if (cached && cached.mtimeMs === mtimeMs && cached.size === stat.size) return cached;
    const body = await Deno.readFile(path) as Uint8Array<ArrayBuffer>;
    const entry = makeEntry(body, mtimeMs);
    // The build writes brotli and gzip siblings of the bundle (maximum compression, once).
    for (const [encoding, suffix] of [["br", ".br"], ["gzip", ".gz"]] as const) {
      try {
        const sibling = await Deno.stat(path + suffix);
        if ((sibling.mtime?.getTime() ?? 0) < mtimeMs) continue;
        entry.encoded.set(encoding, await Deno.readFile(path + suffix) as Uint8Array<ArrayBuffer>);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    }
    if (body.byteLength <= MAX_CACHED_BYTES) this.#cache.set(path, entry);
    return entry;
  }

  #respond(
    entry: Entry,
    contentType: string,
    o: { request: Request; headers: Record<string, string>; compressible: boolean },
  ): Response {
    const headers: Record<string, string> = { "content-type": contentType, ...o.headers };
    let body = entry.body;
    let etag = entry.etag;
    if (o.compressible && body.byteLength >= MIN_COMPRESS_BYTES) {
      headers["vary"] = "Accept-Encoding";
      const encoding = this.#pick(entry, accepted(o.request.headers.get("accept-encoding")));
      if (encoding) {
        body = entry.encoded.get(encoding) as Uint8Array<ArrayBuffer>;
        etag = `${entry.etag.slice(0, -1)}-${encoding}"`;
        headers["content-encoding"] = encoding;
      }
    }
    headers["etag"] = etag;
    if (matches(o.request.headers.get("if-none-match"), etag)) {
      return new Response(null, { status: 304, headers: withoutBodyHeaders(headers) });
    }
    return new Response(body, { headers });
  }

  /**
   * The best encoding the client accepts that is ready. A build-time sibling (`app-X.js.br`)
   * counts as ready; small files compress at once; a large one without a sibling is compressed
   * in the background (node:zlib's thread pool) and goes out as it is meanwhile.
   */
  #pick(entry: Entry, accepts: Set<string>): Encoding | undefined {
    for (const encoding of ["br", "gzip"] as const) {
      if (!accepts.has(encoding)) continue;
      const ready = entry.encoded.get(encoding);
      if (ready instanceof Uint8Array) return encoding;
      if (ready !== undefined) continue;
      if (entry.body.byteLength <= SYNC_COMPRESS_BYTES) {
        entry.encoded.set(encoding, compressNow(entry.body, encoding));
        return encoding;
      }
      entry.encoded.set(encoding, compressLater(entry, encoding));
    }
    return undefined;
  }
}

/** Up to this size a file is compressed on the spot (well under a millisecond per KiB). */
const SYNC_COMPRESS_BYTES = 256 << 10;

function brotliOptions(bytes: number) {
  return {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes,
    },
  };
}

function compressNow(body: Uint8Array, encoding: Encoding): Uint8Array<ArrayBuffer> {
  const bytes = encoding === "br"
    ? brotliCompressSync(body, brotliOptions(body.byteLength))
    : gzipSync(body, { level: 9 });
  return new Uint8Array(bytes) as Uint8Array<ArrayBuffer>;
}

function compressLater(entry: Entry, encoding: Encoding): Promise<void> {
  const made = encoding === "br"
    ? brotli(entry.body, brotliOptions(entry.body.byteLength))
    : gzipAsync(entry.body, { level: 9 });
  return made.then(
    (bytes) => {
      entry.encoded.set(encoding, new Uint8Array(bytes) as Uint8Array<ArrayBuffer>);
    },
    () => {
      // Never compressed: this file version goes out as it is.
      entry.encoded.delete(encoding);
    },
  );
}

function makeEntry(body: Uint8Array<ArrayBuffer>, mtimeMs: number): Entry {
  const digest = createHash("sha256").update(body).digest("base64url").slice(0, 27);
  return { mtimeMs, size: body.byteLength, body, etag: `"${digest}"`, encoded: new Map() };
}

/** Encodings named in Accept-Encoding with a non-zero q. */
function accepted(header: string | null): Set<string> {
  const result = new Set<string>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (name && !(q && Number(q.slice(2)) === 0)) result.add(name);
  }
  if (result.has("*")) result.add("br").add("gzip");
  return result;
}

/** If-None-Match: `*`, or a list of (possibly weak) validators one of which is ours. */
function matches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const { "content-type": _type, "content-encoding": _encoding, ...rest } = headers;
  return rest;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf(sep) + 1);
}
