/**
 * One connected person: identity, rate-limit buckets, refusal notices and a bounded outgoing
 * queue. Sending never buffers without bound: a connection whose unsent bytes exceed the cap is
 * closed with 1013 and dropped, so one slow reader cannot hold memory or slow the others. That
 * holds for every socket, welcomed or not: direct replies (welcome, pong, error) are checked on
 * every send, broadcasts at the heartbeat. A welcome counts like any other send: its bytes start
 * the drain clock at once.
 *
 * What "unsent" can mean depends on the engine. Every socket reports `bufferedAmount`, the bytes
 * the process still holds; once the kernel has taken them (megabytes per socket on Linux) that
 * reads 0 even if the peer never reads. A socket that can ask its peer to confirm what it read
 * (`undrained`: the `ws` engine, by WebSocket pings whose pong comes back only after
 * everything sent before) is judged by that too, so kernel buffers count: more than the floor
 * unconfirmed with no new confirmation for the deadline is too slow (a peer reading a fast stream
 * confirms all along, however much is in flight); the `deno` engine cannot send pings of its own
 * and is judged by what the process holds only.
 */
import type { PeerInfo } from "../../shared/protocol.ts";
import type { RateLimits } from "./ratelimit.ts";
import { TokenBucket } from "./ratelimit.ts";
import { CLOSE_TRY_LATER } from "./close_codes.ts";
import type { SharedFrame } from "./shared_frame.ts";

/** What a peer needs from its socket (a real WebSocket, or a fake in unit tests). */
export interface PeerSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  /**
   * Bytes sent that the peer has not yet confirmed reading (kernel buffers included), and how
   * many it has confirmed so far; asks the peer for a confirmation when many are outstanding.
   * Absent on engines that cannot ask.
   */
  undrained?(): { bytes: number; confirmed: number };
  send(data: string): void;
  /**
   * Sends a frame many sockets send alike, encoded once for all of them (`SharedFrame`); absent
   * on sockets that only take text (then `send(frame.text)`).
   */
  sendShared?(frame: SharedFrame): void;
  /** `hard`: an abuser; stop reading and drop the TCP connection soon (engines that can). */
  close(code?: number, reason?: string, hard?: boolean): void;
}

/** Counters a peer updates. */
export interface PeerStats {
  messagesSent: number;
  slowConsumersDropped: number;
}

/** Close code sent to a connection that reads too slowly ("try again later"). */
export const CLOSE_SLOW_CONSUMER = CLOSE_TRY_LATER;

/** Unsent bytes a socket may keep for long (a few heartbeats and events in flight). */
export const DRAIN_FLOOR_BYTES = 64 * 1024;
/** A socket holding more than DRAIN_FLOOR_BYTES unsent this long is too slow (closed, 1013). */
export const DRAIN_DEADLINE_MS = 10_000;

const OPEN = 1;

/** A connection in a room. */
export class Peer {
  readonly id: string;
  name: string;
  /** True while `name` is the one the server made up (the person chose none). */
  generated = true;
  readonly color: string;
  readonly socket: PeerSocket;
  readonly #limits: RateLimits;
  /** A token bucket per kind, made on first use: an idle connection holds none (a fresh bucket is full anyway). */
  readonly #buckets: { [K in keyof RateLimits]?: TokenBucket } = {};
  /** Per refusal kind: when the last notice went out (ms), and how many were not answered since. */
  #noticeAt: Float64Array | undefined;
  #unanswered: Uint32Array | undefined;
  /**
   * The hash of this browser's person token in this scene (`hashPerson`), when its hello sent
   * one: a person a host removed is recognised by it when they come back.
   */
  person: string | undefined;
  /** The client's address, when the server knows it (the fair share of the sky per address). */
  address: string | undefined;
  /** True once the peer got its welcome; only welcomed peers receive broadcasts. */
  welcomed = false;
  /** Horizon of the peer's last welcome: it cannot judge hashes of earlier ticks. */
  joinHorizon = 0;
  /** Position in the room's audience array, or -1 (kept by the room). */
  audienceIndex = -1;
  /** True once the peer was dropped or its socket closed. */
  gone = false;
  readonly #maxBuffered: number;
  readonly #stats: PeerStats;
  readonly #monotonic: () => number;
  readonly #drainDeadlineMs: number;
  /** Since when (ms) the socket has held more than DRAIN_FLOOR_BYTES unsent, or -1. */
  #stuckSinceMs = -1;
  /** Since when (ms) more than DRAIN_FLOOR_BYTES went unconfirmed with no confirmation, or -1. */
  #unconfirmedSinceMs = -1;
  /** Bytes the peer had confirmed at the last check. */
  #confirmed = 0;

  constructor(
    init: {
      id: string;
      name: string;
      color: string;
      socket: PeerSocket;
      limits: RateLimits;
      maxBufferedBytes: number;
      /** Shared counters (the server's metrics). */
      stats: PeerStats;
      /** Monotonic clock in ms (for the drain deadline). Default `performance.now`. */
      monotonic?: () => number;
      /** Default DRAIN_DEADLINE_MS. */
      drainDeadlineMs?: number;
    },
  ) {
    this.id = init.id;
    this.name = init.name;
    this.color = init.color;
    this.socket = init.socket;
    this.#maxBuffered = init.maxBufferedBytes;
    this.#monotonic = init.monotonic ?? (() => performance.now());
    this.#drainDeadlineMs = init.drainDeadlineMs ?? DRAIN_DEADLINE_MS;
    this.#stats = init.stats;
    this.#limits = init.limits;
  }

