/**
 * The wire protocol: JSON text frames over one WebSocket per client at `/s/:scene/ws`.
 * Every frame that crosses the network is validated with these schemas.
 */
import { z } from "zod";
import {
  BURST_HEIGHT_MAX,
  BURST_HEIGHT_MIN,
  LAUNCH_HALF_EXTENT,
  NAME_MAX_LENGTH,
  SCENE_HALF_EXTENT,
  SCENE_HEIGHT,
} from "./constants.ts";
import { FIREWORK_KINDS, MAX_BREAKS } from "./firework_kinds.ts";
import { THEMES } from "./types.ts";
import type { SceneEvent, Settings, WorldSnapshot } from "./types.ts";

/** A scene id: 1–64 characters of `[a-z0-9-]`. */
export const SceneId = z.string().regex(
  /^[a-z0-9-]{1,64}$/,
  "scene ids are 1-64 chars of a-z 0-9 -",
);

const finite = z.number().finite();
const coord = finite.min(-1000).max(1000);

export const ThemeSchema = z.enum(THEMES);

export const SettingsSchema = z.object({
  snow: finite.min(0).max(1),
  windSpeed: finite.min(0).max(12),
  windDirection: finite.min(0).max(360),
  theme: z.union([ThemeSchema, z.literal("auto")]),
  show: z.boolean(),
  fountain: z.boolean(),
}).strict();

export const PartialSettingsSchema = SettingsSchema.partial().refine(
  (s) => Object.keys(s).length > 0,
  "settings must change at least one field",
);

export const FireworkKindSchema = z.enum(FIREWORK_KINDS);

/**
 * A launch: the shell rises from the ground point (x, z) and bursts above it at height `y`
 * (BURST_HEIGHT_MIN–MAX; omitted: a height from the launch's own random stream), as `kind`
 * (omitted: peony), in `theme` (omitted: the scene's), `breaks` times (1–3, default 1).
 */
export const LaunchBodySchema = z.object({
  type: z.literal("launch"),
  x: finite.min(-LAUNCH_HALF_EXTENT).max(LAUNCH_HALF_EXTENT),
  z: finite.min(-LAUNCH_HALF_EXTENT).max(LAUNCH_HALF_EXTENT),
  y: finite.min(BURST_HEIGHT_MIN).max(BURST_HEIGHT_MAX).optional(),
  kind: FireworkKindSchema.optional(),
  theme: ThemeSchema.optional(),
  breaks: z.number().int().min(1).max(MAX_BREAKS).optional(),
}).strict();

const vec3 = z.tuple([coord, coord, coord]);

export const GunBodySchema = z.object({
  type: z.literal("gun"),
  origin: z.tuple([
    finite.min(-SCENE_HALF_EXTENT).max(SCENE_HALF_EXTENT),
    finite.min(0).max(SCENE_HEIGHT),
    finite.min(-SCENE_HALF_EXTENT).max(SCENE_HALF_EXTENT),
  ]),
  direction: vec3.refine(
    ([x, y, z]) => x * x + y * y + z * z > 1e-6,
    "direction must not be zero",
  ),
}).strict();

export const SettingsBodySchema = z.object({
  type: z.literal("settings"),
  settings: PartialSettingsSchema,
}).strict();

export const EventBodySchema = z.discriminatedUnion("type", [
  LaunchBodySchema,
  GunBodySchema,
  SettingsBodySchema,
]);

export const SceneEventSchema = z.object({
  seq: z.number().int().min(1),
  tick: z.number().int().min(0),
  by: z.string().min(1).max(64),
  body: EventBodySchema,
});

export const WorldSnapshotSchema = z.object({
  tick: z.number().int().min(0),
  settings: SettingsSchema,
  windX: finite,
  windZ: finite,
  windSince: z.number().int().min(0),
});

export const PeerSchema = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string(),
});

/** A person in a scene. */
export type Peer = z.infer<typeof PeerSchema>;

// ---------------------------------------------------------------- client → server

export const ClientMessageSchema = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("hello"),
    name: z.string().trim().min(1).max(NAME_MAX_LENGTH).optional(),
    lastSeq: z.number().int().min(0).optional(),
  }).strict(),
  z.object({
    t: z.literal("launch"),
    x: LaunchBodySchema.shape.x,
    z: LaunchBodySchema.shape.z,
    theme: ThemeSchema.optional(),
  })
    .strict(),
  z.object({
    t: z.literal("gun"),
    origin: GunBodySchema.shape.origin,
    direction: GunBodySchema.shape.direction,
  }).strict(),
  z.object({ t: z.literal("settings"), settings: PartialSettingsSchema }).strict(),
  z.object({ t: z.literal("ping"), id: z.number().int().min(0), ct: finite }).strict(),
  z.object({
    t: z.literal("hash"),
    tick: z.number().int().min(0),
    h: z.string().regex(/^[0-9a-f]{1,32}$/),
  }).strict(),
]);

