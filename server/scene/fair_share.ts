/**
 * A fair share of the sky. Besides the sky's cap (the `SkyLedger`), nobody may hold more than
 * their share of it: a network (IPv4 /24, IPv6 /64) may hold at most `cap / n`, n counting the
 * networks that hold room now or asked for some in the last CONTEND_TICKS (a refused launch still
 * counts: it is how a waiting guest shrinks the others' shares); an address its network's share
 * over the addresses contending in it; a person (browser token, else connection) their address's
 * share over the people contending from it. Alone, that is the whole sky; fifty sockets from
 * forty-nine addresses of one network beside one guest from another share it by network, half and
 * half. Someone holding nothing is judged by the sky's cap alone, so a
 * share smaller than one launch never locks a person out. The show is nobody's.
 *
 * @example
 * ```ts
 * const fair = new FairShare(1000);
 * fair.admit("p1", "10.0.0.1", 600, 90, 0); // null: alone, the whole sky is theirs
 * fair.admit("p2", "10.0.0.2", 100, 90, 0); // null
 * fair.admit("p1", "10.0.0.1", 600, 90, 0); // retry ticks: over half the sky
 * ```
 */

import { addressKey, networkKey } from "./ratelimit.ts";

/** Asking for room counts a person or address as a contender for this long (5 s). */
export const CONTEND_TICKS = 300;

/**
 * One holder's reservations (particles until endTick), ordered by end tick, with their running
 * total: admitting asks only for the total, and ended reservations leave from the front, so the
 * hot path never sums or sorts a holder's list (a busy person holds hundreds).
 */
class Holdings {
  readonly #particles: number[] = [];
  readonly #ends: number[] = [];
  /** Index of the first reservation not yet ended (the ones before it are dropped lazily). */
  #head = 0;
  total = 0;

  get empty(): boolean {
    return this.#head === this.#ends.length;
  }

  add(particles: number, endTick: number): void {
    // Nearly always the latest end; otherwise walk back to keep the order by end tick.
    let i = this.#ends.length;
    while (i > this.#head && this.#ends[i - 1] > endTick) i--;
    this.#particles.splice(i, 0, particles);
    this.#ends.splice(i, 0, endTick);
    this.total += particles;
  }

  /** Takes out one reservation of exactly `particles` until `endTick` (when held). */
  remove(particles: number, endTick: number): void {
    for (let i = this.#head; i < this.#ends.length; i++) {
      if (this.#ends[i] === endTick && this.#particles[i] === particles) {
        this.#particles.splice(i, 1);
        this.#ends.splice(i, 1);
        this.total -= particles;
        return;
      }
    }
  }

  /** Drops the reservations ended by `tick`. */
  expire(tick: number): void {
    const ends = this.#ends;
    let head = this.#head;
    while (head < ends.length && ends[head] <= tick) this.total -= this.#particles[head++];
    // Shrink now and then, so the arrays stay as long as what is held.
    if (head > 64 && head * 2 > ends.length) {
      this.#particles.splice(0, head);
      ends.splice(0, head);
      head = 0;
    }
    this.#head = head;
  }

  /**
   * Ticks after `tick` until enough ends that `particles` more fit under `share` (0 when they
   * fit now; at least 1 otherwise).
   */
  wait(particles: number, share: number, tick: number): number {
    if (this.total + particles <= share) return 0;
    let freed = this.total;
    let at = tick + 1;
    for (let i = this.#head; i < this.#ends.length; i++) {
      freed -= this.#particles[i];
      at = this.#ends[i];
      if (freed + particles <= share) break;
    }
    return Math.max(1, at - tick);
  }
}

/** One level of holders (networks, addresses in a network, people at an address). */
class Level {
  readonly held = new Map<string, Holdings>();
  /** When each holder last asked for room. */
  readonly asked = new Map<string, number>();
  /** Each holder's parent at the level above (none at the top). */
  readonly parentOf = new Map<string, string>();

  /**
   * Drops ended reservations and stale asks (and the parents of holders gone); returns how many
   * contenders are left under `parent` (all of them when undefined).
   */
  contenders(tick: number, parent?: string): number {
    for (const [key, held] of this.held) {
      held.expire(tick);
      if (held.empty) this.held.delete(key);
    }
    let n = 0;
    for (const [key, at] of this.asked) {
      if (tick - at > CONTEND_TICKS) {
        this.asked.delete(key);
        if (!this.held.has(key)) this.parentOf.delete(key);
      }
    }
    for (const key of this.held.keys()) {
      if (parent === undefined || this.parentOf.get(key) === parent) n++;
    }
    for (const key of this.asked.keys()) {
      if (!this.held.has(key) && (parent === undefined || this.parentOf.get(key) === parent)) n++;
    }
    return n;
  }

