/**
 * JSON messages on one subject of the log stream (a scene's events, its keyframes): appends
 * that name the subject's last sequence (a writer whose view is stale is refused), and reads of
 * the last message or the next one from a stream sequence (`STREAM.MSG.GET`, answered by the
 * stream's leader, so a read sees every append acknowledged before it).
 *
 * @example
 * ```ts
 * import { appendAfter, lastMessage } from "./subject_messages.ts";
 * const last = await lastMessage<{ n: number }>(link, "log.quiet-pine");
 * const seq = await appendAfter(link, "log.quiet-pine", { n: 1 }, last?.seq ?? 0);
 * ```
 */
import type { NatsLink } from "./nats_link.ts";
import { isWrongLastSequence } from "./nats_errors.ts";
import { LOG_STREAM } from "./subjects.ts";

/** A message of a subject, parsed from JSON, with its stream sequence. */
export interface SubjectMessage<T> {
  value: T;
  seq: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Publishes `value` as JSON on `subject`, expecting the subject's last message to be at stream
 * sequence `expectLast` (0: none yet): its stream sequence, or null when another writer appended
 * since. With `msgId` (JetStream `Nats-Msg-Id`), publishing the same value again after a failure
 * that may have hidden a success returns the stored message's sequence instead of appending it
 * twice (the stream checks duplicates before the expected sequence).
 */
export async function appendAfter(
  link: NatsLink,
  subject: string,
  value: unknown,
  expectLast: number,
  msgId?: string,
): Promise<number | null> {
  try {
    const ack = await link.js.publish(subject, encoder.encode(JSON.stringify(value)), {
      expect: { lastSubjectSequence: expectLast },
      timeout: 2000,
      ...(msgId === undefined ? {} : { msgID: msgId }),
    });
    return ack.seq;
  } catch (e) {
    if (isWrongLastSequence(e)) return null;
    throw e;
  }
}

/** The last message on `subject`, or null when it has none. */
export async function lastMessage<T>(
  link: NatsLink,
  subject: string,
): Promise<SubjectMessage<T> | null> {
  const msg = await link.jsm.streams.getMessage(LOG_STREAM, { last_by_subj: subject });
  return msg ? { value: JSON.parse(decoder.decode(msg.data)), seq: msg.seq } : null;
}

/** The first message on `subject` at stream sequence ≥ `from`, or null when none is. */
export async function nextMessage<T>(
  link: NatsLink,
  subject: string,
  from: number,
): Promise<SubjectMessage<T> | null> {
  // STREAM.MSG.GET with next_by_subj (nats-server ≥ 2.9): a sequence request with the subject
  // filter the client's request type does not list (its direct API has it, but a direct get may
  // be answered by a replica behind the leader). Nothing there: null (JetStream API code 10037).
  const request = { seq: from, next_by_subj: subject };
  const msg = await link.jsm.streams.getMessage(LOG_STREAM, request);
  return msg ? { value: JSON.parse(decoder.decode(msg.data)), seq: msg.seq } : null;
}
