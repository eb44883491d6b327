/**
 * Names held scene-wide in cluster mode: one key per (scene, name) in the `snowfire_names` KV
 * bucket, taken by an atomic create, so two people saying hello with one name on two nodes at
 * the same moment cannot both get it (the second create is refused and that person takes the
 * next suffix). A key is renewed while its person is here, deleted when they leave, and expires
 * with the bucket's TTL when their node dies.
 */
import type { KV } from "@nats-io/kv";
import { nameKey } from "../scene/names.ts";
import { isWrongLastSequence } from "./nats_errors.ts";

/** A name key lives this long without renewal (a dead node's people free their names then). */
export const NAME_TTL_MS = 30_000;
/** Held names are renewed this often… */
const RENEW_MS = NAME_TTL_MS / 3;
/**
 * …each on its own period from when it was claimed, at most this many a pass: renewing all of a
 * node's names at once (500 KV writes in the load test) held its event loop up to 75 ms every
 * period, delaying every frame meanwhile.
 */
const RENEW_BATCH = 50;

const encoder = new TextEncoder();

/** A held name: its key, the revision of its last write, and when that was asked (monotonic ms). */
interface Held {
  key: string;
  revision: number;
  renewedMs: number;
}

/** Whoever holds a name (a peer): `gone` once it left. */
export interface NameHolder {
  readonly id: string;
  readonly gone: boolean;
}

/**
 * The bucket key of `name` in `scene`: its comparison key (`nameKey`) as hex UTF-8 (KV keys
 * allow only `[-/_=.a-zA-Z0-9]`).
 *
 * @example
 * ```ts
 * nameClaimKey("quiet-pine", "Ana"); // "quiet-pine.616e61"
 * ```
 */
export function nameClaimKey(scene: string, name: string): string {
  let hex = "";
  for (const byte of encoder.encode(nameKey(name))) hex += byte.toString(16).padStart(2, "0");
  return `${scene}.${hex}`;
}

/**
 * The names this node's people hold.
 *
 * @example
 * ```ts ignore
 * const claims = new NameClaims(link.names, "node-a", console.log);
 * if (await claims.claim("quiet-pine", peer, "Ana")) peer.name = "Ana";
 * claims.release(peer); // when the peer leaves
 * ```
 */
export class NameClaims {
  readonly #kv: KV;
  readonly #nodeId: string;
  readonly #log: (msg: string) => void;
  /** Each holder's one name: its key, the revision of the last write and when it was written. */
  readonly #held = new Map<NameHolder, Held>();
  /** The last pass's time (a claim counts as written then). */
  #nowMs = -Infinity;
  /** No held name is due for renewal before this. */
  #nextDueMs = -Infinity;
  #renewing = false;
  #failing = false;

  constructor(kv: KV, nodeId: string, log: (msg: string) => void) {
    this.#kv = kv;
    this.#nodeId = nodeId;
    this.#log = log;
  }

  /** Names held here now. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Takes `name` in `scene` for `holder` (giving up the name it held before); false when someone
   * else holds it. When NATS cannot answer, true: the name is then told apart only from the
   * names this node knows (a hello is never held up by a failing bucket).
   */
  async claim(scene: string, holder: NameHolder, name: string): Promise<boolean> {
    const key = nameClaimKey(scene, name);
    const before = this.#held.get(holder);
    if (before?.key === key) return true;
    let revision: number;
    try {
      revision = await this.#kv.create(key, encoder.encode(`${this.#nodeId} ${holder.id}`));
    } catch (e) {
      if (isWrongLastSequence(e)) return false;
      this.#fault(e);
      return true;
    }
    this.#failing = false;
    if (holder.gone) {
      // Left while asking: give it back at once.
      this.#delete(key, revision);
      return true;
    }
    this.#held.set(holder, { key, revision, renewedMs: this.#nowMs });
    this.#nextDueMs = Math.min(this.#nextDueMs, this.#nowMs + RENEW_MS);
    if (before) this.#delete(before.key, before.revision);
    return true;
  }

  /** `holder` left: its name is free again. */
  release(holder: NameHolder): void {
    const held = this.#held.get(holder);
    if (!held) return;
    this.#held.delete(holder);
    this.#delete(held.key, held.revision);
  }

  /**
   * Renews each held name {@link RENEW_MS} after its last write, at most {@link RENEW_BATCH} a
   * pass (one scheduler pass).
   */
  pass(nowMs: number): void {
    this.#nowMs = nowMs;
    if (this.#renewing || nowMs < this.#nextDueMs || this.#held.size === 0) return;
    const due: [NameHolder, Held][] = [];
    let nextDueMs = Infinity;
    for (const entry of this.#held) {
      const dueMs = entry[1].renewedMs + RENEW_MS;
      if (dueMs <= nowMs && due.length < RENEW_BATCH) {
        entry[1].renewedMs = nowMs;
        due.push(entry);
        nextDueMs = Math.min(nextDueMs, nowMs + RENEW_MS);
      } else nextDueMs = Math.min(nextDueMs, dueMs);
    }
    this.#nextDueMs = nextDueMs;
    this.#renewing = true;
    const renewals = due.map(async ([holder, held]) => {
      try {
        held.revision = await this.#kv.update(
          held.key,
          encoder.encode(`${this.#nodeId} ${holder.id}`),
          held.revision,
        );
      } catch (e) {
        // Expired (NATS unreachable past the TTL) and maybe taken since: try to take it back.
        if (!isWrongLastSequence(e)) return this.#fault(e);
        try {
          held.revision = await this.#kv.create(
            held.key,
            encoder.encode(`${this.#nodeId} ${holder.id}`),
          );
        } catch {
          if (this.#held.get(holder) === held) this.#held.delete(holder);
        }
      }
    });
    Promise.all(renewals).finally(() => this.#renewing = false);
  }

  /** Gives every held name back (the node is stopping). */
  async close(): Promise<void> {
    const held = [...this.#held.values()];
    this.#held.clear();
    await Promise.all(held.map(({ key, revision }) => this.#delete(key, revision)));
  }

  /** Deletes `key` if it is still at `revision` (never someone else's newer claim). */
  async #delete(key: string, revision: number): Promise<void> {
    try {
      await this.#kv.delete(key, { previousSeq: revision });
    } catch {
      // Taken over or gone already, or NATS unreachable: the TTL frees it.
    }
  }

  #fault(e: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#log(`cluster: names: the names bucket failed (${(e as Error).message})`);
  }
}
