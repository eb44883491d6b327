/**
 * A cluster edge's submits (launches, gun shots, settings, host actions) on their way to the
 * scene's owner: in process when this node owns the scene, else by NATS request/reply, asked
 * again a few times while no owner answers, and each person's in their order (`SubmitOrder`).
 * A refusal goes back to the sender alone.
 */
import type { Metrics } from "../scene/metrics.ts";
import type { Peer } from "../scene/peer.ts";
import { errorMessage as refusal } from "../scene/errors.ts";
import type { ClusterMetrics } from "./cluster_metrics.ts";
import type { NatsLink } from "./nats_link.ts";
import { isNoResponders } from "./nats_errors.ts";
import {
  type FromOwner,
  paused,
  type SceneOwner,
  type SubmitReply,
  type SubmitRequest,
} from "./scene_owner.ts";
import { submitSubject } from "./subjects.ts";
import { SubmitOrder } from "./submit_order.ts";

/**
 * A submit that found no owner is asked again this many times… (2 s in all: a new scene's first
 * owner is chosen on the first pass after a client came, and 1 s was not always enough for it
 * on a loaded CI machine, where a launch made at once came back `paused`.)
 */
const SUBMIT_RETRIES = 8;
/** …this far apart. */
const SUBMIT_RETRY_MS = 250;
/** A submit waits this long for the owner's answer. */
const SUBMIT_TIMEOUT_MS = 2500;
/** A person's submits that may wait behind one being asked again; more are refused `paused`. */
const SUBMITS_HELD_MAX = 16;
/** What `#request` answers for a submit it will ask again later. */
const RETRYING = Symbol("retrying");

/** What an edge's submits need from it. */
export interface EdgeSubmitsDeps {
  scene: string;
  link: NatsLink;
  metrics: Metrics;
  cluster: ClusterMetrics;
  log: (msg: string) => void;
  /** The scene's owner when it is on this node and active, else null. */
  localOwner(): SceneOwner | null;
  /** Whether an answer naming `owner` comes from the scene's lease holder. */
  fromOwner(owner: unknown): Promise<boolean>;
  /** Whether the edge has closed (nothing is asked again then). */
  closed(): boolean;
}

const encoder = new TextEncoder();

/**
 * Forwards an edge's submits to the owner.
 *
 * @example
 * ```ts ignore
 * const submits = new EdgeSubmits({ scene, link, metrics, cluster, log, localOwner, fromOwner, closed });
 * if (!submits.full(peer)) submits.forward(peer, { by: peer.id, body, addr: peer.address });
 * ```
 */
export class EdgeSubmits {
  readonly #deps: EdgeSubmitsDeps;
  /** Pending submit retries (cleared on close). */
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();
  /** Each person's submits in their order while one of them is asked again. */
  readonly #order = new SubmitOrder<Peer, SubmitRequest>();

  constructor(deps: EdgeSubmitsDeps) {
    this.#deps = deps;
  }

  /** Whether `peer` has as many submits waiting behind one asked again as may wait. */
  full(peer: Peer): boolean {
    return this.#order.retried(peer) && this.#order.waiting(peer) >= SUBMITS_HELD_MAX;
  }

  /** Sends `request` from `peer` to the owner, after the person's submit in flight. */
  forward(peer: Peer, request: SubmitRequest): void {
    this.#forward(peer, request, 0);
  }

  /** Forgets every submit waiting or to be asked again (the edge closes). */
  close(): void {
    for (const timer of this.#retries) clearTimeout(timer);
    this.#retries.clear();
    this.#order.clear();
  }

  /**
   * Requests the owner's stamp: in process when this node owns the scene, else over NATS. With no
   * owner subscribed yet (a new scene's first moments, a hand-over) it asks again a few times,
   * 250 ms apart, before refusing with `paused`.
   */
  #forward(peer: Peer, request: SubmitRequest, attempt: number, next = false): void {
    // Behind the person's submit in flight (which may yet be asked again): it waits its turn
    // (`SubmitOrder`), unless it is the one whose turn it is or is being asked again.
    if (attempt === 0 && !next && this.#order.hold(peer, request)) return;
    const owner = this.#deps.localOwner();
    const answer = owner ? owner.submit(request) : this.#request(peer, request, attempt);
    // In process the owner stamped it (or refused it) already, before any later submit can reach
    // it: the next may go now rather than after the event is stored.
    if (owner) this.#settled(peer, request);
    answer.then((reply) => {
      if (reply === RETRYING) return;
      if (!owner) this.#settled(peer, request);
      if (reply === null) return;
      if ("ok" in reply) return;
      this.#deps.metrics.refuse(reply.code);
      peer.send(JSON.stringify(reply));
    }).catch((e) => {
      if (!owner) this.#settled(peer, request);
      this.#deps.log(`error: scene ${this.#deps.scene}: submit reply: ${(e as Error).message}`);
    });
  }

  /** `request` has its answer: the person's next submit waiting behind it goes now. */
  #settled(peer: Peer, request: SubmitRequest): void {
    if (peer.gone || this.#deps.closed()) {
      this.#order.drop(peer);
      return;
    }
    const next = this.#order.settled(peer, request);
    if (next) this.#forward(peer, next, 0, true);
  }

  /**
   * Asks the owner on another node (see `#forward`); null: no answer to pass on; RETRYING: it
   * is asked again later.
   */
  #request(
    peer: Peer,
    request: SubmitRequest,
    attempt: number,
  ): Promise<SubmitReply | null | typeof RETRYING> {
    const data = encoder.encode(JSON.stringify(request));
    return this.#deps.link.nc.request(submitSubject(this.#deps.scene), data, {
      timeout: SUBMIT_TIMEOUT_MS,
    }).then(
      // An answer counts only when it names the lease holder: a forged refusal goes nowhere.
      async (msg): Promise<SubmitReply | null> => {
        const { owner, ...reply } = msg.json<SubmitReply & Partial<FromOwner>>();
        return await this.#deps.fromOwner(owner) ? reply as SubmitReply : null;
      },
      (e): SubmitReply | null | typeof RETRYING => {
        // No responders: no owner right now, nothing was stamped. A timeout: the owner may have
        // stamped it and only the answer was lost; then the event arrives like any other.
        if (isNoResponders(e)) {
          if (attempt < SUBMIT_RETRIES && !peer.gone && !this.#deps.closed()) {
            // The person's later submits keep waiting for this one (their order is kept).
            this.#order.retrying(peer, request);
            this.#deps.cluster.submitRetries++;
            const timer = setTimeout(() => {
              this.#retries.delete(timer);
              this.#forward(peer, request, attempt + 1);
            }, SUBMIT_RETRY_MS);
            this.#retries.add(timer);
            return RETRYING;
          }
          this.#deps.cluster.submitsPaused++;
          return paused();
        }
        this.#deps.cluster.submitsPaused++;
        return refusal(
          "paused",
          "the sky did not answer in time; if your launch went through you will see it, " +
            "otherwise try again in a moment",
        );
      },
    );
  }
}
