/**
 * Desync arbitration: peers report their world hash at checkpoint ticks; when the reports for a
 * tick disagree, the server computes the true hash itself and resyncs (or, again and again,
 * disconnects) only the peers that differ from it. A majority of anonymous connections decides
 * nothing. Used by the single node's room and by a cluster's scene owner alike.
 */

/** How many decided checkpoints are remembered to judge late reports against. */
const REMEMBERED_VERDICTS = 32;

/** What a room should do about a peer after an arbitrated checkpoint. */
export type DesyncAction =
  | { kind: "resync"; peer: string; tick: number }
  | { kind: "disconnect"; peer: string; tick: number; strikes: number };

/** Limits of {@link DesyncJudge}. */
export interface DesyncLimits {
  /** How long a checkpoint's reports are gathered before a dispute is settled, ms. */
  timeoutMs: number;
  /** Least time between two hash computations for one scene, ms (each costs up to ~45 ms). */
  arbitrationIntervalMs: number;
  /** Least time between two resyncs of one peer, ms (each sends a full welcome). */
  resyncIntervalMs: number;
  /** Wrong hashes within `strikeWindowMs` after which a peer is disconnected (1008). */
  strikesToDisconnect: number;
  strikeWindowMs: number;
}

/** Defaults: a scene computes at most every 2 s; a peer is resynced at most every 10 s. */
export const DEFAULT_DESYNC_LIMITS: Readonly<DesyncLimits> = Object.freeze({
  timeoutMs: 3000,
  arbitrationIntervalMs: 2000,
  resyncIntervalMs: 10_000,
  strikesToDisconnect: 3,
  strikeWindowMs: 60_000,
});

/** Counters a judge updates (the server's metrics). */
export interface DesyncStats {
  desyncArbitrations: number;
  desyncUnsettled: number;
}

/** Computes the true hash at a tick, or returns undefined when it cannot (window gone, busy). */
export type TrueHash = (tick: number) => Promise<string> | undefined;

interface Dispute {
  firstMs: number;
  hashes: Map<string, string>;
  /** Set while the true hash is being computed. */
  computing: boolean;
}

/**
 * Desync arbitration the server can trust. Peers report their hash at checkpoint ticks; when the
 * reports for a tick disagree, the server computes the true hash itself (from the window, see
 * `worldFromWindow`) instead of trusting a majority that anonymous connections could form. Only
 * peers whose hash differs from the truth are resynced (at most once per `resyncIntervalMs`);
 * peers wrong again and again are disconnected. Computations are rate-limited per scene; a
 * dispute that cannot be computed resyncs nobody.
 *
 * @example
 * ```ts
 * const judge = new DesyncJudge(DEFAULT_DESYNC_LIMITS, (tick) => Promise.resolve("aa"));
 * judge.report(60, "p1", "aa", 0);
 * judge.report(60, "p2", "bb", 0);
 * judge.decide(10, () => 2, (actions) => console.log(actions));
 * // later: [{ kind: "resync", peer: "p2", tick: 60 }]
 * ```
 */
export class DesyncJudge {
  readonly #limits: DesyncLimits;
  readonly #trueHash: TrueHash;
  readonly #reports = new Map<number, Dispute>();
  /**
   * Recently decided ticks: the computed truth, or the reports' consensus with the reports (a
   * late report that disagrees with a consensus reopens it for arbitration).
   */
  readonly #settled = new Map<
    number,
    { hash: string; computed: boolean; hashes: Map<string, string> }
  >();
  /** Times each peer was found wrong, within the strike window. */
  readonly #strikes = new Map<string, number[]>();
  readonly #lastResync = new Map<string, number>();
  #lastComputeMs = -Infinity;
  readonly #stats: DesyncStats;

  constructor(
    limits: DesyncLimits,
    trueHash: TrueHash,
    stats: DesyncStats = { desyncArbitrations: 0, desyncUnsettled: 0 },
  ) {
    this.#limits = limits;
    this.#trueHash = trueHash;
    this.#stats = stats;
  }

  /** True when some checkpoint awaits a decision. */
  get pending(): boolean {
    return this.#reports.size > 0;
  }

