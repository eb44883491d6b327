/**
 * One node's connection to NATS: connects (and reconnects, forever), makes sure the log stream
 * and the KV buckets exist, and tracks whether NATS is reachable right now.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  jetstream,
  type JetStreamClient,
  type JetStreamManager,
  jetstreamManager,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { type ClusterOptions, isLoopbackUrl } from "./cluster_config.ts";
import { LEASE_BUCKET, LOG_STREAM, NAME_BUCKET, SCENE_BUCKET } from "./subjects.ts";
import { NAME_TTL_MS } from "./name_claims.ts";
import { isStreamNameInUse, isStreamNotFound } from "./nats_errors.ts";
import { retryWhileSettling, START_RETRY } from "./retry_while_settling.ts";
import { answerAlive } from "./node_liveness.ts";
import { LogLeaderWatch } from "./log_leader_watch.ts";
import { guardSocketWrites } from "./socket_write_guard.ts";
import { type ClosingConnection, refusingWhileClosing } from "./closing_connection.ts";

/** Connection state as `/metrics` reports it. */
export type NatsState = "connecting" | "connected" | "disconnected" | "closed";

/** Log stream retention: a scene's log is the replay record, so keep it a long while. */
const LOG_MAX_AGE_NS = 30 * 24 * 3600 * 1e9;

/**
 * JetStream API requests (consumer creation above all) give up after this long instead of 5 s.
 * With one server of three dead, nats-server 2.9 still places about a third of new ephemeral
 * consumers on the dead peer and never answers; a reader or takeover then retries sooner.
 */
const JS_API_TIMEOUT_MS = 2000;

const encoder = new TextEncoder();

/** A NATS that lets anyone in, outside loopback, and the node was not told that is fine. */
export class NatsUnauthenticatedError extends Error {
  readonly code = "nats_unauthenticated";
}

/**
 * Throws when the NATS servers are reachable beyond this machine yet ask for no credentials
 * (unless `allowUnauthenticated`): anyone who reaches them could forge launches, heartbeats and
 * verdicts in every scene. Loopback-only NATS is allowed (development, tests).
 */
export function refuseUnauthenticated(nc: NatsConnection, options: ClusterOptions): void {
  if (options.allowUnauthenticated || nc.info?.auth_required) return;
  const open = options.natsUrls.filter((url) => !isLoopbackUrl(url));
  if (open.length === 0) return;
  throw new NatsUnauthenticatedError(
    `NATS at ${open.join(", ")} requires no authentication: configure users (deploy/nats/) and ` +
      `set NATS_USER/NATS_PASSWORD, or set NATS_ALLOW_UNAUTHENTICATED=1 to start anyway`,
  );
}

/** A connected node: the NATS connection, JetStream handles and the KV buckets. */
export class NatsLink {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly leases: KV;
  readonly scenes: KV;
  /** Names held scene-wide (`name_claims.ts`). */
  readonly names: KV;
  #state: NatsState = "connected";
  #leaderWatch: LogLeaderWatch | undefined;
  /** Ends request-reply on the connection: a request made while the link closes fails at once. */
  #refuseRequests: () => void;
  /** Times the connection was lost. */
  disconnects = 0;

  private constructor(
    connection: ClosingConnection,
    jsm: JetStreamManager,
    buckets: { leases: KV; scenes: KV; names: KV },
    nodeId: string,
  ) {
    const nc = connection.nc;
    this.nc = nc;
    this.#refuseRequests = connection.refuseRequests;
    // This process answers "alive" for its node id as long as the connection lives: a takeover
    // that finds a lease held asks its holder before waiting out the TTL (see `acquireLease`).
    answerAlive(nc, nodeId);
    this.js = jetstream(nc, { timeout: JS_API_TIMEOUT_MS });
    this.jsm = jsm;
    this.leases = buckets.leases;
    this.scenes = buckets.scenes;
    this.names = buckets.names;
    this.#watch();
  }

