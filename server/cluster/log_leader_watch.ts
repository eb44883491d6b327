/**
 * Knows within a moment when the NATS server leading the log stream is gone, so an owner stops
 * stamping before it writes into a stream that cannot answer (docs/cluster.md, failover).
 *
 * Why: when the stream's leader dies, nats-server 2.9 waits 4–9 s (its raft election timeout,
 * not configurable) before a follower campaigns. An append sent meanwhile is in doubt until a new
 * leader answers (it may have been stored), and the owner may promise no tick past an event in
 * doubt, so one append into the dead leader stood the sky still for the whole election. Stamping
 * nothing while the leader is known dead (launches get `paused`) keeps heartbeats going: the sky
 * moves on and only launches wait.
 *
 * How: one small probe connection per configured NATS server, bound to it (no failover to the
 * others): kill -9 closes its socket at once, and the probe's `disconnect` names the server. The
 * leader's name comes from the stream's info and from JetStream's leader-elected advisories; an
 * advisory (or an info) naming a leader that is up ends the outage.
 *
 * It also keeps the scene records' and the leases' buckets led by other servers than the log
 * stream (asking a bucket's leader to step down when it coincides): the owner's horizon
 * reservation is a record write, and with both leaders on the one server that dies the
 * reservation could not move during the election either, and the sky would stop a second after it
 * began; a lease not renewable through an election outlives its TTL and the owner loses it.
 */
import { connect, type ConnectionOptions, type NatsConnection } from "@nats-io/transport-node";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { ClusterOptions } from "./cluster_config.ts";
import {
  leaderElectedSubject,
  LEASE_RECORDS_STREAM,
  LOG_STREAM,
  SCENE_RECORDS_STREAM,
} from "./subjects.ts";

/**
 * The buckets an owner writes to keep its scene (horizon reservations, lease renewals): kept led
 * from another server than the log stream, so losing the log's leader leaves them writable.
 */
const BUCKET_STREAMS = [SCENE_RECORDS_STREAM, LEASE_RECORDS_STREAM] as const;

/**
 * How often the leaders are read again: every `quietMs` while nothing happens (a missed advisory
 * heals), every `outageMs` while the log's leader is gone (its successor is asked after besides
 * the advisories).
 */
const REFRESH = { quietMs: 5000, outageMs: 250 } as const;
/**
 * Moving a bucket's leader off the log's server: asked at most every `everyMs` by one node, after
 * a random delay up to `jitterMs`; a bucket that could not move yet (replicas behind) is read
 * again after `retryMs`.
 */
const SPREAD = { everyMs: 2000, jitterMs: 1000, retryMs: 1000 } as const;
/**
 * A probe's connect gives up after `connectTimeoutMs` (a server that drops packets answers
 * nothing); a probe whose server did not answer tries again after `retryMs`.
 */
const PROBE = { connectTimeoutMs: 2000, retryMs: 500 } as const;

/** Watches the servers and the log stream's leader (see the module's comment). */
export class LogLeaderWatch {
  readonly #link: { nc: NatsConnection; jsm: JetStreamManager };
  readonly #log: (msg: string) => void;
  readonly #probes: NatsConnection[] = [];
  /** Server names whose probe is disconnected now. */
  readonly #down = new Set<string>();
  #leader: string | null = null;
  /** Each bucket's leader as last known. */
  readonly #bucketLeaders = new Map<string, string>();
  /** Set when the log's leader's server went down; cleared once a leader that is up is named. */
  #lost = false;
  /** When (monotonic ms) each bucket was last asked to step down. */
  readonly #lastSpreadMs = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Delays before a bucket step-down (cleared on close). */
  readonly #jitters = new Set<ReturnType<typeof setTimeout>>();
  /** Probe connects under way, and probes' waits before trying again (both ended by `close`). */
  readonly #connecting = new Set<Promise<void>>();
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();
  #closed = false;
  /** When (performance.now()) a server last went down. */
  #lastDownMs = -Infinity;
  /** Outages seen (the log's leader's server went down). */
  outages = 0;

