/** What the HTTP routes are given: the configuration they read and the server's parts. */
import type { Metrics } from "../scene/metrics.ts";
import type { AddressBudgets, RateLimit } from "../scene/ratelimit.ts";
import type { SceneHost } from "../scene/scene_host.ts";
import type { ConnectionConfig, HelloDeadlines } from "../ws/connection.ts";
import type { ReadSlotLimits } from "./read_slots.ts";

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
  /** Per client address (and twice that per network): track uploads. */
  trackUploads: RateLimit;
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
