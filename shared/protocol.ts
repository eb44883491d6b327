/**
 * The wire protocol: JSON text frames over one WebSocket per client at `/s/:scene/ws`.
 * Every frame that crosses the network is validated with these schemas, and every wire type
 * (`Settings`, `EventBody`, `SceneEvent`, `WorldSnapshot`, the messages) is inferred from them:
 * the schemas are the one definition.
 */
import { z } from "zod";
import {
  BURST_HEIGHT_MAX,
  BURST_HEIGHT_MIN,
  GUN_ORIGIN_HALF_EXTENT,
  GUN_ORIGIN_HEIGHT,
  LAUNCH_HALF_EXTENT,
  NAME_MAX_LENGTH,
} from "./constants.ts";
import { FIREWORK_KINDS, MAX_BREAKS } from "./firework_kinds.ts";
import {
  HostKeySchema,
  PeerIdSchema,
  RulesBodySchema,
  RulesSchema,
  SettingsLockSchema,
} from "./rules_protocol.ts";
import { THEMES } from "./themes.ts";

/** A scene id: 1–64 characters of `[a-z0-9-]`. */
export const SceneId = z.string().regex(
  /^[a-z0-9-]{1,64}$/,
  "scene ids are 1-64 chars of a-z 0-9 -",
);

const finite = z.number().finite();
const coord = finite.min(-1000).max(1000);

export const ThemeSchema = z.enum(THEMES);

/** Scene settings. They change only through `settings` events, so every client agrees. */
export const SettingsSchema = z.object({
  /** Snow intensity in [0, 1]: the share of `MAX_FLAKES` that falls (light ≈ 0.25, heavy = 1). */
  snow: finite.min(0).max(1),
  /** Wind speed in metres per second, [0, 12]. */
  windSpeed: finite.min(0).max(12),
  /** Direction the wind blows towards, in degrees [0, 360). 0 = +x, 90 = +z. */
  windDirection: finite.min(0).max(360),
  /** Theme of launches that do not name one (clicks and the show). */
  theme: z.union([ThemeSchema, z.literal("auto")]),
  /** Whether the server's scheduled show launches fireworks. */
  show: z.boolean(),
  /** Whether the fountain's jets run. */
  fountain: z.boolean(),
  /** The fountain's central nozzle turns (hosts only; absent: off). */
  fountainSpin: z.boolean().optional(),
  /** The fountain's water spirals round its axis (hosts only; absent: off). */
  fountainSpiral: z.boolean().optional(),
}).strict();
/** Scene settings. They change only through `settings` events, so every client agrees. */
export type Settings = z.infer<typeof SettingsSchema>;

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
  /** Burst height in metres, BURST_HEIGHT_MIN–MAX; default: seeded per launch. */
  y: finite.min(BURST_HEIGHT_MIN).max(BURST_HEIGHT_MAX).optional(),
  /** Default: peony. */
  kind: FireworkKindSchema.optional(),
  theme: ThemeSchema.optional(),
  /** Multi-break shell, 1–3; default 1. */
  breaks: z.number().int().min(1).max(MAX_BREAKS).optional(),
}).strict();
/** Launch a firework from a ground point; see LaunchBodySchema for the fields. */
export type LaunchBody = z.infer<typeof LaunchBodySchema>;

const vec3 = z.tuple([coord, coord, coord]);

/**
 * Fire the particle gun from a camera position along its view direction. The origin is where a
 * viewer's camera can be (GUN_ORIGIN_HALF_EXTENT, GUN_ORIGIN_HEIGHT), inside or outside the
 * scene's box: the tracers fly in from the camera and die once they leave the box.
 */
export const GunBodySchema = z.object({
  type: z.literal("gun"),
  origin: z.tuple([
    finite.min(-GUN_ORIGIN_HALF_EXTENT).max(GUN_ORIGIN_HALF_EXTENT),
    finite.min(0).max(GUN_ORIGIN_HEIGHT),
    finite.min(-GUN_ORIGIN_HALF_EXTENT).max(GUN_ORIGIN_HALF_EXTENT),
  ]),
  /** Need not be normalised; the world normalises it deterministically. */
  direction: vec3.refine(
    ([x, y, z]) => x * x + y * y + z * z > 1e-6,
    "direction must not be zero",
  ),
}).strict();
/** Fire the particle gun from a camera position along its view direction. */
export type GunBody = z.infer<typeof GunBodySchema>;

