/**
 * Server configuration: the options `startServer` accepts, their defaults, and the parsing of the
 * environment variables `deno task start` reads.
 */
import { fileURLToPath } from "node:url";
import { DEFAULT_SKY_CAP } from "../shared/constants.ts";
import type { ClusterOptions } from "./cluster/cluster_config.ts";
import type { DesyncLimits } from "./scene/desync.ts";
import { WS_ENGINES, type WsEngine } from "./ws/ws_types.ts";
import type { ReadSlotLimits } from "./http/read_slots.ts";
import { DRAIN_DEADLINE_MS } from "./scene/peer.ts";
import {
  checkRetention,
  DEFAULT_RETENTION,
  retentionFromEnv,
  type RetentionPolicy,
} from "./scene/retention_policy.ts";

import { DEFAULT_RATE_LIMITS, type RateLimit, type RateLimits } from "./scene/ratelimit.ts";
export { DEFAULT_RATE_LIMITS, type RateLimit, type RateLimits } from "./scene/ratelimit.ts";

/** What `startServer` accepts. Only `dataDir` is required. */
export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 8000. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  hostname?: string;
  /** Directory of the scene database; created when missing. */
  dataDir: string;
  /** Ceiling on live firework + gun particles per scene (admission control). */
  skyCap?: number;
  /** Most connections one scene accepts. Default 2000. */
  maxPeers?: number;
  /** Origins besides the server's own host allowed to open WebSockets. `*` allows any. */
  allowedOrigins?: string[];
  /** Directory served under `/static/` and holding `index.html`. Default the repo's `static/`. */
  staticDir?: string;
  /** Origins allowed to embed the pages in a frame (CSP frame-ancestors). Default none. */
  frameAncestors?: string[];
  /** Overrides of the per-connection token buckets. */
  rateLimits?: Partial<RateLimits>;
  /** Wall clock in ms (read once per server start to place the monotonic clock). */
  now?: () => number;
  /** Monotonic clock in ms; drives ticks and the heartbeat scheduler. */
  monotonic?: () => number;
  /** Where log lines go. Default console.log. */
  log?: (msg: string) => void;
  /** Period of the shared scheduler pass (heartbeats, show, desync decisions). Default 45 ms:
   * 22 heartbeats per second, 5 ms of slack under the promised 50 ms (deadlines do not drift). */
  heartbeatMs?: number;
  /** A connection whose unsent bytes exceed this is dropped (close 1013). Default 1 MiB. */
  maxBufferedBytes?: number;
  /**
   * A connection that keeps more than 64 KiB undrained this long is dropped (close 1013); see
   * `server/scene/peer.ts` for what each engine can see. Default 10 s (DRAIN_DEADLINE_MS).
   */
  drainDeadlineMs?: number;
  /** A scene with nobody in it stays loaded this long, so reconnects resume. Default 60 s. */
  roomIdleMs?: number;
  /**
   * How long a checkpoint's hash reports are gathered (unless every eligible peer reported)
   * before a disagreement is arbitrated with what came. Default 3 s.
   */
  desyncTimeoutMs?: number;
  /**
   * People per scene announced in welcome and presence; later ones are present silently. Default
   * 32: it bounds the welcome frame, whose size each connection's write buffer keeps for good.
   */
  presenceLimit?: number;
  /** Cluster mode: scenes live in NATS JetStream (see server/cluster/). Default: embedded. */
  cluster?: ClusterOptions;
  /**
   * Most bytes the scene database may grow to (SQLite `max_page_count`); past it launches get
   * `storage_full`. Default 1 GiB (`DEFAULT_DB_MAX_BYTES`).
   */
  dbMaxBytes?: number;
  /**
   * Most bytes the scenes' music tracks may hold together (TRACKS_MAX_MB; a single node's files
   * under `DATA_DIR/tracks`, a cluster's object store bucket). Default 512 MiB.
   */
  tracksMaxBytes?: number;
  /** Per client address: track uploads. Default 1 a minute, bursts of 6. */
  trackUploads?: RateLimit;
  /** Development mode (DEV=1): source maps are served. Default false. */
  dev?: boolean;
  /** Overrides of the desync arbitration limits (DEFAULT_DESYNC_LIMITS in desync.ts). */
  desyncLimits?: Partial<DesyncLimits>;
  /**
   * WebSocket engine: `ws` (default; npm `ws` on `node:http`, refuses an oversized frame from its
   * header) or `deno` (`Deno.upgradeWebSocket`, which buffers a whole frame before its size is
   * known).
   */
  wsEngine?: WsEngine;
  /** A connection that has not said `hello` this long after opening is closed (1008). 10 s. */
  helloTimeoutMs?: number;
  /** Refusals of one kind get at most one `error` reply per this many ms per connection. 1 s. */
  refusalNoticeMs?: number;
  /** Most scenes loaded at once; joining another one is refused (`server_busy`). Default 1000. */
  maxScenes?: number;
  /** Per client address: how fast new scenes may be created. Default 0.1/s, burst 20. */
  newScenes?: RateLimit;
  /**
   * Per client address: how fast new WebSockets may be opened (429 before the upgrade beyond).
   * Default 20/s, burst 300: a class behind one NAT can join at once; a reconnect loop cannot.
   */
  connections?: RateLimit;
  /** `ws` engine: sockets are pinged this often and dropped when one went unanswered. 30 s. */
  keepaliveMs?: number;
  /** How long scene logs are kept (RETAIN_HOURS, RETAIN_EVENTS_PER_SCENE); 72 h, 1e6 events. */
  retention?: Partial<RetentionPolicy>;
  /** How often the retention pass looks for work, ms. Default 10 s. */
  retentionPassMs?: number;
  /**
   * Most TCP connections open at once (HTTP and WebSocket together). Default 10000, and never
   * more than the process's open-file limit minus a reserve (see `server/ws/conn_guard.ts`).
   */
  maxConnections?: number;
  /** Most TCP connections one address (IPv6: one /64) holds at once. Default 256. */
  maxConnectionsPerAddress?: number;
  /** A plain HTTP connection silent this long is closed (WebSockets have their keepalive). 30 s. */
  httpIdleMs?: number;
  /** A connection whose request headers have not all arrived this long after it opened is closed. 10 s. */
  headersTimeoutMs?: number;
  /**
   * Per client address: HTTP requests to routes that read the database (scene pages, the API,
   * health, metrics). Default 20/s, burst 100.
   */
  httpReads?: RateLimit;
  /**
   * Log pages read at once (LOG_READS_PER_ADDRESS, LOG_READS): per client address 2, in total 8.
   * Past them a page read is refused at once (429 `too_many_reads`, 503 `busy`).
   */
  logReads?: Partial<ReadSlotLimits>;
  /**
   * Per client address: events stored (launches, gun shots, settings), counted per minute.
   * Default 1200 a minute (20/s sustained, a whole minute's worth as burst).
   */
  eventsPerMinute?: number;
}

