/**
 * NATS names used by cluster mode: the event-log stream, its subjects, the KV buckets and the
 * core subjects for heartbeats, submits, hash reports and resync verdicts.
 */

/** The JetStream stream holding every scene's event log. */
export const LOG_STREAM = "SNOWFIRE_LOG";
/** KV bucket of scene leases (bucket TTL = lease TTL). */
export const LEASE_BUCKET = "snowfire_leases";
/**
 * KV bucket of the names people go by, a key per (scene, name): an atomic create reserves one,
 * naming the process that holds it (bucket TTL: `NAME_TTL_MS`; see `name_claims.ts`).
 */
export const NAME_BUCKET = "snowfire_names";
/** KV bucket of scene records (seed, epoch, reserved horizon, snapshot). */
export const SCENE_BUCKET = "snowfire_scenes";
/** The JetStream stream behind the leases' bucket. */
export const LEASE_RECORDS_STREAM = `KV_${LEASE_BUCKET}`;
/** The JetStream stream behind the scene records' bucket. */
export const SCENE_RECORDS_STREAM = `KV_${SCENE_BUCKET}`;

/** The advisory JetStream publishes when `stream` elects a leader. */
export const leaderElectedSubject = (stream: string): string =>
  `$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.${stream}`;

/** Object store bucket of every scene's music tracks (`track_objects.ts`). */
export const TRACK_BUCKET = "snowfire_tracks";

/** Subject of one scene's log (a stamped event or an ownership marker per message). */
export const logSubject = (scene: string): string => `snowfire.log.${scene}`;
/**
 * Subject of one scene's keyframes: the record's snapshot each time the owner moves it (a tick
 * index of the log, and where a pruned log starts). Inside the log stream (`snowfire.log.>`), but
 * a filter on {@link logSubject} never matches it.
 */
export const keysSubject = (scene: string): string => `snowfire.log.${scene}.keys`;
/** Core subject of a scene's heartbeats `{n, seq, w}`. */
export const beatSubject = (scene: string): string => `snowfire.beat.${scene}`;
/**
 * Core subject the owner publishes each event on once it is stored (`{...event}`, as in the log):
 * the fast path to the edges, which otherwise wait for their log reader (reopened, after a lost
 * NATS server, for seconds). Not the beat subject: the monitor user may read heartbeats only.
 */
export const eventSubject = (scene: string): string => `snowfire.event.${scene}`;
/** Request subject edges send a client's launch / gun / settings to. */
export const submitSubject = (scene: string): string => `snowfire.submit.${scene}`;
/** Subject edges publish clients' checkpoint hashes on. */
export const hashSubject = (scene: string): string => `snowfire.hash.${scene}`;
/** Subject the owner publishes desync verdicts on. */
export const resyncSubject = (scene: string): string => `snowfire.resync.${scene}`;
/**
 * Subject the owner publishes a newly minted host key on `{peer, key}`: the edge holding that
 * peer sends it to that one client (core NATS between the nodes; never to other clients).
 */
export const keySubject = (scene: string): string => `snowfire.key.${scene}`;
/** Subject edges tell each other who is present on (join, leave, periodic roster). */
export const presenceSubject = (scene: string): string => `snowfire.presence.${scene}`;
/**
 * Subject edges pass quick reactions on: `{node, ...}` and a `reactions` frame, at most one per
 * edge a quarter second; every other edge of the scene sends it to its clients (core NATS, never
 * stored).
 */
export const reactionSubject = (scene: string): string => `snowfire.reaction.${scene}`;
/**
 * Subject edges pass show draft edits on: `{node, t: "draft", by, edits}`; every other edge of
 * the scene applies them to its copy of the draft and relays them to its composers (core NATS,
 * never stored).
 */
export const draftSubject = (scene: string): string => `snowfire.draft.${scene}`;