  /** Records `peer`'s hash for `tick` (a repeated report replaces the earlier one). */
  report(tick: number, peer: string, hash: string, nowMs: number): void {
    const settled = this.#settled.get(tick);
    if (settled?.computed) {
      // The truth is known: a late report is judged at once (on the next decide).
      if (settled.hash === hash) return;
    } else if (settled && settled.hash === hash) {
      return;
    }
    let dispute = this.#reports.get(tick);
    if (!dispute) {
      dispute = { firstMs: nowMs, hashes: new Map(), computing: false };
      if (settled && !settled.computed) {
        // A late report against a consensus reopens it: the consensus may be the lie.
        dispute.hashes = new Map(settled.hashes);
        this.#settled.delete(tick);
      }
      this.#reports.set(tick, dispute);
    }
    dispute.hashes.set(peer, hash);
  }

  /** Drops a peer's pending reports: it was just resynced, they describe its old world. */
  resynced(peer: string): void {
    for (const dispute of this.#reports.values()) dispute.hashes.delete(peer);
  }

  /** Forgets a peer (it left). */
  forget(peer: string): void {
    for (const dispute of this.#reports.values()) dispute.hashes.delete(peer);
    this.#strikes.delete(peer);
    this.#lastResync.delete(peer);
  }

  /**
   * Settles checkpoints whose reports are in (every eligible peer reported, or the timeout
   * passed). Agreement settles at once; a disagreement starts a computation of the truth
   * (rate-limited), whose verdict `act` receives when it is ready.
   * @param eligible how many present peers could report for a tick (joined before it).
   */
  decide(
    nowMs: number,
    eligible: (tick: number) => number,
    act: (actions: DesyncAction[]) => void,
  ): void {
    for (const [tick, dispute] of this.#reports) {
      if (dispute.computing) continue;
      const known = this.#settled.get(tick);
      if (known?.computed) {
        // Late reports against a computed truth.
        this.#reports.delete(tick);
        act(this.#judge(tick, known.hash, dispute.hashes, nowMs));
        continue;
      }
      const all = dispute.hashes.size >= eligible(tick);
      if (!all && nowMs - dispute.firstMs < this.#limits.timeoutMs) continue;
      const distinct = new Set(dispute.hashes.values());
      if (distinct.size === 1) {
        this.#reports.delete(tick);
        this.#settle(tick, [...distinct][0], false, dispute.hashes);
        continue;
      }
      const computation = nowMs - this.#lastComputeMs >= this.#limits.arbitrationIntervalMs
        ? this.#trueHash(tick)
        : undefined;
      if (!computation) {
        // No truth to be had now: nobody is resynced on the reports' word alone.
        this.#reports.delete(tick);
        this.#stats.desyncUnsettled++;
        continue;
      }
      this.#lastComputeMs = nowMs;
      dispute.computing = true;
      computation.then(
        (truth) => {
          this.#stats.desyncArbitrations++;
          this.#reports.delete(tick);
          this.#settle(tick, truth, true, new Map());
          act(this.#judge(tick, truth, dispute.hashes, nowMs));
        },
        () => {
          this.#reports.delete(tick);
          this.#stats.desyncUnsettled++;
        },
      );
    }
  }

  #settle(tick: number, hash: string, computed: boolean, hashes: Map<string, string>): void {
    this.#settled.set(tick, { hash, computed, hashes });
    if (this.#settled.size > REMEMBERED_VERDICTS) {
      this.#settled.delete(this.#settled.keys().next().value!);
    }
  }

  #judge(
    tick: number,
    truth: string,
    hashes: Map<string, string>,
    nowMs: number,
  ): DesyncAction[] {
    const actions: DesyncAction[] = [];
    const limits = this.#limits;
    for (const [peer, hash] of hashes) {
      if (hash === truth) continue;
      const strikes = (this.#strikes.get(peer) ?? []).filter((t) =>
        nowMs - t < limits.strikeWindowMs
      );
      strikes.push(nowMs);
      this.#strikes.set(peer, strikes);
      if (strikes.length >= limits.strikesToDisconnect) {
        actions.push({ kind: "disconnect", peer, tick, strikes: strikes.length });
        continue;
      }
      const last = this.#lastResync.get(peer) ?? -Infinity;
      if (nowMs - last >= limits.resyncIntervalMs) {
        this.#lastResync.set(peer, nowMs);
        // Its pending reports describe the world it is about to rebuild: they go.
        this.resynced(peer);
        actions.push({ kind: "resync", peer, tick });
      }
    }
    return actions;
  }
}