/** Options with every default filled in. */
export interface ServerConfig {
  port: number;
  hostname: string;
  dataDir: string;
  skyCap: number;
  maxPeers: number;
  allowedOrigins: string[];
  frameAncestors: string[];
  staticDir: string;
  rateLimits: RateLimits;
  now: () => number;
  monotonic: () => number;
  log: (msg: string) => void;
  heartbeatMs: number;
  maxBufferedBytes: number;
  drainDeadlineMs: number;
  roomIdleMs: number;
  desyncTimeoutMs: number;
  presenceLimit: number;
  /** Cap on the database file; DEFAULT_DB_MAX_BYTES unless set. */
  dbMaxBytes: number;
  tracksMaxBytes: number;
  trackUploads: RateLimit;
  dev: boolean;
  desyncLimits: Partial<DesyncLimits>;
  /** Frames longer than this many bytes are refused with `too_large`. */
  maxFrameBytes: number;
  /**
   * A host's or composer's frame may be this long (a show of up to 2,000 cues); longer ones, and
   * anyone else's over `maxFrameBytes`, are refused with `too_large`.
   */
  maxShowFrameBytes: number;
  wsEngine: WsEngine;
  helloTimeoutMs: number;
  refusalNoticeMs: number;
  maxScenes: number;
  newScenes: RateLimit;
  connections: RateLimit;
  keepaliveMs: number;
  retention: RetentionPolicy;
  retentionPassMs: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  httpIdleMs: number;
  headersTimeoutMs: number;
  httpReads: RateLimit;
  logReads: ReadSlotLimits;
  eventsPerMinute: number;
}

/** Default cap on the database file (DB_MAX_MB): 1 GiB. Past it launches are refused. */
export const DEFAULT_DB_MAX_BYTES = 1024 * 1024 * 1024;

/** How long a connection may take to be welcomed after it opened (`helloTimeoutMs`). */
export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;

/** Default room for music tracks (TRACKS_MAX_MB): 512 MiB. */
export const DEFAULT_TRACKS_MAX_BYTES = 512 * 1024 * 1024;

