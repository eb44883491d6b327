/**
 * Bundles the browser client (`client/main.ts`) with esbuild into `static/build/app.js`.
 * As a script (`deno task build`) it always rebuilds; `buildClient()` skips the work when the
 * bundle is already newer than every source it depends on.
 */
import * as esbuild from "esbuild";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Where the bundle is written. */
export const BUNDLE_PATH = join(ROOT, "static", "build", "app.js");

/** Options for {@link buildClient}. */
export interface BuildOptions {
  /** Rebuild even when the bundle looks fresh. */
  force?: boolean;
  /** Minify the bundle (smaller download, harder to debug). */
  minify?: boolean;
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

/** True when `static/build/app.js` exists and is newer than everything in `client/` and `shared/`. */
export async function bundleIsFresh(): Promise<boolean> {
  let bundleTime: number;
  try {
    bundleTime = (await Deno.stat(BUNDLE_PATH)).mtime?.getTime() ?? 0;
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
 * `static/build/app.js` with a source map, unless the bundle is fresh and `force` is not set.
 * Stops esbuild's service afterwards so callers (tests) leak no resources.
 */
export async function buildClient(opts: BuildOptions = {}): Promise<void> {
  if (!opts.force && await bundleIsFresh()) return;
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [join(ROOT, "client", "main.ts")],
      outfile: BUNDLE_PATH,
      bundle: true,
      format: "esm",
      target: "es2022",
      platform: "browser",
      sourcemap: true,
      minify: opts.minify ?? false,
      logLevel: "silent",
      legalComments: "none",
    });
    for (const warning of result.warnings) {
      console.warn(`build warning: ${warning.text}`);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`build_failed: could not bundle client/main.ts: ${message}`);
  } finally {
    await esbuild.stop();
  }
}

if (import.meta.main) {
  const started = performance.now();
  await buildClient({ force: true, minify: Deno.args.includes("--minify") });
  const size = (await Deno.stat(BUNDLE_PATH)).size;
  console.log(
    `built ${BUNDLE_PATH} (${(size / 1024).toFixed(0)} KiB) in ${
      (performance.now() - started).toFixed(0)
    } ms`,
  );
}
