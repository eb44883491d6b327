/**
 * A fixed-resolution latency histogram: 0.05 ms buckets up to 5 s, one overflow bucket, and the
 * exact minimum and maximum. Recording never allocates; histograms from several processes merge
 * by adding counts, so percentiles over all receivers are exact to one bucket.
 */

/** Bucket width in milliseconds. */
export const BUCKET_MS = 0.05;
/** Samples at or above this many milliseconds land in the overflow bucket. */
export const RANGE_MS = 5000;
const BUCKETS = Math.round(RANGE_MS / BUCKET_MS);

/** Sparse wire form of a histogram: `[bucketIndex, count]` pairs plus the summary fields. */
export interface HistogramData {
  buckets: [number, number][];
  overflow: number;
  count: number;
  sum: number;
  min: number;
  max: number;
}

/** Latency histogram in milliseconds. */
export class Histogram {
  #counts = new Uint32Array(BUCKETS);
  #overflow = 0;
  #count = 0;
  #sum = 0;
  #min = Infinity;
  #max = -Infinity;

  /** Number of samples recorded. */
  get count(): number {
    return this.#count;
  }

  /** Largest sample, or NaN when empty. */
  get max(): number {
    return this.#count === 0 ? NaN : this.#max;
  }

  /** Smallest sample, or NaN when empty. */
  get min(): number {
    return this.#count === 0 ? NaN : this.#min;
  }

  /** Mean sample, or NaN when empty. */
  get mean(): number {
    return this.#count === 0 ? NaN : this.#sum / this.#count;
  }

  /** Records one sample in milliseconds; negative samples (clock skew) count as 0. */
  record(ms: number): void {
    const value = ms > 0 ? ms : 0;
    const index = Math.floor(value / BUCKET_MS);
    if (index < BUCKETS) this.#counts[index]++;
    else this.#overflow++;
    this.#count++;
    this.#sum += value;
    if (value < this.#min) this.#min = value;
    if (value > this.#max) this.#max = value;
  }

  /**
   * The `q` quantile (0 < q ≤ 1) in milliseconds: the upper edge of the bucket holding the
   * ⌈q·count⌉-th smallest sample, capped by the true maximum; NaN when empty.
   */
  quantile(q: number): number {
    if (this.#count === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    let seen = 0;
    for (let index = 0; index < BUCKETS; index++) {
      seen += this.#counts[index];
      if (seen >= rank) return Math.min((index + 1) * BUCKET_MS, this.#max);
    }
    return this.#max;
  }

  /** Forgets every sample. */
  reset(): void {
    this.#counts.fill(0);
    this.#overflow = 0;
    this.#count = 0;
    this.#sum = 0;
    this.#min = Infinity;
    this.#max = -Infinity;
  }

  /** Adds another histogram's samples to this one. */
  merge(other: HistogramData): void {
    for (const [index, count] of other.buckets) this.#counts[index] += count;
    this.#overflow += other.overflow;
    this.#count += other.count;
    this.#sum += other.sum;
    if (other.count > 0) {
      this.#min = Math.min(this.#min, other.min);
      this.#max = Math.max(this.#max, other.max);
    }
  }

  /** The sparse, JSON-safe form (for sending between processes). */
  toData(): HistogramData {
    const buckets: [number, number][] = [];
    for (let index = 0; index < BUCKETS; index++) {
      if (this.#counts[index] > 0) buckets.push([index, this.#counts[index]]);
    }
    return {
      buckets,
      overflow: this.#overflow,
      count: this.#count,
      sum: this.#sum,
      min: this.#count === 0 ? 0 : this.#min,
      max: this.#count === 0 ? 0 : this.#max,
    };
  }
}
