/** The stored log's figures in Prometheus text (`/metrics`). */
export type { StorageStats } from "./retention.ts";
import type { StorageStats } from "./retention.ts";

/**
 * Lines for `/metrics`: events and bytes stored, events pruned and scenes removed by retention.
 * Empty without figures (cluster mode, or before the first retention pass).
 *
 * @example
 * ```ts
 * storageMetrics({ events: 10, bytes: 8192, fileBytes: 12288, pruned: 0, scenesRemoved: 0 });
 * ```
 */
export function storageMetrics(stats: StorageStats | undefined): string {
  if (!stats) return "";
  return [
    "# HELP snowfire_stored_events Events stored, all scenes.",
    "# TYPE snowfire_stored_events gauge",
    `snowfire_stored_events ${stats.events}`,
    "# HELP snowfire_stored_bytes Bytes of the scene database in use (pages minus free list).",
    "# TYPE snowfire_stored_bytes gauge",
    `snowfire_stored_bytes ${stats.bytes}`,
    "# HELP snowfire_database_file_bytes Size of the scene database file.",
    "# TYPE snowfire_database_file_bytes gauge",
    `snowfire_database_file_bytes ${stats.fileBytes}`,
    "# HELP snowfire_pruned_events_total Events pruned by the retention policy.",
    "# TYPE snowfire_pruned_events_total counter",
    `snowfire_pruned_events_total ${stats.pruned}`,
    "# HELP snowfire_scenes_removed_total Idle scenes removed by the retention policy.",
    "# TYPE snowfire_scenes_removed_total counter",
    `snowfire_scenes_removed_total ${stats.scenesRemoved}`,
    "",
  ].join("\n");
}
