/**
 * `GET /healthz` (whether this node can serve scenes, its uptime and what it stores; 503 when it
 * cannot) and `GET /metrics` (Prometheus text: the server's counters, the scenes' home's own
 * families, storage).
 */
import type { Hono } from "hono";
import { storageMetrics } from "../local/storage_metrics.ts";
import type { ServerEnv } from "../ws/ws_types.ts";
import type { AppContext } from "./app_context.ts";

/**
 * Adds the health and metrics routes to `app`.
 *
 * @example
 * ```ts ignore
 * registerHealth(app, ctx);
 * ```
 */
export function registerHealth(app: Hono<{ Bindings: ServerEnv }>, ctx: AppContext): void {
  app.get("/healthz", (c) => {
    // The scenes' home is checked (the database is read; NATS must be reachable).
    const health = ctx.scenes.health();
    const uptimeMs = Math.round(ctx.config.monotonic() - ctx.startedMs);
    const stored = ctx.scenes.storage?.();
    return c.json({ ...health, uptimeMs, ...(stored ? { stored } : {}) }, health.ok ? 200 : 503);
  });

  app.get("/metrics", (c) => {
    const home = ctx.scenes.metrics();
    return c.text(
      ctx.metrics.render({
        scenesLoaded: ctx.scenes.size,
        scenesStored: home.scenesStored,
        connections: ctx.scenes.connections(),
      }) + home.text + storageMetrics(ctx.scenes.storage?.()),
      200,
      { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
    );
  });
}