  private constructor(
    link: { nc: NatsConnection; jsm: JetStreamManager },
    log: (msg: string) => void,
  ) {
    this.#link = link;
    this.#log = log;
  }

  /**
   * Starts watching: the probes connect in the background (a server down at start is watched
   * from when it comes up), the leaders are read, the advisories followed.
   *
   * @example
   * ```ts
   * const watch = LogLeaderWatch.start(link, options, console.log);
   * if (!watch.writable) console.log("the log stream is electing a leader");
   * await watch.close();
   * ```
   */
  static start(
    link: { nc: NatsConnection; jsm: JetStreamManager },
    options: ClusterOptions,
    log: (msg: string) => void,
  ): LogLeaderWatch {
    const watch = new LogLeaderWatch(link, log);
    for (const url of options.natsUrls) watch.#probe(url, options);
    for (const stream of [LOG_STREAM, ...BUCKET_STREAMS]) {
      link.nc.subscribe(leaderElectedSubject(stream), {
        callback: (error, msg) => {
          if (error) return;
          try {
            const { leader } = msg.json<{ leader?: string }>();
            if (typeof leader === "string") watch.#leaderIs(stream, leader);
          } catch {
            // Not an advisory we can read: the next refresh reads the leader.
          }
        },
      });
    }
    watch.#refresh();
    return watch;
  }

  /**
   * False while the log stream's leader is known to be gone and no successor is named: an append
   * now would wait for the election and be in doubt meanwhile.
   */
  get writable(): boolean {
    return !this.#lost;
  }

  /** The log stream's leader as last known (a server name), or null. */
  get leader(): string | null {
    return this.#leader;
  }

