/**
 * `GET /s/:id/ws`: a scene's WebSocket. Checked before the upgrade: the origin, shutdown, the
 * address's budget of new connections (a reconnect loop costs a small HTTP answer, not a
 * handshake); over a scene limit the socket opens, carries the error and closes (a browser cannot
 * read an HTTP refusal of a WebSocket). Then the connection joins its scene.
 */
import type { Hono } from "hono";
import { errorMessage, HttpError } from "../scene/errors.ts";
import type { AddressBudgets } from "../scene/ratelimit.ts";
import { attachConnection } from "../ws/connection.ts";
import type { ServerEnv } from "../ws/ws_types.ts";
import type { AppContext } from "./app_context.ts";
import { sceneId } from "./scene_slug.ts";

/**
 * Adds the scene WebSocket route to `app`; `events` budgets events stored per address and
 * network.
 *
 * @example
 * ```ts ignore
 * registerSceneSocket(app, ctx, eventBudget);
 * ```
 */
export function registerSceneSocket(
  app: Hono<{ Bindings: ServerEnv }>,
  ctx: AppContext,
  events: AddressBudgets,
): void {
  app.get("/s/:id/ws", async (c) => {
    const id = sceneId(c.req.param("id"));
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new HttpError(426, "upgrade_required", "this endpoint speaks WebSocket only");
    }
    const origin = c.req.header("origin");
    if (!originAllowed(origin, ownOrigin(c.req.raw), ctx.config.allowedOrigins)) {
      ctx.metrics.refuse("forbidden_origin");
      throw new HttpError(403, "forbidden_origin", `origin ${origin} may not open this scene`);
    }
    if (!ctx.accepting()) throw new HttpError(503, "shutting_down", "the server is restarting");
    const upgrade = c.env?.upgrade;
    if (!upgrade) {
      throw new HttpError(426, "upgrade_required", "this endpoint speaks WebSocket only");
    }
    // A reconnect loop costs a handshake each time: refused here, before the upgrade, it costs
    // a small HTTP answer instead.
    const wait = ctx.connectionBudget.take(c.env.remoteAddress, ctx.config.monotonic());
    if (wait > 0) {
      ctx.metrics.refuse("too_many_connections");
      c.header("retry-after", String(Math.ceil(wait / 1000)));
      throw new HttpError(
        429,
        "rate_limited",
        "too many new connections from your address; try again shortly",
      );
    }
    const refusal = await ctx.scenes.admission(id, c.env.remoteAddress, true);
    const { socket, response } = upgrade(c.req.raw);
    if (refusal) {
      // Over a scene limit: a browser cannot read an HTTP refusal of a WebSocket, so the socket
      // opens, carries the error and closes.
      ctx.metrics.refuse(refusal.code);
      socket.send(
        JSON.stringify(errorMessage(refusal.code, refusal.message, refusal.retryAfterMs)),
      );
      // Hard: a refused socket is never read again (a flooder that kept writing to one was
      // parsed at ~4M frames a second until the close handshake timed out).
      socket.close(refusal.closeCode, refusal.message, true);
      return response;
    }
    attachConnection(socket, ctx.scenes.open(id), ctx.config, ctx.metrics, ctx.deadlines, {
      address: c.env.remoteAddress,
      events,
      eventsPerMinute: ctx.config.eventsPerMinute,
    });
    return response;
  });
}

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