/** Largest accepted client frame in bytes. */
export const MAX_FRAME_BYTES = 4096;
/** Longest frame from a host or composer (a whole show): 256 KiB. */
export const MAX_SHOW_FRAME_BYTES = 256 * 1024;

/**
 * FRAME_ANCESTORS as CSP sources: each an `http(s)://host[:port]` origin (the host may start with
 * `*.`) or `'self'`; anything else (a path, a `;`, a bare word) is refused by name.
 */
function checkFrameAncestors(sources: string[]): string[] {
  for (const source of sources) {
    const origin = /^https?:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i.test(source);
    if (!origin && source !== "'self'") {
      throw new RangeError(
        `frameAncestors: "${source}" is not an origin like https://blog.example or 'self'`,
      );
    }
  }
  return [...sources];
}

/** Fills in defaults; throws a RangeError naming the option when a value makes no sense. */
export function resolveConfig(options: ServerOptions): ServerConfig {
  const config: ServerConfig = {
    port: options.port ?? 8000,
    hostname: options.hostname ?? "127.0.0.1",
    dataDir: options.dataDir,
    skyCap: options.skyCap ?? DEFAULT_SKY_CAP,
    maxPeers: options.maxPeers ?? 2000,
    allowedOrigins: options.allowedOrigins ?? [],
    frameAncestors: checkFrameAncestors(options.frameAncestors ?? []),
    staticDir: options.staticDir ?? fileURLToPath(new URL("../static", import.meta.url)),
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...options.rateLimits },
    now: options.now ?? Date.now,
    monotonic: options.monotonic ?? (() => performance.now()),
    log: options.log ?? ((msg) => console.log(msg)),
    heartbeatMs: options.heartbeatMs ?? 45,
    maxBufferedBytes: options.maxBufferedBytes ?? 1 << 20,
    drainDeadlineMs: options.drainDeadlineMs ?? DRAIN_DEADLINE_MS,
    roomIdleMs: options.roomIdleMs ?? 60_000,
    desyncTimeoutMs: options.desyncTimeoutMs ?? 3000,
    presenceLimit: options.presenceLimit ?? 32,
    dbMaxBytes: options.dbMaxBytes ?? DEFAULT_DB_MAX_BYTES,
    tracksMaxBytes: options.tracksMaxBytes ?? DEFAULT_TRACKS_MAX_BYTES,
    trackUploads: options.trackUploads ?? { perSecond: 1 / 60, burst: 6 },
    dev: options.dev ?? false,
    desyncLimits: options.desyncLimits ?? {},
    maxFrameBytes: MAX_FRAME_BYTES,
    maxShowFrameBytes: MAX_SHOW_FRAME_BYTES,
    wsEngine: options.wsEngine ?? "ws",
    helloTimeoutMs: options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS,
    refusalNoticeMs: options.refusalNoticeMs ?? 1000,
    maxScenes: options.maxScenes ?? 1000,
    newScenes: options.newScenes ?? { perSecond: 0.1, burst: 20 },
    connections: options.connections ?? { perSecond: 20, burst: 300 },
    keepaliveMs: options.keepaliveMs ?? 30_000,
    retention: checkRetention({ ...DEFAULT_RETENTION, ...options.retention }),
    retentionPassMs: options.retentionPassMs ?? 10_000,
    maxConnections: options.maxConnections ?? 10_000,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? 256,
    httpIdleMs: options.httpIdleMs ?? 30_000,
    headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
    httpReads: options.httpReads ?? { perSecond: 20, burst: 100 },
    logReads: { perAddress: 2, total: 8, ...options.logReads },
    eventsPerMinute: options.eventsPerMinute ?? 1200,
  };
  requireInt("port", config.port, 0, 65535);
  requireInt("skyCap", config.skyCap, 1, 1e9);
  requireInt("maxPeers", config.maxPeers, 1, 1e7);
  requireInt("maxScenes", config.maxScenes, 1, 1e7);
  requireInt("maxConnections", config.maxConnections, 1, 1e7);
  requireInt("maxConnectionsPerAddress", config.maxConnectionsPerAddress, 1, 1e7);
  requireInt("logReads.perAddress", config.logReads.perAddress, 1, 1e6);
  requireInt("logReads.total", config.logReads.total, 1, 1e6);
  requireInt("eventsPerMinute", config.eventsPerMinute, 1, 1e9);
  for (const name of ["httpIdleMs", "headersTimeoutMs"] as const) {
    if (!(config[name] > 0)) throw new RangeError(`${name} must be > 0, got ${config[name]}`);
  }
  if (!(WS_ENGINES as readonly string[]).includes(config.wsEngine)) {
    throw new RangeError(
      `wsEngine must be one of ${WS_ENGINES.join(", ")}, got ${config.wsEngine}`,
    );
  }
  if (!(config.helloTimeoutMs > 0)) {
    throw new RangeError(`helloTimeoutMs must be > 0, got ${config.helloTimeoutMs}`);
  }
  if (!(config.refusalNoticeMs >= 0)) {
    throw new RangeError(`refusalNoticeMs must be >= 0, got ${config.refusalNoticeMs}`);
  }
  for (
    const [name, limit] of [
      ["newScenes", config.newScenes],
      ["connections", config.connections],
      ["httpReads", config.httpReads],
    ] as const
  ) {
    if (!(limit.perSecond > 0 && limit.burst >= 1)) {
      throw new RangeError(`${name} needs perSecond > 0 and burst >= 1`);
    }
  }
  if (!(config.heartbeatMs > 0 && config.heartbeatMs <= 50)) {
    throw new RangeError(`heartbeatMs must be in (0, 50], got ${config.heartbeatMs}`);
  }
  for (const [kind, limit] of Object.entries(config.rateLimits)) {
    if (!(limit.perSecond > 0 && limit.burst >= 1)) {
      throw new RangeError(`rate limit ${kind} needs perSecond > 0 and burst >= 1`);
    }
  }
  if (!(config.dbMaxBytes >= 4096)) {
    throw new RangeError(`dbMaxBytes must be at least 4096, got ${config.dbMaxBytes}`);
  }
  if (!config.dataDir) throw new RangeError("dataDir is required");
  return config;
}

