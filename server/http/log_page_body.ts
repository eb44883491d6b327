/**
 * `logPageBody`: the JSON bytes of one log API page (`LogPageSchema` in `shared/protocol.ts`),
 * with the events spliced in as their reader encoded them. The single node's page worker builds
 * (and compresses) whole bodies with it, so the server's thread only checks the page's range and
 * writes the bytes; the route builds the cluster readers' bodies with it.
 */
import { WINDOW_TICKS } from "../../shared/constants.ts";
import type { LogPage } from "../../shared/protocol.ts";
import { publicSnapshot } from "../../shared/rules.ts";
import type { WorldSnapshot } from "../../shared/types.ts";
import type { EncodedEvents, PageStart } from "../local/log_pages.ts";

/** What a page body says. */
export interface PageBodyParts {
  scene: string;
  seed: number;
  epoch: number;
  firstSeq: number;
  lastSeq: number;
  startTick: number;
  start: PageStart;
  limit: number;
  /** Public already (no host key hashes). */
  events: EncodedEvents;
  snapshot?: WorldSnapshot;
}

const encoder = new TextEncoder();

/**
 * The page's UTF-8 JSON.
 *
 * @example
 * ```ts
 * const events = { json: new TextEncoder().encode("[]"), count: 0 };
 * const bytes = logPageBody({
 *   scene: "a", seed: 1, epoch: 0, firstSeq: 1, lastSeq: 0, startTick: 0,
 *   start: { seq: 1 }, limit: 10, events,
 * });
 * JSON.parse(new TextDecoder().decode(bytes)).next; // null
 * ```
 */
export function logPageBody(parts: PageBodyParts): Uint8Array<ArrayBuffer> {
  const { events, start, limit } = parts;
  const from = "seq" in start
    ? Math.max(start.seq, parts.firstSeq)
    : (events.firstSeq ?? parts.lastSeq + 1);
  const before: Omit<LogPage, "events" | "next" | "snapshot"> = {
    scene: parts.scene,
    seed: parts.seed,
    epoch: parts.epoch,
    firstSeq: parts.firstSeq,
    lastSeq: parts.lastSeq,
    startTick: parts.startTick,
    exactFromTick: parts.startTick === 0 ? 0 : parts.startTick + WINDOW_TICKS,
    from,
  };
  const after: Pick<LogPage, "next" | "snapshot"> = {
    next: events.count === limit ? events.lastSeq! + 1 : null,
    ...(parts.snapshot ? { snapshot: publicSnapshot(parts.snapshot) } : {}),
  };
  const head = encoder.encode(`${JSON.stringify(before).slice(0, -1)},"events":`);
  const tail = encoder.encode(`,${JSON.stringify(after).slice(1)}`);
  const bytes = new Uint8Array(head.length + events.json.length + tail.length);
  bytes.set(head);
  bytes.set(events.json, head.length);
  bytes.set(tail, head.length + events.json.length);
  return bytes;
}
