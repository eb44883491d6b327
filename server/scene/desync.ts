/**
 * Desync detection: peers report their world hash at checkpoint ticks; once a majority of the
 * peers that could judge a tick reported (or a timeout passed), the peers whose hash differs from
 * the most common one are the minority and need a resync.
 */

/** A decided checkpoint: who disagreed with the majority. */
export interface Verdict {
  tick: number;
  /** Peer ids whose hash was not the majority's. */
  minority: string[];
  /** True when the top hashes tied, so nobody could be called wrong. */
  tie: boolean;
}

interface Ballot {
  firstMs: number;
  hashes: Map<string, string>;
}

/** How many decided checkpoints are remembered to judge late reports against. */
const REMEMBERED_VERDICTS = 32;

/** Hash reports of one room, per checkpoint tick. */
export class HashVotes {
  readonly #ballots = new Map<number, Ballot>();
  /** Majority hash of recently decided ticks (null after a tie), for reports that come late. */
  readonly #settled = new Map<number, string | null>();
  /** Late reports that disagreed with their tick's settled majority. */
  #late: Verdict[] = [];
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** True when some tick awaits a decision or a late report awaits its verdict. */
  get pending(): boolean {
    return this.#ballots.size > 0 || this.#late.length > 0;
  }

  /**
   * Records `peer`'s hash for `tick` (a repeated report replaces the earlier one). A report for a
   * tick already decided is judged at once against that tick's majority.
   */
  report(tick: number, peer: string, hash: string, nowMs: number): void {
    if (this.#settled.has(tick)) {
      const majority = this.#settled.get(tick);
      if (majority !== null && majority !== hash) {
        this.#late.push({ tick, minority: [peer], tie: false });
      }
      return;
    }
    let ballot = this.#ballots.get(tick);
    if (!ballot) {
      ballot = { firstMs: nowMs, hashes: new Map() };
      this.#ballots.set(tick, ballot);
    }
    ballot.hashes.set(peer, hash);
  }

  /**
   * Decides every tick that a majority of its eligible peers reported, or whose first report is
   * older than the timeout; decided ticks are forgotten.
   * @param eligible how many present peers could report for a tick (joined before it).
   */
  decide(nowMs: number, eligible: (tick: number) => number): Verdict[] {
    const verdicts = this.#late;
    this.#late = [];
    for (const [tick, ballot] of this.#ballots) {
      const majorityIn = ballot.hashes.size * 2 > eligible(tick);
      if (!majorityIn && nowMs - ballot.firstMs < this.#timeoutMs) continue;
      this.#ballots.delete(tick);
      const verdict = judge(tick, ballot.hashes);
      verdicts.push(verdict);
      this.#settled.set(tick, verdict.tie ? null : verdict.majority);
      if (this.#settled.size > REMEMBERED_VERDICTS) {
        this.#settled.delete(this.#settled.keys().next().value!);
      }
    }
    return verdicts.map(({ tick, minority, tie }) => ({ tick, minority, tie }));
  }

  /** Forgets a peer's pending reports (it left). */
  forget(peer: string): void {
    for (const ballot of this.#ballots.values()) ballot.hashes.delete(peer);
  }
}

function judge(
  tick: number,
  hashes: Map<string, string>,
): Verdict & { majority: string } {
  const counts = new Map<string, number>();
  for (const h of hashes.values()) counts.set(h, (counts.get(h) ?? 0) + 1);
  let best = "";
  let bestCount = 0;
  let tie = false;
  for (const [h, n] of counts) {
    if (n > bestCount) {
      best = h;
      bestCount = n;
      tie = false;
    } else if (n === bestCount) {
      tie = true;
    }
  }
  if (tie) return { tick, minority: [], tie: true, majority: "" };
  const minority: string[] = [];
  for (const [peer, h] of hashes) if (h !== best) minority.push(peer);
  return { tick, minority, tie: false, majority: best };
}

// ---------------------------------------------------------------- arbitration by the server

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
        actions.push({ kind: "resync", peer, tick });
      }
    }
    return actions;
  }
}