function requireInt(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

/** Reads a `PER_SECOND/BURST` pair such as `4/8`. */
function parseRate(name: string, text: string): RateLimit {
  const match = /^\s*([0-9.]+)\s*\/\s*([0-9]+)\s*$/.exec(text);
  if (!match) {
    throw new RangeError(`${name} must look like PER_SECOND/BURST (e.g. 4/8), got ${text}`);
  }
  return { perSecond: Number(match[1]), burst: Number(match[2]) };
}

/** Bytes of `text` megabytes (a positive number, fractions allowed). */
function parseMegabytes(name: string, text: string): number {
  const mb = Number(text);
  if (!(mb > 0)) throw new RangeError(`${name} must be a positive number, got ${text}`);
  return Math.floor(mb * 1024 * 1024);
}

function parseInteger(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value)) throw new RangeError(`${name} must be an integer, got ${text}`);
  return value;
}

/**
 * Options from environment variables: PORT, HOST, DATA_DIR, SKY_CAP, MAX_PEERS, ALLOWED_ORIGINS,
 * FRAME_ANCESTORS
 * (comma separated), STATIC_DIR, HEARTBEAT_MS, PRESENCE_LIMIT, WS_ENGINE, HELLO_TIMEOUT_MS,
 * REFUSAL_NOTICE_MS, MAX_SCENES, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, HTTP_IDLE_MS,
 * HEADERS_TIMEOUT_MS, EVENTS_PER_MINUTE, DB_MAX_MB, TRACKS_MAX_MB, RATE_NEW_SCENES, RATE_CONNECTIONS,
 * RATE_HTTP_READS, LOG_READS_PER_ADDRESS, LOG_READS, and RATE_LAUNCH / RATE_GUN / RATE_SETTINGS / RATE_FRAMES /
 * RATE_REFUSED as `PER_SECOND/BURST`.
 */
