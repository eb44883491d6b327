/**
 * The scene event log on a JetStream stream: one subject per scene, each message a stamped event
 * or an ownership marker. Appends name the subject sequence they expect to follow, so a writer
 * whose view of the log is stale (a deposed owner) is refused: the log fences the owner.
 */
import { type Consumer, type ConsumerMessages, DeliverPolicy } from "@nats-io/jetstream";
import type { SceneEvent } from "../../shared/types.ts";
import type { NatsLink } from "./nats_link.ts";
import { LOG_STREAM, logSubject } from "./subjects.ts";
import { appendAfter, lastMessage, nextMessage, type SubjectMessage } from "./subject_messages.ts";

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

const decoder = new TextDecoder();

/**
 * Appends `entry`, expecting the scene's last message to be `expectLast` (0: none yet). With
 * `msgId` (JetStream `Nats-Msg-Id`), publishing the same entry again after a failure that may have
 * hidden a success returns the stored message's sequence instead of appending it twice: the
 * stream checks duplicates before the expected sequence (checked against nats-server 2.9.10, R1
 * and R3), while another writer's entry at the same position, with its own id, is still fenced.
 */
export async function appendEntry(
  link: NatsLink,
  scene: string,
  entry: LogEntry,
  expectLast: number,
  msgId?: string,
): Promise<number> {
  const seq = await appendAfter(link, logSubject(scene), entry, expectLast, msgId);
  if (seq === null) throw new FencedError(`scene ${scene}: log moved past ${expectLast}`);
  return seq;
}

/** The scene's last log message, or null when its log is empty. */
export async function lastEntry(link: NatsLink, scene: string): Promise<StoredEntry | null> {
  return stored(await lastMessage<LogEntry>(link, logSubject(scene)));
}

/**
 * Pull requests of a log reader expire after this long; the client library expects an idle
 * heartbeat every half of it, so a consumer that went quiet (its stream leader or its server died)
 * is noticed and recreated within about this long instead of the default 30 s.
 */
const CONSUME_EXPIRES_MS = 2000;

/** Wait before reopening a reader whose consumer ended (a stream leader election, a lost server). */
const REOPEN_DELAY_MS = 250;

/**
 * A live reader of one scene's log from a stream sequence on, in order. When its consumer ends or
 * fails (the stream lost its leader, the NATS server it was bound to died), it opens a new one
 * after the last entry it delivered, until closed: a reader never stops silently.
 */
export class LogReader {
  #messages: ConsumerMessages;
  #consumer: Consumer;
  #closed = false;
  /** Stream sequence of the last entry delivered. */
  #lastStreamSeq: number;
  readonly done: Promise<void>;

  private constructor(
    link: NatsLink,
    scene: string,
    { consumer, messages }: Reading,
    fromStreamSeq: number,
    onEntry: (stored: StoredEntry) => void,
  ) {
    this.#consumer = consumer;
    this.#messages = messages;
    this.#lastStreamSeq = fromStreamSeq - 1;
    this.done = this.#run(link, scene, onEntry);
  }

