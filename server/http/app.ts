/**
 * The HTTP surface (Hono): scene creation and pages, the scene WebSocket, the JSON API, health,
 * metrics and static files. One error handler turns every failure into `{error: {code, message}}`
 * (or a small HTML page for browsers).
 */
import { type Context, Hono } from "hono";
import { SceneId } from "../../shared/protocol.ts";
import type { AppContext } from "./app_context.ts";
import { sceneId, sceneSlug } from "./scene_slug.ts";
import { registerSceneSocket } from "./scene_socket.ts";
import { registerHealth } from "./health_routes.ts";
import { HttpError, StorageDamagedError, StorageUnavailableError } from "../scene/errors.ts";
import { registerLogApi } from "./log_api.ts";
import { registerTracks } from "./track_routes.ts";
import { securityHeaders, styleHash } from "./security_headers.ts";
import { StaticFiles } from "./static_files.ts";
import type { ServerEnv } from "../ws/ws_types.ts";
import { AddressBudgets, networkBudget } from "../scene/ratelimit.ts";
import { readBudget } from "./read_budget.ts";
import { ReadSlots, readSlots } from "./read_slots.ts";
import { RefusalPacer } from "./refusal_pacer.ts";

export { LOG_PAGE_MAX } from "./log_api.ts";
export type { AppConfig, AppContext } from "./app_context.ts";
export { originAllowed, ownOrigin } from "./scene_socket.ts";

/** Builds the Hono app. */
export function createApp(ctx: AppContext): Hono<{ Bindings: ServerEnv }> {
  const app = new Hono<{ Bindings: ServerEnv }>();
  const { config, scenes, metrics } = ctx;
  const files = new StaticFiles(config.staticDir, { dev: config.dev });
  app.use(
    "*",
    securityHeaders({
      inlineStyles: [ERROR_PAGE_STYLE_HASH],
      frameAncestors: config.frameAncestors,
    }),
  );
  // Every route that reads the database spends the address's read budget first. Refusals of
  // both kinds are answered paced per address (a few a second, whatever its connections).
  const pacer = new RefusalPacer();
  const reads = readBudget({
    budgets: new AddressBudgets(config.httpReads),
    monotonic: config.monotonic,
    refuse: (code) => metrics.refuse(code),
    pacer,
  });
  for (const path of DB_ROUTES) app.use(path, reads);
  // Log pages read at once, per address and in all: the rest are refused, not queued.
  app.use(
    "/api/scenes/:id/log",
    readSlots(new ReadSlots(config.logReads), (code) => metrics.refuse(code), pacer),
  );
  // Events stored per address and per network, whatever the connection (a minute's worth as the
  // burst).
  const perAddress = { perSecond: config.eventsPerMinute / 60, burst: config.eventsPerMinute };
  const eventBudget = new AddressBudgets(perAddress, networkBudget(perAddress));

  // A fresh id, not stored (GET and HEAD alike): the scene comes to exist when someone joins.
  app.get("/", async (c) => c.redirect(`/s/${await scenes.freshId()}`, 302));

  app.get("/s/:id", async (c) => {
    // Ids are lowercase; a link typed as /s/MyParty lands in the same scene as /s/myparty, and
    // one typed as /s/My Party!! in /s/my-party.
    const slug = sceneSlug(c.req.param("id"));
    if (slug !== undefined && slug !== c.req.param("id") && SceneId.safeParse(slug).success) {
      return c.redirect(`/s/${slug}${new URL(c.req.url).search}`, 301);
    }
    const id = sceneId(c.req.param("id"));
    const address = c.env?.remoteAddress ?? "";
    const refusal = await scenes.admission(id, address, false);
    if (refusal) throw new HttpError(refusal.status, refusal.code, refusal.message);
    return await files.page(c.req.raw);
  });

  registerSceneSocket(app, ctx, eventBudget);

  app.get("/api/scenes/:id", async (c) => {
    const id = sceneId(c.req.param("id"));
    const info = await scenes.describe(id);
    if (!info) throw new HttpError(404, "not_found", `no scene ${id}`);
    return c.json(info);
  });

  registerLogApi(app, {
    describe: async (id) => await scenes.describe(id),
    read: (request) => scenes.readLogPage(request),
    readsScene: scenes.logPagesCarryScene === true,
  }, sceneId);

  registerHealth(app, ctx);

  registerTracks(app, {
    store: scenes.tracks,
    isHostKey: (id, key) => scenes.isHostKey(id, key),
    uploads: new AddressBudgets(config.trackUploads, networkBudget(config.trackUploads)),
    sceneId,
    refuse: (code) => metrics.refuse(code),
    monotonic: config.monotonic,
  });

  app.get("/static/*", async (c) => {
    const relative = c.req.path.slice("/static/".length);
    return await files.serve(relative, c.req.raw);
  });

  // Known paths answer other methods with 405 and the methods they do allow.
  for (const path of ROUTES) {
    app.all(path, (c) => {
      throw new HttpError(
        405,
        "method_not_allowed",
        `${c.req.method} is not allowed on ${c.req.path}; use GET`,
        { allow: "GET, HEAD" },
      );
    });
  }

  // Returned, not thrown: a thrown not-found skips the middleware (and its security headers).
  app.notFound((c) =>
    errorResponse(new HttpError(404, "not_found", "nothing here"), c, config.log)
  );
  app.onError((thrown, c) => errorResponse(thrown, c, config.log));

  return app;
}

/**
 * Routes that read the database (or a stored track): each request spends the address's
 * `httpReads` budget.
 */
const DB_ROUTES = ["/s/:id", "/s/:id/tracks/*", "/api/*", "/healthz", "/metrics"];

/** Paths served (GET and HEAD only); every other method gets 405. */
const ROUTES = [
  "/",
  "/s/:id",
  "/s/:id/ws",
  "/api/scenes/:id",
  "/api/scenes/:id/log",
  "/healthz",
  "/metrics",
  "/static/*",
];

/** The error page's only styles, allowed by the CSP through their hash. */
const ERROR_PAGE_STYLE =
  "body{background:#0b1020;color:#dde;font:16px system-ui;display:grid;place-items:center;" +
  "height:100vh;margin:0}a{color:#9cf}";
const ERROR_PAGE_STYLE_HASH = styleHash(ERROR_PAGE_STYLE);

function errorPage(status: number, code: string, message: string): string {
  const escape = (s: string) =>
    s.replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]!);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${status} · Snowfire</title>
<style>${ERROR_PAGE_STYLE}</style>
</head><body><main><h1>${status}</h1><p>${escape(message)} <small>(${escape(code)})</small></p>
<p><a href="/">Start a new scene</a></p></main></body></html>`;
}

/**
 * The one error answer: a known `HttpError` (or a storage fault, 503) with its code and message,
 * anything else a logged 500; JSON, or a small HTML page for browsers.
 */
function errorResponse(thrown: Error, c: Context, log: (msg: string) => void): Response {
  const err = thrown instanceof StorageUnavailableError || thrown instanceof StorageDamagedError
    ? new HttpError(503, thrown.code, thrown.message)
    : thrown;
  const known = err instanceof HttpError;
  const status = known ? err.status : 500;
  const code = known ? err.code : "internal";
  const message = known ? err.message : "internal error";
  if (!known) log(`error: ${c.req.method} ${c.req.path}: ${err.stack ?? err}`);
  const headers = known ? err.headers : {};
  if (c.req.header("accept")?.includes("text/html")) {
    return c.html(errorPage(status, code, message), status as 404, headers);
  }
  return c.json({ error: { code, message } }, status as 404, headers);
}