export function optionsFromEnv(env: (name: string) => string | undefined): ServerOptions {
  const options: ServerOptions = {
    port: parseInteger("PORT", env("PORT") ?? "8000"),
    hostname: env("HOST") ?? "0.0.0.0",
    dataDir: env("DATA_DIR") ?? "./data",
  };
  /** Each variable of `table` that is set, parsed into its option. */
  const read = <K extends keyof ServerOptions>(
    table: readonly (readonly [name: string, key: K])[],
    parse: (name: string, text: string) => ServerOptions[K],
  ) => {
    for (const [name, key] of table) {
      const text = env(name);
      if (text) options[key] = parse(name, text);
    }
  };
  read([
    ["SKY_CAP", "skyCap"],
    ["MAX_PEERS", "maxPeers"],
    ["PRESENCE_LIMIT", "presenceLimit"],
    ["HELLO_TIMEOUT_MS", "helloTimeoutMs"],
    ["REFUSAL_NOTICE_MS", "refusalNoticeMs"],
    ["MAX_SCENES", "maxScenes"],
    ["MAX_CONNECTIONS", "maxConnections"],
    ["MAX_CONNECTIONS_PER_ADDRESS", "maxConnectionsPerAddress"],
    ["HTTP_IDLE_MS", "httpIdleMs"],
    ["HEADERS_TIMEOUT_MS", "headersTimeoutMs"],
    ["EVENTS_PER_MINUTE", "eventsPerMinute"],
  ], parseInteger);
  read([
    ["RATE_NEW_SCENES", "newScenes"],
    ["RATE_CONNECTIONS", "connections"],
    ["RATE_HTTP_READS", "httpReads"],
  ], parseRate);
  read([["DB_MAX_MB", "dbMaxBytes"], ["TRACKS_MAX_MB", "tracksMaxBytes"]], parseMegabytes);
  const origins = env("ALLOWED_ORIGINS");
  if (origins) options.allowedOrigins = origins.split(",").map((o) => o.trim()).filter(Boolean);
  const ancestors = env("FRAME_ANCESTORS");
  if (ancestors) options.frameAncestors = ancestors.split(/[\s,]+/).filter(Boolean);
  const heartbeatMs = env("HEARTBEAT_MS");
  if (heartbeatMs) options.heartbeatMs = Number(heartbeatMs);
  if (env("DEV") === "1") options.dev = true;
  const wsEngine = env("WS_ENGINE");
  if (wsEngine) options.wsEngine = wsEngine as WsEngine;
  const logReads: Partial<ReadSlotLimits> = {};
  const perAddress = env("LOG_READS_PER_ADDRESS");
  if (perAddress) logReads.perAddress = parseInteger("LOG_READS_PER_ADDRESS", perAddress);
  const total = env("LOG_READS");
  if (total) logReads.total = parseInteger("LOG_READS", total);
  options.logReads = logReads;
  const staticDir = env("STATIC_DIR");
  if (staticDir) options.staticDir = staticDir;
  const rateLimits: Partial<RateLimits> = {};
  for (const kind of ["launch", "gun", "settings", "reaction", "frames", "refused"] as const) {
    const name = `RATE_${kind.toUpperCase()}`;
    const text = env(name);
    if (text) rateLimits[kind] = parseRate(name, text);
  }
  options.rateLimits = rateLimits;
  options.retention = retentionFromEnv(env);
  return options;
}

/** One line per setting, for the start-up log. */
export function describeConfig(config: ServerConfig): string {
  const r = config.rateLimits;
  const rate = (l: RateLimit) => `${l.perSecond}/s burst ${l.burst}`;
  return [
    `port=${config.port} host=${config.hostname} dataDir=${config.dataDir}`,
    `skyCap=${config.skyCap} maxPeers=${config.maxPeers} heartbeatMs=${config.heartbeatMs} ` +
    `presenceLimit=${config.presenceLimit}`,
    `wsEngine=${config.wsEngine} maxScenes=${config.maxScenes} helloTimeoutMs=${config.helloTimeoutMs} ` +
    `per address: new scenes ${rate(config.newScenes)}, connections ${rate(config.connections)}`,
    `connections: at most ${config.maxConnections}, ${config.maxConnectionsPerAddress} per address; ` +
    `http idle ${config.httpIdleMs} ms, headers ${config.headersTimeoutMs} ms; ` +
    `per address: http reads ${rate(config.httpReads)}, events ${config.eventsPerMinute}/min; ` +
    `log pages read at once: ${config.logReads.perAddress} per address, ${config.logReads.total} in all`,
    `allowedOrigins=${config.allowedOrigins.join(",") || "(same origin only)"} ` +
    `frameAncestors=${config.frameAncestors.join(",") || "(no site may embed a scene)"}`,
    `staticDir=${config.staticDir} dbMaxBytes=${config.dbMaxBytes} ` +
    `tracksMaxBytes=${config.tracksMaxBytes}` +
    (config.dev ? " dev (source maps served)" : ""),
    `retention: ${config.retention.hours} h, ${config.retention.eventsPerScene} events per scene`,
    `rate launch ${rate(r.launch)}, gun ${rate(r.gun)}, settings ${rate(r.settings)}, reaction ${
      rate(r.reaction)
    }, frames ${rate(r.frames)}, refused ${rate(r.refused)}`,
  ].join("\n");
}