/** Change some settings. */
export const SettingsBodySchema = z.object({
  type: z.literal("settings"),
  settings: PartialSettingsSchema,
}).strict();
/** Change some settings. */
export type SettingsBody = z.infer<typeof SettingsBodySchema>;

// ---------------------------------------------------------------- shows (docs/protocol.md)

/** Most cues a show holds. */
export const SHOW_MAX_CUES = 2000;
/** Longest show: a cue's `at` is at most this many ticks from the show's start (20 minutes). */
export const SHOW_MAX_TICKS = 20 * 60 * 60;
/** A show stamped without `start` begins this many ticks after it is stamped (5 s). */
export const SHOW_LEAD_TICKS = 5 * 60;
/** A show's `start` may lie at most this far ahead of the tick it is stamped at (1 hour). */
export const SHOW_MAX_LEAD_TICKS = 60 * 60 * 60;
/** Most shows a scene holds at once that have not ended (stamped and not over or cancelled). */
export const SHOW_MAX_LIVE = 4;
/** Longest show title, in characters. */
export const SHOW_TITLE_MAX = 80;
/** Largest music track, in bytes (20 MB). */
export const TRACK_MAX_BYTES = 20 * 1024 * 1024;
/** Track types, as sniffed from the bytes (never from the name). */
export const TRACK_MIMES = ["audio/mpeg", "audio/ogg", "audio/mp4", "audio/wav"] as const;

/**
 * One cue of a show: a launch (exactly a click's launch fields, without `type`) `at` ticks
 * after the show's start (0 ≤ at ≤ SHOW_MAX_TICKS). Its random stream is keyed by the show's
 * seq and the cue's index, never by a seq of its own (a cue is not an event).
 */
export const ShowCueSchema = LaunchBodySchema.omit({ type: true }).extend({
  at: z.number().int().min(0).max(SHOW_MAX_TICKS),
}).strict();
/** One cue of a show (see ShowCueSchema). */
export type ShowCue = z.infer<typeof ShowCueSchema>;

/**
 * A music track as a show names it: `id` is the SHA-256 (hex) of its bytes, served immutable at
 * `/s/<scene>/tracks/<id>`; `mime` sniffed from the bytes; `ms` its length when known.
 */
export const TrackRefSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/, "a track id is the SHA-256 hex of its bytes"),
  name: z.string().trim().min(1).max(200),
  mime: z.enum(TRACK_MIMES),
  bytes: z.number().int().min(1).max(TRACK_MAX_BYTES),
  ms: z.number().int().min(0).max(24 * 3600 * 1000).optional(),
}).strict();
/** A music track as a show names it (see TrackRefSchema). */
export type TrackRef = z.infer<typeof TrackRefSchema>;

const showFields = {
  type: z.literal("show"),
  title: z.string().trim().min(1).max(SHOW_TITLE_MAX),
  cues: z.array(ShowCueSchema).min(1).max(
    SHOW_MAX_CUES,
    `a show holds at most ${SHOW_MAX_CUES} cues`,
  ),
  track: TrackRefSchema.optional(),
};

/**
 * A show as a host (or a person a host lets compose) submits it: `start` is the scene tick its
 * cue `at: 0` launches at (omitted: SHOW_LEAD_TICKS after the server stamps it). Cues need not
 * be sorted. The server prices every cue before stamping it (see docs/protocol.md).
 */
export const ShowRequestBodySchema = z.object({
  ...showFields,
  start: z.number().int().min(0).optional(),
}).strict();
/** A show as submitted (see ShowRequestBodySchema). */
export type ShowRequestBody = z.infer<typeof ShowRequestBodySchema>;

/**
 * A show as stamped: ONE event (its seq is the show's number `n`, its tick when it was
 * stamped), `start` always set and later than that tick. Every page expands cue `i` into a
 * launch at `start + cues[i].at` (unless a `show-cancel` at an earlier tick stopped it).
 */
export const ShowBodySchema = z.object({
  ...showFields,
  start: z.number().int().min(0),
}).strict();
/** A show as stamped (see ShowBodySchema). */
export type ShowBody = z.infer<typeof ShowBodySchema>;

/**
 * Cancels show `show` (its seq), stamped as an event: cues at ticks after the cancel's tick do
 * not launch (those at or before it did).
 */
