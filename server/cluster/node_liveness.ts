/**
 * That this node's process is alive, cluster-wide: one key per process (`_node.<instance>`) in the
 * leases bucket, so it expires with the lease TTL, the same rule by which a dead node's scenes
 * are taken over. Whatever a node holds for its people (their names, `name_claims.ts`) then needs
 * no renewal of its own: another node that finds it in the way asks whether its process is alive.
 * (Before, each held name was rewritten every 10 s: with 500 people on a node, 50 KV writes a
 * second, 40 of the 70 NATS messages a second of a quiet load test.)
 */
import type { KV } from "@nats-io/kv";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { isNoResponders } from "./nats_errors.ts";

/** Key prefix of a process's liveness in the leases bucket (no scene id starts with `_`). */
const PREFIX = "_node.";

/**
 * A process's liveness key, renewed on the scheduler's passes.
 *
 * @example
 * ```ts ignore
 * const liveness = new NodeLiveness(link.leases, "node-a", 3000);
 * liveness.pass(performance.now()); // on every scheduler pass
 * await liveness.isAlive("node-b.k3f9"); // false once node-b's process died
 * ```
 */
export class NodeLiveness {
  /** This process: the node id and a random part (a restarted node is another process). */
  readonly instance: string;
  readonly #kv: KV;
  readonly #renewMs: number;
  #renewedMs = -Infinity;
  #renewing = false;
  /**
   * Processes seen alive, with when (monotonic ms): asked again only after a third of the TTL. A
   * crowd saying hello with one name meets many refused claims, each asking about the same few
   * processes; an answer that is briefly stale only keeps a name its holder's a little longer.
   */
  readonly #seenAlive = new Map<string, number>();
  readonly #monotonic: () => number;

  /**
   * `ttlMs`: the leases bucket's TTL (the key is rewritten every third of it); `monotonic`: the
   * clock answers are cached by.
   */
  constructor(kv: KV, nodeId: string, ttlMs: number, monotonic = () => performance.now()) {
    this.#kv = kv;
    this.#monotonic = monotonic;
    this.#renewMs = ttlMs / 3;
    this.instance = `${nodeId}.${crypto.randomUUID().slice(0, 8)}`;
  }

  /** Writes the key when a third of the TTL passed since the last write (one scheduler pass). */
  pass(nowMs: number): void {
    if (this.#renewing || nowMs - this.#renewedMs < this.#renewMs) return;
    this.#renewing = true;
    this.#renewedMs = nowMs;
    this.#kv.put(PREFIX + this.instance, new Uint8Array(0)).catch(() => {
      // NATS unreachable: the next pass tries again (the key may expire meanwhile, as leases do).
      this.#renewedMs = -Infinity;
    }).finally(() => this.#renewing = false);
  }

  /**
   * Whether process `instance`'s key is live. Throws when NATS cannot answer (the caller must not
   * judge a holder dead for that).
   */
  async isAlive(instance: string): Promise<boolean> {
    if (instance === this.instance) return true;
    const seenMs = this.#seenAlive.get(instance);
    if (seenMs !== undefined && this.#monotonic() - seenMs < this.#renewMs) return true;
    const entry = await this.#kv.get(PREFIX + instance);
    const alive = entry !== null && entry.operation === "PUT";
    if (alive) this.#seenAlive.set(instance, this.#monotonic());
    else this.#seenAlive.delete(instance);
    return alive;
  }

  /** Takes the key away (the node is stopping: what it held is free at once). */
  async close(): Promise<void> {
    try {
      await this.#kv.delete(PREFIX + this.instance);
    } catch {
      // NATS unreachable: the TTL frees it.
    }
  }
}

/** Subject on which a node process answers while it is connected to NATS (see {@link answerAlive}). */
export function aliveSubject(nodeId: string): string {
  return `snowfire.alive.${nodeId}`;
}

/**
 * Answers every request on {@link aliveSubject}`(nodeId)` with an empty reply, for as long as this
 * connection lives: NATS drops the subscription the moment the process dies (kill -9 closes its
 * socket), so a request then meets "no responders" at once, long before any TTL runs out.
 *
 * @example
 * ```ts ignore
 * const sub = answerAlive(link.nc, "node-a");
 * sub.unsubscribe(); // on close
 * ```
 */
export function answerAlive(nc: NatsConnection, nodeId: string): Subscription {
  return nc.subscribe(aliveSubject(nodeId), {
    callback: (_err, msg) => {
      msg.respond();
    },
  });
}

/**
 * True only when NATS says nobody answers for node `nodeId`: no process of that id is connected
 * (it died, or lost NATS). A slow or failed answer is not taken for death: false then (the lease
 * TTL still decides). With `confirmAfterMs`, "nobody" must be said twice that far apart (see
 * `acquireLease`). Safe to act on either way: the log's fencing deposes an owner that was only
 * cut off, and a new owner starts above every horizon the old one reserved.
 *
 * @example
 * ```ts ignore
 * if (await holderGone(link.nc, "node-a")) await link.leases.delete(scene, { previousSeq });
 * ```
 */
export async function holderGone(
  nc: NatsConnection,
  nodeId: string,
  timeoutMs = 500,
  confirmAfterMs = 0,
): Promise<boolean> {
  const ask = async () => {
    try {
      await nc.request(aliveSubject(nodeId), undefined, { timeout: timeoutMs });
      return false;
    } catch (e) {
      return isNoResponders(e);
    }
  };
  if (!await ask()) return false;
  if (confirmAfterMs <= 0) return true;
  // Asked again later: a process whose NATS server just died is reconnecting to another one
  // (a few hundred ms) and answers again once it has.
  await new Promise((r) => setTimeout(r, confirmAfterMs));
  return await ask();
}
