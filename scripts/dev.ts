/**
 * `deno task dev`: builds the client, serves the scene server, and rebuilds the bundle whenever a
 * file in `client/` or `shared/` changes (reload the page to pick it up). Ctrl-C stops both.
 */
import { fileURLToPath } from "node:url";
import { optionsFromEnv } from "../server/config.ts";
import { startServer } from "../server/server.ts";
import { buildClient } from "../tools/bundle.ts";

/** Changes closer together than this are folded into one rebuild. */
const DEBOUNCE_MS = 150;

const root = fileURLToPath(new URL("..", import.meta.url));
const log = (message: string) => console.log(message);

/** Rebuilds, reporting the time taken or the error (the dev server keeps running either way). */
async function rebuild(reason: string): Promise<void> {
  const started = performance.now();
  try {
    // Readable and quick to rebuild; the dev server serves its source map (dev: true).
    await buildClient({ force: true, minify: false, precompress: false });
    log(`dev: rebuilt after ${reason} in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    log(`dev: ${(error as Error).message}`);
  }
}

if (import.meta.main) {
  await rebuild("start");
  const server = await startServer({
    ...optionsFromEnv((name) => Deno.env.get(name)),
    dev: true,
    log,
  });
  log(`dev: open ${server.url}/s/dev`);
  const watcher = Deno.watchFs([`${root}client`, `${root}shared`], { recursive: true });
  const stop = async () => {
    watcher.close();
    await server.shutdown();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let building = Promise.resolve();
  for await (const event of watcher) {
    if (!event.paths.some((path) => path.endsWith(".ts"))) continue;
    clearTimeout(timer);
    const changed = event.paths[0].slice(root.length);
    timer = setTimeout(() => {
      building = building.then(() => rebuild(changed));
    }, DEBOUNCE_MS);
  }
}
