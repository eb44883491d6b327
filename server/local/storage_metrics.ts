/** The stored log's figures in Prometheus text (`/metrics`). */
export type { StorageStats } from "./retention.ts";
import { type Family, one, prometheusText } from "../scene/prometheus.ts";
import type { StorageStats } from "./retention.ts";

/** The stored log's families, in order. */
const FAMILIES: readonly Family<[StorageStats]>[] = [
  one("snowfire_stored_events", "gauge", "Events stored, all scenes.", (s) => s.events),
  one(
    "snowfire_stored_bytes",
    "gauge",
    "Bytes of the scene database in use (pages minus free list).",
    (s) => s.bytes,
  ),
  one(
    "snowfire_database_file_bytes",
    "gauge",
    "Size of the scene database file.",
    (s) => s.fileBytes,
  ),
  one(
    "snowfire_pruned_events_total",
    "counter",
    "Events pruned by the retention policy.",
    (s) => s.pruned,
  ),
  one(
    "snowfire_scenes_removed_total",
    "counter",
    "Idle scenes removed by the retention policy.",
    (s) => s.scenesRemoved,
  ),
];

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
  return stats ? prometheusText(FAMILIES, stats) : "";
}