  async #run(link: NatsLink, scene: string, onEntry: (stored: StoredEntry) => void): Promise<void> {
    for (;;) {
      try {
        for await (const msg of this.#messages) {
          // A reopened consumer starts after the last entry; never deliver one twice.
          if (msg.seq <= this.#lastStreamSeq) continue;
          this.#lastStreamSeq = msg.seq;
          onEntry({ entry: JSON.parse(decoder.decode(msg.data)), streamSeq: msg.seq });
        }
      } catch {
        // The consumer failed; reopen below.
      }
      for (;;) {
        // A closed connection (the node is shutting down) never comes back: stop for good.
        if (this.#closed || link.nc.isClosed()) return;
        await new Promise((r) => setTimeout(r, REOPEN_DELAY_MS));
        if (this.#closed || link.nc.isClosed()) return;
        try {
          const reading = await consume(link, scene, this.#lastStreamSeq + 1);
          this.#consumer.delete().catch(() => {});
          this.#consumer = reading.consumer;
          this.#messages = reading.messages;
          break;
        } catch {
          // Still no stream leader (or no connection): try again.
        }
      }
      if (this.#closed) {
        await this.#messages.close();
        await this.#consumer.delete().catch(() => {});
        return;
      }
    }
  }

  /** Starts reading the scene's messages with stream sequence ≥ `fromStreamSeq`. */
  static async open(
    link: NatsLink,
    scene: string,
    fromStreamSeq: number,
    onEntry: (stored: StoredEntry) => void,
  ): Promise<LogReader> {
    const reading = await consume(link, scene, fromStreamSeq);
    return new LogReader(link, scene, reading, fromStreamSeq, onEntry);
  }

  /** Drops the current consumer and reads on from the last delivered entry with a new one. */
  restart(): void {
    if (this.#closed) return;
    this.#messages.close().catch(() => {});
  }

  /**
   * Stops reading and deletes the consumer (the client library's ordered consumers otherwise
   * stay on the servers for 5 minutes; the retention sweep counts a scene with one as open).
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#messages.close();
    await this.done.catch(() => {});
    await this.#consumer.delete().catch(() => {});
  }
}

/**
 * A range read found the entries it waited for gone: the scene's log was purged under it (the
 * scene removed, or a retention prune past the reader's start). Callers read the record again.
 */
export class LogRangeGoneError extends Error {
  readonly code = "log_range_gone";
}

/** A range read gives up after this long without reaching its last entry. */
const READ_RANGE_TIMEOUT_MS = 10_000;

/**
 * A range read that has received nothing for this long asks the stream whether the entries it
 * waits for still exist, so a read racing a purge ends at once instead of at the timeout.
 */
const READ_RANGE_CHECK_MS = 500;

/**
 * The scene's log entries from stream sequence `from` up to and including `last`, or up to the
 * first one `enough` accepts. Rejects with {@link LogRangeGoneError} when the entries still to
 * come were purged meanwhile (nothing left on the scene's subject up to `last`).
 *
 * @example
 * ```ts
 * const last = await lastEntry(link, "quiet-pine");
 * const entries = last ? await readRange(link, "quiet-pine", 1, last) : [];
 * ```
 */
export async function readRange(
  link: NatsLink,
  scene: string,
  from: number,
  last: StoredEntry,
  enough: (stored: StoredEntry) => boolean = () => false,
): Promise<StoredEntry[]> {
  if (last.streamSeq < from) return [];
  const out: StoredEntry[] = [];
  const done = Promise.withResolvers<void>();
  let finished = false;
  /** The stream sequence the next entry must have at least. */
  let next = from;
  const reader = await LogReader.open(link, scene, from, (stored) => {
    if (finished) return;
    next = stored.streamSeq + 1;
    if (stored.streamSeq <= last.streamSeq) out.push(stored);
    if (stored.streamSeq >= last.streamSeq || enough(stored)) {
      finished = true;
      done.resolve();
    }
  });
  const timer = setTimeout(
    () => done.reject(new Error(`reading scene ${scene}'s log timed out`)),
    READ_RANGE_TIMEOUT_MS,
  );
  // While nothing arrives: is anything left to wait for? (A quiet consumer may only be slow:
  // a stream leader election; then the entries are still there and the read goes on.)
  let checker: ReturnType<typeof setTimeout> | undefined;
  /** The check under way, awaited before returning (it holds a request's timer). */
  let checking: Promise<void> = Promise.resolve();
  const check = async () => {
    const waitingFor = next;
    try {
      const found = await nextEntry(link, scene, waitingFor);
      if (!finished && next === waitingFor && (!found || found.streamSeq > last.streamSeq)) {
        finished = true;
        done.reject(
          new LogRangeGoneError(
            `scene ${scene}: log entries ${waitingFor}–${last.streamSeq} were purged while read`,
          ),
        );
        return;
      }
    } catch {
      // No answer (NATS reconnecting): the timeout decides.
    }
    if (!finished) checker = setTimeout(() => checking = check(), READ_RANGE_CHECK_MS);
  };
  checker = setTimeout(() => checking = check(), READ_RANGE_CHECK_MS);
  // A reader stops for good only when the connection closed (the node is shutting down): then
  // nothing more will come, and the read ends now rather than at its timeout.
  const stopped = () => {
    if (finished) return;
    finished = true;
    done.reject(new Error(`reading scene ${scene}'s log: the NATS connection closed`));
  };
  reader.done.then(stopped, stopped);
  try {
    await done.promise;
  } finally {
    finished = true;
    clearTimeout(timer);
    clearTimeout(checker);
    await checking;
    await reader.close();
  }
  return out;
}

/** An ordered consumer of the scene's messages with stream sequence ≥ `fromStreamSeq`. */
/** A reader's consumer and its message stream. */
interface Reading {
  consumer: Consumer;
  messages: ConsumerMessages;
}

async function consume(
  link: NatsLink,
  scene: string,
  fromStreamSeq: number,
): Promise<Reading> {
  const consumer = await link.js.consumers.get(LOG_STREAM, {
    filter_subjects: logSubject(scene),
    ...(fromStreamSeq > 1
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromStreamSeq }
      : { deliver_policy: DeliverPolicy.All }),
  });
  const messages = await consumer.consume({ max_messages: 512, expires: CONSUME_EXPIRES_MS });
  return { consumer, messages };
}

/** An entry's place in seq order: a marker sits between the event it follows and the next one. */
export const bySeq = (entry: LogEntry): number => isEvent(entry) ? entry.seq : entry.seq + 0.5;

/**
 * Up to `limit` events of the scene with seq ≥ `fromSeq`, read from the stream up to `last` (the
 * scene's last entry, read first when not given). The first one is found by binary search over
 * stream sequences (scene seq grows with stream sequence along a subject), so a page costs
 * O(log n) lookups plus the read of its events ({@link eventsFrom}).
 */
export async function readEvents(
  link: NatsLink,
  scene: string,
  fromSeq: number,
  limit: number,
  last?: StoredEntry | null,
): Promise<SceneEvent[]> {
  last ??= await lastEntry(link, scene);
  if (!last || limit <= 0) return [];
  const at = await firstEntryAt(link, scene, bySeq, fromSeq, last);
  if (at === null) return [];
  return await eventsFrom(link, scene, at, last, limit, (e) => e.seq >= fromSeq);
}

/**
 * The stream sequence of the scene's first entry whose `key` is ≥ `target` (null when none up
 * to `last` is), by binary search with direct gets: `key` must not decrease along the subject
 * (an event's seq or tick; a marker carries the seq and tick of the event before it).
 *
 * @example
 * ```ts
 * const last = await lastEntry(link, "quiet-pine");
 * const at = last && await firstEntryAt(link, "quiet-pine", (e) => e.tick, 36_000, last);
 * ```
 */
export async function firstEntryAt(
  link: NatsLink,
  scene: string,
  key: (entry: LogEntry) => number,
  target: number,
  last: StoredEntry,
): Promise<number | null> {
  if (key(last.entry) < target) return null;
  let lo = 1;
  let hi = last.streamSeq;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const next = await nextEntry(link, scene, mid);
    if (!next || key(next.entry) >= target) hi = mid;
    else lo = next.streamSeq + 1;
  }
  return lo;
}

/**
 * Ranges of at most this many events are read by direct gets (one request each); longer ones by
 * an ordered consumer, whose setup costs a few requests but which then streams the entries.
 */
const DIRECT_EVENTS_MAX = 16;

/**
 * Up to `limit` events `want` accepts, from stream sequence `from` up to `last`: by direct gets
 * (next message on the subject from a stream sequence) for a few, else in one ordered read
 * ({@link readEntries}).
 */
export async function eventsFrom(
  link: NatsLink,
  scene: string,
  from: number,
  last: StoredEntry,
  limit: number,
  want: (event: SceneEvent) => boolean = () => true,
): Promise<SceneEvent[]> {
  const enough = () => {
    let wanted = 0;
    return ({ entry }: StoredEntry) => {
      if (isEvent(entry) && want(entry)) wanted++;
      return wanted >= limit;
    };
  };
  const entries = await readEntries(link, scene, from, last, enough, limit <= DIRECT_EVENTS_MAX);
  const events: SceneEvent[] = [];
  for (const { entry } of entries) {
    if (events.length === limit) break;
    if (isEvent(entry) && want(entry)) events.push(entry);
  }
  return events;
}

/**
 * The scene's entries from `from` up to `last` (or the first `enough` accepts): in one ordered
 * read ({@link readRange}), or one direct get each when `direct`. Entries purged while read (the
 * retention moved the log's front): what is left, entry by entry, as before batching. `enough`
 * is made afresh for each read, so a predicate that counts starts again from zero when the
 * entry-by-entry read starts again from `from`.
 */
export async function readEntries(
  link: NatsLink,
  scene: string,
  from: number,
  last: StoredEntry,
  enough: () => (stored: StoredEntry) => boolean,
  direct = false,
): Promise<StoredEntry[]> {
  if (!direct) {
    try {
      return await readRange(link, scene, from, last, enough());
    } catch (e) {
      if (!(e instanceof LogRangeGoneError)) throw e;
    }
  }
  const accept = enough();
  const entries: StoredEntry[] = [];
  for (let at = from; at <= last.streamSeq;) {
    const next = await nextEntry(link, scene, at);
    if (!next || next.streamSeq > last.streamSeq) break;
    entries.push(next);
    if (accept(next)) break;
    at = next.streamSeq + 1;
  }
  return entries;
}

/** The scene's first log message at stream sequence ≥ `from`, or null. */
export async function nextEntry(
  link: NatsLink,
  scene: string,
  from: number,
): Promise<StoredEntry | null> {
  return stored(await nextMessage<LogEntry>(link, logSubject(scene), from));
}

function stored(message: SubjectMessage<LogEntry> | null): StoredEntry | null {
  return message && { entry: message.value, streamSeq: message.seq };
}
