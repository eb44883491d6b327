/**
 * The HTTP surface (Hono): scene creation and pages, the scene WebSocket, the JSON API, health,
 * metrics and static files. One error handler turns every failure into `{error: {code, message}}`
 * (or a small HTML page for browsers).
 */
import { type Context, Hono } from "hono";
import { SceneId } from "../../shared/protocol.ts";
import { sceneSlug } from "./scene_slug.ts";
import { attachConnection, type ConnectionConfig, type HelloDeadlines } from "../ws/connection.ts";
import {
  errorMessage,
  HttpError,
  StorageDamagedError,
  StorageUnavailableError,
} from "../scene/errors.ts";
import type { Metrics } from "../scene/metrics.ts";
import type { SceneHost } from "../scene/scene_host.ts";
import { registerLogApi } from "./log_api.ts";
import { storageMetrics } from "../local/storage_metrics.ts";
import { securityHeaders, styleHash } from "./security_headers.ts";
import { StaticFiles } from "./static_files.ts";
import type { ServerEnv } from "../ws/ws_types.ts";
import { AddressBudgets, networkBudget, type RateLimit } from "../scene/ratelimit.ts";
import { readBudget } from "./read_budget.ts";
import { type ReadSlotLimits, ReadSlots, readSlots } from "./read_slots.ts";
import { RefusalPacer } from "./refusal_pacer.ts";

export { LOG_PAGE_MAX } from "./log_api.ts";

/**
 * What the routes read of the server's configuration (`ServerConfig` in `server/config.ts`, which
 * reads the environment, has all of it).
 */
export interface AppConfig extends ConnectionConfig {
  /** Where the page's files are. */
  staticDir: string;
  /** Development: the source map is served, nothing is cached. */
  dev: boolean;
  /** Origins besides the server's own host allowed to open WebSockets (`*`: any). */
  allowedOrigins: string[];
  /** Origins allowed to frame the pages (FRAME_ANCESTORS; none: no framing). */
  frameAncestors: string[];
  /** Per client address: HTTP reads of the API. */
  httpReads: RateLimit;
  /** Log pages read at once, and queued. */
  logReads: ReadSlotLimits;
  /** Per client address: events stored (launches, gun shots, settings) per minute. */
  eventsPerMinute: number;
}

