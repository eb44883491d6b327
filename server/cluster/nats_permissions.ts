/**
 * What the shipped NATS users may publish and subscribe to. The `snowfire` user (the Snowfire
 * nodes): the scene subjects, JetStream's API with its acks and flow control, the KV buckets, the tracks' object store, and
 * reply inboxes; nothing else (`$SYS`, other applications' subjects). The `monitor` user: the
 * heartbeats and nothing else; it publishes nothing. `deploy/nats/*.conf` and the test harness
 * (`testing/nats_cluster.ts`) use these lists, and a test checks the deploy files still match
 * them, so the cluster tests run with exactly what production grants.
 */
import {
  leaderElectedSubject,
  LEASE_BUCKET,
  LEASE_RECORDS_STREAM,
  LOG_STREAM,
  NAME_BUCKET,
  SCENE_BUCKET,
  SCENE_RECORDS_STREAM,
  TRACK_BUCKET,
} from "./subjects.ts";

/** Subjects the nodes publish on. */
export const SNOWFIRE_PUBLISH: readonly string[] = [
  // Scene subjects: the log stream's snowfire.log.*, heartbeats, forwarded submits, hashes...
  "snowfire.>",
  // JetStream: the API (stream/consumer info and create, direct gets), acks, flow control.
  "$JS.API.>",
  "$JS.ACK.>",
  "$JS.FC.>",
  // KV puts go to the bucket's subjects.
  `$KV.${LEASE_BUCKET}.>`,
  `$KV.${SCENE_BUCKET}.>`,
  `$KV.${NAME_BUCKET}.>`,
  // Track objects' chunks and meta entries (the object store bucket of music tracks).
  `$O.${TRACK_BUCKET}.>`,
  // Replies to requests from other nodes.
  "_INBOX.>",
];

/**
 * Subjects the nodes subscribe to (KV watches and reads deliver to inboxes), and JetStream's
 * leader-elected advisories of the log stream and the records' and leases' buckets
 * (`log_leader_watch.ts`).
 */
export const SNOWFIRE_SUBSCRIBE: readonly string[] = [
  "snowfire.>",
  "_INBOX.>",
  leaderElectedSubject(LOG_STREAM),
  leaderElectedSubject(SCENE_RECORDS_STREAM),
  leaderElectedSubject(LEASE_RECORDS_STREAM),
];

/**
 * The `permissions` block of the snowfire user in nats-server's config syntax.
 *
 * @example
 * ```ts
 * natsPermissions(); // 'permissions: { publish: { allow: ["snowfire.>", ...] }, subscribe: ... }'
 * ```
 */
export function natsPermissions(): string {
  const list = (subjects: readonly string[]) => subjects.map((s) => JSON.stringify(s)).join(", ");
  return `permissions: { publish: { allow: [${list(SNOWFIRE_PUBLISH)}] }, ` +
    `subscribe: { allow: [${list(SNOWFIRE_SUBSCRIBE)}] } }`;
}

/**
 * Subjects the `monitor` user may subscribe to: the heartbeats (`{n, seq, w}`: a scene's tick, its
 * last seq and the owner's wall clock), enough to see which scenes are alive and how far behind
 * they run. Not `_INBOX.>`: every KV read, direct get and log page a node makes is answered on an
 * inbox, so a reader of `_INBOX.>` gets the whole event log, the scene records and the
 * server-only key and person hashes. Not the log (`snowfire.log.>`), the submits, the KV
 * subjects, `$JS` or `$SYS`. It publishes nothing, so it needs no inbox of its own.
 */
export const MONITOR_SUBSCRIBE: readonly string[] = ["snowfire.beat.>"];

/**
 * The `permissions` block of the monitor user in nats-server's config syntax: publish nothing,
 * subscribe to {@link MONITOR_SUBSCRIBE} only.
 *
 * @example
 * ```ts
 * monitorPermissions(); // 'permissions: { publish: { deny: [">"] }, subscribe: { allow: ["snowfire.beat.>"] } }'
 * ```
 */
export function monitorPermissions(): string {
  const list = MONITOR_SUBSCRIBE.map((s) => JSON.stringify(s)).join(", ");
  return `permissions: { publish: { deny: [">"] }, subscribe: { allow: [${list}] } }`;
}