  /**
   * Connects (retrying forever) and creates the stream and buckets when missing, retrying while a
   * cluster that just started refuses (`retryWhileSettling`, up to a minute).
   */
  static async open(options: ClusterOptions, log: (msg: string) => void): Promise<NatsLink> {
    guardSocketWrites(log);
    const connection = refusingWhileClosing(
      await connect({
        servers: options.natsUrls,
        name: `snowfire-${options.nodeId}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        waitOnFirstConnect: true,
        pingInterval: 2000,
        maxPingOut: 2,
        // Without it every request (each log append, KV write and forwarded submit) captures two
        // stack traces up front for errors that almost never happen: 500 KV updates cost 20-80 ms
        // of CPU with them, 10-30 ms without. Errors keep their types and causes.
        noAsyncTraces: true,
        ...(options.user ? { user: options.user, pass: options.pass } : {}),
        ...(options.tlsCaFile ? { tls: { caFile: options.tlsCaFile } } : {}),
      }),
    );
    const nc = connection.nc;
    try {
      refuseUnauthenticated(nc, options);
      // Every step is idempotent: a retry finds what an earlier try made.
      const made = await retryWhileSettling("create the log stream and buckets", async () => {
        const jsm = await jetstreamManager(nc);
        await ensureStream(jsm, options.replicas);
        const kvm = new Kvm(nc);
        const leases = await kvm.create(LEASE_BUCKET, {
          ttl: options.leaseTtlMs,
          history: 1,
          replicas: options.replicas,
        });
        const scenes = await kvm.create(SCENE_BUCKET, { history: 1, replicas: options.replicas });
        const names = await kvm.create(NAME_BUCKET, {
          ttl: NAME_TTL_MS,
          history: 1,
          replicas: options.replicas,
        });
        await keepBucketTtl(jsm, names, NAME_BUCKET, NAME_TTL_MS);
        return { jsm, buckets: { leases, scenes, names } };
      }, { ...START_RETRY, log });
      log(`cluster: node ${options.nodeId} connected to NATS ${nc.getServer()}`);
      const link = new NatsLink(connection, made.jsm, made.buckets, options.nodeId);
      link.#leaderWatch = LogLeaderWatch.start(link, options, log);
      return link;
    } catch (e) {
      await nc.close();
      throw e;
    }
  }

  /** Whether NATS is reachable now. */
  get state(): NatsState {
    return this.#state;
  }

  /**
   * False while the log stream's leader is known to be gone and no successor is named yet
   * (`LogLeaderWatch`): an owner stamps nothing meanwhile.
   */
  get logWritable(): boolean {
    return this.#leaderWatch?.writable ?? true;
  }

  /** True while a NATS server is down or went down within `ms` (`LogLeaderWatch`). */
  serverLostWithin(ms: number): boolean {
    return this.#leaderWatch?.serverLostWithin(ms) ?? false;
  }

  /** Drains nothing, closes the connection. */
  async close(): Promise<void> {
    this.#set("closed");
    this.#refuseRequests();
    await this.#leaderWatch?.close();
    await this.nc.close();
  }

  #set(state: NatsState): void {
    if (this.#state === state) return;
    this.#state = state;
    if (state === "disconnected") this.disconnects++;
  }

  /**
   * Publishes `text` on a core subject; false instead of throwing when the connection is closed
   * (a NATS error must never escape into a socket or timer handler and end the process).
   */
  publish(subject: string, text: string): boolean {
    try {
      this.nc.publish(subject, encoder.encode(text));
      return true;
    } catch {
      return false;
    }
  }

  async #watch(): Promise<void> {
    try {
      for await (const status of this.nc.status()) {
        if (status.type === "disconnect") this.#set("disconnected");
        else if (status.type === "reconnect") this.#set("connected");
        else if (status.type === "close") this.#set("closed");
      }
    } catch {
      // The status stream ended with the connection.
    }
    this.#set("closed");
  }
}

async function ensureStream(jsm: JetStreamManager, replicas: number): Promise<void> {
  const config: Partial<StreamConfig> & { name: string } = {
    name: LOG_STREAM,
    subjects: ["snowfire.log.>"],
    storage: StorageType.File,
    num_replicas: replicas,
    max_age: LOG_MAX_AGE_NS,
    // Nobody may rewrite history: no single message is deleted. Purges stay allowed: a scene's
    // owner purges its subject's front by the retention policy (stream_retention.ts).
    deny_delete: true,
  };
  try {
    await jsm.streams.info(LOG_STREAM);
    return;
  } catch (e) {
    if (!isStreamNotFound(e)) throw e;
  }
  try {
    await jsm.streams.add(config);
  } catch (e) {
    // Another node created it at the same moment.
    if (!isStreamNameInUse(e)) throw e;
  }
}

/**
 * A KV bucket that already existed keeps the TTL it was created with (`Kvm.create` does not
 * change it): a bucket made by an older version gets `ttlMs` here. The names bucket's TTL went
 * from 30 s to 6 h when held names stopped being renewed every 10 s (`name_claims.ts`); left at
 * 30 s, every name would expire while its person is still here.
 */
async function keepBucketTtl(
  jsm: JetStreamManager,
  kv: KV,
  bucket: string,
  ttlMs: number,
): Promise<void> {
  const status = await kv.status();
  if (status.ttl === ttlMs) return;
  const stream = `KV_${bucket}`;
  const info = await jsm.streams.info(stream);
  await jsm.streams.update(stream, { ...info.config, max_age: ttlMs * 1e6 });
}