export const ShowCancelBodySchema = z.object({
  type: z.literal("show-cancel"),
  show: z.number().int().min(1),
}).strict();
/** Cancels a show (see ShowCancelBodySchema). */
export type ShowCancelBody = z.infer<typeof ShowCancelBodySchema>;

/**
 * A show the world still expands (in a snapshot, so a late joiner and the log's snapshots carry
 * it): the show event's `seq`, its body, and `cancel`, the tick of a cancel when one came.
 */
export const LiveShowSchema = z.object({
  seq: z.number().int().min(1),
  by: z.string().min(1).max(64),
  show: ShowBodySchema,
  cancel: z.number().int().min(0).optional(),
}).strict();
/** A show the world still expands (see LiveShowSchema). */
export type LiveShow = z.infer<typeof LiveShowSchema>;

/** Bodies stamped as the client sent them: a launch, a volley, settings, a show's cancel. */
const FORWARDED_BODIES = [
  LaunchBodySchema,
  GunBodySchema,
  SettingsBodySchema,
  ShowCancelBodySchema,
] as const;

/**
 * What a client may submit to be stamped: a launch, a gun volley, a settings change, a show or a
 * show's cancel (those two only hosts and composers).
 */
export const ClientBodySchema = z.discriminatedUnion("type", [
  ...FORWARDED_BODIES,
  ShowRequestBodySchema,
]);
/** What a client may submit to be stamped. */
export type ClientBody = z.infer<typeof ClientBodySchema>;

export * from "./rules_protocol.ts";

/**
 * What an event does: a client's launch, gun volley or settings change (forwarded untouched), a
 * show (with its `start` filled in) or a show's cancel, or a host's rules change stamped by the
 * server.
 */
export const EventBodySchema = z.union([
  z.discriminatedUnion("type", [...FORWARDED_BODIES, ShowBodySchema]),
  RulesBodySchema,
]);
/** What an event does: a client's body, or a host's rules change. */
export type EventBody = z.infer<typeof EventBodySchema>;

/**
 * An input stamped by the server. Events apply at the start of `tick`, before that tick is
 * simulated; events at the same tick apply in `seq` order.
 */
export const SceneEventSchema = z.object({
  /** Per scene, strictly increasing, no gaps, starting at 1. */
  seq: z.number().int().min(1),
  tick: z.number().int().min(0),
  /** Peer id of the sender, or `"show"` for the scheduled show. */
  by: z.string().min(1).max(64),
  body: EventBodySchema,
});
/**
 * An input stamped by the server. Events apply at the start of `tick`, before that tick is
 * simulated; events at the same tick apply in `seq` order.
 */
export type SceneEvent = z.infer<typeof SceneEventSchema>;

/**
 * Everything besides events that the world at `tick` depends on: the settings in force and
 * the accumulators of continuous quantities (the wind's integral, which moves the snow).
 * The server keeps it at T − W; a late joiner starts from it.
 */
export const WorldSnapshotSchema = z.object({
  tick: z.number().int().min(0),
  settings: SettingsSchema,
  /** Integral of the wind velocity (metres) from tick 0 up to `windSince`. */
  windX: finite,
  windZ: finite,
  /** The tick since which the current wind setting has been in force. */
  windSince: z.number().int().min(0),
  /** The host rules in force (absent: a scene from before hosts, with the defaults). */
  rules: RulesSchema.optional(),
  /**
   * Shows stamped and not yet over (their last cue's tick ≥ `tick`, not cancelled before it),
   * in seq order; absent: none.
   */
  shows: z.array(LiveShowSchema).max(SHOW_MAX_LIVE).optional(),
});
/** Settings and accumulators at `tick`: with the events since, all the world depends on. */
export type WorldSnapshot = z.infer<typeof WorldSnapshotSchema>;

/** A person in a scene, as welcome and presence name them. */
export const PeerInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string(),
  /** True when the server made the name up (nobody chose it): the HUD marks those. */
  gen: z.boolean().optional(),
});
/** A person in a scene, as welcome and presence name them. */
export type PeerInfo = z.infer<typeof PeerInfoSchema>;

// ---------------------------------------------------------------- client → server

/** A browser's person token: 22–64 base64url characters (the page mints 128 random bits). */
export const PersonTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{22,64}$/, "not a person token");