  /** Closes the probes and stops reading. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const timer of this.#jitters) clearTimeout(timer);
    for (const timer of this.#retries) clearTimeout(timer);
    // A probe still connecting is closed once its connect ends (each ends within its timeout):
    // left behind, its dial loop's timer and socket outlive the watch.
    await Promise.all([...this.#connecting]);
    await Promise.all(this.#probes.map((nc) => nc.close().catch(() => {})));
  }

  #probe(url: string, options: ClusterOptions): void {
    if (this.#closed) return;
    const probeOptions: ConnectionOptions = {
      servers: [url],
      name: `snowfire-${options.nodeId}-probe`,
      // Bound to this one server: a probe that moved to another would say nothing of this one.
      ignoreClusterUpdates: true,
      noRandomize: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      // No waitOnFirstConnect: its dial loop cannot be stopped before it connects; a server
      // down at start is tried again by this watch's own timer, which `close` clears.
      timeout: PROBE.connectTimeoutMs,
      // A killed server closes the probe's socket at once; pings only find a server that went
      // silent. Frequent under load they found live servers "stale" and made probes reconnect
      // (each reconnect a chance of the client library's write-after-end: socket_write_guard.ts).
      pingInterval: 5000,
      maxPingOut: 3,
      ...(options.user ? { user: options.user, pass: options.pass } : {}),
      ...(options.tlsCaFile ? { tls: { caFile: options.tlsCaFile } } : {}),
    };
    const connecting: Promise<void> = connect(probeOptions).then(
      (nc) => {
        if (this.#closed) return nc.close().catch(() => {});
        this.#probes.push(nc);
        this.#follow(nc, nc.info?.server_name ?? url);
      },
      () => {
        if (this.#closed) return;
        const retry = setTimeout(() => {
          this.#retries.delete(retry);
          this.#probe(url, options);
        }, PROBE.retryMs);
        this.#retries.add(retry);
      },
    ).finally(() => this.#connecting.delete(connecting));
    this.#connecting.add(connecting);
  }

  /** Follows one probe's connection: its server is down while the probe is disconnected. */
  async #follow(nc: NatsConnection, name: string): Promise<void> {
    try {
      for await (const status of nc.status()) {
        if (status.type === "disconnect") this.#serverDown(name);
        else if (status.type === "reconnect") this.#serverUp(name);
      }
    } catch {
      // The status stream ended with the connection.
    }
  }

  /**
   * True while a NATS server is down, or one went down within `ms`: a node whose connection was on
   * it is reconnecting, and NATS does not know its process for that moment (`holderGone`).
   */
  serverLostWithin(ms: number): boolean {
    return this.#down.size > 0 || performance.now() - this.#lastDownMs < ms;
  }

  #serverDown(name: string): void {
    this.#down.add(name);
    this.#lastDownMs = performance.now();
    if (name === this.#leader && !this.#lost) {
      this.#lost = true;
      this.outages++;
      this.#log(`cluster: NATS server ${name}, the log stream's leader, is gone: stamping waits`);
      this.#schedule(REFRESH.outageMs);
    }
  }

  #serverUp(name: string): void {
    this.#down.delete(name);
    if (this.#lost) this.#schedule(0);
  }

  #leaderIs(stream: string, leader: string): void {
    if (stream !== LOG_STREAM) {
      this.#bucketLeaders.set(stream, leader);
    } else {
      this.#leader = leader;
      if (this.#lost && leader !== "" && !this.#down.has(leader)) {
        this.#lost = false;
        this.#log(`cluster: the log stream leads from ${leader} again: stamping goes on`);
      }
    }
    this.#spread();
  }

  /**
   * Asks a bucket to take another leader when it leads from the log stream's server, read fresh
   * first: two nodes acting on the same stale view would move it twice, maybe back.
   */
  #spread(): void {
    if (this.#lost || !this.#leader) return;
    const now = performance.now();
    for (const stream of BUCKET_STREAMS) {
      if (this.#bucketLeaders.get(stream) !== this.#leader) continue;
      if (now - (this.#lastSpreadMs.get(stream) ?? -Infinity) < SPREAD.everyMs) continue;
      this.#lastSpreadMs.set(stream, now);
      // Nodes hear the same advisory at once: a random delay lets the first one's move be seen.
      const jitter = new Promise<void>((r) => {
        const timer = setTimeout(() => {
          this.#jitters.delete(timer);
          r();
        }, Math.random() * SPREAD.jitterMs);
        this.#jitters.add(timer);
      });
      jitter.then(() => this.#link.jsm.streams.info(stream)).then((info) => {
        const leader = info.cluster?.leader;
        if (leader) this.#bucketLeaders.set(stream, leader);
        // One server (no replicas): there is nowhere to move. A replica offline or behind (a
        // server lost): a step-down now only makes the bucket elect again among the two left,
        // maybe the same leader (seen: six in a row, and the owner's lease went unrenewed).
        const replicas = info.cluster?.replicas ?? [];
        if (this.#closed || this.#lost || replicas.length === 0) return;
        if (!leader || leader !== this.#leader) return;
        if (replicas.some((r) => r.offline || !r.current)) {
          // Still on the log's server, but not movable yet (a cluster that just started: its
          // replicas catch up within a moment): look again soon, not at the next refresh (5 s),
          // or a loss of that server meanwhile stops the owner's record writes with the log.
          this.#lastSpreadMs.delete(stream);
          this.#schedule(SPREAD.retryMs);
          return;
        }
        this.#log(`cluster: ${stream} leads from ${leader} like the log stream: asked to move`);
        return this.#link.nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, {
          timeout: 2000,
        });
      }).catch(() => {});
    }
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#refresh(), ms);
  }

  async #refresh(): Promise<void> {
    if (this.#closed) return;
    // Each read on its own: a bucket electing a leader must not hold up the log's news.
    const streams = [...BUCKET_STREAMS, LOG_STREAM];
    await Promise.all(streams.map(async (stream) => {
      try {
        const leader = (await this.#link.jsm.streams.info(stream)).cluster?.leader;
        if (leader && !this.#closed) this.#leaderIs(stream, leader);
      } catch {
        // NATS cannot answer now (an election, a reconnect): read again soon.
      }
    }));
    this.#schedule(this.#lost ? REFRESH.outageMs : REFRESH.quietMs);
  }
}
