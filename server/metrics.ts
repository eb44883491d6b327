/** Server counters and gauges, rendered as Prometheus text for `/metrics`. */

/** Everything `/metrics` reports. Counters only go up; gauges are read when rendered. */
export class Metrics {
  scenesCreated = 0;
  connectionsOpened = 0;
  eventsClient = 0;
  eventsShow = 0;
  showSkippedSkyFull = 0;
  messagesSent = 0;
  desyncs = 0;
  desyncTies = 0;
  slowConsumersDropped = 0;
  /** Hellos whose `lastSeq` was beyond the stored log (the database lost events). */
  historyLost = 0;
  heartbeatPasses = 0;
  /** Lateness of the last scheduler pass behind its deadline, ms. */
  heartbeatLagMs = 0;
  /** Worst lateness seen, ms. */
  heartbeatLagMaxMs = 0;
  readonly refused = new Map<string, number>();

  /** Counts a refused message under its error code. */
  refuse(code: string): void {
    this.refused.set(code, (this.refused.get(code) ?? 0) + 1);
  }

  /** Records one scheduler pass that ran `lagMs` after its deadline. */
  pass(lagMs: number): void {
    this.heartbeatPasses++;
    this.heartbeatLagMs = lagMs;
    if (lagMs > this.heartbeatLagMaxMs) this.heartbeatLagMaxMs = lagMs;
  }

  /** Prometheus text exposition format (version 0.0.4). */
  render(gauges: { scenesLoaded: number; scenesStored: number; connections: number }): string {
    const lines: string[] = [];
    const metric = (name: string, type: string, help: string, samples: [string, number][]) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
    };
    metric("snowfire_scenes_loaded", "gauge", "Scenes held in memory.", [[
      "",
      gauges.scenesLoaded,
    ]]);
    metric("snowfire_scenes_stored", "gauge", "Scenes in the database.", [[
      "",
      gauges.scenesStored,
    ]]);
    metric("snowfire_scenes_created_total", "counter", "Scenes created.", [[
      "",
      this.scenesCreated,
    ]]);
    metric("snowfire_connections", "gauge", "Open WebSocket connections.", [[
      "",
      gauges.connections,
    ]]);
    metric("snowfire_connections_total", "counter", "WebSocket connections accepted.", [[
      "",
      this.connectionsOpened,
    ]]);
    metric("snowfire_events_total", "counter", "Events stamped and broadcast.", [
      ['{by="client"}', this.eventsClient],
      ['{by="show"}', this.eventsShow],
    ]);
    metric(
      "snowfire_show_skipped_total",
      "counter",
      "Show launches skipped because the sky was full.",
      [["", this.showSkippedSkyFull]],
    );
    metric("snowfire_messages_sent_total", "counter", "Frames sent to clients.", [[
      "",
      this.messagesSent,
    ]]);
    const refused = [...this.refused.entries()].sort(([a], [b]) => a.localeCompare(b));
    metric(
      "snowfire_refused_total",
      "counter",
      "Client messages refused, by error code.",
      refused.map(([code, n]) => [`{code="${code}"}`, n]),
    );
    metric("snowfire_desyncs_total", "counter", "Peers sent resync after a hash disagreement.", [[
      "",
      this.desyncs,
    ]]);
    metric("snowfire_desync_ties_total", "counter", "Hash votes without a majority.", [[
      "",
      this.desyncTies,
    ]]);
    metric("snowfire_slow_consumers_total", "counter", "Connections dropped for backpressure.", [[
      "",
      this.slowConsumersDropped,
    ]]);
    metric(
      "snowfire_history_lost_total",
      "counter",
      "Clients that remembered events the database no longer has.",
      [["", this.historyLost]],
    );
    metric("snowfire_heartbeat_passes_total", "counter", "Scheduler passes run.", [[
      "",
      this.heartbeatPasses,
    ]]);
    metric("snowfire_heartbeat_lag_ms", "gauge", "Last scheduler pass lateness, ms.", [[
      "",
      round3(this.heartbeatLagMs),
    ]]);
    metric("snowfire_heartbeat_lag_max_ms", "gauge", "Worst scheduler pass lateness, ms.", [[
      "",
      round3(this.heartbeatLagMaxMs),
    ]]);
    return lines.join("\n") + "\n";
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
