/**
 * Names held scene-wide in cluster mode: one key per (scene, name) in the `snowfire_names` KV
 * bucket, taken by an atomic create, so two people saying hello with one name on two nodes at
 * the same moment cannot both get it (the second create is refused and that person takes the
 * next suffix). A key says which process holds it (`NodeLiveness.instance`) and is deleted when
 * its person leaves. When a node dies its people's keys stay, but they no longer count: a claim
 * that finds a key whose process is not alive (its liveness key expired with the lease TTL)
 * takes it over by revision. So held names need no renewal beyond the bucket's long TTL, which
 * only bounds what dead processes leave behind.
 */
import type { KV } from "@nats-io/kv";
import { nameKey } from "../scene/names.ts";
import { isWrongLastSequence } from "./nats_errors.ts";

/**
 * A name key lives this long without renewal: what a dead process left is gone by then, even if
 * nobody claimed the same name. Long, because each renewal is a KV write per person.
 */
export const NAME_TTL_MS = 6 * 60 * 60_000;
/** Held names are renewed this often (two renewals may fail before one expires)… */
export const NAME_RENEW_MS = NAME_TTL_MS / 3;
/**
 * …each on its own period from when it was claimed, at most this many a pass: renewing all of a
 * node's names at once (500 KV writes in the load test) held its event loop up to 75 ms every
 * period, delaying every frame meanwhile.
 */
const RENEW_BATCH = 50;

/** Which processes are alive (`node_liveness.ts`). */
export interface ProcessLiveness {
  /** This process, as written into the keys it takes. */
  readonly instance: string;
  /** Whether `instance` is alive; throws when that cannot be told. */
  isAlive(instance: string): Promise<boolean>;
}

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
 * const claims = new NameClaims(link.names, new NodeLiveness(link.leases, "node-a", 3000), console.log);
 * if (await claims.claim("quiet-pine", peer, "Ana")) peer.name = "Ana";
 * claims.release(peer); // when the peer leaves
 * ```
 */
export class NameClaims {
  readonly #kv: KV;
  readonly #liveness: ProcessLiveness;
  readonly #log: (msg: string) => void;
  /** Each holder's one name: its key, the revision of the last write and when it was written. */
  readonly #held = new Map<NameHolder, Held>();
  /**
   * Keys held here or being asked for: a second person here asking for one is refused without a
   * round trip. (A crowd joining at once with one name otherwise asked the bucket for the same
   * candidates over and over: 1000 people called "load" took 20-45 s to join a 2-node cluster.)
   */
  readonly #local = new Set<string>();
  /** The last pass's time (a claim counts as written then). */
  #nowMs = -Infinity;
  /** No held name is due for renewal before this. */
  #nextDueMs = -Infinity;
  #renewing = false;
  #failing = false;

  constructor(kv: KV, liveness: ProcessLiveness, log: (msg: string) => void) {
    this.#kv = kv;
    this.#liveness = liveness;
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
    if (this.#local.has(key)) return false;
    this.#local.add(key);
    let revision: number;
    try {
      revision = await this.#kv.create(key, this.#value(holder));
    } catch (e) {
      if (!isWrongLastSequence(e)) {
        this.#local.delete(key);
        this.#fault(e);
        return true;
      }
      const taken = await this.#takeOver(key, holder);
      if (taken === null) {
        this.#local.delete(key);
        return false;
      }
      revision = taken;
    }
    this.#failing = false;
    if (holder.gone) {
      // Left while asking: give it back at once.
      this.#delete(key, revision);
      return true;
    }
    this.#held.set(holder, { key, revision, renewedMs: this.#nowMs });
    this.#nextDueMs = Math.min(this.#nextDueMs, this.#nowMs + NAME_RENEW_MS);
    if (before) this.#delete(before.key, before.revision);
    return true;
  }

  /** Whether someone here holds `name` in `scene`, or is asking for it right now. */
  busyHere(scene: string, name: string): boolean {
    return this.#local.has(nameClaimKey(scene, name));
  }

  /** `holder` left: its name is free again. */
  release(holder: NameHolder): void {
    const held = this.#held.get(holder);
    if (!held) return;
    this.#held.delete(holder);
    this.#delete(held.key, held.revision);
  }

  /**
   * Renews each held name {@link NAME_RENEW_MS} after its last write, at most {@link RENEW_BATCH} a
   * pass (one scheduler pass). Resolves when the round it started has ended (at once when none
   * started); never rejects (a failed renewal is reported to the fault handler).
   */
  pass(nowMs: number): Promise<void> {
    this.#nowMs = nowMs;
    if (this.#renewing || nowMs < this.#nextDueMs || this.#held.size === 0) {
      return Promise.resolve();
    }
    const due: [NameHolder, Held][] = [];
    let nextDueMs = Infinity;
    for (const entry of this.#held) {
      const dueMs = entry[1].renewedMs + NAME_RENEW_MS;
      if (dueMs <= nowMs && due.length < RENEW_BATCH) {
        entry[1].renewedMs = nowMs;
        due.push(entry);
        nextDueMs = Math.min(nextDueMs, nowMs + NAME_RENEW_MS);
      } else nextDueMs = Math.min(nextDueMs, dueMs);
    }
    this.#nextDueMs = nextDueMs;
    this.#renewing = true;
    const renewals = due.map(async ([holder, held]) => {
      try {
        held.revision = await this.#kv.update(
          held.key,
          this.#value(holder),
          held.revision,
        );
      } catch (e) {
        // Expired (NATS unreachable past the TTL) and maybe taken since: try to take it back.
        if (!isWrongLastSequence(e)) return this.#fault(e);
        try {
          held.revision = await this.#kv.create(held.key, this.#value(holder));
        } catch {
          if (this.#held.get(holder) === held) {
            this.#held.delete(holder);
            this.#local.delete(held.key);
          }
        }
      }
    });
    return Promise.all(renewals).then(() => {}, () => {}).finally(() => this.#renewing = false);
  }

  /** Gives every held name back (the node is stopping). */
  async close(): Promise<void> {
    const held = [...this.#held.values()];
    this.#held.clear();
    this.#local.clear();
    await Promise.all(held.map(({ key, revision }) => this.#delete(key, revision)));
  }

  /** A key's value: the holding process and the holder. */
  #value(holder: NameHolder): Uint8Array {
    return encoder.encode(`${this.#liveness.instance} ${holder.id}`);
  }

  /**
   * `key` exists: takes it over by revision when the process it names is not alive (its node
   * died; the key was never deleted). The new revision, or null when the name stays someone
   * else's (a live holder, a race lost, or NATS unable to tell).
   */
  async #takeOver(key: string, holder: NameHolder): Promise<number | null> {
    try {
      const entry = await this.#kv.get(key);
      if (!entry) return null;
      if (entry.operation !== "PUT") return await this.#kv.create(key, this.#value(holder));
      const instance = entry.string().split(" ", 1)[0];
      if (await this.#liveness.isAlive(instance)) return null;
      return await this.#kv.update(key, this.#value(holder), entry.revision);
    } catch {
      return null;
    }
  }

  /** Deletes `key` if it is still at `revision` (never someone else's newer claim). */
  async #delete(key: string, revision: number): Promise<void> {
    this.#local.delete(key);
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