/**
 * The first frame: join, or with `lastSeq` resume after a reconnect. `person` is the browser's
 * own random token (kept in its storage, the same for every scene and reload): the server keeps
 * only a per-scene hash of it, so a person a host removed stays out when that browser comes back.
 */
export const HelloMessageSchema = z.object({
  t: z.literal("hello"),
  name: z.string().trim().min(1).max(NAME_MAX_LENGTH).optional(),
  lastSeq: z.number().int().min(0).optional(),
  person: PersonTokenSchema.optional(),
}).strict();
export type HelloMessage = z.infer<typeof HelloMessageSchema>;

/**
 * Go by another display name on this connection (no reconnect): the others get one `presence`
 * `rename`, you get it too with the name the server settled on. Without `name` the server makes
 * one up, as for a hello without one.
 */
export const RenameMessageSchema = z.object({
  t: z.literal("rename"),
  name: z.string().trim().min(1).max(NAME_MAX_LENGTH).optional(),
}).strict();
export type RenameMessage = z.infer<typeof RenameMessageSchema>;

/** An event body to stamp and forward; the server passes `body` on untouched. */
export const SubmitMessageSchema = z.object({
  t: z.literal("submit"),
  body: ClientBodySchema,
}).strict();
export type SubmitMessage = z.infer<typeof SubmitMessageSchema>;

/** Clock sync: the server answers with `pong`. */
export const PingMessageSchema = z.object({
  t: z.literal("ping"),
  id: z.number().int().min(0),
  ct: finite,
}).strict();
export type PingMessage = z.infer<typeof PingMessageSchema>;

/** The client's state hash at a checkpoint tick. */
export const HashMessageSchema = z.object({
  t: z.literal("hash"),
  tick: z.number().int().min(0),
  h: z.string().regex(/^[0-9a-f]{1,32}$/),
}).strict();
export type HashMessage = z.infer<typeof HashMessageSchema>;

/**
 * A host action, checked on the server (a non-host gets `forbidden`): `claim` proves a host key
 * kept from before (host rights for this connection); `grant` makes another person present a
 * host; `lock` chooses who may change settings; `mute` / `remove` act on a person by peer id;
 * `pause` holds everyone's launches but the hosts'; `countdown` schedules a finale at wall-clock
 * `at` (ms) or `in` seconds from now (one of the two), `seconds` long at `intensity` 1–5;
 * `cancel` ends it; `rekey` ("new host link") gives the asking host a new key and makes their
 * older one (and every copy of its link) stop working.
 */
export const HostActionSchema = z.discriminatedUnion("do", [
  z.object({ do: z.literal("claim"), key: HostKeySchema }).strict(),
  z.object({ do: z.literal("grant"), peer: PeerIdSchema }).strict(),
  z.object({ do: z.literal("lock"), lock: SettingsLockSchema }).strict(),
  z.object({ do: z.literal("mute"), peer: PeerIdSchema, on: z.boolean() }).strict(),
  z.object({ do: z.literal("remove"), peer: PeerIdSchema }).strict(),
  z.object({ do: z.literal("pause"), on: z.boolean() }).strict(),
  z.object({
    do: z.literal("countdown"),
    at: finite.min(0).optional(),
    in: finite.min(1).max(24 * 3600).optional(),
    seconds: z.number().int().min(5).max(120),
    intensity: z.number().int().min(1).max(5),
  }).strict(),
  z.object({ do: z.literal("cancel") }).strict(),
  z.object({ do: z.literal("rekey") }).strict(),
  /** Let a present person compose shows (`on`), or no longer. */
  z.object({ do: z.literal("compose"), peer: PeerIdSchema, on: z.boolean() }).strict(),
]);
/** A host action (see HostActionSchema). */
export type HostAction = z.infer<typeof HostActionSchema>;

/** The quick reactions a person may send: they float up on every page in the scene. */
export const REACTIONS = ["🎉", "❤️", "😮", "👏", "✨"] as const;
export const ReactionSchema = z.enum(REACTIONS);
/** One of the quick reactions. */
export type Reaction = z.infer<typeof ReactionSchema>;

/**
 * Send a quick reaction to everyone in the scene: relayed in the scene's next `reactions` frame
 * (at once when none went lately), never stamped or stored (no part of the world or its hash). It has its own token bucket; muted and removed people are
 * refused as for launches.
 */
export const ReactMessageSchema = z.object({
  t: z.literal("react"),
  emoji: ReactionSchema,
}).strict();
export type ReactMessage = z.infer<typeof ReactMessageSchema>;

