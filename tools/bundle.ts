/**
 * Bundles the browser client (`client/main.ts`) with esbuild into `static/build/app-HASH.js`:
 * minified, named after its content (so it can be cached `immutable`), with brotli and gzip
 * siblings (`.br`, `.gz`) and an external source map the server shows only with DEV=1.
 * `static/build/manifest.json` maps `app.js` to the hashed name; the server puts that name into
 * the page. As a script (`deno task build`) it always rebuilds; `buildClient()` skips the work
 * when the bundle is already newer than every source it depends on. It lives in `tools/` because
 * the server (`deno task start` builds a stale bundle), the dev script and the browser tests all
 * use it.
 */
import * as esbuild from "esbuild";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Where the bundle and its companions are written. */
export const BUILD_DIR = join(ROOT, "static", "build");

/** `{"app.js": "app-HASH.js"}`: the name the page refers to and the file that holds it. */
export const MANIFEST_PATH = join(BUILD_DIR, "manifest.json");

/** The current bundle's path (from the manifest), or undefined before the first build. */
export async function bundlePath(): Promise<string | undefined> {
  try {
    const names = JSON.parse(await Deno.readTextFile(MANIFEST_PATH)) as Record<string, string>;
    return names["app.js"] ? join(BUILD_DIR, names["app.js"]) : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Options for {@link buildClient}. */
export interface BuildOptions {
  /** Rebuild even when the bundle looks fresh. */
  force?: boolean;
  /** Minify the bundle (smaller download, harder to debug). Default true. */
  minify?: boolean;
  /**
   * Write brotli (maximum quality: seconds for a megabyte) and gzip siblings. Default true;
   * without them the server compresses on first request instead.
   */
  precompress?: boolean;
}

/** Newest modification time (ms) of any file under `dir`, or 0 when the directory is missing. */
async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        newest = Math.max(newest, await newestMtime(path));
      } else if (entry.isFile) {
        const stat = await Deno.stat(path);
        newest = Math.max(newest, stat.mtime?.getTime() ?? 0);
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return newest;
}

/** True when the manifest and its bundle exist and are newer than everything in `client/` and `shared/`. */
export async function bundleIsFresh(): Promise<boolean> {
  let bundleTime: number;
  try {
    const bundle = await bundlePath();
    if (!bundle) return false;
    await Deno.stat(bundle);
    bundleTime = (await Deno.stat(MANIFEST_PATH)).mtime?.getTime() ?? 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  const sources = Math.max(
    await newestMtime(join(ROOT, "client")),
    await newestMtime(join(ROOT, "shared")),
  );
  return bundleTime > sources;
}

/**
 * Bundles `client/main.ts` (three.js and zod resolved from `node_modules`) into
 * `static/build/app-HASH.js` (+ `.br`, `.gz`, `.map`) and points the manifest at it, unless the
 * bundle is fresh and `force` is not set. Older bundles are removed. Stops esbuild's service
 * afterwards so callers (tests) leak no resources. Resolves true when it built, false when the
 * bundle was already fresh.
 */
export async function buildClient(opts: BuildOptions = {}): Promise<boolean> {
  if (!opts.force && await bundleIsFresh()) return false;
  let outputs: string[];
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { app: join(ROOT, "client", "main.ts") },
      outdir: BUILD_DIR,
      entryNames: "[name]-[hash]",
      bundle: true,
      format: "esm",
      target: "es2022",
      platform: "browser",
      // External: no sourceMappingURL comment; the server names the map only in development.
      sourcemap: "external",
      minify: opts.minify ?? true,
      metafile: true,
      logLevel: "silent",
      legalComments: "none",
    });
    for (const warning of result.warnings) {
      console.warn(`build warning: ${warning.text}`);
    }
    outputs = Object.keys(result.metafile.outputs).map((path) => join(ROOT, path));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`build_failed: could not bundle client/main.ts: ${message}`);
  } finally {
    await esbuild.stop();
  }
  const bundle = outputs.find((path) => path.endsWith(".js"))!;
  const code = await Deno.readFile(bundle);
  if (opts.precompress ?? true) await precompress(bundle, code);
  // The manifest last: a server reading it mid-build still finds the previous, complete bundle.
  const manifest = `${MANIFEST_PATH}.tmp`;
  await Deno.writeTextFile(manifest, JSON.stringify({ "app.js": basename(bundle) }) + "\n");
  await Deno.rename(manifest, MANIFEST_PATH);
  for await (const entry of Deno.readDir(BUILD_DIR)) {
    const current = entry.name.startsWith(basename(bundle));
    if (!current && /^app(-[A-Z0-9]+)?\.js/.test(entry.name)) {
      await Deno.remove(join(BUILD_DIR, entry.name));
    }
  }
  return true;
}

/**
 * Bundles `entry` into one self-contained script (IIFE, in memory) for a test or benchmark page to
 * inject; with `globalName`, the entry's exports land on `globalThis[globalName]`.
 *
 * @example
 * ```ts ignore
 * const code = await bundleScript(new URL("../shared/replay.ts", import.meta.url), "Replay");
 * await page.addScriptTag({ content: code });
 * ```
 */
export async function bundleScript(entry: URL, globalName?: string): Promise<string> {
  try {
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(entry)],
      bundle: true,
      format: "iife",
      globalName,
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    return result.outputFiles[0].text;
  } finally {
    await esbuild.stop();
  }
}

/** Writes `bundle.br` (brotli, maximum quality) and `bundle.gz` (gzip -9) next to the bundle. */
async function precompress(bundle: string, code: Uint8Array): Promise<void> {
  const brotli = brotliCompressSync(code, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
      [zlib.BROTLI_PARAM_SIZE_HINT]: code.byteLength,
    },
  });
  await Deno.writeFile(`${bundle}.br`, brotli);
  await Deno.writeFile(`${bundle}.gz`, gzipSync(code, { level: 9 }));
}

if (import.meta.main) {
  const started = performance.now();
  await buildClient({ force: true, minify: !Deno.args.includes("--no-minify") });
  const bundle = (await bundlePath())!;
  const kib = async (path: string) => ((await Deno.stat(path)).size / 1024).toFixed(0);
  console.log(
    `built ${bundle} (${await kib(bundle)} KiB; brotli ${await kib(
      `${bundle}.br`,
    )} KiB, gzip ${await kib(
      `${bundle}.gz`,
    )} KiB) in ${(performance.now() - started).toFixed(0)} ms`,
  );
}