  wait(key: string, particles: number, share: number, tick: number): number {
    const held = this.held.get(key);
    return held ? held.wait(particles, share, tick) : 0;
  }

  add(key: string, particles: number, endTick: number): void {
    let held = this.held.get(key);
    if (!held) this.held.set(key, held = new Holdings());
    held.add(particles, endTick);
  }

  remove(key: string, particles: number, endTick: number): void {
    const held = this.held.get(key);
    if (!held) return;
    held.remove(particles, endTick);
    if (held.empty) this.held.delete(key);
  }
}

/** Where a holder is: its network, its address and the person (their keys at each level). */
interface Place {
  network: string;
  address: string;
  person: string;
}

/**
 * Per-holder sky room, by network (IPv4 /24, IPv6 /64), by address within it and by person
 * (browser token, else connection) at the address.
 */
export class FairShare {
  readonly cap: number;
  readonly #networks = new Level();
  readonly #addresses = new Level();
  readonly #people = new Level();
  /** Where each sender (peer id) was last seen. */
  readonly #placeOf = new Map<string, Place>();

  constructor(cap: number) {
    this.cap = cap;
  }

  /** The keys `by` (from `address`, with browser token hash `person`, when known) holds under. */
  #place(by: string, address: string | undefined, person: string | undefined): Place {
    const place = address === undefined
      ? { network: `peer:${by}`, address: `peer:${by}`, person: `peer:${by}` }
      : {
        network: networkKey(address),
        address: addressKey(address),
        person: person === undefined ? `peer:${by}` : `person:${person}`,
      };
    this.#placeOf.set(by, place);
    this.#addresses.parentOf.set(place.address, place.network);
    this.#people.parentOf.set(place.person, place.address);
    return place;
  }

  /**
   * Whether `by` (from `address`, with browser token hash `person`, when known) may take
   * `particles` more now at `tick`: null when it may (the room is recorded), else the ticks until
   * its share allows it. A network's share is `cap / networks contending`; an address's, its
   * network's share over the addresses contending in it; a person's, their address's share over
   * the people contending from it.
   */
  admit(
    by: string,
    address: string | undefined,
    particles: number,
    endTick: number,
    tick: number,
    person?: string,
  ): number | null {
    const place = this.#place(by, address, person);
    this.#networks.asked.set(place.network, tick);
    this.#addresses.asked.set(place.address, tick);
    this.#people.asked.set(place.person, tick);
    const networkShare = this.cap / Math.max(1, this.#networks.contenders(tick));
    const addressShare = networkShare /
      Math.max(1, this.#addresses.contenders(tick, place.network));
    const personShare = addressShare / Math.max(1, this.#people.contenders(tick, place.address));
    const wait = Math.max(
      this.#networks.wait(place.network, particles, networkShare, tick),
      this.#addresses.wait(place.address, particles, addressShare, tick),
      this.#people.wait(place.person, particles, personShare, tick),
    );
    if (wait > 0) return wait;
    this.#networks.add(place.network, particles, endTick);
    this.#addresses.add(place.address, particles, endTick);
    this.#people.add(place.person, particles, endTick);
    return null;
  }

  /** Records room held by a stored event (a reload; its address is not known). */
  restore(by: string, particles: number, endTick: number, tick: number): void {
    if (endTick <= tick) return;
    const place = this.#placeOf.get(by) ?? this.#place(by, undefined, undefined);
    this.#networks.add(place.network, particles, endTick);
    this.#addresses.add(place.address, particles, endTick);
    this.#people.add(place.person, particles, endTick);
  }

  /** Gives back room whose event was never stored. */
  release(
    by: string,
    address: string | undefined,
    particles: number,
    endTick: number,
    person?: string,
  ): void {
    const place = this.#place(by, address, person);
    this.#networks.remove(place.network, particles, endTick);
    this.#addresses.remove(place.address, particles, endTick);
    this.#people.remove(place.person, particles, endTick);
  }

  /** Networks holding room or asking for it at `tick` (after an `admit` at that tick). */
  holders(tick: number): number {
    return this.#networks.contenders(tick);
  }
}