/** A host action to check and, when allowed, stamp as a `rules` event. */
export const HostMessageSchema = z.object({
  t: z.literal("host"),
  action: HostActionSchema,
}).strict();
export type HostMessage = z.infer<typeof HostMessageSchema>;

/** A draft cue's id, minted by the page that made the cue: 1–24 base64url characters. */
export const DraftCueIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,24}$/, "not a draft cue id");

/**
 * One edit of the scene's shared show draft: set (or with `cue: null` delete) the cue `id`, set
 * the title, set (or clear) the track, or `discard` the whole draft.
 */
export const DraftEditSchema = z.discriminatedUnion("do", [
  z.object({ do: z.literal("cue"), id: DraftCueIdSchema, cue: ShowCueSchema.nullable() }).strict(),
  z.object({ do: z.literal("title"), title: z.string().trim().max(SHOW_TITLE_MAX) }).strict(),
  z.object({ do: z.literal("track"), track: TrackRefSchema.nullable() }).strict(),
  z.object({ do: z.literal("discard") }).strict(),
]);
/** One edit of the shared show draft (see DraftEditSchema). */
export type DraftEdit = z.infer<typeof DraftEditSchema>;

/** Most edits in one `draft` frame. */
export const DRAFT_MAX_EDITS = 32;

/**
 * Edits to the scene's shared show draft (hosts and composers only; others get `forbidden`).
 * Not stamped, not stored: the server relays them to the scene's composers and keeps the latest
 * draft in memory (last writer wins per cue, in the server's order).
 */
export const DraftMessageSchema = z.object({
  t: z.literal("draft"),
  edits: z.array(DraftEditSchema).min(1).max(DRAFT_MAX_EDITS),
}).strict();
export type DraftMessage = z.infer<typeof DraftMessageSchema>;

export const ClientMessageSchema = z.discriminatedUnion("t", [
  HelloMessageSchema,
  RenameMessageSchema,
  SubmitMessageSchema,
  PingMessageSchema,
  HashMessageSchema,
  HostMessageSchema,
  ReactMessageSchema,
  DraftMessageSchema,
]);

/** Any frame a client may send. */
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

// ---------------------------------------------------------------- server → client

/**
 * Error codes a WebSocket client can receive, each with a human `message`. (Refusals before the
 * upgrade, such as `bad_scene` or `forbidden_origin`, are HTTP responses: see server/app.ts.)
 */
