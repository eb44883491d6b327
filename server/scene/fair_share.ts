/**
 * A fair share of the sky. Besides the sky's cap (the `SkyLedger`), nobody may hold more than
 * their share of it: an address may hold at most `cap / n`, n counting the addresses that hold
 * room now or asked for some in the last CONTEND_TICKS (a refused launch still counts: it is how
 * a waiting guest shrinks the others' shares), and a person their address's share over the people
 * contending from it. Alone, that is the whole sky; fifty sockets from one address beside one guest share
 * it by address, half and half. Someone holding nothing is judged by the sky's cap alone, so a
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

/** Per-holder sky room, by address and by person within it. */
export class FairShare {
  readonly cap: number;
  readonly #people = new Map<string, Holdings>();
  readonly #addresses = new Map<string, Holdings>();
  /** When each person / address last asked for room. */
  readonly #peopleAsked = new Map<string, number>();
  readonly #addressesAsked = new Map<string, number>();
  /** Each person's address (a person whose address is unknown is an address of their own). */
  readonly #addressOf = new Map<string, string>();

  constructor(cap: number) {
    this.cap = cap;
  }

  /**
   * Whether `by` (from `address`, when known) may take `particles` more now at `tick`: null
   * when it may (the room is recorded), else the ticks until its share allows it. An address's
   * share is `cap / addresses contending`; a person's is their address's share over the people
   * contending from it.
   */
  admit(
    by: string,
    address: string | undefined,
    particles: number,
    endTick: number,
    tick: number,
  ): number | null {
    const place = address ?? `peer:${by}`;
    this.#addressOf.set(by, place);
    this.#peopleAsked.set(by, tick);
    this.#addressesAsked.set(place, tick);
    const addresses = FairShare.#contenders(this.#addresses, this.#addressesAsked, tick);
    FairShare.#contenders(this.#people, this.#peopleAsked, tick, this.#addressOf);
    const addressShare = this.cap / Math.max(1, addresses);
    let here = 0;
    for (const person of this.#peopleAsked.keys()) {
      if (this.#addressOf.get(person) === place) here++;
    }
    for (const person of this.#people.keys()) {
      if (!this.#peopleAsked.has(person) && this.#addressOf.get(person) === place) here++;
    }
    const personShare = addressShare / Math.max(1, here);
    const wait = Math.max(
      FairShare.#wait(this.#addresses.get(place), particles, addressShare, tick),
      FairShare.#wait(this.#people.get(by), particles, personShare, tick),
    );
    if (wait > 0) return wait;
    FairShare.#add(this.#people, by, particles, endTick);
    FairShare.#add(this.#addresses, place, particles, endTick);
    return null;
  }

  /** Records room held by a stored event (a reload; its address is not known). */
  restore(by: string, particles: number, endTick: number, tick: number): void {
    if (endTick <= tick) return;
    const place = this.#addressOf.get(by) ?? `peer:${by}`;
    this.#addressOf.set(by, place);
    FairShare.#add(this.#people, by, particles, endTick);
    FairShare.#add(this.#addresses, place, particles, endTick);
  }

  /** Gives back room whose event was never stored. */
  release(by: string, address: string | undefined, particles: number, endTick: number): void {
    FairShare.#remove(this.#people, by, particles, endTick);
    FairShare.#remove(this.#addresses, address ?? `peer:${by}`, particles, endTick);
  }

  /** Addresses holding room or asking for it at `tick` (after an `admit` at that tick). */
  holders(tick: number): number {
    return FairShare.#contenders(this.#addresses, this.#addressesAsked, tick);
  }

  /**
   * Drops ended reservations and stale asks (and, for people, forgotten addresses); returns
   * how many contenders are left.
   */
  static #contenders(
    map: Map<string, Holdings>,
    asked: Map<string, number>,
    tick: number,
    addressOf?: Map<string, string>,
  ): number {
    for (const [key, held] of map) {
      held.expire(tick);
      if (held.empty) map.delete(key);
    }
    let n = map.size;
    for (const [key, at] of asked) {
      if (tick - at > CONTEND_TICKS) {
        asked.delete(key);
        if (!map.has(key)) addressOf?.delete(key);
      } else if (!map.has(key)) n++;
    }
    return n;
  }

  /** Ticks until `held` leaves room for `particles` under `share` (nobody holding nothing waits). */
  static #wait(held: Holdings | undefined, particles: number, share: number, tick: number): number {
    return held ? held.wait(particles, share, tick) : 0;
  }

  static #add(map: Map<string, Holdings>, key: string, particles: number, endTick: number): void {
    let held = map.get(key);
    if (!held) map.set(key, held = new Holdings());
    held.add(particles, endTick);
  }

  static #remove(
    map: Map<string, Holdings>,
    key: string,
    particles: number,
    endTick: number,
  ): void {
    const held = map.get(key);
    if (!held) return;
    held.remove(particles, endTick);
    if (held.empty) map.delete(key);
  }
}
