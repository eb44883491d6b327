/**
 * One page of a scene's stored log: what is asked for and what comes back, whichever home the
 * scene has (the single node's worker, `server/local/log_pages.ts`; the cluster's stream,
 * `server/cluster/cluster_log_pages.ts`); the log API (`server/http/log_api.ts`) serves it.
 */
import type { SceneEvent, WorldSnapshot } from "../../shared/types.ts";

/** Where a page starts: at a seq, or at the first event with tick ≥ `tick`. */
export type PageStart = { seq: number } | { tick: number };

/** Asks for one page. */
export interface PageRequest {
  scene: string;
  start: PageStart;
  limit: number;
  /** Also compute the snapshot at the start tick (only with a tick start). */
  snapshot?: boolean;
  /**
   * Build the log API's whole response body too (`logPageBody`), gzip-compressed when `gzip`
   * (only with encoded events).
   */
  body?: { gzip: boolean };
}

/**
 * A page's events as the UTF-8 JSON of their array, built on the worker from the stored rows and
 * transferred (not copied): the server's thread neither rebuilds the objects, nor serializes
 * them, nor encodes the text (for a 5000-event page those cost it tens of ms, and 20 readers
 * stalled other scenes' heartbeats). Host grants are already public (no key hash).
 */
export interface EncodedEvents {
  /** UTF-8 of `[{"seq":…,"tick":…,"by":…,"body":…},…]` */
  json: Uint8Array;
  count: number;
  /** Seq of the first and last event (undefined when `count` is 0). */
  firstSeq?: number;
  lastSeq?: number;
}

/**
 * One page of a scene's log, as a page reader returns it (the local worker's and the cluster's
 * readers both do). The local worker's events come as JSON text ({@link EncodedEvents}), spliced
 * into the response as is.
 */
export interface LogPageResult {
  /** Events in seq order (at most the limit asked for). */
  events: SceneEvent[] | EncodedEvents;
  /** The first seq still kept (the next seq when the log is empty). */
  firstSeq: number;
  /** The last seq stored (0 when none ever was). */
  lastSeq: number;
  /** The log's start: events before this tick were pruned (0 when nothing was). */
  startTick: number;
  /** With a `tick` start and `snapshot`: the settings and wind in force at that tick. */
  snapshot?: WorldSnapshot;
  /**
   * The scene's seed and epoch when the reader looked them up with the page (null: no such
   * scene); then `describe` is not asked. The local worker does; encoded events are public.
   */
  scene?: { seed: number; epoch: number } | null;
  /**
   * The whole response body, when the reader built it (`PageRequest.body`; the local worker
   * does, with `logPageBody`): UTF-8 JSON, gzip-compressed when `gzip`.
   */
  body?: { bytes: Uint8Array<ArrayBuffer>; gzip: boolean };
}