  /** Takes a token of `kind`: 0 when granted, else the ms until one will be available. */
  take(kind: keyof RateLimits, nowMs: number): number {
    return (this.#buckets[kind] ??= new TokenBucket(this.#limits[kind], nowMs)).take(nowMs);
  }

  /**
   * Coalesces refusals: whether a refusal of `kind` (0 ≤ kind < `kinds`) gets an answer now —
   * at most one per kind per `intervalMs`. Returns -1 when it stays unanswered, else how many of
   * that kind went unanswered since the previous notice.
   */
  notice(kind: number, kinds: number, nowMs: number, intervalMs: number): number {
    const at = this.#noticeAt ??= new Float64Array(kinds).fill(-Infinity);
    const unanswered = this.#unanswered ??= new Uint32Array(kinds);
    if (nowMs - at[kind] < intervalMs) {
      unanswered[kind]++;
      return -1;
    }
    at[kind] = nowMs;
    const missed = unanswered[kind];
    unanswered[kind] = 0;
    return missed;
  }

  /** Public identity, as sent in welcome and presence. */
  info(): PeerInfo {
    return this.generated
      ? { id: this.id, name: this.name, color: this.color, gen: true }
      : { id: this.id, name: this.name, color: this.color };
  }

  /**
   * Sends a text frame (unless the peer is gone): a string of its own, or a broadcast's
   * `SharedFrame`, which the socket encodes once for everyone who gets it.
   */
  send(frame: string | SharedFrame): void {
    const socket = this.socket;
    if (this.gone || socket.readyState !== OPEN) return;
    if (typeof frame === "string") socket.send(frame);
    else if (socket.sendShared) socket.sendShared(frame);
    else socket.send(frame.text);
    this.#stats.messagesSent++;
  }

  /** Sends a direct reply (welcome, pong, error), dropping the peer when it is too far behind. */
  reply(text: string): void {
    this.sendChecked(text);
  }

  /**
   * Sends `text` unless the peer is gone; first drops the peer when its socket is too far behind.
   * Called for every direct reply (a welcome too) and for the heartbeat, which every peer gets at
   * least every 50 ms: between two checks a peer can only accumulate the (rate-limited) events of
   * one period, so the buffer stays bounded while the hot path for events skips the extra call
   * into the runtime.
   */
  sendChecked(text: string | SharedFrame): void {
    if (this.gone) return;
    // The byte cap is on what the process holds: what the kernel holds is bounded by it, and a
    // big welcome in flight to a reader on a slow link is not yet confirmed.
    if (this.socket.bufferedAmount > this.#maxBuffered || this.#tooSlow()) {
      this.drop(CLOSE_SLOW_CONSUMER, "too slow: the server will not buffer more for you");
      this.#stats.slowConsumersDropped++;
      return;
    }
    this.send(text);
    // What was just sent counts from now (a welcome of a busy scene starts the clocks itself).
    this.#tooSlow();
  }

  /**
   * True when the peer is too slow: the process has held more than DRAIN_FLOOR_BYTES for the
   * drain deadline (DRAIN_DEADLINE_MS), or (engines that can tell) more than that went
   * unconfirmed with no new confirmation for the deadline. A peer that does not read holds what
   * it was sent (a welcome above all) for good, under the byte cap as long as the kernel takes
   * some; it is closed (1013) and may resume.
   */
  #tooSlow(): boolean {
    const held = this.socket.bufferedAmount > DRAIN_FLOOR_BYTES;
    const undrained = this.socket.undrained?.();
    const unconfirmed = undrained !== undefined && undrained.bytes > DRAIN_FLOOR_BYTES;
    const readOn = undrained !== undefined && undrained.confirmed > this.#confirmed;
    if (undrained) this.#confirmed = undrained.confirmed;
    if (!held) this.#stuckSinceMs = -1;
    if (!unconfirmed) this.#unconfirmedSinceMs = -1;
    // The common case (nothing over the floor) reads no clock: the heartbeat checks every
    // listener, and a clock read is a call into the runtime.
    if (!held && !unconfirmed) return false;
    const nowMs = this.#monotonic();
    if (held && this.#stuckSinceMs < 0) this.#stuckSinceMs = nowMs;
    // Over the floor, or reading on: the clock runs from the latest confirmation.
    if (unconfirmed && (this.#unconfirmedSinceMs < 0 || readOn)) this.#unconfirmedSinceMs = nowMs;
    const deadline = this.#drainDeadlineMs;
    return (held && nowMs - this.#stuckSinceMs >= deadline) ||
      (unconfirmed && nowMs - this.#unconfirmedSinceMs >= deadline);
  }

  /** Closes the connection and stops sending to it (`hard`: see `PeerSocket.close`). */
  drop(code: number, reason: string, hard = false): void {
    if (this.gone) return;
    this.gone = true;
    try {
      this.socket.close(code, reason, hard);
    } catch {
      // Already closing: nothing more to do.
    }
  }
}
