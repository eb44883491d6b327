/**
 * NATS failures recognised by the typed errors and codes `@nats-io` 3.x exposes, never by their
 * message text (which the client and the server may reword between versions).
 */
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { NoRespondersError, RequestError, TimeoutError } from "@nats-io/transport-node";

/** JetStream API error code: a stream name is taken (by a stream with another configuration). */
export const STREAM_NAME_IN_USE = 10058;

/** The JetStream API error code of `e`, or undefined when it is not a JetStream API error. */
export function jetStreamCode(e: unknown): number | undefined {
  return e instanceof JetStreamApiError ? e.code : undefined;
}

/**
 * A conditional write was refused: the subject's (or KV key's) last sequence was not the one
 * expected. That fences a stale log writer, refuses a KV `create` of an existing key and an
 * `update` at a stale revision.
 *
 * @example
 * ```ts
 * try {
 *   await kv.update("scene", data, revision);
 * } catch (e) {
 *   if (isWrongLastSequence(e)) console.log("someone else wrote it first");
 * }
 * ```
 */
export function isWrongLastSequence(e: unknown): boolean {
  const code = jetStreamCode(e);
  return code === JetStreamApiCodes.StreamWrongLastSequence ||
    code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
}

/** The stream (a KV bucket's too) does not exist. */
export function isStreamNotFound(e: unknown): boolean {
  return jetStreamCode(e) === JetStreamApiCodes.StreamNotFound;
}

/** Creating a stream failed because one of that name exists (another node made it first). */
export function isStreamNameInUse(e: unknown): boolean {
  return jetStreamCode(e) === STREAM_NAME_IN_USE;
}

/** A request found nobody subscribed to its subject (nothing was done). */
export function isNoResponders(e: unknown): boolean {
  return e instanceof NoRespondersError || (e instanceof RequestError && e.isNoResponders());
}

/**
 * JetStream API codes of refusals that pass once the cluster has settled: its system is still
 * electing or syncing (10008), its meta leader does not yet know enough servers with room for a
 * replicated stream (10023), or no peers are known for placement yet (10005, also what too many
 * replicas for the servers get: a retry then ends with that error).
 */
const SETTLING_CODES: ReadonlySet<number> = new Set([10005, 10008, 10023]);

/**
 * A JetStream request failed in a way a cluster that just started (or lost a server a moment
 * ago) gives and a retry a little later does not: nobody answered JetStream's API yet, the
 * request timed out, or the cluster refused while it settles (a 503, or a code above).
 *
 * @example
 * ```ts
 * try {
 *   await jsm.streams.add({ name: "LOG", subjects: ["log.>"], num_replicas: 3 });
 * } catch (e) {
 *   if (!isSettling(e)) throw e;
 *   // try again in a moment
 * }
 * ```
 */
export function isSettling(e: unknown): boolean {
  if (isNoResponders(e) || e instanceof TimeoutError) return true;
  if (e instanceof RequestError && e.cause instanceof TimeoutError) return true;
  if (!(e instanceof JetStreamApiError)) return false;
  return e.status === 503 || SETTLING_CODES.has(e.code);
}