export const ERROR_CODES = [
  "bad_message",
  "too_large",
  "rate_limited",
  "sky_full",
  "room_full",
  /** Too many scenes are loaded on this server; try again later. */
  "server_busy",
  /** The server cannot save right now (disk full, I/O error); nothing changed. */
  "storage_unavailable",
  /** You remember events the server's storage no longer has; a fresh welcome follows. */
  "history_lost",
  "internal",
  "paused",
  /** Only a host may do that (settings locked to hosts, a host action, a wrong host key). */
  "forbidden",
  /** A host muted your launches. */
  "muted",
  /** A host removed you from this scene. */
  "removed",
  /** A host paused launches (theirs still go). */
  "launches_paused",
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
  you: PeerInfoSchema,
  /** Heartbeat horizon: every event with tick < horizon is in `events` or was sent before. */
  horizon: z.number().int().min(0),
  /** Settings and accumulators at `snapshot.tick` (= horizon − W, or 0 for a young scene). */
  snapshot: WorldSnapshotSchema,
  /** Events with tick in [snapshot.tick, horizon), in seq order (only the missed ones when resumed). */
  events: z.array(SceneEventSchema),
  /** Highest seq sent so far (0 when none). */
  lastSeq: z.number().int().min(0),
  peers: z.array(PeerInfoSchema),
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

/**
 * Someone joined, left or took another name. A `rename` keeps the peer's id; `peer` carries the
 * new name and `was` the old one (present only on `rename`).
 */
export const PresenceMessageSchema = z.object({
  t: z.literal("presence"),
  kind: z.enum(["join", "leave", "rename"]),
  peer: PeerInfoSchema,
  was: z.string().optional(),
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
  /** For a refused show: the index (in the submitted `cues`) of the first cue that did not fit. */
  cue: z.number().int().min(0).optional(),
});
export type ErrorMessage = z.infer<typeof ErrorMessageSchema>;

/** Your hash at `tick` differed from the true one (the server computed it); a fresh `welcome` follows. */
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

/**
 * Sent to one person only: they are a host now. `key` (when given) is their new host key: the
 * page keeps it and shows it once as a host link; it proves host rights again later (`claim`).
 */
export const HostKeyMessageSchema = z.object({
  t: z.literal("host"),
  key: HostKeySchema.optional(),
  message: z.string(),
});
export type HostKeyMessage = z.infer<typeof HostKeyMessageSchema>;

/**
 * The quick reactions sent in the scene lately (not events: no seq, no tick), at most one frame a
 * quarter second per server: the first few by whom (`by`, a peer id), and `more`, how many others
 * sent each reaction (counts in `REACTIONS` order), when more came than a frame names.
 */
export const ReactionsMessageSchema = z.object({
  t: z.literal("reactions"),
  by: z.array(z.object({ by: PeerIdSchema, emoji: ReactionSchema })).max(8),
  more: z.array(z.number().int().min(0)).max(REACTIONS.length).optional(),
});
export type ReactionsMessage = z.infer<typeof ReactionsMessageSchema>;

/**
 * Edits to the shared show draft, relayed to every composer here (the sender too) in the order
 * the server took them: applying them in that order gives every composer the same draft.
 */
export const DraftRelayMessageSchema = z.object({
  t: z.literal("draft"),
  /** Who made the edits (a peer id). */
  by: PeerIdSchema,
  edits: z.array(DraftEditSchema).min(1).max(DRAFT_MAX_EDITS),
});
export type DraftRelayMessage = z.infer<typeof DraftRelayMessageSchema>;

/** A draft cue as the server keeps it: its id, the cue, and who set it last. */
export const DraftCueSchema = z.object({
  id: DraftCueIdSchema,
  by: PeerIdSchema,
  cue: ShowCueSchema,
});

/**
 * The whole shared draft, sent to a composer when they arrive (or are let compose): null when
 * there is none. `editors` are the peers who edited it lately, most recent first.
 */
export const DraftStateMessageSchema = z.object({
  t: z.literal("draft-state"),
  draft: z.object({
    title: z.string().max(SHOW_TITLE_MAX),
    track: TrackRefSchema.nullable(),
    cues: z.array(DraftCueSchema).max(SHOW_MAX_CUES),
    editors: z.array(PeerIdSchema).max(16),
  }).nullable(),
});
export type DraftStateMessage = z.infer<typeof DraftStateMessageSchema>;

/**
 * To people who may not compose: whether a show is being prepared in the scene (a draft is
 * open), with a human `message`. Sent after the welcome when one is, and when that changes.
 */
export const PreparingMessageSchema = z.object({
  t: z.literal("preparing"),
  on: z.boolean(),
  message: z.string(),
});
export type PreparingMessage = z.infer<typeof PreparingMessageSchema>;

export const ServerMessageSchema = z.discriminatedUnion("t", [
  DraftRelayMessageSchema,
  DraftStateMessageSchema,
  PreparingMessageSchema,
  HostKeyMessageSchema,
  ReactionsMessageSchema,
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

/**
 * A page of `GET /api/scenes/:id/log` (both modes answer it): events in seq order from `from`,
 * where the kept log starts (`firstSeq`, `startTick`; `exactFromTick`, the first tick whose world
 * it rebuilds exactly), the cursor of the next page (null at the end) and, for `tick=…&snapshot=1`,
 * the settings and wind in force at that tick. The server builds it, the page's replay parses it.
 */
export const LogPageSchema = z.object({
  scene: SceneId,
  seed: z.number().int().min(0),
  epoch: finite,
  /** The first seq still kept (lastSeq + 1 when none is). */
  firstSeq: z.number().int().min(1),
  /** The last seq stored (0 when none ever was). */
  lastSeq: z.number().int().min(0),
  /** Events before this tick were pruned (0 when none were). */
  startTick: z.number().int().min(0),
  exactFromTick: z.number().int().min(0),
  from: z.number().int().min(1),
  events: z.array(SceneEventSchema),
  /** The `cursor` (a seq) of the next page, or null when this page reached the end. */
  next: z.number().int().min(1).nullable(),
  snapshot: WorldSnapshotSchema.optional(),
});
/** A page of the log API. */
export type LogPage = z.infer<typeof LogPageSchema>;
