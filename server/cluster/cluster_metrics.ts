/** Cluster-mode counters and gauges for `/metrics`, next to the single node's. */
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
  /** Monotonic ms the last sweep took, and the most one took. */
  sweepMs = 0;
  sweepMaxMs = 0;
  /** Verdicts and submit answers ignored: they did not name the scene's lease holder. */
  notFromOwner = 0;
  /** Last heartbeat's delay from the owner's send to this edge's relay, ms. */
  relayLagMs = 0;
  relayLagMaxMs = 0;

  constructor(nodeId: string) {
    this.nodeId = nodeId;
  }

  /** Records one heartbeat relayed `lagMs` after the owner sent it. */
  relayed(lagMs: number): void {
    this.beatsRelayed++;
    this.relayLagMs = lagMs;
    if (lagMs > this.relayLagMaxMs) this.relayLagMaxMs = lagMs;
  }

  /** Prometheus text for the cluster part. */
  render(gauges: {
    owned: number;
    relayed: number;
    nats: NatsState;
    disconnects: number;
    /** Events this node stamped as owner (the node's `snowfire_events_total`). */
    stamped: number;
  }): string {
    const id = `node="${this.nodeId}"`;
    const lines: string[] = [];
    const metric = (name: string, type: string, help: string, value: number, labels = "") => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      lines.push(`${name}{${id}${labels}} ${value}`);
    };
    metric("snowfire_cluster_node", "gauge", "This node (label node).", 1);
    metric("snowfire_cluster_scenes_owned", "gauge", "Scenes this node owns.", gauges.owned);
    metric(
      "snowfire_cluster_scenes_relayed",
      "gauge",
      "Scenes this node relays to local clients.",
      gauges.relayed,
    );
    metric(
      "snowfire_cluster_lease_changes_total",
      "counter",
      "Takeovers and step-downs.",
      this.leaseChanges,
    );
    metric(
      "snowfire_cluster_append_retries_total",
      "counter",
      "Log appends published again after a transient NATS failure.",
      this.appendRetries,
    );
    metric(
      "snowfire_cluster_appends_journaled_total",
      "counter",
      "Record writes that made appends in doubt durable (the log stream's leader was lost).",
      this.appendsJournaled,
    );
    metric(
      "snowfire_cluster_events_stamped_total",
      "counter",
      "Events this node stamped as owner.",
      gauges.stamped,
    );
    metric(
      "snowfire_cluster_events_relayed_total",
      "counter",
      "Events relayed from the log.",
      this.eventsRelayed,
    );
    metric(
      "snowfire_cluster_beats_relayed_total",
      "counter",
      "Heartbeats relayed.",
      this.beatsRelayed,
    );
    metric(
      "snowfire_cluster_submits_paused_total",
      "counter",
      "Submits refused: no owner answered.",
      this.submitsPaused,
    );
    metric(
      "snowfire_cluster_submit_retries_total",
      "counter",
      "Submits asked again: no owner answered yet.",
      this.submitRetries,
    );
    metric(
      "snowfire_cluster_not_from_owner_total",
      "counter",
      "Verdicts and submit answers ignored: not from the scene's lease holder.",
      this.notFromOwner,
    );
    metric(
      "snowfire_cluster_reopened_after_prune_total",
      "counter",
      "Edges that read the scene record again while opening: a purge overtook the one read.",
      this.reopenedAfterPrune,
    );
    metric(
      "snowfire_cluster_sweeps_total",
      "counter",
      "Retention sweeps of scenes nobody owns this node ran.",
      this.sweeps,
    );
    metric(
      "snowfire_cluster_sweep_ms",
      "gauge",
      "How long the last retention sweep took, ms.",
      round3(this.sweepMs),
    );
    metric(
      "snowfire_cluster_sweep_max_ms",
      "gauge",
      "The longest retention sweep, ms.",
      round3(this.sweepMaxMs),
    );
    metric(
      "snowfire_cluster_relay_lag_ms",
      "gauge",
      "Last heartbeat's owner-to-relay delay, ms.",
      round3(this.relayLagMs),
    );
    metric(
      "snowfire_cluster_relay_lag_max_ms",
      "gauge",
      "Worst heartbeat owner-to-relay delay, ms.",
      round3(this.relayLagMaxMs),
    );
    metric(
      "snowfire_cluster_nats_connected",
      "gauge",
      "1 when NATS is reachable.",
      gauges.nats === "connected" ? 1 : 0,
    );
    metric(
      "snowfire_cluster_nats_disconnects_total",
      "counter",
      "Times NATS was lost.",
      gauges.disconnects,
    );
    return lines.join("\n") + "\n";
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
