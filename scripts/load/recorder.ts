/**
 * An append-only log of (launch key, receive time) pairs in growable typed arrays: one entry per
 * event frame a load client receives. Appending does not allocate except when the arrays double.
 */
export class DeliveryLog {
  #keys: Int32Array;
  #times: Float64Array;
  #length = 0;

  constructor(initialCapacity = 1 << 16) {
    this.#keys = new Int32Array(initialCapacity);
    this.#times = new Float64Array(initialCapacity);
  }

  /** Number of entries. */
  get length(): number {
    return this.#length;
  }

  /** Appends one delivery. */
  push(key: number, time: number): void {
    if (this.#length === this.#keys.length) this.#grow();
    this.#keys[this.#length] = key;
    this.#times[this.#length] = time;
    this.#length++;
  }

  /** Key of entry `index`. */
  key(index: number): number {
    return this.#keys[index];
  }

  /** Receive time of entry `index`. */
  time(index: number): number {
    return this.#times[index];
  }

  /** Forgets every entry but keeps the storage. */
  clear(): void {
    this.#length = 0;
  }

  #grow(): void {
    const keys = new Int32Array(this.#keys.length * 2);
    keys.set(this.#keys);
    this.#keys = keys;
    const times = new Float64Array(this.#times.length * 2);
    times.set(this.#times);
    this.#times = times;
  }
}
