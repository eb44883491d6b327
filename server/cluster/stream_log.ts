/**
 * The scene event log on a JetStream stream: one subject per scene, each message a stamped event
 * or an ownership marker. Appends name the subject sequence they expect to follow, so a writer
 * whose view of the log is stale (a deposed owner) is refused: the log fences the owner.
 */
import { type ConsumerMessages, DeliverPolicy } from "@nats-io/jetstream";
import type { SceneEvent } from "../../shared/types.ts";
import type { NatsLink } from "./nats_link.ts";
import { LOG_STREAM, logSubject } from "./subjects.ts";

/** Written by a node taking a scene over, so the previous owner's next append is refused. */
export interface OwnerMarker {
  owner: string;
  /** Seq and tick of the last event before the marker (0 when none). */
  seq: number;
  tick: number;
}

/** One message of a scene's log. */
export type LogEntry = SceneEvent | OwnerMarker;

/** True for a stamped event (as opposed to an ownership marker). */
export function isEvent(entry: LogEntry): entry is SceneEvent {
  return "body" in entry;
}

/** A log entry with its stream sequence. */
export interface StoredEntry {
  entry: LogEntry;
  streamSeq: number;
}

/** The append was refused: someone else wrote to the scene's log since we last read it. */
export class FencedError extends Error {
  readonly code = "fenced";
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Appends `entry`, expecting the scene's last message to be `expectLast` (0: none yet). */
export async function appendEntry(
  link: NatsLink,
  scene: string,
  entry: LogEntry,
  expectLast: number,
): Promise<number> {
  try {
    const ack = await link.js.publish(logSubject(scene), encoder.encode(JSON.stringify(entry)), {
      expect: { lastSubjectSequence: expectLast },
      timeout: 2000,
    });
    return ack.seq;
  } catch (e) {
    if (/wrong last sequence/i.test((e as Error).message)) {
      throw new FencedError(`scene ${scene}: log moved past ${expectLast}`);
    }
    throw e;
  }
}

/** The scene's last log message, or null when its log is empty. */
export async function lastEntry(link: NatsLink, scene: string): Promise<StoredEntry | null> {
  const msg = await link.jsm.streams.getMessage(LOG_STREAM, { last_by_subj: logSubject(scene) });
  if (!msg) return null;
  return { entry: JSON.parse(decoder.decode(msg.data)), streamSeq: msg.seq };
}

/** A live reader of one scene's log from a stream sequence on, in order. */
export class LogReader {
  readonly #messages: ConsumerMessages;
  readonly done: Promise<void>;

  private constructor(messages: ConsumerMessages, onEntry: (stored: StoredEntry) => void) {
    this.#messages = messages;
    this.done = (async () => {
      for await (const msg of messages) {
        onEntry({ entry: JSON.parse(decoder.decode(msg.data)), streamSeq: msg.seq });
      }
    })();
  }

  /** Starts reading the scene's messages with stream sequence ≥ `fromStreamSeq`. */
  static async open(
    link: NatsLink,
    scene: string,
    fromStreamSeq: number,
    onEntry: (stored: StoredEntry) => void,
  ): Promise<LogReader> {
    const consumer = await link.js.consumers.get(LOG_STREAM, {
      filter_subjects: logSubject(scene),
      ...(fromStreamSeq > 1
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromStreamSeq }
        : { deliver_policy: DeliverPolicy.All }),
    });
    const messages = await consumer.consume({ max_messages: 512 });
    return new LogReader(messages, onEntry);
  }

  /** Stops reading. */
  async close(): Promise<void> {
    await this.#messages.close();
    await this.done.catch(() => {});
  }
}

/** The scene's log entries from stream sequence `from` up to and including `last`. */
export async function readRange(
  link: NatsLink,
  scene: string,
  from: number,
  last: StoredEntry,
): Promise<StoredEntry[]> {
  if (last.streamSeq < from) return [];
  const out: StoredEntry[] = [];
  const done = Promise.withResolvers<void>();
  const reader = await LogReader.open(link, scene, from, (stored) => {
    if (stored.streamSeq <= last.streamSeq) out.push(stored);
    if (stored.streamSeq >= last.streamSeq) done.resolve();
  });
  const timer = setTimeout(() => done.reject(new Error("reading the log timed out")), 10_000);
  try {
    await done.promise;
  } finally {
    clearTimeout(timer);
    await reader.close();
  }
  return out;
}

/** Up to `limit` events of the scene with seq ≥ `fromSeq`, read from the stream (for the API). */
export async function readEvents(
  link: NatsLink,
  scene: string,
  fromSeq: number,
  limit: number,
): Promise<SceneEvent[]> {
  const last = await lastEntry(link, scene);
  if (!last) return [];
  const events: SceneEvent[] = [];
  const consumer = await link.js.consumers.get(LOG_STREAM, {
    filter_subjects: logSubject(scene),
    deliver_policy: DeliverPolicy.All,
  });
  for (;;) {
    const batch = await consumer.fetch({ max_messages: 1000, expires: 2000 });
    let seen = 0;
    let lastStreamSeq = 0;
    for await (const msg of batch) {
      seen++;
      lastStreamSeq = msg.seq;
      const entry = JSON.parse(decoder.decode(msg.data)) as LogEntry;
      if (isEvent(entry) && entry.seq >= fromSeq && events.length < limit) events.push(entry);
    }
    if (seen === 0 || lastStreamSeq >= last.streamSeq || events.length >= limit) break;
  }
  await consumer.delete().catch(() => {});
  return events;
}
