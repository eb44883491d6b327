/**
 * What an edge hears from a scene's owner on another node over core NATS: its heartbeats, and
 * each event once it is stored (the fast path, `eventSubject`). The edge's log reader still
 * delivers every entry (deduplicated by seq) and the ownership markers; the fast path only spares
 * the edge from waiting for it. That wait was the sky's pause after a lost NATS server: a reader
 * whose consumer lived on the dead server is reopened, maybe more than once (a new consumer may
 * be placed on the dead peer again), while the owner goes on stamping; every heartbeat waits for
 * the events it covers, so the sky stood still until the reader came back.
 *
 * An edge whose node owns the scene leaves both subjects (the owner hands both in process).
 */
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { SceneEvent } from "../../shared/types.ts";
import type { Beat } from "./scene_owner.ts";
import { beatSubject, eventSubject } from "./subjects.ts";

/** Where an edge takes what its owner sends. */
export interface OwnerFeedHandlers {
  beat(beat: Beat): void;
  /** A stored event, maybe out of order or repeated (the edge takes only the next seq). */
  event(event: SceneEvent): void;
}

/**
 * True for a message that has the shape of a stored event (seq, tick, a body).
 *
 * @example
 * ```ts
 * isStoredEvent({ seq: 3, tick: 40, by: "p1", body: { type: "launch", x: 0, z: 0 } }); // true
 * ```
 */
export function isStoredEvent(value: unknown): value is SceneEvent {
  if (typeof value !== "object" || value === null) return false;
  const e = value as Partial<SceneEvent>;
  return Number.isSafeInteger(e.seq) && Number.isSafeInteger(e.tick) &&
    typeof e.body === "object" && e.body !== null;
}

/** Subscribes an edge to its owner's heartbeats and stored events while it listens. */
export class OwnerFeed {
  readonly #nc: NatsConnection;
  readonly #scene: string;
  readonly #handlers: OwnerFeedHandlers;
  #subs: Subscription[] = [];

  /**
   * A feed for `scene`, not yet listening.
   *
   * @example
   * ```ts
   * const feed = new OwnerFeed(link.nc, "aurora", { beat: onBeat, event: onEvent });
   * feed.listen(); // the owner is on another node
   * feed.stop(); // this node owns the scene now
   * ```
   */
  constructor(nc: NatsConnection, scene: string, handlers: OwnerFeedHandlers) {
    this.#nc = nc;
    this.#scene = scene;
    this.#handlers = handlers;
  }

  /** Listens (again) on both subjects; a closed connection (the node is stopping) is no error. */
  listen(): void {
    if (this.#subs.length > 0) return;
    try {
      this.#subs.push(
        this.#nc.subscribe(beatSubject(this.#scene), {
          callback: (err, msg) => {
            if (err) return;
            try {
              this.#handlers.beat(msg.json<Beat>());
            } catch {
              // Malformed: ignore.
            }
          },
        }),
      );
      this.#subs.push(
        this.#nc.subscribe(eventSubject(this.#scene), {
          callback: (err, msg) => {
            if (err) return;
            let event: unknown;
            try {
              event = msg.json();
            } catch {
              return; // Malformed: ignore.
            }
            if (isStoredEvent(event)) this.#handlers.event(event);
          },
        }),
      );
    } catch (e) {
      this.stop();
      if (!this.#nc.isClosed()) throw e;
    }
  }

  /** Leaves both subjects. */
  stop(): void {
    for (const sub of this.#subs.splice(0)) {
      try {
        sub.unsubscribe();
      } catch {
        // Closed connection: the subscription is gone anyway.
      }
    }
  }
}