/** Any frame a client may send. */
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

// ---------------------------------------------------------------- server → client

/** Error codes a client can receive, each with a human `message`. */
export const ERROR_CODES = [
  "bad_message",
  "too_large",
  "rate_limited",
  "sky_full",
  "room_full",
  "bad_scene",
  "forbidden_origin",
  /** The server cannot save right now (disk full, I/O error); nothing changed. */
  "storage_unavailable",
  /** You remember events the server's storage no longer has; a fresh welcome follows. */
  "history_lost",
  "internal",
  "paused",
] as const;
export type ErrorCode = typeof ERROR_CODES[number];

/** Sent once after `hello`, and again after `resync`: all a client needs to build the present. */
export const WelcomeMessageSchema = z.object({
  t: z.literal("welcome"),
  v: z.number().int(),
  scene: SceneId,
  seed: z.number().int().min(0).max(0xffffffff),
  tickRate: z.number().int().positive(),
  windowTicks: z.number().int().positive(),
  checkpointTicks: z.number().int().positive(),
  skyCap: z.number().int().positive(),
  you: PeerSchema,
  /** Heartbeat horizon: every event with tick < horizon is in `events` or was sent before. */
  horizon: z.number().int().min(0),
  /** Settings and accumulators at `snapshot.tick` (= horizon − W, or 0 for a young scene). */
  snapshot: WorldSnapshotSchema,
  /** Events with tick in [snapshot.tick, horizon), in seq order (only the missed ones when resumed). */
  events: z.array(SceneEventSchema),
  /** Highest seq sent so far (0 when none). */
  lastSeq: z.number().int().min(0),
  peers: z.array(PeerSchema),
  /** True when the server resumed from the client's `lastSeq`: `events` are just the missed ones. */
  resumed: z.boolean(),
});
export type WelcomeMessage = z.infer<typeof WelcomeMessageSchema>;

/** A heartbeat: every event with tick < n has been sent. */
export const TickMessageSchema = z.object({ t: z.literal("tick"), n: z.number().int().min(0) });
export type TickMessage = z.infer<typeof TickMessageSchema>;

/** A stamped event. */
export const EventMessageSchema = SceneEventSchema.extend({ t: z.literal("event") });
export type EventMessage = z.infer<typeof EventMessageSchema>;

/** Someone joined or left. */
export const PresenceMessageSchema = z.object({
  t: z.literal("presence"),
  kind: z.enum(["join", "leave"]),
  peer: PeerSchema,
});
export type PresenceMessage = z.infer<typeof PresenceMessageSchema>;

/** Answer to `ping`: `id` and `ct` echoed, `n` the server's fractional tick when it answered. */
export const PongMessageSchema = z.object({
  t: z.literal("pong"),
  id: z.number().int(),
  ct: finite,
  n: finite,
});
export type PongMessage = z.infer<typeof PongMessageSchema>;

/** Something was refused; nothing else changed. */
export const ErrorMessageSchema = z.object({
  t: z.literal("error"),
  code: z.enum(ERROR_CODES),
  message: z.string(),
  /** For `rate_limited` and `sky_full`: when trying again may succeed. */
  retryAfterMs: z.number().int().min(0).optional(),
});
export type ErrorMessage = z.infer<typeof ErrorMessageSchema>;

/** Your hash disagreed with the majority at `tick`; a fresh `welcome` follows. */
export const ResyncMessageSchema = z.object({
  t: z.literal("resync"),
  tick: z.number().int().min(0),
  message: z.string(),
});
export type ResyncMessage = z.infer<typeof ResyncMessageSchema>;

/**
 * Cluster mode: the sky paused (the scene's owner is changing, or NATS is unreachable; launches
 * are refused with `paused` meanwhile) or live again. Connections stay open either way.
 */
export const StatusMessageSchema = z.object({
  t: z.literal("status"),
  sky: z.enum(["live", "paused"]),
  message: z.string(),
});
export type StatusMessage = z.infer<typeof StatusMessageSchema>;

export const ServerMessageSchema = z.discriminatedUnion("t", [
  WelcomeMessageSchema,
  TickMessageSchema,
  EventMessageSchema,
  PresenceMessageSchema,
  PongMessageSchema,
  ErrorMessageSchema,
  ResyncMessageSchema,
  StatusMessageSchema,
]);

/** Any frame the server may send. */
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

export type { SceneEvent, Settings, WorldSnapshot };