/** What the routes need. */
export interface AppContext {
  config: AppConfig;
  /** Where scenes live (the single node's store, or NATS): the routes never ask which. */
  scenes: SceneHost;
  metrics: Metrics;
  startedMs: number;
  /** False once shutdown began: new WebSockets are refused. */
  accepting: () => boolean;
  /** Connections that have not said hello yet (closed when they wait too long). */
  deadlines: HelloDeadlines;
  /** Per client address: new WebSocket connections. */
  connectionBudget: AddressBudgets;
}

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

  app.get("/s/:id/ws", async (c) => {
    const id = sceneId(c.req.param("id"));
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new HttpError(426, "upgrade_required", "this endpoint speaks WebSocket only");
    }
    const origin = c.req.header("origin");
    if (!originAllowed(origin, ownOrigin(c.req.raw), config.allowedOrigins)) {
      metrics.refuse("forbidden_origin");
      throw new HttpError(403, "forbidden_origin", `origin ${origin} may not open this scene`);
    }
    if (!ctx.accepting()) throw new HttpError(503, "shutting_down", "the server is restarting");
    const upgrade = c.env?.upgrade;
    if (!upgrade) {
      throw new HttpError(426, "upgrade_required", "this endpoint speaks WebSocket only");
    }
    // A reconnect loop costs a handshake each time: refused here, before the upgrade, it costs
    // a small HTTP answer instead.
    const wait = ctx.connectionBudget.take(c.env.remoteAddress, config.monotonic());
    if (wait > 0) {
      metrics.refuse("too_many_connections");
      c.header("retry-after", String(Math.ceil(wait / 1000)));
      throw new HttpError(
        429,
        "rate_limited",
        "too many new connections from your address; try again shortly",
      );
    }
    const refusal = await scenes.admission(id, c.env.remoteAddress, true);
    const { socket, response } = upgrade(c.req.raw);
    if (refusal) {
      // Over a scene limit: a browser cannot read an HTTP refusal of a WebSocket, so the socket
      // opens, carries the error and closes.
      metrics.refuse(refusal.code);
      socket.send(
        JSON.stringify(errorMessage(refusal.code, refusal.message, refusal.retryAfterMs)),
      );
      // Hard: a refused socket is never read again (a flooder that kept writing to one was
      // parsed at ~4M frames a second until the close handshake timed out).
      socket.close(refusal.closeCode, refusal.message, true);
      return response;
    }
    attachConnection(socket, scenes.open(id), config, metrics, ctx.deadlines, {
      address: c.env.remoteAddress,
      events: eventBudget,
      eventsPerMinute: config.eventsPerMinute,
    });
    return response;
  });

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

  app.get("/healthz", (c) => {
    // The scenes' home is checked (the database is read; NATS must be reachable).
    const health = scenes.health();
    const uptimeMs = Math.round(config.monotonic() - ctx.startedMs);
    const stored = scenes.storage?.();
    return c.json({ ...health, uptimeMs, ...(stored ? { stored } : {}) }, health.ok ? 200 : 503);
  });

  app.get("/metrics", (c) => {
    const home = scenes.metrics();
    return c.text(
      metrics.render({
        scenesLoaded: scenes.size,
        scenesStored: home.scenesStored,
        connections: scenes.connections(),
      }) + home.text + storageMetrics(scenes.storage?.()),
      200,
      { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
    );
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
  app.notFound((c) => errorResponse(new HttpError(404, "not_found", "nothing here"), c));
  app.onError((thrown, c) => errorResponse(thrown, c));

  const errorResponse = (thrown: Error, c: Context) => {
    const err = thrown instanceof StorageUnavailableError || thrown instanceof StorageDamagedError
      ? new HttpError(503, thrown.code, thrown.message)
      : thrown;
    const known = err instanceof HttpError;
    const status = known ? err.status : 500;
    const code = known ? err.code : "internal";
    const message = known ? err.message : "internal error";
    if (!known) config.log(`error: ${c.req.method} ${c.req.path}: ${err.stack ?? err}`);
    const headers = known ? err.headers : {};
    if (c.req.header("accept")?.includes("text/html")) {
      return c.html(errorPage(status, code, message), status as 404, headers);
    }
    return c.json({ error: { code, message } }, status as 404, headers);
  };

  return app;
}

/** Routes that read the database: each request spends the address's `httpReads` budget. */
const DB_ROUTES = ["/s/:id", "/api/*", "/healthz", "/metrics"];

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

/**
 * Our own origin as the browser saw it: the scheme a TLS-terminating proxy reports in
 * `X-Forwarded-Proto` (else the request's), and the Host header.
 */
export function ownOrigin(request: Request): string | undefined {
  const host = request.headers.get("host");
  if (!host) return undefined;
  const forwarded = request.headers.get("x-forwarded-proto")?.split(",")[0].trim().toLowerCase();
  const scheme = forwarded === "https" || forwarded === "http"
    ? forwarded
    : new URL(request.url).protocol.slice(0, -1);
  return `${scheme}://${host}`;
}

/**
 * The page's own origin passes — same scheme, host and port: an `http:` page may not speak for
 * an `https:` site — as do those listed (or any, with `*`); no Origin (not a browser) passes.
 */
export function originAllowed(
  origin: string | undefined,
  own: string | undefined,
  allowed: readonly string[],
): boolean {
  if (origin === undefined) return true;
  if (allowed.includes("*") || allowed.includes(origin)) return true;
  if (own === undefined) return false;
  try {
    return new URL(origin).origin === new URL(own).origin;
  } catch {
    return false;
  }
}

function sceneId(raw: string): string {
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
