/** Cluster-mode counters and gauges for `/metrics`, next to the single node's. */
import { Duration, durations, type Family, one, prometheusText } from "../scene/prometheus.ts";
import type { NatsState } from "./nats_link.ts";

/** What a cluster node counts. */
export class ClusterMetrics {
  readonly nodeId: string;
  /** Ownership changes on this node: takeovers and step-downs. */
  leaseChanges = 0;
  /** Events relayed from the log to local clients (one per event, not per client). */
  eventsRelayed = 0;
  /** Heartbeats relayed to local clients. */
  beatsRelayed = 0;
  /** Appends published again after a transient failure (timeout, no responders, election). */
  appendRetries = 0;
  /** Record writes that made appends in doubt durable (the log's leader died under them). */
  appendsJournaled = 0;
  /** Submits refused because no owner answered (takeover or NATS outage). */
  submitsPaused = 0;
  /**
   * Submits asked again because no owner answered yet (a new scene's first moments, a
   * hand-over); the person's later submits wait behind them (`submit_order.ts`).
   */
  submitRetries = 0;
  /** Log entries purged by the retention policy from scenes this node owned or swept. */
  pruned = 0;
  /** Scenes this node's retention sweep removed (idle past the retention, nobody reading). */
  scenesRemoved = 0;
  /**
   * Edges that read the scene record again while opening: a retention purge had removed where
   * the record they read said the log goes on (see `snapshot_start.ts`).
   */
  reopenedAfterPrune = 0;
  /** Retention sweeps this node ran (it held the sweep lease). */
  sweeps = 0;
  /** How long the sweeps took (monotonic). */
  readonly sweep = new Duration();
  /** Verdicts and submit answers ignored: they did not name the scene's lease holder. */
  notFromOwner = 0;
  /** Heartbeats' delay from the owner's send to this edge's relay. */
  readonly relayLag = new Duration();

  constructor(nodeId: string) {
    this.nodeId = nodeId;
  }

  /** Records one heartbeat relayed `lagMs` after the owner sent it. */
  relayed(lagMs: number): void {
    this.beatsRelayed++;
    this.relayLag.record(lagMs);
  }

  /** Prometheus text for the cluster part. */
  render(gauges: ClusterGauges): string {
    return prometheusText(FAMILIES, this, gauges);
  }
}

/** What the cluster part reads from the rest of the node when it renders. */
export interface ClusterGauges {
  owned: number;
  relayed: number;
  nats: NatsState;
  disconnects: number;
  /** Events this node stamped as owner (the node's `snowfire_events_total`). */
  stamped: number;
}

/** A family with one sample, labelled with the node's id. */
function node(
  name: string,
  type: Family<[ClusterMetrics, ClusterGauges]>["type"],
  help: string,
  read: (m: ClusterMetrics, g: ClusterGauges) => number,
): Family<[ClusterMetrics, ClusterGauges]> {
  return one(name, type, help, read, nodeLabel);
}

/** The node's id as a label. */
function nodeLabel(m: ClusterMetrics): string {
  return `{node="${m.nodeId}"}`;
}

/** Everything the cluster part reports, in order. */
const FAMILIES: readonly Family<[ClusterMetrics, ClusterGauges]>[] = [
  node("snowfire_cluster_node", "gauge", "This node (label node).", () => 1),
  node("snowfire_cluster_scenes_owned", "gauge", "Scenes this node owns.", (_, g) => g.owned),
  node(
    "snowfire_cluster_scenes_relayed",
    "gauge",
    "Scenes this node relays to local clients.",
    (_, g) => g.relayed,
  ),
  node(
    "snowfire_cluster_lease_changes_total",
    "counter",
    "Takeovers and step-downs.",
    (m) => m.leaseChanges,
  ),
  node(
    "snowfire_cluster_append_retries_total",
    "counter",
    "Log appends published again after a transient NATS failure.",
    (m) => m.appendRetries,
  ),
  node(
    "snowfire_cluster_appends_journaled_total",
    "counter",
    "Record writes that made appends in doubt durable (the log stream's leader was lost).",
    (m) => m.appendsJournaled,
  ),
  node(
    "snowfire_cluster_events_stamped_total",
    "counter",
    "Events this node stamped as owner.",
    (_, g) => g.stamped,
  ),
  node(
    "snowfire_cluster_events_relayed_total",
    "counter",
    "Events relayed from the log.",
    (m) => m.eventsRelayed,
  ),
  node(
    "snowfire_cluster_beats_relayed_total",
    "counter",
    "Heartbeats relayed.",
    (m) => m.beatsRelayed,
  ),
  node(
    "snowfire_cluster_submits_paused_total",
    "counter",
    "Submits refused: no owner answered.",
    (m) => m.submitsPaused,
  ),
  node(
    "snowfire_cluster_submit_retries_total",
    "counter",
    "Submits asked again: no owner answered yet.",
    (m) => m.submitRetries,
  ),
  node(
    "snowfire_cluster_not_from_owner_total",
    "counter",
    "Verdicts and submit answers ignored: not from the scene's lease holder.",
    (m) => m.notFromOwner,
  ),
  node(
    "snowfire_cluster_reopened_after_prune_total",
    "counter",
    "Edges that read the scene record again while opening: a purge overtook the one read.",
    (m) => m.reopenedAfterPrune,
  ),
  node(
    "snowfire_cluster_sweeps_total",
    "counter",
    "Retention sweeps of scenes nobody owns this node ran.",
    (m) => m.sweeps,
  ),
  ...durations("snowfire_cluster_sweep", "retention sweep", (m) => m.sweep, nodeLabel),
  ...durations(
    "snowfire_cluster_relay_lag",
    "heartbeat owner-to-relay delay",
    (m) => m.relayLag,
    nodeLabel,
  ),
  node(
    "snowfire_cluster_nats_connected",
    "gauge",
    "1 when NATS is reachable.",
    (_, g) => g.nats === "connected" ? 1 : 0,
  ),
  node(
    "snowfire_cluster_nats_disconnects_total",
    "counter",
    "Times NATS was lost.",
    (_, g) => g.disconnects,
  ),
];
