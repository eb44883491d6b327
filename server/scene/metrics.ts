/** Server counters and gauges, rendered as Prometheus text for `/metrics`. */
import { Duration, durations, type Family, one, prometheusText } from "./prometheus.ts";

/** Everything `/metrics` reports. Counters only go up; gauges are read when rendered. */
export class Metrics {
  scenesCreated = 0;
  /** Scenes a full server unloaded to make room for a newcomer from another network. */
  scenesUnloadedForNetwork = 0;
  connectionsOpened = 0;
  eventsClient = 0;
  eventsShow = 0;
  showSkippedSkyFull = 0;
  messagesSent = 0;
  desyncs = 0;
  /** Disputed checkpoints whose true hash the server computed. */
  desyncArbitrations = 0;
  /** Disputed checkpoints left undecided (rate limit, busy arbiter, window gone): nobody resynced. */
  desyncUnsettled = 0;
  /** Peers disconnected for repeatedly wrong hashes. */
  desyncDisconnects = 0;
  slowConsumersDropped = 0;
  /** Connections closed for abuse: refused-frame budget spent, frame too large, no hello. */
  abusersClosed = 0;
  /** Hellos whose `lastSeq` was beyond the stored log (the database lost events). */
  historyLost = 0;
  heartbeatPasses = 0;
  /** How long the scheduler's passes ran (each sends every room's heartbeat). */
  readonly heartbeatPass = new Duration();
  /**
   * Time between the ends of two passes: the real gap between two heartbeats of the room served
   * last, however late the pass started and however long it ran.
   */
  readonly heartbeatGap = new Duration();
  #lastPassEndMs: number | undefined;
  readonly refused = new Map<string, number>();

  /** Counts a refused message under its error code. */
  refuse(code: string): void {
    this.refused.set(code, (this.refused.get(code) ?? 0) + 1);
  }

  /**
   * Records one scheduler pass that ran from `startMs` to `endMs` (monotonic).
   *
   * @example
   * ```ts
   * const m = new Metrics();
   * m.pass(0, 5);
   * m.pass(45, 120); // a 75 ms pass: its last heartbeats went out 115 ms after the previous ones
   * console.log(m.heartbeatPass.lastMs, m.heartbeatGap.lastMs); // 75 115
   * ```
   */
  pass(startMs: number, endMs: number): void {
    this.heartbeatPasses++;
    this.heartbeatPass.record(endMs - startMs);
    if (this.#lastPassEndMs !== undefined) this.heartbeatGap.record(endMs - this.#lastPassEndMs);
    this.#lastPassEndMs = endMs;
  }

  /** Prometheus text exposition format (version 0.0.4). */
  render(gauges: Gauges): string {
    return prometheusText(FAMILIES, this, gauges);
  }
}

/** What `/metrics` reads from the rest of the server when it renders. */
export interface Gauges {
  scenesLoaded: number;
  /** Absent where counting them is not cheap (a cluster node: they are in NATS). */
  scenesStored?: number;
  connections: number;
}

/** Everything `/metrics` reports, in order. */
const FAMILIES: readonly Family<[Metrics, Gauges]>[] = [
  one("snowfire_scenes_loaded", "gauge", "Scenes held in memory.", (_, g) => g.scenesLoaded),
  {
    name: "snowfire_scenes_stored",
    type: "gauge",
    help: "Scenes in the database.",
    samples: (_, g) => g.scenesStored === undefined ? [] : [["", g.scenesStored]],
  },
  one("snowfire_scenes_created_total", "counter", "Scenes created.", (m) => m.scenesCreated),
  one(
    "snowfire_scenes_unloaded_for_network_total",
    "counter",
    "Scenes a full server unloaded for a newcomer from another network (the largest holder's).",
    (m) => m.scenesUnloadedForNetwork,
  ),
  one("snowfire_connections", "gauge", "Open WebSocket connections.", (_, g) => g.connections),
  one(
    "snowfire_connections_total",
    "counter",
    "WebSocket connections accepted.",
    (m) => m.connectionsOpened,
  ),
  {
    name: "snowfire_events_total",
    type: "counter",
    help: "Events stamped and broadcast.",
    samples: (m) => [['{by="client"}', m.eventsClient], ['{by="show"}', m.eventsShow]],
  },
  one(
    "snowfire_show_skipped_total",
    "counter",
    "Show launches skipped because the sky was full.",
    (m) => m.showSkippedSkyFull,
  ),
  one("snowfire_messages_sent_total", "counter", "Frames sent to clients.", (m) => m.messagesSent),
  {
    name: "snowfire_refused_total",
    type: "counter",
    help: "Client messages refused, by error code.",
    samples: (m) =>
      [...m.refused.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([code, n]) => [`{code="${code}"}`, n]),
  },
  one(
    "snowfire_desyncs_total",
    "counter",
    "Peers sent resync after a hash disagreement.",
    (m) => m.desyncs,
  ),
  one(
    "snowfire_desync_arbitrations_total",
    "counter",
    "Disputed checkpoints whose true hash the server computed.",
    (m) => m.desyncArbitrations,
  ),
  one(
    "snowfire_desync_unsettled_total",
    "counter",
    "Disputed checkpoints left undecided (rate limit or busy): nobody resynced.",
    (m) => m.desyncUnsettled,
  ),
  one(
    "snowfire_desync_disconnects_total",
    "counter",
    "Connections closed (1008) for repeatedly wrong state hashes.",
    (m) => m.desyncDisconnects,
  ),
  one(
    "snowfire_slow_consumers_total",
    "counter",
    "Connections dropped for backpressure.",
    (m) => m.slowConsumersDropped,
  ),
  one(
    "snowfire_abusers_closed_total",
    "counter",
    "Connections closed for abuse (refused-frame budget, too-large frame, no hello).",
    (m) => m.abusersClosed,
  ),
  one(
    "snowfire_history_lost_total",
    "counter",
    "Clients that remembered events the database no longer has.",
    (m) => m.historyLost,
  ),
  one(
    "snowfire_heartbeat_passes_total",
    "counter",
    "Scheduler passes run.",
    (m) => m.heartbeatPasses,
  ),
  ...durations("snowfire_heartbeat_pass", "scheduler pass", (m: Metrics) => m.heartbeatPass),
  ...durations(
    "snowfire_heartbeat_gap",
    "heartbeat send gap (between the ends of two scheduler passes)",
    (m: Metrics) => m.heartbeatGap,
  ),
];
